/**
 * `screenrecord [--time-limit N] [--size WxH] [--bit-rate R] FILE`: silent on success,
 * writes a small but structurally valid MP4 (ftyp, moov with mvhd, a video track of the
 * recorded size and its sample table, mdat). With the usb-phone profile it records for the
 * time limit (180 s by default, phone time: see the phone's virtualTime), one frame when it
 * starts and one each time the screen changes, so a still screen gives a clip that ends at
 * its last frame (QUIRKS.md "screenrecord on a still screen"); closing the stream stops it
 * early and still writes the file, as SIGHUP does on a phone. The instant profile writes one
 * frame at once.
 */
import type { CommandIo, PhoneContext } from './command-types';

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(body.length + 8, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, body]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

const IDENTITY_MATRIX = u32(0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000);

/** The video track's timescale (MPEG4Writer's default for video). */
const VIDEO_TIMESCALE = 90_000;
/** One frame at 60 fps in the video timescale: the last sample's duration, as MPEG4Writer repeats the previous one. */
const FRAME_TICKS = 1500;

/**
 * A small MP4 laid out as MediaMuxer writes one (ftyp, moov before mdat): mvhd (ms), one
 * video trak with tkhd, mdia/mdhd (90 kHz) and a sample table (stts with each frame's
 * duration, stsz, stco into mdat). `frameTimesMs` are the frames' times from the start; the
 * file lasts until the last frame plus one frame, as a real clip does.
 */
export function minimalMp4(width: number, height: number, frameTimesMs: readonly number[], nowSeconds: number): Buffer {
  const mp4Time = nowSeconds + 2082844800; // seconds since 1904-01-01
  const frames = frameTimesMs.length > 0 ? frameTimesMs : [0];
  const ticks = frames.map((ms) => Math.round((ms * VIDEO_TIMESCALE) / 1000));
  const deltas = ticks.map((t, i) => (i + 1 < ticks.length ? ticks[i + 1]! - t : FRAME_TICKS));
  const mediaTicks = ticks[ticks.length - 1]! + FRAME_TICKS;
  const durationMs = Math.round((mediaTicks * 1000) / VIDEO_TIMESCALE);
  const sampleBytes = 16;
  const ftyp = box('ftyp', Buffer.from('isom', 'latin1'), u32(0x200), Buffer.from('isomiso2avc1mp41', 'latin1'));
  const mvhd = box(
    'mvhd',
    u32(0, mp4Time, mp4Time, 1000, durationMs, 0x00010000),
    Buffer.from([0x01, 0x00, 0, 0]),
    Buffer.alloc(8),
    IDENTITY_MATRIX,
    Buffer.alloc(24),
    u32(2),
  );
  const tkhd = box(
    'tkhd',
    u32(0x00000007, mp4Time, mp4Time, 1, 0, durationMs),
    Buffer.alloc(8),
    Buffer.alloc(8),
    IDENTITY_MATRIX,
    u32(width << 16, height << 16),
  );
  const mdhd = box('mdhd', u32(0, mp4Time, mp4Time, VIDEO_TIMESCALE, mediaTicks), Buffer.from([0x55, 0xc4, 0, 0]));
  const hdlr = box(
    'hdlr',
    u32(0, 0),
    Buffer.from('vide', 'latin1'),
    u32(0, 0, 0),
    Buffer.from('VideoHandle\0', 'latin1'),
  );
  const stts = box('stts', u32(0, deltas.length), ...deltas.map((d) => u32(1, d)));
  const stsz = box('stsz', u32(0, sampleBytes, frames.length));
  const build = (chunkOffset: number): Buffer => {
    const stco = box('stco', u32(0, 1, chunkOffset));
    const stsc = box('stsc', u32(0, 1, 1, frames.length, 1));
    const stbl = box('stbl', stts, stsc, stsz, stco);
    const moov = box('moov', mvhd, box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', stbl))));
    return Buffer.concat([ftyp, moov]);
  };
  const head = build(0);
  // The one chunk of samples starts right after mdat's header.
  const withOffsets = build(head.length + 8);
  return Buffer.concat([withOffsets, box('mdat', Buffer.alloc(sampleBytes * frames.length))]);
}

/** How often the recorder looks at the screen for a new frame (phone time; a frame's time is known to this). */
const FRAME_POLL_MS = 100;

export async function screenrecordCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  let timeLimit = 180;
  let { width, height } = phone.displays.logicalSize();
  let file: string | undefined;
  const args = io.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--time-limit') {
      timeLimit = Number(args[++i]);
      if (!Number.isInteger(timeLimit) || timeLimit < 1 || timeLimit > 180) {
        io.err(`Time limit ${args[i] ?? ''} is out of range [1,180]\n`);
        return 2;
      }
    } else if (a === '--size') {
      const m = /^(\d+)x(\d+)$/.exec(args[++i] ?? '');
      if (!m) {
        io.err(`Invalid size '${args[i] ?? ''}', must be width x height\n`);
        return 2;
      }
      width = Number(m[1]);
      height = Number(m[2]);
    } else if (a === '--display-id') {
      // A foldable's panel that is not in use records at its own (natural) size.
      const panel = phone.displays.panels().find((p) => p.physicalId === args[i + 1]);
      if (panel && panel.physicalId !== phone.displays.activePanel().physicalId) ({ width, height } = panel);
      i++;
    } else if (a === '--bit-rate' || a === '--output-format' || a === '--bugreport-lines') i++;
    else if (a.startsWith('--')) continue;
    else file = a;
  }
  if (file === undefined) {
    io.err('Must specify output file (see --help).\n');
    return 2;
  }
  const started = phone.now();
  // The virtual display sends a frame only when the screen changes (a still screen sends none
  // after the first): the clip ends at its last frame, not at the time limit.
  const frames = [0];
  if (phone.profile.realDurations) {
    let version = phone.screen.version;
    const end = started + timeLimit * 1000;
    while (phone.now() < end) {
      if (!(await phone.sleep(Math.min(FRAME_POLL_MS, end - phone.now()), io.signal))) break;
      if (phone.screen.version !== version) {
        version = phone.screen.version;
        frames.push(Math.min(timeLimit * 1000, phone.now() - started));
      }
    }
  }
  try {
    phone.fs.create(file, minimalMp4(width, height, frames, Math.floor(phone.now() / 1000)));
  } catch (error) {
    io.err(`Unable to open '${file}': ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return 0;
}

/**
 * `screenrecord [--time-limit N] [--size WxH] [--bit-rate R] FILE`: silent on success,
 * writes a small but structurally valid MP4 (ftyp, moov with mvhd and a video track
 * header of the recorded size, mdat). With the usb-phone profile it records for the time
 * limit (180 s by default); closing the stream stops it early and still writes the file,
 * as SIGHUP does on a phone.
 */
import { sleepUnlessAborted } from '../timing-profiles';
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

/** A minimal MP4: enough for tools that check the box structure and read size and duration. */
export function minimalMp4(width: number, height: number, durationMs: number, nowSeconds: number): Buffer {
  const mp4Time = nowSeconds + 2082844800; // seconds since 1904-01-01
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
  const moov = box('moov', mvhd, box('trak', tkhd));
  const mdat = box('mdat', Buffer.alloc(16));
  return Buffer.concat([ftyp, moov, mdat]);
}

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
  if (phone.profile.realDurations) await sleepUnlessAborted(timeLimit * 1000, io.signal);
  const durationMs = phone.profile.realDurations ? Math.max(1, phone.now() - started) : timeLimit * 1000;
  try {
    phone.fs.create(file, minimalMp4(width, height, durationMs, Math.floor(phone.now() / 1000)));
  } catch (error) {
    io.err(`Unable to open '${file}': ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  return 0;
}

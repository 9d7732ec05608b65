/**
 * A still screen sends no frames, so `screenrecord` ends its clip at the last frame: a clip
 * of a screen that stopped changing lasts a second or two, however long it recorded
 * (callstack/agent-device#2551). The recording did run; the screen showed that last frame
 * all along. `holdLastFrame` rewrites the clip's timing so its last frame lasts until the
 * recording's real end: the last sample's duration in `stts`, and the durations in `mvhd`,
 * `tkhd`, `mdhd` and a one-entry `elst`. No sample is re-encoded; when the sample table grows
 * (a run of equal durations split in two) and `moov` comes before `mdat`, the chunk offsets
 * (`stco`/`co64`) move by as much. Pure box editing: no native code.
 */
const CONTAINERS = new Set(['moov', 'trak', 'mdia', 'minf', 'stbl', 'edts']);

interface Box {
  type: string;
  start: number;
  end: number;
  header: number;
}

function boxes(buf: Buffer, start: number, end: number): Box[] {
  const out: Box[] = [];
  let at = start;
  while (at + 8 <= end) {
    let size = buf.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      size = Number(buf.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) size = end - at;
    if (size < header || at + size > end) throw new Error(`malformed MP4 box at ${at}`);
    out.push({ type: buf.toString('latin1', at + 4, at + 8), start: at, end: at + size, header });
    at += size;
  }
  return out;
}

function sized(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(body.length + 8, 0);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

/** Reads or writes a 32- or 64-bit field. */
function field(body: Buffer, at: number, wide: boolean, value?: number): number {
  if (value !== undefined) {
    if (wide) body.writeBigUInt64BE(BigInt(Math.round(value)), at);
    else body.writeUInt32BE(Math.min(0xffffffff, Math.round(value)), at);
    return value;
  }
  return wide ? Number(body.readBigUInt64BE(at)) : body.readUInt32BE(at);
}

/** The clip's duration in ms (mvhd) and its video samples, or null when it is no readable MP4. */
export function mp4Timing(buf: Buffer): { durationMs: number; samples: number } | null {
  try {
    const moov = boxes(buf, 0, buf.length).find((b) => b.type === 'moov');
    if (!moov) return null;
    const kids = boxes(buf, moov.start + moov.header, moov.end);
    const mvhd = kids.find((b) => b.type === 'mvhd');
    if (!mvhd) return null;
    const body = buf.subarray(mvhd.start + mvhd.header, mvhd.end);
    const wide = body[0] === 1;
    const timescale = body.readUInt32BE(wide ? 20 : 12);
    const duration = field(body, wide ? 24 : 16, wide);
    let samples = 0;
    const walk = (start: number, end: number): void => {
      for (const b of boxes(buf, start, end)) {
        if (CONTAINERS.has(b.type)) walk(b.start + b.header, b.end);
        else if (b.type === 'stsz') samples += buf.readUInt32BE(b.start + b.header + 8);
      }
    };
    walk(moov.start + moov.header, moov.end);
    return { durationMs: (duration * 1000) / timescale, samples };
  } catch {
    return null;
  }
}

/**
 * The clip with its last frame held until `totalMs`; unchanged when it already lasts that
 * long, or when it has no timing this can read (it is handed on as the phone made it).
 */
export function holdLastFrame(buf: Buffer, totalMs: number): Buffer {
  const timing = mp4Timing(buf);
  if (!timing || timing.durationMs >= totalMs) return buf;
  const top = boxes(buf, 0, buf.length);
  const moovIndex = top.findIndex((b) => b.type === 'moov');
  const moov = top[moovIndex];
  if (!moov) return buf;
  let movieScale = 1000;
  const rewrite = (b: Box, mediaScale: number): Buffer => {
    if (CONTAINERS.has(b.type)) {
      const kids = boxes(buf, b.start + b.header, b.end);
      // A track's media timescale is in its mdhd, read before its sample table.
      const mdia = kids.find((k) => k.type === 'mdhd');
      const scale = mdia
        ? buf.readUInt32BE(mdia.start + mdia.header + (buf[mdia.start + mdia.header] === 1 ? 20 : 12))
        : mediaScale;
      return sized(b.type, Buffer.concat(kids.map((k) => rewrite(k, scale))));
    }
    const body = Buffer.from(buf.subarray(b.start + b.header, b.end));
    const wide = body[0] === 1;
    switch (b.type) {
      case 'mvhd':
        movieScale = body.readUInt32BE(wide ? 20 : 12);
        field(body, wide ? 24 : 16, wide, (totalMs * movieScale) / 1000);
        break;
      case 'tkhd':
        field(body, wide ? 28 : 20, wide, (totalMs * movieScale) / 1000);
        break;
      case 'mdhd':
        field(body, wide ? 24 : 16, wide, (totalMs * body.readUInt32BE(wide ? 20 : 12)) / 1000);
        break;
      case 'elst':
        if (body.readUInt32BE(4) === 1) field(body, 8, wide, (totalMs * movieScale) / 1000);
        break;
      case 'stts':
        return sized('stts', holdInStts(body, (totalMs * mediaScale) / 1000));
    }
    return sized(b.type, body);
  };
  const kids = boxes(buf, moov.start + moov.header, moov.end);
  // mvhd first: the track headers and edit lists are in its timescale.
  const mvhd = kids.find((k) => k.type === 'mvhd');
  if (mvhd) movieScale = buf.readUInt32BE(mvhd.start + mvhd.header + (buf[mvhd.start + mvhd.header] === 1 ? 20 : 12));
  let newMoov = sized('moov', Buffer.concat(kids.map((k) => rewrite(k, 1000))));
  const grew = newMoov.length - (moov.end - moov.start);
  const mdatAfter = top.some((b, i) => b.type === 'mdat' && i > moovIndex);
  if (grew !== 0 && mdatAfter) newMoov = shiftChunkOffsets(newMoov, grew);
  return Buffer.concat([buf.subarray(0, moov.start), newMoov, buf.subarray(moov.end)]);
}

/** An stts body whose last sample lasts until `totalTicks` (its run split off when it shares it). */
function holdInStts(body: Buffer, totalTicks: number): Buffer {
  const count = body.readUInt32BE(4);
  const entries: Array<[number, number]> = [];
  let ticks = 0;
  for (let i = 0; i < count; i++) {
    const n = body.readUInt32BE(8 + i * 8);
    const delta = body.readUInt32BE(12 + i * 8);
    entries.push([n, delta]);
    ticks += n * delta;
  }
  const last = entries[entries.length - 1];
  if (!last || ticks >= totalTicks) return body;
  const extra = Math.round(totalTicks - ticks);
  if (last[0] === 1) last[1] += extra;
  else {
    last[0] -= 1;
    entries.push([1, last[1] + extra]);
  }
  const out = Buffer.alloc(8 + entries.length * 8);
  body.copy(out, 0, 0, 4);
  out.writeUInt32BE(entries.length, 4);
  entries.forEach(([n, d], i) => {
    out.writeUInt32BE(n, 8 + i * 8);
    out.writeUInt32BE(d, 12 + i * 8);
  });
  return out;
}

/** moov with every stco/co64 offset moved by `delta` (mdat moved that far). */
function shiftChunkOffsets(moov: Buffer, delta: number): Buffer {
  const walk = (start: number, end: number): void => {
    for (const b of boxes(moov, start, end)) {
      if (CONTAINERS.has(b.type)) walk(b.start + b.header, b.end);
      else if (b.type === 'stco' || b.type === 'co64') {
        const at = b.start + b.header;
        const n = moov.readUInt32BE(at + 4);
        for (let i = 0; i < n; i++) {
          if (b.type === 'stco') moov.writeUInt32BE(moov.readUInt32BE(at + 8 + i * 4) + delta, at + 8 + i * 4);
          else moov.writeBigUInt64BE(moov.readBigUInt64BE(at + 8 + i * 8) + BigInt(delta), at + 8 + i * 8);
        }
      }
    }
  };
  walk(8, moov.length);
  return moov;
}

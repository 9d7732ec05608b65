/**
 * The helper's MJPEG screen stream (appium-uiautomator2-server listens on device port 7810
 * while it runs, setting `mjpegServerPort`): one HTTP request, then an endless
 * `multipart/x-mixed-replace` body, each part a JPEG of the screen scaled by the server's
 * `mjpegScalingFactor` (percent). Reached like the helper's HTTP port, through the ADB server
 * (`tcp:7810`), so it works for phones on remote ADB hosts too.
 *
 * The phone view reads it while someone watches: the phone encodes small JPEGs at its own pace
 * (about 10 a second at most) and the bridge skips its own capture and scaling. Only the newest
 * part is kept; a part larger than MAX_PART_BYTES, or a stream that is not MJPEG, ends it.
 */
import type { Duplex } from 'node:stream';
import { BridgeError } from '../errors';
import { withDeadline } from '../devices/deadline';
import type { DeviceStreamOpener } from './helper-client';

export const MJPEG_DEVICE_PORT = 7810;
/** A 1440×3200 screen at 100 % and quality 100 stays well under this. */
export const MAX_PART_BYTES = 8 * 1024 * 1024;
const MAX_HEAD_BYTES = 16 * 1024;

type Parsed = { kind: 'part'; jpeg: Buffer; rest: Buffer } | { kind: 'more' } | { kind: 'bad'; why: string };

/** The HTTP head of the answer: its length, or 'more', or why it is not an MJPEG stream. */
export function parseMjpegHead(data: Buffer): number | 'more' | { bad: string } {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return data.length > MAX_HEAD_BYTES ? { bad: 'the answer has no end of headers' } : 'more';
  const head = data.subarray(0, end).toString('latin1');
  if (!/^HTTP\/1\.[01] 200\b/.test(head))
    return { bad: `the stream answered ${JSON.stringify(head.split('\r\n')[0]?.slice(0, 60) ?? '')}` };
  if (!/^content-type:\s*multipart\/x-mixed-replace/im.test(head))
    return { bad: 'the answer is not multipart/x-mixed-replace' };
  return end + 4;
}

/** The next part after the head: a boundary line, headers with Content-Length, the JPEG, CRLFs. */
export function parseMjpegPart(data: Buffer): Parsed {
  let start = 0;
  // Blank lines between parts (the server ends each part with CRLF CRLF).
  while (data.length - start >= 2 && data[start] === 0x0d && data[start + 1] === 0x0a) start += 2;
  if (data.length - start < 2) return { kind: 'more' };
  const headEnd = data.indexOf('\r\n\r\n', start);
  if (headEnd < 0)
    return data.length - start > MAX_HEAD_BYTES
      ? { kind: 'bad', why: 'a part has no end of headers' }
      : { kind: 'more' };
  const lines = data.subarray(start, headEnd).toString('latin1').split('\r\n');
  if (!lines[0]?.startsWith('--')) return { kind: 'bad', why: 'a part does not start with the boundary' };
  const lengthLine = lines.find((l) => /^content-length:/i.test(l));
  const length = lengthLine ? Number(lengthLine.slice(lengthLine.indexOf(':') + 1).trim()) : NaN;
  if (!Number.isSafeInteger(length) || length <= 0) return { kind: 'bad', why: 'a part has no Content-Length' };
  if (length > MAX_PART_BYTES)
    return { kind: 'bad', why: `a part of ${length} bytes is larger than ${MAX_PART_BYTES}` };
  const bodyStart = headEnd + 4;
  if (data.length < bodyStart + length) return { kind: 'more' };
  const jpeg = Buffer.from(data.subarray(bodyStart, bodyStart + length));
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return { kind: 'bad', why: 'a part is not a JPEG' };
  return { kind: 'part', jpeg, rest: data.subarray(bodyStart + length) };
}

/**
 * One open stream: `next()` gives the newest JPEG that came after the one last given (waiting
 * for it), `close()` ends it. A broken or malformed stream rejects every later `next()`.
 */
export class MjpegStream {
  private buffer: Buffer = Buffer.alloc(0);
  private headDone = false;
  private latest: Buffer | undefined;
  private failure: BridgeError | undefined;
  private waiter: { resolve: (jpeg: Buffer) => void; reject: (error: unknown) => void } | undefined;

  constructor(private readonly stream: Duplex) {
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('end', () => this.fail('the helper’s screen stream ended'));
    stream.on('close', () => this.fail('the helper’s screen stream closed'));
    stream.on('error', (error: Error) =>
      this.fail(`the helper’s screen stream failed: ${error.message.slice(0, 120)}`),
    );
    stream.write('GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  }

  get closed(): boolean {
    return this.failure !== undefined;
  }

  /** The next JPEG, within `timeoutMs` (command_timeout) or until `signal` aborts (canceled). */
  next(timeoutMs: number, signal?: AbortSignal): Promise<Buffer> {
    if (this.latest) {
      const jpeg = this.latest;
      this.latest = undefined;
      return Promise.resolve(jpeg);
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.waiter) return Promise.reject(new BridgeError('internal_error', 'one reader at a time'));
    const waiting = new Promise<Buffer>((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
    return withDeadline(waiting, {
      timeoutMs,
      ...(signal ? { signal } : {}),
      what: 'waiting for a frame from the helper’s screen stream',
      onCancel: () => {
        this.waiter = undefined;
      },
    });
  }

  close(): void {
    this.fail('closed');
    this.stream.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.failure) return;
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (!this.headDone) {
      const head = parseMjpegHead(this.buffer);
      if (head === 'more') return;
      if (typeof head === 'object') return this.fail(head.bad, true);
      this.headDone = true;
      this.buffer = this.buffer.subarray(head);
    }
    let newest: Buffer | undefined;
    for (;;) {
      const parsed = parseMjpegPart(this.buffer);
      if (parsed.kind === 'bad') return this.fail(parsed.why, true);
      if (parsed.kind === 'more') break;
      this.buffer = parsed.rest;
      newest = parsed.jpeg;
    }
    if (!newest) return;
    const waiter = this.waiter;
    this.waiter = undefined;
    if (waiter) waiter.resolve(newest);
    else this.latest = newest;
  }

  private fail(why: string, destroy = false): void {
    if (this.failure) return;
    this.failure = new BridgeError('helper_unavailable', why);
    this.latest = undefined;
    this.buffer = Buffer.alloc(0);
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.reject(this.failure);
    if (destroy) this.stream.destroy();
  }
}

/** Opens the helper's screen stream on the phone; helper_unavailable when nothing listens. */
export async function openMjpegStream(
  opener: DeviceStreamOpener,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<MjpegStream> {
  let stream: Duplex;
  try {
    stream = await opener.openStream(`tcp:${MJPEG_DEVICE_PORT}`, options);
  } catch (error) {
    throw new BridgeError(
      'helper_unavailable',
      `the helper’s screen stream is not answering (${error instanceof Error ? error.message.slice(0, 120) : 'no connection'})`,
    );
  }
  return new MjpegStream(stream);
}

/**
 * minicap's wire protocol (DeviceFarmer/minicap README "Usage"): on connect a banner of
 * (normally) 24 bytes — version, banner size, pid, real width/height, virtual width/height,
 * orientation (quarter turns), quirks — then frames, each a uint32 LE length followed by one
 * JPEG at the virtual size. Frames come only when the screen changes (Android 4.2+).
 *
 * The reader here keeps only the newest frame (a viewer or screenshot wants the screen now, not
 * a backlog), bounds every length it is told, and fails with a stable code and a sentence on
 * anything that is not minicap: a bad banner, a frame too large, a frame that is not a JPEG.
 */
import type { Duplex } from 'node:stream';
import { BridgeError } from '../errors';

export interface MinicapBanner {
  version: number;
  pid: number;
  realWidth: number;
  realHeight: number;
  virtualWidth: number;
  virtualHeight: number;
  /** Quarter turns the projection was asked for (-P …/90 is 1). */
  orientation: number;
  quirks: number;
}

export interface MinicapFrame {
  jpeg: Buffer;
  /** When its last byte arrived (the reader's clock). */
  receivedAt: number;
  /** 1, 2, 3…: frames of this stream in order. */
  index: number;
}

export const BANNER_MIN_BYTES = 24;
/** A banner says its own size in one byte; anything past the 24 known bytes is skipped. */
const BANNER_MAX_BYTES = 255;
/** A 1440×3200 screen at quality 100 stays well under this; more is not minicap. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;
const MAX_SIDE_PX = 16_384;

/** The banner at the start of `data`, 'more' while it is incomplete, or why it is not minicap's. */
export function parseBanner(data: Buffer): { banner: MinicapBanner; size: number } | 'more' | { bad: string } {
  if (data.length < 2) return 'more';
  const version = data.readUInt8(0);
  const size = data.readUInt8(1);
  if (version !== 1) return { bad: `the stream says version ${version}, not minicap's 1` };
  if (size < BANNER_MIN_BYTES || size > BANNER_MAX_BYTES) return { bad: `a banner of ${size} bytes is not minicap's` };
  if (data.length < size) return 'more';
  const banner: MinicapBanner = {
    version,
    pid: data.readUInt32LE(2),
    realWidth: data.readUInt32LE(6),
    realHeight: data.readUInt32LE(10),
    virtualWidth: data.readUInt32LE(14),
    virtualHeight: data.readUInt32LE(18),
    orientation: data.readUInt8(22),
    quirks: data.readUInt8(23),
  };
  const sides = [banner.realWidth, banner.realHeight, banner.virtualWidth, banner.virtualHeight];
  if (sides.some((side) => side < 1 || side > MAX_SIDE_PX))
    return { bad: 'the banner gives an impossible screen size' };
  if (banner.orientation > 3) return { bad: `the banner gives orientation ${banner.orientation}` };
  return { banner, size };
}

type FrameParse = { kind: 'frame'; jpeg: Buffer; size: number } | { kind: 'more' } | { kind: 'bad'; why: string };

/** The frame at the start of `data` (after the banner). */
export function parseFrame(data: Buffer): FrameParse {
  if (data.length < 4) return { kind: 'more' };
  const length = data.readUInt32LE(0);
  if (length === 0) return { kind: 'bad', why: 'a frame of 0 bytes' };
  if (length > MAX_FRAME_BYTES)
    return { kind: 'bad', why: `a frame of ${length} bytes is larger than ${MAX_FRAME_BYTES}` };
  if (data.length < 4 + length) return { kind: 'more' };
  const jpeg = Buffer.from(data.subarray(4, 4 + length));
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) return { kind: 'bad', why: 'a frame is not a JPEG' };
  return { kind: 'frame', jpeg, size: 4 + length };
}

type Waiter = { after: number; resolve: (frame: MinicapFrame) => void; reject: (error: unknown) => void };

/**
 * One connection to a running minicap: `banner` once it came, `latest` the newest frame, and
 * `next(after)` the first frame newer than index `after` (waiting for it). A broken or malformed
 * stream rejects every waiter and every later call, and is closed.
 */
export class MinicapReader {
  readonly banner: Promise<MinicapBanner>;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private gotBanner: MinicapBanner | undefined;
  private bannerSettle: { resolve: (banner: MinicapBanner) => void; reject: (error: unknown) => void } | undefined;
  private newest: MinicapFrame | undefined;
  private count = 0;
  private failure: BridgeError | undefined;
  private readonly waiters = new Set<Waiter>();
  private readonly listeners = new Set<(frame: MinicapFrame) => void>();

  constructor(
    private readonly socket: Duplex,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.banner = new Promise<MinicapBanner>((resolve, reject) => {
      this.bannerSettle = { resolve, reject };
    });
    // A banner nobody awaits (a stream closed at once) must not be an unhandled rejection.
    this.banner.catch(() => undefined);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('end', () => this.fail('minicap closed its stream'));
    socket.on('close', () => this.fail('minicap’s stream closed'));
    socket.on('error', (error: Error) => this.fail(`minicap’s stream failed: ${error.message.slice(0, 120)}`));
  }

  get latest(): MinicapFrame | undefined {
    return this.newest;
  }

  get closed(): boolean {
    return this.failure !== undefined;
  }

  /** Why the stream ended, once it has. */
  get endedBecause(): string | undefined {
    return this.failure?.message;
  }

  /** Called with each new frame as it arrives (the live view's fan-out); returns the unsubscribe. */
  onFrame(listener: (frame: MinicapFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The first frame newer than `after` (an index; 0: any), within `timeoutMs`. */
  next(after: number, timeoutMs: number, signal?: AbortSignal): Promise<MinicapFrame> {
    if (this.newest && this.newest.index > after) return Promise.resolve(this.newest);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<MinicapFrame>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        after,
        resolve: (frame) => {
          done();
          resolve(frame);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      };
      const onAbort = (): void => waiter.reject(new BridgeError('canceled', 'the call was canceled'));
      const timer = setTimeout(
        () => waiter.reject(new BridgeError('command_timeout', 'no new frame from minicap in time')),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }

  close(): void {
    this.fail('the stream was closed');
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    if (this.failure) return;
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    let data = this.pending.length === 1 ? chunk : Buffer.concat(this.pending, this.pendingBytes);
    for (;;) {
      if (!this.gotBanner) {
        const parsed = parseBanner(data);
        if (parsed === 'more') break;
        if ('bad' in parsed) return this.fail(parsed.bad, 'command_failed', true);
        this.gotBanner = parsed.banner;
        this.bannerSettle?.resolve(parsed.banner);
        data = data.subarray(parsed.size);
        continue;
      }
      const parsed = parseFrame(data);
      if (parsed.kind === 'more') break;
      if (parsed.kind === 'bad') return this.fail(parsed.why, 'command_failed', true);
      data = data.subarray(parsed.size);
      this.count += 1;
      const frame: MinicapFrame = { jpeg: parsed.jpeg, receivedAt: this.clock(), index: this.count };
      this.newest = frame;
      for (const waiter of [...this.waiters]) if (frame.index > waiter.after) waiter.resolve(frame);
      for (const listener of [...this.listeners]) listener(frame);
    }
    // Kept as one buffer: a frame arrives in many chunks, and concat per chunk would be quadratic.
    this.pending = data.length > 0 ? [Buffer.from(data)] : [];
    this.pendingBytes = data.length;
  }

  private fail(why: string, code: 'command_failed' | 'helper_unavailable' = 'command_failed', destroy = false): void {
    if (this.failure) return;
    this.failure = new BridgeError(code, why);
    this.pending = [];
    this.pendingBytes = 0;
    this.bannerSettle?.reject(this.failure);
    for (const waiter of [...this.waiters]) waiter.reject(this.failure);
    this.listeners.clear();
    if (destroy) this.socket.destroy();
  }
}

/**
 * Live frames for the phone view: the phone's screen as a JPEG (max side 720 px), taken as
 * observation work and never ahead of the agent. While control work runs or waits on the
 * phone (and is not merely held for an approval), the last frame is served again instead of
 * taking a new one, so watching costs the agent nothing. While viewers keep asking, the phone
 * is captured back to back and every viewer of it shares those captures (a viewer says which
 * frame it has and gets the next). One frame per phone is kept, and dropped once nobody has
 * watched it for FORGET_AFTER_MS, so memory does not grow with time or viewers.
 *
 * While the phone's screen stream (minicap, stream/screen-streams.ts) runs, the pictures come
 * from it: every change of the screen as it happens, even while the agent's work runs (the
 * stream costs the queue nothing). Else, while the fast lane's helper runs on the phone, from its MJPEG screen
 * stream (small JPEGs the phone encodes itself, read over one connection while someone
 * watches, closed when nobody does or the agent's work runs); without it, or when the stream
 * fails, from `screencap`. Which source answers, and every picture's encoding, are the phone's
 * ScreenSource's (screen/); this file keeps the viewers, the shared captures and the last frame.
 */
import { BridgeError } from '../errors';
import type { RawFrame } from '../android/screencap';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import { ScreenSources } from '../screen/screen-sources';
import type { ScreenSource } from '../screen/screen-source';

export interface LiveFrame {
  /** JPEG at MASTER_MAX_SIDE (or the phone's size when smaller). */
  jpeg: Buffer;
  jpegWidth: number;
  jpegHeight: number;
  /** The phone's screen in its own pixels (the space of tap coordinates). */
  screenWidth: number;
  screenHeight: number;
  at: number;
  /** A new number per new picture, across phones. */
  seq: number;
  /** Where the picture came from: minicap's screen stream, the helper's, or `screencap`. */
  lane: 'minicap' | 'helper' | 'adb';
}

export interface LiveFramesDeps {
  device(deviceId: string): DeviceRecord | undefined;
  shellFor(device: DeviceRecord): DeviceShell;
  /** Runs a capture as observation work on the phone's queue. */
  observe<T>(deviceId: string, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** True while the agent's control work runs or waits on this phone (a call held for approval does not count). */
  agentBusy(deviceId: string): boolean;
  clock: () => number;
  /** Deadline of one capture. */
  captureTimeoutMs: number;
  /** Each phone's pictures (minicap's stream, the helper's, screencap); absent: screencap only. */
  screens?: Pick<ScreenSources, 'of'>;
}

export const MASTER_MAX_SIDE = 720;
export const MIN_MAX_SIDE = 160;
const JPEG_QUALITY = 70;
/**
 * The live view's master picture. Bilinear: a fifth of the default kernel's time on a
 * 1080×2400 screen (25 ms, not 118), no visible loss at this size; a stream's picture that
 * already fits is kept as it came.
 */
const MASTER_JPEG = { maxSide: MASTER_MAX_SIDE, quality: JPEG_QUALITY, kernel: 'linear', keepWhenFits: true } as const;
/** The phone keeps being captured while a viewer asked within this (a viewer asks again as soon as it shows a frame). */
export const ACTIVE_FOR_MS = 1_500;
/** A phone counts as watched this long after its last frame request. */
export const WATCHED_FOR_MS = 60_000;
const FORGET_AFTER_MS = 2 * 60_000;
/** Longest a viewer waits for a newer frame than the one it has. */
const WAIT_FOR_NEW_MS = 5_000;

interface Waiter {
  resolve: (frame: LiveFrame) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

export class LiveFrames {
  private readonly last = new Map<string, LiveFrame>();
  private readonly capturing = new Set<string>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly askedAt = new Map<string, number>();
  private readonly watchedAt = new Map<string, number>();
  private readonly sized = new Map<
    string,
    { seq: number; maxSide: number; jpeg: Buffer; width: number; height: number }
  >();
  private seq = 0;
  private closed = false;
  private readonly screens: Pick<ScreenSources, 'of'>;

  constructor(private readonly deps: LiveFramesDeps) {
    this.screens = deps.screens ?? new ScreenSources();
  }

  /**
   * The next frame for a viewer that has frame `after` (0: none): a newer frame at once when
   * there is one, else the next one taken. While the agent's control work runs or waits, the
   * last frame comes back at once with `fresh: false` and nothing is captured. While viewers
   * keep asking, the phone is captured back to back (encoding overlaps the next capture), and
   * all viewers of a phone share those captures.
   */
  async frame(deviceId: string, after = 0): Promise<{ frame: LiveFrame; fresh: boolean }> {
    if (this.closed) throw new BridgeError('canceled', 'the bridge is stopping');
    const now = this.deps.clock();
    this.watchedAt.set(deviceId, now);
    this.askedAt.set(deviceId, now);
    this.prune(now);
    const last = this.last.get(deviceId);
    if (last && last.seq > after) return { frame: last, fresh: true };
    const source = this.screens.of(deviceId);
    source.wantStream();
    const streaming = source.liveStream();
    if (last && !streaming && this.deps.agentBusy(deviceId)) return { frame: last, fresh: false };
    const device = this.deps.device(deviceId);
    if (!device || device.state !== 'device') throw new BridgeError('device_offline', 'the phone is not online');
    const next = this.nextFrame(deviceId);
    if (!this.capturing.has(deviceId)) void this.captureLoop(deviceId, device);
    try {
      return { frame: await next, fresh: true };
    } catch (error) {
      // minicap sends a frame only when the screen changes: no new one means the last is the screen now.
      if (last) return { frame: last, fresh: last.lane === 'minicap' && source.liveStream() !== null };
      throw error;
    }
  }

  /** Stops capturing and answers every waiting viewer (the bridge is stopping). */
  close(): void {
    this.closed = true;
    for (const deviceId of [...this.waiters.keys()])
      this.settle(deviceId, new BridgeError('canceled', 'the bridge is stopping'));
  }

  private nextFrame(deviceId: string): Promise<LiveFrame> {
    return new Promise<LiveFrame>((resolve, reject) => {
      const set = this.waiters.get(deviceId) ?? new Set<Waiter>();
      this.waiters.set(deviceId, set);
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          set.delete(waiter);
          reject(new BridgeError('command_timeout', 'no new frame from the phone in time'));
        }, WAIT_FOR_NEW_MS),
      };
      waiter.timer.unref();
      set.add(waiter);
    });
  }

  private settle(deviceId: string, outcome: LiveFrame | Error): void {
    const set = this.waiters.get(deviceId);
    if (!set) return;
    this.waiters.delete(deviceId);
    for (const waiter of set) {
      clearTimeout(waiter.timer);
      if (outcome instanceof Error) waiter.reject(outcome);
      else waiter.resolve(outcome);
    }
  }

  /**
   * Captures back to back while someone asked within ACTIVE_FOR_MS and the agent leaves the
   * phone alone; each picture is encoded while the next is taken (at most one encoding behind).
   */
  private async captureLoop(deviceId: string, device: DeviceRecord): Promise<void> {
    this.capturing.add(deviceId);
    const shell = this.deps.shellFor(device);
    const source = this.screens.of(deviceId);
    let encoding: Promise<unknown> = Promise.resolve();
    let helper = source.liveStream() ? null : await source.openHelperStream(this.deps.captureTimeoutMs);
    let minicapIndex = 0;
    try {
      for (;;) {
        const asked = this.askedAt.get(deviceId) ?? 0;
        if (this.closed || this.deps.clock() - asked > ACTIVE_FOR_MS) break;
        // minicap first: its frames cost the phone's queue nothing, so they flow even while the agent works.
        const feed = source.liveSource(helper !== null) === 'stream' ? source.liveStream() : null;
        if (feed) {
          let next: { jpeg: Buffer; index: number } | undefined;
          try {
            next = await feed.reader.next(minicapIndex, WAIT_FOR_NEW_MS);
          } catch {
            // No change on the screen for a while (minicap sends only changes): ask again.
            if (!feed.reader.closed) continue;
            // minicap ended: the helper's stream, else screencap, in this same loop.
            helper ??= await source.openHelperStream(this.deps.captureTimeoutMs);
          }
          if (next) {
            minicapIndex = next.index;
            await encoding;
            encoding = this.settleWith(deviceId, this.keepJpeg(source, next.jpeg, feed.scale, 'minicap'));
            continue;
          }
        }
        if (this.deps.agentBusy(deviceId) && this.last.has(deviceId)) {
          const last = this.last.get(deviceId);
          if (last) this.settle(deviceId, last);
          break;
        }
        if (helper) {
          let jpeg: Buffer | undefined;
          try {
            jpeg = await helper.stream.next(this.deps.captureTimeoutMs);
          } catch {
            // The helper stopped or its stream broke: screencap from here on.
            helper.stream.close();
            helper = null;
          }
          if (jpeg && helper) {
            await encoding;
            encoding = this.settleWith(deviceId, this.keepJpeg(source, jpeg, helper.scale));
            continue;
          }
        }
        let raw: RawFrame;
        try {
          raw = await this.deps.observe(deviceId, (signal) =>
            source.screencap({ shell, signal, timeoutMs: this.deps.captureTimeoutMs }),
          );
        } catch (error) {
          this.settle(deviceId, error instanceof Error ? error : new BridgeError('command_failed', String(error)));
          break;
        }
        await encoding;
        encoding = this.settleWith(deviceId, this.keep(source, raw));
      }
      await encoding;
    } finally {
      helper?.stream.close();
      this.capturing.delete(deviceId);
    }
  }

  /** The waiting viewers get the picture being kept, or why it could not be. */
  private settleWith(deviceId: string, kept: Promise<LiveFrame>): Promise<void> {
    return kept.then(
      (frame) => this.settle(deviceId, frame),
      (error: unknown) =>
        this.settle(deviceId, error instanceof Error ? error : new BridgeError('internal_error', String(error))),
    );
  }

  /** The frame at a smaller max side (cached for the latest frame of each phone). */
  async scaled(
    deviceId: string,
    frame: LiveFrame,
    maxSide: number,
  ): Promise<{ jpeg: Buffer; width: number; height: number }> {
    if (maxSide >= Math.max(frame.jpegWidth, frame.jpegHeight))
      return { jpeg: frame.jpeg, width: frame.jpegWidth, height: frame.jpegHeight };
    const cached = this.sized.get(deviceId);
    if (cached && cached.seq === frame.seq && cached.maxSide === maxSide) return cached;
    const out = await this.screens.of(deviceId).encoder.jpeg({ jpeg: frame.jpeg }, { maxSide, quality: JPEG_QUALITY });
    const entry = { seq: frame.seq, maxSide, ...out };
    this.sized.set(deviceId, entry);
    return entry;
  }

  /** Someone asked for this phone's frames within `withinMs` (the timeline takes pictures only then). */
  watched(deviceId: string, withinMs = WATCHED_FOR_MS): boolean {
    const at = this.watchedAt.get(deviceId);
    return at !== undefined && this.deps.clock() - at < withinMs;
  }

  latest(deviceId: string): LiveFrame | undefined {
    return this.last.get(deviceId);
  }

  /**
   * A frame of the screen now, for the timeline's picture before an action, in the agent's own
   * queue slot (its shell and signal): from the stream when it has a frame since the last
   * action, else a screencap (screen/freshness.ts). It becomes the live view's newest frame too.
   */
  async captureIn(deviceId: string, shell: DeviceShell, signal: AbortSignal, timeoutMs: number): Promise<LiveFrame> {
    const picture = await this.screens
      .of(deviceId)
      .picture('timeline', MASTER_JPEG, (capture) => capture(signal), { shell, timeoutMs, signal });
    return this.remember(deviceId, {
      jpeg: picture.jpeg,
      jpegWidth: picture.width,
      jpegHeight: picture.height,
      screenWidth: picture.screenWidth,
      screenHeight: picture.screenHeight,
      lane: picture.source === 'stream' ? 'minicap' : 'adb',
    });
  }

  /** How many phones have a frame kept (for tests of the memory bound). */
  keptCount(): number {
    return this.last.size;
  }

  /** A picture of a stream (minicap's or the helper's): kept as it came when small enough, else scaled to MASTER_MAX_SIDE. */
  private async keepJpeg(
    source: ScreenSource,
    jpeg: Buffer,
    scale: number,
    lane: 'minicap' | 'helper' = 'helper',
  ): Promise<LiveFrame> {
    const { width, height } = await source.encoder.size(jpeg);
    const out = await source.encoder.jpeg({ jpeg }, MASTER_JPEG);
    return this.remember(source.deviceId, {
      jpeg: out.jpeg,
      jpegWidth: out.width,
      jpegHeight: out.height,
      screenWidth: Math.round(width / scale),
      screenHeight: Math.round(height / scale),
      lane,
    });
  }

  private remember(deviceId: string, picture: Omit<LiveFrame, 'at' | 'seq'>): LiveFrame {
    this.seq += 1;
    const frame: LiveFrame = { ...picture, at: this.deps.clock(), seq: this.seq };
    this.last.set(deviceId, frame);
    return frame;
  }

  private async keep(source: ScreenSource, raw: RawFrame): Promise<LiveFrame> {
    const out = await source.encoder.jpeg({ raw }, MASTER_JPEG);
    return this.remember(source.deviceId, {
      jpeg: out.jpeg,
      jpegWidth: out.width,
      jpegHeight: out.height,
      screenWidth: raw.width,
      screenHeight: raw.height,
      lane: 'adb',
    });
  }

  private prune(now: number): void {
    for (const [deviceId, at] of this.watchedAt) {
      if (now - at < FORGET_AFTER_MS) continue;
      this.watchedAt.delete(deviceId);
      this.askedAt.delete(deviceId);
      this.last.delete(deviceId);
      this.sized.delete(deviceId);
    }
  }
}

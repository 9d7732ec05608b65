/**
 * Live frames for the phone view: the phone's screen as a JPEG (max side 720 px), taken as
 * observation work and never ahead of the agent. While control work runs or waits on the
 * phone (and is not merely held for an approval), the last frame is served again instead of
 * taking a new one, so watching costs the agent nothing. Viewers of one phone share captures:
 * a request joins the capture in flight, and a frame younger than MIN_FRAME_INTERVAL_MS is
 * served as is. One frame per phone is kept, and dropped once nobody has watched it for
 * FORGET_AFTER_MS, so memory does not grow with time or viewers.
 */
import sharp from 'sharp';
import { BridgeError } from '../errors';
import { captureRaw, type RawFrame } from '../android/screencap';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';

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
}

export const MASTER_MAX_SIDE = 720;
export const MIN_MAX_SIDE = 160;
const JPEG_QUALITY = 70;
/** Viewers asking within this of the last capture share it. */
export const MIN_FRAME_INTERVAL_MS = 80;
/** A phone counts as watched this long after its last frame request. */
export const WATCHED_FOR_MS = 60_000;
const FORGET_AFTER_MS = 2 * 60_000;

export class LiveFrames {
  private readonly last = new Map<string, LiveFrame>();
  private readonly inFlight = new Map<string, Promise<LiveFrame>>();
  private readonly watchedAt = new Map<string, number>();
  private readonly sized = new Map<string, { seq: number; maxSide: number; jpeg: Buffer; width: number; height: number }>();
  private seq = 0;

  constructor(private readonly deps: LiveFramesDeps) {}

  /**
   * The frame for a viewer: a new one when the phone is free and the last is older than
   * MIN_FRAME_INTERVAL_MS, else the last one (`fresh: false` when served again while the agent works).
   */
  async frame(deviceId: string): Promise<{ frame: LiveFrame; fresh: boolean }> {
    const now = this.deps.clock();
    this.watchedAt.set(deviceId, now);
    this.prune(now);
    const last = this.last.get(deviceId);
    if (last && now - last.at < MIN_FRAME_INTERVAL_MS) return { frame: last, fresh: true };
    const joining = this.inFlight.get(deviceId);
    if (joining) return { frame: await joining, fresh: true };
    if (last && this.deps.agentBusy(deviceId)) return { frame: last, fresh: false };
    const device = this.deps.device(deviceId);
    if (!device || device.state !== 'device') throw new BridgeError('device_offline', 'the phone is not online');
    const shell = this.deps.shellFor(device);
    const capture = this.deps
      .observe(deviceId, (signal) => captureRaw(shell, { timeoutMs: this.deps.captureTimeoutMs, signal }))
      .then((raw) => this.keep(deviceId, raw));
    this.inFlight.set(deviceId, capture);
    try {
      return { frame: await capture, fresh: true };
    } finally {
      this.inFlight.delete(deviceId);
    }
  }

  /** The frame at a smaller max side (cached for the latest frame of each phone). */
  async scaled(deviceId: string, frame: LiveFrame, maxSide: number): Promise<{ jpeg: Buffer; width: number; height: number }> {
    if (maxSide >= Math.max(frame.jpegWidth, frame.jpegHeight)) return { jpeg: frame.jpeg, width: frame.jpegWidth, height: frame.jpegHeight };
    const cached = this.sized.get(deviceId);
    if (cached && cached.seq === frame.seq && cached.maxSide === maxSide) return cached;
    const out = await sharp(frame.jpeg).resize({ width: maxSide, height: maxSide, fit: 'inside' }).jpeg({ quality: JPEG_QUALITY }).toBuffer({ resolveWithObject: true });
    const entry = { seq: frame.seq, maxSide, jpeg: out.data, width: out.info.width, height: out.info.height };
    this.sized.set(deviceId, entry);
    return entry;
  }

  /** Someone asked for this phone's frames lately (the timeline takes pictures only then). */
  watched(deviceId: string): boolean {
    const at = this.watchedAt.get(deviceId);
    return at !== undefined && this.deps.clock() - at < WATCHED_FOR_MS;
  }

  latest(deviceId: string): LiveFrame | undefined {
    return this.last.get(deviceId);
  }

  /** Takes a frame now with the caller's shell and signal (the agent's own queue slot). */
  async captureIn(deviceId: string, shell: DeviceShell, signal: AbortSignal, timeoutMs: number): Promise<LiveFrame> {
    return this.keep(deviceId, await captureRaw(shell, { timeoutMs, signal }));
  }

  /** How many phones have a frame kept (for tests of the memory bound). */
  keptCount(): number {
    return this.last.size;
  }

  private async keep(deviceId: string, raw: RawFrame): Promise<LiveFrame> {
    const out = await sharp(raw.rgba, { raw: { width: raw.width, height: raw.height, channels: 4 } })
      .resize({ width: MASTER_MAX_SIDE, height: MASTER_MAX_SIDE, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#000000' })
      .jpeg({ quality: JPEG_QUALITY })
      .toBuffer({ resolveWithObject: true });
    this.seq += 1;
    const frame: LiveFrame = {
      jpeg: out.data,
      jpegWidth: out.info.width,
      jpegHeight: out.info.height,
      screenWidth: raw.width,
      screenHeight: raw.height,
      at: this.deps.clock(),
      seq: this.seq,
    };
    this.last.set(deviceId, frame);
    return frame;
  }

  private prune(now: number): void {
    for (const [deviceId, at] of this.watchedAt) {
      if (now - at < FORGET_AFTER_MS) continue;
      this.watchedAt.delete(deviceId);
      this.last.delete(deviceId);
      this.sized.delete(deviceId);
    }
  }
}

/**
 * The oriented screen size per phone, for bounds checks and direction swipes.
 *
 * Reading it costs two commands on the phone (`wm size` and `dumpsys input`, ~80 ms on a
 * real USB phone), and it changes only when the phone rotates. So a size younger than
 * `freshMs` is used as is; an older one (up to `usableMs`) is still used when the caller
 * accepts it, while a refresh runs in the background for the next call; a point the cached
 * size would refuse is checked against a size read now, so a rotation never makes a valid
 * tap fail. A tap every few seconds thus never waits for these two commands.
 */
import type { ScreenSize } from '../android/input';
import type { OperationOptions } from '../devices/shell-quote';
import { withDeadline } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';

export interface ScreenSizeCacheOptions {
  /** Reads the size from the phone; null when it answers nothing usable. */
  read: (shell: DeviceShell, options: { timeoutMs: number }) => Promise<ScreenSize | null>;
  clock: () => number;
  /** Younger than this: used without a refresh. */
  freshMs: number;
  /** Older than this: never used, read again first. */
  usableMs: number;
  /** Deadline of every read (a caller may stop waiting sooner). */
  refreshTimeoutMs: number;
}

interface Entry {
  size: ScreenSize;
  at: number;
}

export class ScreenSizeCache {
  private readonly entries = new Map<string, Entry>();
  private readonly refreshing = new Map<string, Promise<ScreenSize | null>>();

  constructor(private readonly o: ScreenSizeCacheOptions) {}

  /**
   * The size to use now. A size younger than `freshMs` always does. An older one does only
   * when `accepts` says it is good enough for this call (e.g. the tapped point lies inside
   * it), and a background read then refreshes it; otherwise the size is read now. Without
   * `accepts` (a direction swipe, scaled to the size) only a fresh size is used.
   */
  async get(
    deviceId: string,
    shell: DeviceShell,
    options: OperationOptions,
    accepts?: (size: ScreenSize) => boolean,
  ): Promise<ScreenSize | null> {
    const entry = this.entries.get(deviceId);
    if (entry) {
      const age = this.o.clock() - entry.at;
      if (age < this.o.freshMs) return entry.size;
      if (age < this.o.usableMs && accepts?.(entry.size)) {
        // After this turn: the caller's own command reaches the phone first.
        setImmediate(() => {
          this.refresh(deviceId, shell).catch(() => undefined);
        });
        return entry.size;
      }
    }
    // The read itself runs on the cache's own deadline (others may be waiting for it); this
    // caller stops waiting at its own deadline or when it is canceled.
    return withDeadline(this.refresh(deviceId, shell), {
      timeoutMs: options.timeoutMs ?? this.o.refreshTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      what: 'reading the screen size',
    });
  }

  /**
   * What the phone just showed: a screenshot's width and height are the oriented size. When
   * they differ from the cached size the phone has turned (or been folded, or `wm size` was
   * changed): the observed size replaces it at once, so the next swipe by direction or bounds
   * check uses the new orientation without waiting for the cache to age.
   */
  observe(deviceId: string, size: ScreenSize): void {
    const entry = this.entries.get(deviceId);
    if (!entry || (entry.size.width === size.width && entry.size.height === size.height)) return;
    // The rotation behind it is not known (undefined): the next UI dump settles it.
    this.entries.set(deviceId, { size: { width: size.width, height: size.height }, at: this.o.clock() });
  }

  /**
   * A UI dump's `<hierarchy rotation>`: when it differs from the rotation the cached size was
   * read with, or that rotation is not known (a size taken from a screenshot), the size is read
   * again next time. A phone that never says its rotation (null) keeps its size.
   */
  observeRotation(deviceId: string, rotation: number): void {
    const entry = this.entries.get(deviceId);
    if (!entry) return;
    const cached = (entry.size as { rotation?: unknown }).rotation;
    if (cached === undefined || (typeof cached === 'number' && cached !== rotation)) this.entries.delete(deviceId);
  }

  /** One read per phone at a time; callers arriving meanwhile share it. */
  private refresh(deviceId: string, shell: DeviceShell): Promise<ScreenSize | null> {
    const running = this.refreshing.get(deviceId);
    if (running) return running;
    const started = this.o.clock();
    const reading = this.o
      .read(shell, { timeoutMs: this.o.refreshTimeoutMs })
      .then((size) => {
        if (size) this.entries.set(deviceId, { size, at: started });
        return size;
      })
      .finally(() => this.refreshing.delete(deviceId));
    this.refreshing.set(deviceId, reading);
    return reading;
  }
}

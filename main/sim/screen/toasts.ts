/**
 * The phone's toasts, as Android's NotificationManagerService queues them: one toast on the
 * screen at a time, each for its duration (`Toast.LENGTH_SHORT` 2000 ms, `LENGTH_LONG` 3500 ms:
 * SHORT_DELAY and LONG_DELAY = PhoneWindowManager.TOAST_WINDOW_TIMEOUT in AOSP's
 * NotificationManagerService.java), the next one after it. When a toast is shown, an
 * accessibility event of type TYPE_NOTIFICATION_STATE_CHANGED carries its text — what the
 * helper's NotificationListener hears (sim/helper/notification-listener.ts).
 *
 * Time is the wall clock, computed when asked (no timers): a toast enqueued with a delay
 * (an app that shows it when its work is done) is shown once that time has come.
 * What the sim leaves out: the frames do not draw toasts, `dumpsys window` lists no toast
 * window, and the per-app queue limit (5 from Android 11) is not enforced.
 */

/** `Toast.LENGTH_SHORT` on screen (NotificationManagerService.SHORT_DELAY). */
export const TOAST_SHORT_MS = 2_000;
/** `Toast.LENGTH_LONG` on screen (LONG_DELAY = TOAST_WINDOW_TIMEOUT). */
export const TOAST_LONG_MS = 3_500;
/** Toasts kept after they were shown (enough for any listener to have heard them). */
const KEPT_MS = 60_000;

export interface ToastRequest {
  pkg: string;
  text: string;
  /** How long it stays on the screen; default LENGTH_SHORT. */
  durationMs?: number;
  /** The app shows it this long after now (its work takes that long); default 0. */
  delayMs?: number;
}

/** A toast with the time it is (or will be) shown and hidden, ms since epoch. */
export interface ScheduledToast {
  pkg: string;
  text: string;
  shownAt: number;
  hiddenAt: number;
}

export class ToastQueue {
  private readonly toasts: ScheduledToast[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** An app calls Toast.show(): it is shown when its time has come and the toast before it is gone. */
  enqueue(request: ToastRequest): ScheduledToast {
    const durationMs = request.durationMs ?? TOAST_SHORT_MS;
    if (!Number.isInteger(durationMs) || durationMs <= 0)
      throw new RangeError(`toast duration must be a positive whole number of ms (got ${durationMs})`);
    const delayMs = request.delayMs ?? 0;
    if (!Number.isInteger(delayMs) || delayMs < 0)
      throw new RangeError(`toast delay must be a whole number of ms ≥ 0 (got ${delayMs})`);
    const now = this.now();
    const previous = this.toasts[this.toasts.length - 1];
    const shownAt = Math.max(now + delayMs, previous?.hiddenAt ?? 0);
    const toast = { pkg: request.pkg, text: request.text, shownAt, hiddenAt: shownAt + durationMs };
    this.toasts.push(toast);
    while (this.toasts.length > 1 && (this.toasts[0]?.hiddenAt ?? 0) < now - KEPT_MS) this.toasts.shift();
    return toast;
  }

  /** Toasts shown from `since` up to now, oldest first: the accessibility events sent meanwhile. */
  shownBetween(since: number, until = this.now()): ScheduledToast[] {
    return this.toasts.filter((t) => t.shownAt >= since && t.shownAt <= until);
  }

  /** The toast on the screen now, if any. */
  showing(): ScheduledToast | undefined {
    const now = this.now();
    return this.toasts.find((t) => t.shownAt <= now && now < t.hiddenAt);
  }
}

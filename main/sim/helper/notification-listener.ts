/**
 * The helper's toast listener, as appium-uiautomator2-server's NotificationListener.java
 * behaves (read from its public source, written anew here): started by NewSession (and by the
 * `enableNotificationListener` setting), stopped by DeleteSession (or that setting); while it
 * listens, each toast's TYPE_NOTIFICATION_STATE_CHANGED event replaces the texts it keeps; a
 * read more than TOAST_CLEAR_TIMEOUT = 3500 ms after that event finds them cleared. The page
 * source asks for them when it begins (AccessibilityNodeInfoDumper.toStream).
 *
 * Computed from the phone's toast queue when asked: the last toast shown while listening.
 */
import type { ToastQueue } from '../screen/toasts';

/** NotificationListener.TOAST_CLEAR_TIMEOUT. */
export const TOAST_CLEAR_TIMEOUT_MS = 3_500;

export class SimNotificationListener {
  /** When it listened (ms since epoch): the last period is open while it listens. */
  private readonly periods: Array<{ from: number; to?: number }> = [];

  constructor(
    private readonly toasts: ToastQueue,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    if (this.isListening()) return;
    this.periods.push({ from: this.now() });
    if (this.periods.length > 8) this.periods.shift();
  }

  /** Stops hearing new toasts; what it kept stays until 3.5 s after it came, as upstream's stop() leaves it. */
  stop(): void {
    const open = this.periods.at(-1);
    if (open && open.to === undefined) open.to = this.now();
  }

  isListening(): boolean {
    const open = this.periods.at(-1);
    return open !== undefined && open.to === undefined;
  }

  /** getToastMessage(): the last heard toast's texts, or none once 3.5 s have passed since it came. */
  toastMessage(): string[] {
    const now = this.now();
    let last: { text: string; shownAt: number } | undefined;
    for (const period of this.periods) {
      const heard = this.toasts.shownBetween(period.from, Math.min(period.to ?? now, now)).at(-1);
      if (heard && (!last || heard.shownAt >= last.shownAt)) last = heard;
    }
    if (!last || now - last.shownAt > TOAST_CLEAR_TIMEOUT_MS) return [];
    return [last.text];
  }
}

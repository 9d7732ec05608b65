/**
 * Toasts in the results of control calls (issue #28): a toast ("Saved", "Wrong password") is
 * gone within 2–3.5 s, usually before the agent's next look. The fast lane's helper hears
 * each one (helper/toast-log.ts) and shows it in its page source, so a control call that asks
 * to `observe` the screen after its action gets, from that same read, the toasts reads begun
 * since the action started saw:
 *
 *   toasts: [{ text, at, seen_before? }], toasts_watched: true
 *
 * `seen_before: true` marks a text a read before the action already showed: the helper keeps
 * a toast 3.5 s and never says when it came, so it may be that one still kept, or the app
 * showing the same toast again.
 *
 * Why only with `observe`: catching a toast takes a page source read after the action (about
 * a second on a phone-like profile). Every call waiting for one made every tap a second slower
 * while the agent thinks between calls (measured: docs/REFERENCE.md "Fast lane → Toasts"); a call that
 * asks for the screen after it pays for that read anyway. The observe read begins
 * TOAST_SETTLE_MS after the action: a toast an app shows from its click handler reaches the
 * helper after the app's main thread, the notification service and (Android 11+) System UI
 * have handled it, and the helper looks at its toasts when a page source begins
 * (AccessibilityNodeInfoDumper.toStream), not when it ends. Without the helper (the fast lane
 * off or not running, a phone driven on another display) the result says toasts were not
 * watched, with why.
 *
 * What it cannot see: a toast that comes after the read began (the helper keeps it 3.5 s:
 * `android_wait_for` with `toast` finds it), one shown more than 3.5 s before the read (a long
 * batch's early steps), all but the last of several toasts in a row (the helper keeps the
 * last), a toast drawn by a web page (not an Android toast), and which app showed it. A
 * status-bar notification's ticker text reads like a toast.
 */
import type { SeenToast, ToolFacts } from './tool-definition';

/** How long after an action ends the observe read that looks for its toasts begins. */
export const TOAST_SETTLE_MS = 150;

/** Whether a tool's results carry toasts: it acts on the screen or on the app in front. */
export function watchesToasts(facts: ToolFacts): boolean {
  return facts.screenInput === true || facts.policy === 'launch' || facts.policy === 'stop' || facts.policy === 'url';
}

/** Why a call's toasts could not be watched, as the result says it. */
export const TOASTS_NOT_WATCHED = {
  noHelper:
    'toasts are seen only through appium-uiautomator2-server (open ports), which is not running on this phone; the port-less UI reader and snapshot helper read only the window in front at the moment of each read and do not report toasts',
  otherDisplay:
    'toasts are seen only through the fast lane’s helper, which serves display 0; this phone is driven on another display',
  failedRead: 'no read of the screen by the fast lane’s helper came back after the action',
} as const;

/** The fields a result gets: the toasts when watched, else why not (and any seen anyway). */
export function toastFields(
  report:
    { watched: true; toasts: readonly SeenToast[] } | { watched: false; why: string; toasts?: readonly SeenToast[] },
): Record<string, unknown> {
  const toasts = (report.toasts ?? []).map((t) => ({
    text: t.text,
    at: new Date(t.at).toISOString(),
    ...(t.seenBefore ? { seen_before: true } : {}),
  }));
  if (report.watched) return { toasts, toasts_watched: true };
  return { ...(toasts.length > 0 ? { toasts } : {}), toasts_watched: false, toasts_note: report.why };
}

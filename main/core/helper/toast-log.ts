/**
 * Toasts, as the fast lane's helper reports them, and which of them a call's action brought.
 *
 * What appium-uiautomator2-server does (read from its source, written anew here):
 * - `NotificationListener.java` is the UiAutomation accessibility listener, started by
 *   `NewSession.java` and stopped by `DeleteSession.java`. On each
 *   `TYPE_NOTIFICATION_STATE_CHANGED` event with text it *replaces* what it keeps with that
 *   event's texts; `getToastMessage()` clears them once more than `TOAST_CLEAR_TIMEOUT = 3500`
 *   ms passed since that event (the helper's 3.5 s retention).
 * - `AccessibilityNodeInfoDumper.toStream` asks for those texts when a page source begins and
 *   `UiElementSnapshot.addToastMsg` adds each as a child of `<hierarchy>`, after the window
 *   roots: an `android.widget.Toast` element with only index, package, class, text and
 *   displayed — no bounds, and the package is always `com.android.settings`, not the app's.
 *
 * So a toast is known by its text and by a page source that saw it, never by when it came or
 * which app showed it; the helper keeps only the last one; and a status-bar notification's
 * ticker text arrives by the same event and reads the same way.
 *
 * This log keeps, per phone, what each of the bridge's helper reads saw (trees, the safety
 * check's reads, the read after an action), numbered in the order the reads began, so a call
 * can ask which toasts reads begun after its action started reported, and which of them the
 * helper may still have been holding from before (the same text shown by the reads just
 * before, less than its retention earlier): those are marked, not dropped, since an app that
 * shows the same toast twice ("Added to cart") is as likely as one still on the screen.
 */
import type { UiNode } from '../android/ui-tree';
import type { SeenToast } from '../tools/tool-definition';

/** How long the helper keeps the last toast's text (NotificationListener.TOAST_CLEAR_TIMEOUT). */
export const HELPER_TOAST_RETENTION_MS = 3_500;
/** The class the helper gives a toast's element in its page source. */
export const TOAST_NODE_CLASS = 'android.widget.Toast';
/**
 * Our clock reads a page source's start a little before the helper looks at its toasts (the
 * request's trip to the phone): reads of one text are taken as one toast unless they lie
 * more than the retention plus this margin apart (an old toast is never reported as new).
 */
const CLOCK_MARGIN_MS = 250;
/** Sightings kept per phone: enough for any one call's window; older ones are dropped. */
const MAX_SIGHTINGS = 64;
const MAX_SIGHTING_AGE_MS = 5 * 60_000;

/** One helper read: its number in the order reads began on the phone, when it began, and the toast texts it carried. */
interface Sighting {
  seq: number;
  at: number;
  texts: readonly string[];
}

/** A read that has begun (ToastLog.begin): record its toasts when it comes back. */
export interface ReadTicket {
  readonly seq: number;
  readonly at: number;
}

/**
 * The helper's toast elements out of a page source's nodes: they are children of
 * `<hierarchy>` (depth 0) of class android.widget.Toast, with no bounds. The rest is the
 * screen's tree, numbered again in order.
 */
export function splitToasts(nodes: readonly UiNode[]): { nodes: UiNode[]; toasts: string[] } {
  const toasts: string[] = [];
  const rest: UiNode[] = [];
  for (const node of nodes) {
    if (node.depth === 0 && node.className === TOAST_NODE_CLASS) {
      if (node.text !== '') toasts.push(node.text);
    } else {
      rest.push(rest.length === node.index ? node : { ...node, index: rest.length });
    }
  }
  return { nodes: rest, toasts };
}

export class ToastLog {
  private readonly phones = new Map<string, { begun: number; sightings: Sighting[] }>();

  constructor(private readonly clock: () => number = Date.now) {}

  /** How many helper reads have begun on the phone: reads begun later are "after" this mark. */
  mark(deviceId: string): number {
    return this.phones.get(deviceId)?.begun ?? 0;
  }

  /** A helper read of the page source begins now. */
  begin(deviceId: string): ReadTicket {
    const phone = this.phone(deviceId);
    phone.begun += 1;
    return { seq: phone.begun, at: this.clock() };
  }

  /** The read came back with these toast texts (none is also news: it saw no toast). */
  record(deviceId: string, ticket: ReadTicket, texts: readonly string[]): SeenToast[] {
    const phone = this.phone(deviceId);
    const list = phone.sightings;
    // Reads come back out of order; the list stays in the order they began.
    let at = list.length;
    while (at > 0 && (list[at - 1]?.seq ?? 0) > ticket.seq) at -= 1;
    list.splice(at, 0, { seq: ticket.seq, at: ticket.at, texts: [...new Set(texts)] });
    const oldest = this.clock() - MAX_SIGHTING_AGE_MS;
    while (list.length > MAX_SIGHTINGS || (list.length > 1 && (list[0]?.at ?? 0) < oldest)) list.shift();
    return [...new Set(texts)].map((text) => ({ text, at: ticket.at }));
  }

  /**
   * The toasts reads begun after mark `from` reported, each text once, in the order first
   * seen. `seenBefore`: the helper may still have been holding it from before `from` — the
   * reads just before showed the same text, without a gap back into the time before `from`,
   * the earliest of them less than its retention earlier (else it came again). `watched`: a
   * read begun after mark `readAfter` came back.
   */
  since(deviceId: string, from: number, readAfter: number): { watched: boolean; toasts: SeenToast[] } {
    const list = this.phones.get(deviceId)?.sightings ?? [];
    const seen = new Map<string, SeenToast>();
    list.forEach((sighting, i) => {
      if (sighting.seq <= from) return;
      for (const text of sighting.texts) {
        const known = seen.get(text);
        if (known && !known.seenBefore) continue;
        const before = heldFromBefore(list, i, text, from);
        // A later read that proves it came again replaces the doubtful first sighting.
        if (known && before) continue;
        seen.set(text, before ? { text, at: sighting.at, seenBefore: true } : { text, at: sighting.at });
      }
    });
    return { watched: list.some((s) => s.seq > readAfter), toasts: [...seen.values()] };
  }

  private phone(deviceId: string): { begun: number; sightings: Sighting[] } {
    let phone = this.phones.get(deviceId);
    if (!phone) {
      phone = { begun: 0, sightings: [] };
      this.phones.set(deviceId, phone);
    }
    return phone;
  }
}

/**
 * Whether `text` in sighting `i` may be the same toast a read begun before mark `from` saw:
 * the reads just before `i` show it without a gap back into the time before `from`, and the
 * earliest of them is too recent for the helper to have forgotten it since.
 */
function heldFromBefore(list: readonly Sighting[], i: number, text: string, from: number): boolean {
  let earliest: Sighting | undefined;
  let reachesBefore = false;
  for (let j = i - 1; j >= 0; j -= 1) {
    const s = list[j];
    if (!s?.texts.includes(text)) break;
    earliest = s;
    if (s.seq <= from) reachesBefore = true;
  }
  const current = list[i];
  if (!reachesBefore || !earliest || !current) return false;
  return current.at - earliest.at <= HELPER_TOAST_RETENTION_MS + CLOCK_MARGIN_MS;
}

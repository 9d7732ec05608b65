/**
 * What the tray and desktop notifications say, as pure functions of the admin state (no
 * electron import, unit-tested): the pending count in the tray's title and tooltip, which
 * approvals are new enough to notify, whether to notify at all, and the notification text
 * (the console's approval sentence and first reason, typed text and links left out: they stay
 * in the window), in the language of the bridge's setting (the caller resolves it; English when not given).
 */
import type { AdminApproval, AdminState } from '../contract/admin-api';
import { approvalSentence, reasonText } from '../contract/approval-wording';
import { translate, translator, type Locale } from '../contract/i18n';

export const APP_NAME = 'xAgent Device Bridge';

export interface TrayView {
  /** Next to the icon (macOS menu bar); empty when nothing waits. */
  title: string;
  tooltip: string;
  /** First, disabled line of the tray menu. */
  summary: string;
  /** For the dock / launcher badge. */
  badgeCount: number;
}

export function trayView(state: Pick<AdminState, 'approvals' | 'pairings'>, locale: Locale = 'en'): TrayView {
  const approvals = state.approvals.length;
  const pairings = state.pairings.length;
  const waiting: string[] = [];
  if (approvals > 0) waiting.push(translate(locale, 'tray.approvalsWaiting', { count: approvals }));
  if (pairings > 0) waiting.push(translate(locale, 'tray.pairingsWaiting', { count: pairings }));
  const summary =
    waiting.length > 0
      ? waiting.join(translate(locale, 'tray.listSeparator'))
      : translate(locale, 'tray.nothingWaiting');
  const total = approvals + pairings;
  const app = translate(locale, 'common.app.name');
  return {
    title: total > 0 ? String(total) : '',
    tooltip: waiting.length > 0 ? translate(locale, 'tray.tooltip', { app, summary }) : app,
    summary,
    badgeCount: total,
  };
}

/** The tray menu's own items. */
/** Most phones the tray menu lists (the rest are one click away in the window). */
export const TRAY_PHONES_MAX = 10;

/** "Watch <phone>" entries of the tray menu: the connected phones, by name, each opening its phone view. */
export function trayPhoneEntries(
  state: Pick<AdminState, 'devices'>,
  locale: Locale = 'en',
): Array<{ deviceId: string; label: string }> {
  return state.devices
    .filter((d) => d.state === 'device')
    .sort((a, b) => a.display_name.localeCompare(b.display_name))
    .slice(0, TRAY_PHONES_MAX)
    .map((d) => ({ deviceId: d.device_id, label: translate(locale, 'tray.openPhone', { phone: d.display_name }) }));
}

export function trayMenuLabels(locale: Locale = 'en'): { open: string; quit: string } {
  return { open: translate(locale, 'tray.open'), quit: translate(locale, 'tray.quit') };
}

/**
 * Tracks which approvals were already announced: returns those not seen before and forgets
 * ids that are no longer pending (so the set stays as small as the queue).
 */
export class ApprovalNotifier {
  private seen: Set<string> | null = null;

  /** New approvals since the last call. The very first call only learns what is already waiting. */
  fresh(approvals: readonly AdminApproval[], options: { announceExisting?: boolean } = {}): AdminApproval[] {
    const previous = this.seen;
    this.seen = new Set(approvals.map((a) => a.approval_id));
    if (!previous) return options.announceExisting ? [...approvals] : [];
    return approvals.filter((a) => !previous.has(a.approval_id));
  }
}

/**
 * Notify when the OS supports it and the person is not already looking at the window (a
 * focused, visible window shows the approval itself, with an announcement for screen readers).
 */
export function shouldNotify(context: { supported: boolean; windowVisible: boolean; windowFocused: boolean }): boolean {
  if (!context.supported) return false;
  return !(context.windowVisible && context.windowFocused);
}

/** Helper codes that mean the bridge stopped the fast lane to keep a phone safe (docs/REFERENCE.md "Fast lane"). */
const HELPER_ALERT_CODES: ReadonlySet<string> = new Set(['helper_foreign_connection', 'helper_not_verified']);

/**
 * Tracks the fast lane guard's alerts already announced (one per phone and reason): returns
 * the new ones. Unlike approvals, an alert already showing at the first call is announced too:
 * it happened while nobody was looking.
 */
export class HelperAlertNotifier {
  private seen = new Set<string>();

  fresh(state: Pick<AdminState, 'devices'>): Array<{ deviceId: string; phone: string; code: string }> {
    const current = state.devices.flatMap((d) =>
      d.helper && d.helper.state === 'failed' && HELPER_ALERT_CODES.has(d.helper.last_error_code ?? '')
        ? [
            {
              deviceId: d.device_id,
              phone: d.display_name,
              code: d.helper.last_error_code ?? '',
              key: `${d.device_id}\n${d.helper.last_error ?? ''}`,
            },
          ]
        : [],
    );
    const previous = this.seen;
    this.seen = new Set(current.map((c) => c.key));
    return current.filter((c) => !previous.has(c.key)).map(({ deviceId, phone, code }) => ({ deviceId, phone, code }));
  }
}

/** The desktop notification for a phone whose helper the guard stopped or refused to start. */
export function helperAlertNotification(
  alert: { phone: string; code: string },
  locale: Locale = 'en',
): { title: string; body: string } {
  return {
    title: translate(locale, 'tray.notify.helperTitle', { phone: alert.phone }),
    body: translate(locale, alert.code === 'helper_not_verified' ? 'helper.guard.notVerified' : 'helper.guard.foreign'),
  };
}

export function approvalNotification(
  approvals: readonly AdminApproval[],
  state: Pick<AdminState, 'devices'>,
  locale: Locale = 'en',
): { title: string; body: string } {
  const phone = (a: AdminApproval): string =>
    state.devices.find((d) => d.device_id === a.device_id)?.display_name ?? translate(locale, 'tray.notify.aPhone');
  const t = translator(locale);
  const line = (a: AdminApproval): string =>
    translate(locale, 'tray.notify.line', {
      sentence: approvalSentence(t, a, { brief: true }),
      phone: phone(a),
    });
  const first = approvals[0];
  if (!first) return { title: translate(locale, 'tray.notify.title'), body: '' };
  if (approvals.length === 1) {
    const reason = first.reasons[0] ? reasonText(t, first.reasons[0]) : null;
    return {
      title: translate(locale, 'tray.notify.title'),
      body: (reason ? translate(locale, 'tray.notify.reason', { line: line(first), reason }) : line(first)).slice(
        0,
        240,
      ),
    };
  }
  return {
    title: translate(locale, 'tray.notify.titleMany', { count: approvals.length }),
    body: approvals.map(line).join('\n').slice(0, 240),
  };
}

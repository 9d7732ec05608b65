/**
 * What the tray and desktop notifications say, as pure functions of the admin state (no
 * electron import, unit-tested): the pending count in the tray's title and tooltip, which
 * approvals are new enough to notify, whether to notify at all, and the notification text
 * (the console's approval sentence and first reason, typed text and links left out: they stay
 * in the window), in the language of the bridge's setting (the caller resolves it; English when not given).
 */
import type { AdminApproval, AdminDevice, AdminPersonAsk, AdminState } from '../contract/admin-api';
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

export function trayView(
  state: Pick<AdminState, 'approvals' | 'pairings'> & Partial<Pick<AdminState, 'devices'>>,
  locale: Locale = 'en',
): TrayView {
  const approvals = state.approvals.length;
  const pairings = state.pairings.length;
  const asks = unansweredAsks(state.devices ?? []).length;
  const waiting: string[] = [];
  if (asks > 0) waiting.push(translate(locale, 'tray.asksWaiting', { count: asks }));
  if (approvals > 0) waiting.push(translate(locale, 'tray.approvalsWaiting', { count: approvals }));
  if (pairings > 0) waiting.push(translate(locale, 'tray.pairingsWaiting', { count: pairings }));
  const summary =
    waiting.length > 0
      ? waiting.join(translate(locale, 'tray.listSeparator'))
      : translate(locale, 'tray.nothingWaiting');
  const total = approvals + pairings + asks;
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

/** The agents' asks nobody answered yet (docs/REFERENCE.md "Ask the person"), oldest first. */
function unansweredAsks(devices: readonly AdminDevice[]): Array<{ device: AdminDevice; ask: AdminPersonAsk }> {
  return devices
    .flatMap((device) => (device.ask && device.ask.taken_at === null ? [{ device, ask: device.ask }] : []))
    .sort((a, b) => a.ask.asked_at - b.ask.asked_at);
}

/** The agent's words in a menu line: one line, cut short (the card in the window has them whole). */
const MENU_REASON_MAX = 80;

/** One way to take a phone over from the tray: the agent sees nothing (first, the default), or may watch. */
export interface TrayTakeChoice {
  label: string;
  agentMayWatch: boolean;
}

/**
 * "Take over <phone>" / "Hand back <phone>" entries of the tray menu, one per leased phone that
 * is online, or taken over by a person; a phone whose agent asks for the person leads, with the
 * agent's words. A Take over opens the same choice as the phone view's ("The agent may watch",
 * off unless chosen): its `choices`, the hidden one first.
 */
export function trayTakeoverEntries(
  state: Pick<AdminState, 'devices'>,
  locale: Locale = 'en',
): Array<{
  deviceId: string;
  label: string;
  action: 'take' | 'hand_back';
  asked: boolean;
  choices: TrayTakeChoice[];
}> {
  return state.devices
    .filter((d) => d.taken_over || (d.lease !== null && d.state === 'device'))
    .map((d) => {
      const phone = d.display_name;
      if (d.taken_over) {
        return {
          deviceId: d.device_id,
          phone,
          label: translate(locale, 'tray.handBack', { phone }),
          action: 'hand_back' as const,
          asked: false,
          choices: [],
        };
      }
      const ask = d.ask && d.ask.taken_at === null ? d.ask : null;
      const reason = ask ? oneLine(ask.reason, MENU_REASON_MAX) : '';
      return {
        deviceId: d.device_id,
        phone,
        label: ask
          ? translate(locale, 'tray.takeOverAsked', { phone, reason })
          : translate(locale, 'tray.takeOver', { phone }),
        action: 'take' as const,
        asked: ask !== null,
        choices: [
          { label: translate(locale, 'tray.takeHidden'), agentMayWatch: false },
          { label: translate(locale, 'tray.takeWatched'), agentMayWatch: true },
        ],
      };
    })
    .sort((a, b) => Number(b.asked) - Number(a.asked) || a.phone.localeCompare(b.phone))
    .map(({ phone: _phone, ...entry }) => entry)
    .slice(0, TRAY_PHONES_MAX);
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * Tracks which asks were already announced (by id): returns the unanswered ones not seen
 * before. An ask already waiting at the first call is announced too: the agent waits for it.
 */
export class PersonAskNotifier {
  private seen = new Set<string>();

  fresh(state: Pick<AdminState, 'devices'>): Array<{ deviceId: string; phone: string; reason: string }> {
    const current = unansweredAsks(state.devices);
    const previous = this.seen;
    this.seen = new Set(current.map((c) => c.ask.ask_id));
    return current
      .filter((c) => !previous.has(c.ask.ask_id))
      .map((c) => ({ deviceId: c.device.device_id, phone: c.device.display_name, reason: c.ask.reason }));
  }
}

/** The desktop notification of an agent's ask: the phone, and the agent's words as its own. */
export function personAskNotification(
  ask: { phone: string; reason: string },
  locale: Locale = 'en',
): { title: string; body: string } {
  return {
    title: translate(locale, 'asks.notify.title', { phone: ask.phone }),
    body: translate(locale, 'asks.notify.body', { reason: oneLine(ask.reason, 240) }),
  };
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

/**
 * appium-uiautomator2-server's failure reasons that mean the bridge stopped it (or never ran
 * it) to keep a phone safe, with the alert's code (docs/REFERENCE.md "Fast lane").
 */
const HELPER_ALERTS: ReadonlyMap<string, string> = new Map([
  ['uia2_foreign_connection', 'helper_foreign_connection'],
  ['uia2_not_verified', 'helper_not_verified'],
]);

/**
 * Tracks the fast lane guard's alerts already announced (one per phone and reason): returns
 * the new ones. Unlike approvals, an alert already showing at the first call is announced too:
 * it happened while nobody was looking.
 */
export class HelperAlertNotifier {
  private seen = new Set<string>();

  fresh(state: Pick<AdminState, 'devices'>): Array<{ deviceId: string; phone: string; code: string }> {
    const current = state.devices.flatMap((d) => {
      const helper = d.programs?.find((p) => p.program === 'uia2_server');
      const code = helper?.state === 'failed' ? HELPER_ALERTS.get(helper.last_error_reason ?? '') : undefined;
      return helper && code
        ? [{ deviceId: d.device_id, phone: d.display_name, code, key: `${d.device_id}\n${helper.last_error ?? ''}` }]
        : [];
    });
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

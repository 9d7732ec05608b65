/**
 * What the tray and desktop notifications say, as pure functions of the admin state (no
 * electron import, unit-tested): the pending count in the tray's title and tooltip, which
 * approvals are new enough to notify, whether to notify at all, and the notification text
 * (tool and phone only: arguments stay in the window, where they are shown redacted).
 */
import type { AdminApproval, AdminState } from '../contract/admin-api';

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

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function trayView(state: Pick<AdminState, 'approvals' | 'pairings'>): TrayView {
  const approvals = state.approvals.length;
  const pairings = state.pairings.length;
  const waiting: string[] = [];
  if (approvals > 0) waiting.push(`${plural(approvals, 'approval', 'approvals')} waiting`);
  if (pairings > 0) waiting.push(`${plural(pairings, 'pairing request', 'pairing requests')} waiting`);
  const summary = waiting.length > 0 ? waiting.join(', ') : 'Nothing waiting for you';
  const total = approvals + pairings;
  return {
    title: total > 0 ? String(total) : '',
    tooltip: waiting.length > 0 ? `${APP_NAME} — ${summary}` : APP_NAME,
    summary,
    badgeCount: total,
  };
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

export function approvalNotification(approvals: readonly AdminApproval[], state: Pick<AdminState, 'devices'>): { title: string; body: string } {
  const phone = (a: AdminApproval): string => state.devices.find((d) => d.device_id === a.device_id)?.display_name ?? 'a phone';
  const first = approvals[0];
  if (!first) return { title: 'Approval needed', body: '' };
  if (approvals.length === 1) {
    const reason = first.reasons[0];
    return {
      title: 'Approval needed',
      body: `${first.tool_id} on ${phone(first)}${reason ? `: ${reason}` : ''}`.slice(0, 240),
    };
  }
  return { title: `${approvals.length} approvals needed`, body: approvals.map((a) => `${a.tool_id} on ${phone(a)}`).join('\n').slice(0, 240) };
}

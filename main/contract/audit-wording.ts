/**
 * The audit lines the bridge writes for itself and for the person (not an agent's tool call)
 * as one sentence each, in the reader's language: "You tapped", "You typed 6 characters",
 * "You took the phone over", "Handed back: “logged in”", "Phone reset after the lease: 1 app
 * stopped" (issue #37 point 5). One wording for every place that shows the audit trail: the
 * console's Activity, the phone view, and a lease's evidence page. An agent's call has no
 * sentence here (null): those places name its tool and arguments their own way. Pure: no DOM,
 * no electron.
 */
import type { AuditEntry } from './admin-api';
import type { MessageKey, Translate } from './i18n';

/** What a line's sentence is built from. */
export type AuditLineFacts = Pick<AuditEntry, 'tool_id' | 'arguments' | 'error_code' | 'reasons'>;

/**
 * When the line's action began. An agent's call is written with the time it was received; the
 * bridge writes its own lines and the person's input when they are over, so a person's input
 * began `duration_ms` before its line, and a moment is its own time.
 */
export function lineStartedAt(line: Pick<AuditEntry, 'tool_id' | 'time' | 'duration_ms'>): number {
  return line.tool_id.startsWith('person_') ? line.time - line.duration_ms : line.time;
}

const PERSON_KEYS: Record<string, MessageKey> = {
  back: 'phone-view.takeover.key.back',
  home: 'phone-view.takeover.key.home',
  app_switch: 'phone-view.takeover.key.app_switch',
  enter: 'phone-view.person.key.enter',
  backspace: 'phone-view.person.key.backspace',
  forward_delete: 'phone-view.person.key.forward_delete',
  tab: 'phone-view.person.key.tab',
  dpad_up: 'phone-view.person.key.dpad_up',
  dpad_down: 'phone-view.person.key.dpad_down',
  dpad_left: 'phone-view.person.key.dpad_left',
  dpad_right: 'phone-view.person.key.dpad_right',
};

const ASKS: Record<string, MessageKey> = {
  ask_person: 'activity.line.ask_person',
  ask_declined: 'activity.line.ask_declined',
  ask_timed_out: 'activity.line.ask_timed_out',
  ask_canceled: 'activity.line.ask_canceled',
};

/**
 * The person's own input on a phone they hold, from what the audit keeps of it (typed text as
 * its length only): "You tapped", "You typed 6 characters", "You pressed Back".
 */
export function personSentence(t: Translate, args: Record<string, unknown>): string {
  switch (args.kind) {
    case 'tap':
      return t('phone-view.person.tap');
    case 'long_press':
      return t('phone-view.person.long_press');
    case 'swipe':
      return t('phone-view.person.swipe');
    case 'scroll':
      return t(
        `phone-view.person.scroll.${args.direction === 'up' || args.direction === 'left' || args.direction === 'right' ? args.direction : 'down'}`,
      );
    case 'text':
      return t('phone-view.person.text', { count: typeof args.characters === 'number' ? args.characters : 0 });
    case 'key': {
      const key = typeof args.key === 'string' ? PERSON_KEYS[args.key] : undefined;
      return t('phone-view.person.key', { key: key ? t(key) : String(args.key) });
    }
    default:
      return t('phone-view.person.other');
  }
}

function count(value: unknown): number {
  return Array.isArray(value) ? value.length : 0;
}

/** What the reset after a lease did, counted ("1 app stopped, 2 files deleted"), or that it failed. */
function turnoverSentence(t: Translate, line: AuditLineFacts): string {
  const a = line.arguments;
  const done = [
    [count(a.stopped_apps), 'activity.line.turnover.stopped'],
    [count(a.removed_apps), 'activity.line.turnover.removed'],
    [count(a.deleted_files), 'activity.line.turnover.deleted'],
    [count(a.cleared_apps), 'activity.line.turnover.cleared'],
    [count(a.restored_permissions), 'activity.line.turnover.restored'],
  ] as const;
  const parts = done.filter(([n]) => n > 0).map(([n, key]) => t(key, { count: n }));
  if (a.clipboard_cleared === true) parts.push(t('activity.line.turnover.clipboard'));
  const what = parts.length > 0 ? parts.join(t('activity.line.separator')) : t('activity.line.turnover.nothing');
  // A failed reset's reasons are its problems (what the person has to check), not what it did.
  return line.error_code
    ? t('activity.line.turnover.failed', { what: line.reasons.join(t('activity.line.separator')) || what })
    : t('activity.line.turnover.done', { what });
}

/** The line as one sentence in the reader's language; null for an agent's tool call. */
export function auditSentence(t: Translate, line: AuditLineFacts): string | null {
  if (line.tool_id.startsWith('person_')) return personSentence(t, line.arguments);
  switch (line.tool_id) {
    case 'take_over':
      return t('activity.line.take_over');
    case 'hand_back': {
      const note = typeof line.arguments.note === 'string' ? line.arguments.note.trim() : '';
      return note ? t('activity.line.hand_back_note', { note }) : t('activity.line.hand_back');
    }
    case 'turnover':
      return turnoverSentence(t, line);
    case 'fast_lane_guard':
      return t('activity.line.fast_lane_guard');
  }
  const ask = ASKS[line.tool_id];
  return ask ? t(ask) : null;
}

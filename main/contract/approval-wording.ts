/**
 * What a held call is, in one sentence a person reads in their language ("The agent wants to
 * tap “Pay $25.00” in Wallet" / "智能体想在 Wallet 中点按“Pay $25.00”"), and why it was held,
 * from the structured approval the bridge sends (admin-api.ts AdminApproval). One wording for
 * every place that shows an approval: the console's card, the phone view, the screen-reader
 * announcement, the desktop notification; and the bridge's own English reasons (the agent's
 * messages and the audit trail) are these reasons in English. Pure: no DOM, no electron.
 */
import type { AdminApproval, AdminApprovalReason } from './admin-api';
import { hasMessage, type MessageKey, type Translate } from './i18n';
import { isRiskClass, riskClassWords } from './risk-classes';
import { PERSON_ACTION_NAMES, toolWords } from './tools';

type PersonAction = keyof typeof PERSON_ACTION_NAMES;

export interface SentenceOptions {
  /** Wraps each named thing (the target, the app, the text): the card makes them bold. Default: as is. */
  emphasis?: (value: string) => string;
  /**
   * Leave out typed text and links, for places that can be read over a shoulder or are kept by
   * the OS (desktop notifications); the console shows them, since the approver judges them.
   */
  brief?: boolean;
}

/** What a sentence is built from: the approval's tool, redacted arguments, resolved action and app. */
export type ApprovalFacts = Pick<AdminApproval, 'tool_id' | 'arguments' | 'action' | 'app'>;

/** Longest quoted text or label in a sentence; the rest is behind the details toggle. */
const QUOTE_MAX = 60;
/** What redaction leaves of a hidden value (main/core/safety/redact.ts REDACTED). */
const REDACTED = '[redacted]';

function shorten(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > QUOTE_MAX ? `${flat.slice(0, QUOTE_MAX - 1)}…` : flat;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * What a person calls a tool ("Tap", "点按") or their own take-over and hand-back; the id
 * itself when this side does not know it (a newer bridge's tool).
 */
export function toolLabel(t: Translate, toolId: string): string {
  const words = toolWords(toolId);
  if (words) return t(words.name);
  return Object.hasOwn(PERSON_ACTION_NAMES, toolId) ? t(PERSON_ACTION_NAMES[toolId as PersonAction]) : toolId;
}

/** `android.permission.CAMERA` → `CAMERA`: the part a person recognises. */
export function permissionLabel(permission: string): string {
  return permission.replace(/^android\.permission\./, '');
}

/** A key's name as people say it ("Enter", "返回"); others spelled out from their id ("Volume up"). */
export function keyLabel(t: Translate, key: string): string {
  const known = `approvals.key.${key}`;
  if (hasMessage(known)) return t(known);
  const words = key.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The direction a finger moves from `from` to `to` (screen y grows downwards). */
export function swipeDirection(from: readonly [number, number], to: readonly [number, number]): Direction {
  const dx = to[0] - from[0];
  const dy = to[1] - from[1];
  if (Math.abs(dx) > Math.abs(dy)) return dx > 0 ? 'right' : 'left';
  return dy > 0 ? 'down' : 'up';
}

type Direction = 'up' | 'down' | 'left' | 'right';
const DIRECTIONS: readonly string[] = ['up', 'down', 'left', 'right'];

const DIRECTION_TEXT: Record<Direction, MessageKey> = {
  up: 'approvals.say.dir.up',
  down: 'approvals.say.dir.down',
  left: 'approvals.say.dir.left',
  right: 'approvals.say.dir.right',
};

/**
 * The one sentence that says what the agent wants to do, in the translator's language.
 * Typed text redacted by the bridge (a password field, a lab secret) is never shown: the
 * sentence says "hidden text" or names the secret.
 */
export function approvalSentence(t: Translate, approval: ApprovalFacts, options: SentenceOptions = {}): string {
  // Private-use marks the card splits on must not come from the phone's or the agent's words.
  const em = (value: string): string => (options.emphasis ?? ((v) => v))(value.replace(/[\uE000-\uE0FF]/g, ''));
  const args = approval.arguments;
  const words = toolWords(approval.tool_id);
  const keys = words?.approval;

  if (keys && (words.shape === 'app' || words.shape === 'permission')) {
    // Tools about one app (its package is an argument): the app is what the sentence names.
    const pkg = str(args.package) ?? approval.app?.package ?? '';
    const app = approval.app && approval.app.package === pkg ? approval.app.label : pkg;
    return t(keys.plain, { app: em(app), permission: em(permissionLabel(str(args.permission) ?? '')) });
  }

  const app = approval.app ? em(approval.app.label) : '';
  if (!keys) {
    return t(approval.app ? 'approvals.say.other.app' : 'approvals.say.other', {
      tool: em(toolLabel(t, approval.tool_id)),
      app,
    });
  }
  const key = approval.app ? keys.inApp : keys.plain;
  const quoted = (text: string): string => t('approvals.say.quoted', { text: em(shorten(text)) });

  const typed = (text: string | undefined, secret: string | undefined): string => {
    if (secret !== undefined) return t('approvals.say.text.secret', { name: em(secret) });
    if (text === undefined || text === REDACTED) return t('approvals.say.text.hidden');
    if (options.brief) return t('approvals.say.text.omitted');
    if (text === '') return t('approvals.say.text.empty');
    return quoted(text);
  };

  const target = approval.action.target;
  const targetText = (): string => {
    if (target?.label) return quoted(target.label);
    if (target?.point) return t('approvals.say.target.point', { x: target.point[0], y: target.point[1] });
    return t('approvals.say.target.unknown');
  };

  switch (words.shape) {
    case 'target':
      return t(key, { target: targetText(), app });
    case 'swipe': {
      const given = str(args.direction);
      const path = approval.action.swipe;
      const direction: Direction | null =
        given !== undefined && DIRECTIONS.includes(given)
          ? (given as Direction)
          : path
            ? swipeDirection(path.from, path.to)
            : null;
      if (!direction)
        return t(approval.app ? 'approvals.say.swipe.anywhere.app' : 'approvals.say.swipe.anywhere', { app });
      return t(key, { direction: t(DIRECTION_TEXT[direction]), app });
    }
    case 'typed': {
      const field = target?.label
        ? t('approvals.say.field.label', { label: em(shorten(target.label)) })
        : t('approvals.say.field.focused');
      return t(key, { text: typed(str(args.text), str(args.secret)), field, app });
    }
    case 'key':
      return t(key, { key: em(keyLabel(t, str(args.key) ?? '')), app });
    case 'batch': {
      const steps = Array.isArray(args.steps) ? (args.steps as unknown[]) : [];
      const names = steps.map((s) =>
        toolLabel(t, s && typeof s === 'object' ? (str((s as Record<string, unknown>).tool) ?? '') : ''),
      );
      return t(key, { count: steps.length, steps: names.join(t('approvals.say.listSeparator')), app });
    }
    case 'clipboard_write':
      return t(key, { text: typed(str(args.text), undefined) });
    case 'url':
      return options.brief ? t('approvals.say.open_url.brief') : t(key, { url: em(shorten(str(args.url) ?? '')) });
    case 'install':
    case 'push': {
      const name = str(args.filename) ?? approval.action.file_name;
      if (name) return t(key, { file: em(name) });
      return t(words.shape === 'install' ? 'approvals.say.install_apk.noName' : 'approvals.say.push_file.noName');
    }
    default:
      return t(key, { app });
  }
}

/** A reason's parameters as a person reads them: risk classes and permissions in words. */
function readableParams(t: Translate, params: AdminApprovalReason['params']): Record<string, string | number> {
  const out: Record<string, string | number> = { ...params };
  if (typeof params.permission === 'string') out.permission = permissionLabel(params.permission);
  if (typeof params.classes === 'string') {
    out.classes = params.classes
      .split(',')
      .map((c) => {
        const name = c.trim();
        return isRiskClass(name) ? t(riskClassWords(name).label) : name;
      })
      .join(t('approvals.say.listSeparator'));
  }
  return out;
}

/**
 * One reason in words. A code this console does not know (a newer bridge) is shown as its
 * code and parameters rather than dropped: the person still sees that something asked.
 */
export function reasonText(t: Translate, reason: AdminApprovalReason): string {
  const key = `approvals.reason.${reason.code}`;
  const params = readableParams(t, reason.params);
  const text = hasMessage(key)
    ? t(key, params)
    : [reason.code.replace(/_/g, ' '), ...Object.values(params).map(String)].join(' · ');
  return reason.step_tool ? t('approvals.reason.inStep', { step: toolLabel(t, reason.step_tool), reason: text }) : text;
}

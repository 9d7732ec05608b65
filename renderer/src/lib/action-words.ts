/**
 * An agent's call in the person's words, from what the console already has: what it acts on
 * (`Press a key` "Home", `Type text` “hello”, `Open an app` com.example.notes), what a running
 * call waits for and for how long ("Waiting for “Done” to appear — 3 s of 20 s"), and what an
 * error code means. Tools whose arguments have no simple shape get no words; their raw
 * arguments stay behind the timeline's Details. Pass the UI's `t` (English by default, for tests).
 */
import type { AdminPhoneAction } from '../../../main/contract/admin-api';
import { hasMessage, translator, type Translate } from '../../../main/contract/i18n';
import { toolWords, type ToolShape } from '../../../main/contract/tools';

const ENGLISH = translator('en');

/** The wait tool's default timeout (main/core/tools/observation-tools.ts). */
const WAIT_DEFAULT_MS = 10_000;
/** How long an install may take (android_install_apk's deadline). */
const INSTALL_MAX_MS = 180_000;
/** The audit trail's at-rest form of typed text (main/core/tools/typed-text.ts). */
const DIGEST = /^\[text: (\d+) chars, hmac-sha256:[0-9a-f]+\]$/;
const REDACTED = '[redacted]';
/** Calls a person, the policy or Stop ended: not a failure of the phone. */
const STOPPED_CODES = new Set(['approval_denied', 'approval_timeout', 'policy_denied', 'canceled']);

type Args = Record<string, unknown>;

function str(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function record(value: unknown): Args | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Args) : null;
}

/** Cuts long words for one line (whole characters, not UTF-16 halves). */
function clip(text: string, max = 60): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}

/** What a person calls an element the agent named: its text, label, id or number. */
function elementLabel(element: Args): string | null {
  const label =
    str(element.text) ?? str(element.text_contains) ?? str(element.content_desc) ?? str(element.resource_id);
  if (label) return clip(label.replace(/^[\w.]+:id\//, ''));
  const index = num(element.index);
  return index === null ? null : `#${index}`;
}

/** A key's name as on the phone ("Home", 主屏幕); keys without one keep their id, spaced. */
export function keyWords(t: Translate, key: string): string {
  const k = `actions.keys.${key}`;
  return hasMessage(k) ? t(k) : key.replace(/_/g, ' ');
}

/**
 * Where a tap lands, or (`into`) the field typed into. `seen` is what the bridge read on the
 * element at the call, so a ref (`@yl3`) reads as the words a person sees ("on “Notes”").
 */
function target(t: Translate, args: Args, into = false, seen: string | null = null): string | null {
  const x = num(args.x);
  const y = num(args.y);
  if (x !== null && y !== null) return t('actions.at', { x, y });
  const ref = str(args.ref);
  if (ref && seen) return into ? t('actions.into', { label: clip(seen) }) : t('actions.on', { label: clip(seen) });
  if (ref) return t('actions.onRef', { ref });
  const element = record(args.element);
  if (!element) return null;
  const label = elementLabel(element);
  if (label === null) return null;
  if (label.startsWith('#') && num(element.index) !== null) return t('actions.onIndex', { index: label.slice(1) });
  return into ? t('actions.into', { label }) : t('actions.on', { label });
}

/**
 * What was typed, in words: the plain text where the console on this computer has it, dots
 * for a secret, else what the audit trail keeps (a length, or "hidden").
 */
export function typedWords(t: Translate, args: Args, typing: ReadonlyArray<string | null> | null | undefined): string {
  const live = typing?.[0];
  if (typeof live === 'string') return t('actions.typed.plain', { text: clip(live, 120) });
  const secret = str(args.secret);
  if (secret) return t('actions.typed.secretNamed', { name: secret });
  const shown = args.text;
  if (typeof shown === 'string') {
    const digest = DIGEST.exec(shown);
    if (digest) return t('actions.typed.digest', { count: Number(digest[1]) });
    if (shown === REDACTED || typing?.[0] === null) return t('actions.typed.secret');
    return t('actions.typed.plain', { text: clip(shown, 120) });
  }
  return t('actions.typed.hidden');
}

/** The condition android_wait_for waits on, read from its arguments. */
function waitCondition(args: Args): { kind: 'appears' | 'disappears' | 'settled' | 'toast'; label: string } {
  const toast = str(args.toast);
  if (toast) return { kind: 'toast', label: clip(toast) };
  const element = record(args.element);
  const label = element ? (elementLabel(element) ?? '') : '';
  const condition = args.condition;
  if (condition === 'disappears') return { kind: 'disappears', label };
  if (condition === 'settled' || !element) return { kind: 'settled', label };
  return { kind: 'appears', label };
}

function waitLimitMs(args: Args): number {
  return num(args.timeout_ms) ?? WAIT_DEFAULT_MS;
}

/** The shape of a tool's arguments (main/contract/tools.ts); a tool this side does not know has none. */
const shapeOf = (toolId: string): ToolShape => toolWords(toolId)?.shape ?? 'none';

/** The arguments of a call in words, or null where the tool has no simple shape. */
export function argumentWords(
  t: Translate,
  toolId: string,
  args: Args,
  typing?: ReadonlyArray<string | null> | null,
  targetLabel: string | null = null,
): string | null {
  switch (shapeOf(toolId)) {
    case 'target':
      return target(t, args, false, targetLabel);
    case 'swipe': {
      const direction = args.direction;
      if (direction === 'up' || direction === 'down' || direction === 'left' || direction === 'right')
        return t('actions.swipe.direction', { direction: t(`actions.direction.${direction}`) });
      const [x, y, toX, toY] = [num(args.from_x), num(args.from_y), num(args.to_x), num(args.to_y)];
      return x !== null && y !== null && toX !== null && toY !== null
        ? t('actions.swipe.points', { x, y, to_x: toX, to_y: toY })
        : null;
    }
    case 'typed': {
      const parts = [typedWords(t, args, typing)];
      const where = target(t, args, true, targetLabel);
      if (where) parts.push(where);
      if (args.clear === true) parts.push(t('actions.typed.clear'));
      if (args.submit === true) parts.push(t('actions.typed.submit'));
      return parts.join(' · ');
    }
    case 'key': {
      const key = str(args.key);
      if (!key) return null;
      return args.long_press === true ? t('actions.key.long', { key: keyWords(t, key) }) : keyWords(t, key);
    }
    case 'ask': {
      // The agent's own words, quoted: they are its, not the bridge's.
      const reason = str(args.reason);
      return reason ? t('actions.askReason', { reason }) : null;
    }
    case 'app': {
      // The app's name as the phone's launcher shows it, when the bridge read it at the call.
      const name = targetLabel ?? str(args.package);
      return name ? t('actions.app', { name }) : null;
    }
    case 'permission': {
      const [name, permission] = [str(args.package), str(args.permission)];
      return name && permission ? t('actions.permission', { name, permission }) : null;
    }
    case 'url':
      return str(args.url) ? clip(String(args.url), 80) : null;
    case 'wait': {
      const wait = waitCondition(args);
      const limit = t('actions.wait.limit', { n: Math.round(waitLimitMs(args) / 1000) });
      return `${t(`actions.wait.${wait.kind}`, { label: wait.label })} · ${limit}`;
    }
    case 'record': {
      const seconds = num(args.seconds);
      return seconds === null ? null : t('actions.record', { count: seconds });
    }
    case 'batch':
      return Array.isArray(args.steps) ? t('actions.steps', { count: args.steps.length }) : null;
    default:
      return null;
  }
}

/**
 * What a call that has not ended is doing, with the seconds counted on this side (the bridge
 * sends the progress it gives the agent; the console ticks between). Null for a held call (its
 * approval says it) and for a call that ended.
 */
export function waitWords(t: Translate, action: AdminPhoneAction, now: number): string | null {
  if (action.state === 'queued') {
    return t('actions.waiting.queue', { n: Math.max(0, Math.floor((now - action.queued_at) / 1000)) });
  }
  if (action.state !== 'running') return null;
  const n = Math.max(0, Math.floor((now - (action.started_at ?? action.queued_at)) / 1000));
  const args = action.arguments;
  const shape = shapeOf(action.tool_id);
  if (shape === 'wait') {
    const wait = waitCondition(args);
    const max = Math.round(waitLimitMs(args) / 1000);
    return t(`actions.waiting.${wait.kind}`, { label: wait.label, n: Math.min(n, max), max });
  }
  if (shape === 'record' && num(args.seconds) !== null) {
    const max = num(args.seconds) ?? 0;
    return t('actions.waiting.record', { n: Math.min(n, max), max });
  }
  if (shape === 'install') return t('actions.waiting.install', { n, max: INSTALL_MAX_MS / 1000 });
  const fraction = action.progress?.fraction;
  if (shape === 'batch' && Array.isArray(args.steps) && typeof fraction === 'number') {
    const steps = args.steps.length;
    return t('actions.waiting.step', { step: Math.min(steps, Math.floor(fraction * steps) + 1), steps, n });
  }
  return t('actions.waiting.running', { n });
}

/** What an error code means for the person (the catalogue's `errors` area); an unknown code shows itself. */
export function errorExplanation(code: string, t: Translate = ENGLISH): string {
  const key = `errors.${code}`;
  return hasMessage(key) ? t(key) : code;
}

/** A code that means a person, the policy or Stop ended the call, not that the phone failed. */
export function isStoppedCode(code: string | null): boolean {
  return code !== null && STOPPED_CODES.has(code);
}

/**
 * Redaction of tool arguments before they are shown to the approver or written to the audit
 * trail: text typed into password fields, values under secret-sounding keys, the bridge's own
 * secrets (API key, admin token) and access codes, signature parameters of signed URLs,
 * bearer tokens, and long random-looking tokens. What is left is what a person needs to
 * judge the action. A lab secret typed by name (tools/secret-text.ts) is shown by its name:
 * the arguments never held its value.
 */
import { SECRET_NAME_PATTERN } from '../../contract/admin-api';
import { redact as redactKnown } from '../logging/logger';
import { toolFacts } from '../tools/catalogue';
import type { ToolFacts } from '../tools/tool-definition';
import type { ToolCall } from '../tools/tool-call';
import { replaceTypedText, typedTexts } from '../tools/typed-text';

export const REDACTED = '[redacted]';

const SECRET_KEYS =
  /^(password|passwd|passcode|pin|secret|token|api_?key|access_?code|authorization|auth|sig|signature|otp|cvv|cvc)$/i;
const FILE_REF = /^file_[A-Za-z0-9_-]{32}$/;
// Long runs of token characters with letters and digits: keys, session ids, one-time codes.
const TOKEN_RE = /[A-Za-z0-9_\-+/=]{24,}/g;
const URL_SECRET_PARAMS =
  /([?&#](?:sig|signature|token|access_token|api_key|apikey|key|code|password|auth)=)[^&#\s]*/gi;

export interface RedactionContext {
  /** Live secrets that must never be written (API key, admin token). */
  secrets: readonly string[];
  /** True when a string is one of the lab's access codes (a scrypt check: whole typed texts only). */
  isAccessCode?: (value: string) => boolean;
  /** The call types into a password field (or may): typed text is dropped. */
  secretText: boolean;
}

function looksRandom(token: string): boolean {
  return /[A-Za-z]/.test(token) && /[0-9]/.test(token) && !FILE_REF.test(token);
}

/** Redacts one free-text value. */
export function redactText(value: string, ctx: RedactionContext, checkCodes = true): string {
  const isCode = checkCodes ? ctx.isAccessCode : undefined;
  if (isCode?.(value.trim())) return REDACTED;
  let out = redactKnown(value, ctx.secrets);
  out = out.replace(URL_SECRET_PARAMS, `$1${REDACTED}`);
  out = out.replace(TOKEN_RE, (token) => (looksRandom(token) ? REDACTED : token));
  return out;
}

/** The arguments of one tool at a level of the walk: the one holding typed text, the one naming a secret (the tool's facts). */
interface Level {
  typed: string | null;
  secret: string | null;
}

function levelOf(facts: ToolFacts): Level {
  return { typed: facts.typedTextArg ?? null, secret: facts.secretArg ?? null };
}

function walk(value: unknown, key: string, ctx: RedactionContext, level: Level, depth: number): unknown {
  if (depth > 8) return REDACTED;
  if (typeof value === 'string') {
    // A secret's name, as its tool's schema accepted it: what people see instead of the value.
    if (level.secret !== null && key === level.secret) return SECRET_NAME_PATTERN.test(value) ? value : REDACTED;
    if (SECRET_KEYS.test(key)) return REDACTED;
    if (level.typed !== null && key === level.typed && ctx.secretText) return REDACTED;
    return redactText(value, ctx, key === 'text');
  }
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => walk(v, key, ctx, level, depth + 1));
  if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    // A batch step: its own arguments hold typed text (or a secret's name) when its tool types.
    const stepLevel = typeof record.tool === 'string' ? levelOf(toolFacts(record.tool)) : level;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(record)) out[k] = walk(v, k, ctx, stepLevel, depth + 1);
    return out;
  }
  return value;
}

/** A redacted deep copy of a call's arguments. */
export function redactArguments(
  toolId: string,
  args: Record<string, unknown>,
  ctx: RedactionContext,
): Record<string, unknown> {
  const facts = toolFacts(toolId);
  const level = facts.policy === 'batch' ? { typed: 'text', secret: null } : levelOf(facts);
  return walk(args, '', ctx, level, 0) as Record<string, unknown>;
}

/**
 * The texts a call types, for the phone view on this computer only (kept in memory, never
 * stored): plain, except what the gate redacted as secret (a password field, an access code)
 * and a lab secret typed by name, which are null. Before the gate judged the call every text is
 * null, as the audit would keep it.
 */
export function liveTyping(call: Pick<ToolCall, 'tool' | 'args' | 'verdict'>): Array<string | null> {
  const out: Array<string | null> = [];
  const shown = call.verdict?.redactedArgs;
  if (shown)
    replaceTypedText(call.tool.id, call.args, shown, (text, shownValue) => {
      out.push(shownValue === REDACTED ? null : text);
      return shownValue;
    });
  else out.push(...typedTexts(call.tool.id, call.args).map(() => null));
  const secretArg = toolFacts(call.tool.id).secretArg;
  if (secretArg !== undefined && typeof call.args[secretArg] === 'string') out.push(null);
  return out;
}

/**
 * Text an agent types on a phone — android_type_text's `text`, and the same in android_batch's
 * typing steps — is people's own: messages, searches, names, addresses. Where it is kept at
 * rest (the audit trail unless `audit_typed_text` is `full`; the tool-call journal always), it
 * is kept only as its length and a short keyed hash, `[text: 28 chars, hmac-sha256:3f9a1c2b]`,
 * so repeats can still be matched. The journal also leaves out the screens calls observed,
 * which show typed text once it is in a field, and the toasts they saw (an app may echo what
 * was typed: "Saved 'Meet me at…'").
 *
 * Keyed, not a plain SHA-256: a plain hash of a short text (a PIN, "yes", a name, a phone
 * number) is reversed by hashing guesses. The key is a random secret of the data dir
 * (`text-hash-key`, a 0600 file like the API key), so hashes in a copied or exported audit
 * file cannot be checked against guesses without it; whoever holds the whole data dir holds
 * the key too. Other tools' arguments carry no typed text (URLs, package names, file names
 * and on-screen text of selectors; test/unit/typed-text.test.ts keeps that list honest).
 */
import { createHmac } from 'node:crypto';
import { toolFacts } from './catalogue';

/** Hex digits of the keyed hash that are kept: enough to match repeats, short to read. */
export const TYPED_TEXT_HASH_DIGITS = 8;

/** A typed text this short is replaced only where it is a whole string, never inside other words. */
const MIN_SUBSTRING_LENGTH = 4;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The at-rest form of one typed text: its length in characters and a keyed hash prefix. */
export function typedTextDigest(text: string, key: Buffer): string {
  const hash = createHmac('sha256', key).update(text, 'utf8').digest('hex').slice(0, TYPED_TEXT_HASH_DIGITS);
  return `[text: ${[...text].length} chars, hmac-sha256:${hash}]`;
}

/**
 * Each typing step's arguments inside a call's arguments, with the argument that holds its
 * text (the tool's facts; tolerates arguments that failed validation).
 */
function typingArguments(
  toolId: string,
  args: Record<string, unknown>,
): Array<{ at: number; args: Record<string, unknown>; key: string }> {
  const facts = toolFacts(toolId);
  if (facts.typedTextArg !== undefined) return [{ at: -1, args, key: facts.typedTextArg }];
  if (facts.policy !== 'batch' || !Array.isArray(args.steps)) return [];
  const out: Array<{ at: number; args: Record<string, unknown>; key: string }> = [];
  args.steps.forEach((step: unknown, at) => {
    const key = isRecord(step) && typeof step.tool === 'string' ? toolFacts(step.tool).typedTextArg : undefined;
    if (key !== undefined && isRecord(step) && isRecord(step.arguments)) out.push({ at, args: step.arguments, key });
  });
  return out;
}

/** Every text a call types, in order. */
export function typedTexts(toolId: string, args: Record<string, unknown>): string[] {
  return typingArguments(toolId, args)
    .map((t) => t.args[t.key])
    .filter((text): text is string => typeof text === 'string' && text.length > 0);
}

/**
 * A copy of `shown` (the call's arguments as already redacted, same shape as `raw`) whose
 * typed texts are replaced by `replace(raw text, shown value)`. Positions missing from
 * `shown` (cut by redaction) are left as they are.
 */
export function replaceTypedText(
  toolId: string,
  raw: Record<string, unknown>,
  shown: Record<string, unknown>,
  replace: (text: string, shownValue: unknown) => unknown,
): Record<string, unknown> {
  const typing = typingArguments(toolId, raw);
  if (typing.length === 0) return shown;
  const swap = (target: unknown, text: unknown, key: string): unknown => {
    if (!isRecord(target) || typeof text !== 'string' || !(key in target)) return target;
    return { ...target, [key]: replace(text, target[key]) };
  };
  const whole = typing.find((t) => t.at === -1);
  if (whole) return swap(shown, raw[whole.key], whole.key) as Record<string, unknown>;
  if (!Array.isArray(shown.steps)) return shown;
  const steps = [...(shown.steps as unknown[])];
  for (const { at, args, key } of typing) {
    const step = steps[at];
    if (isRecord(step)) steps[at] = { ...step, arguments: swap(step.arguments, args[key], key) };
  }
  return { ...shown, steps };
}

/**
 * A tool's ack as the journal file keeps it for a retry after a restart: without the screen
 * content it observed (`ui` of `observe`, the on-screen text of the element it acted on, the
 * `toasts` it saw), which may show text typed by this or an earlier call, and with this call's
 * typed texts replaced wherever else they appear (an error message). The screen would be stale
 * after a restart anyway; `screen_not_kept: true` tells the agent to read it again.
 */
export function ackAtRest<T>(ack: T, texts: readonly string[], replace: (text: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!isRecord(v)) return v;
    const out: Record<string, unknown> = {};
    for (const [k, inner] of Object.entries(v)) {
      if ((k === 'ui' || k === 'toasts') && Array.isArray(inner)) {
        out.screen_not_kept = true;
      } else if (k === 'element' && isRecord(inner)) {
        const { text: _text, content_desc: _desc, ...rest } = inner;
        out[k] = rest;
      } else {
        out[k] = walk(inner);
      }
    }
    return out;
  };
  return scrubTypedText(walk(ack) as T, texts, replace);
}

/**
 * A deep copy of `value` (a tool result) with every occurrence of the typed texts replaced
 * by `replace(text)` — an observed UI tree or an element description after typing shows the
 * field's new content. Texts shorter than four characters are replaced only where a whole
 * string equals them (inside other words they would tell nothing and garble the rest).
 */
export function scrubTypedText<T>(value: T, texts: readonly string[], replace: (text: string) => string): T {
  const longFirst = [...new Set(texts)].filter((t) => t.length > 0).sort((a, b) => b.length - a.length);
  if (longFirst.length === 0) return value;
  const scrubString = (s: string): string => {
    const whole = longFirst.find((t) => s === t || s.trim() === t);
    if (whole !== undefined) return replace(whole);
    let out = s;
    for (const t of longFirst)
      if (t.length >= MIN_SUBSTRING_LENGTH && out.includes(t)) out = out.split(t).join(replace(t));
    return out;
  };
  return mapStrings(value, scrubString);
}

/** `value` with every string in it (at any depth of arrays and plain objects) passed through `f`. */
export function mapStrings<T>(value: T, f: (s: string) => string): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return f(v);
    if (Array.isArray(v)) return v.map(walk);
    if (isRecord(v)) return Object.fromEntries(Object.entries(v).map(([k, inner]) => [k, walk(inner)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * What a phone's log must not hand out: apps log what people type ("afterTextChanged: …"),
 * tokens and passwords. Before log lines leave the bridge (android_logcat's result or file,
 * a lease's rolling log) they are redacted three ways:
 *
 * - every lab secret's value, in each form it takes on the way to a phone, becomes
 *   `[secret: name]` (secret-text.ts scrubSecrets);
 * - every text typed on the phone during this lease becomes `[typed text]` (one shorter than
 *   four characters is left: inside a line it would garble every line: typed-text.ts);
 * - common secret shapes: `Bearer …` / `Basic …` credentials, `password=…`, `token: …`,
 *   `api_key=…` and the like, and JSON Web Tokens, become `[redacted]`.
 *
 * What it cannot know: a secret that is neither stored in the lab nor typed through the
 * bridge nor shaped like one (an app logging a card number it fetched).
 */
import { scrubSecrets } from './secret-text';
import { scrubTypedText } from './typed-text';

export const TYPED_TEXT_MARK = '[typed text]';
export const REDACTED_MARK = '[redacted]';

const CREDENTIAL_HEADER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
// Not inside a marker (`[secret: name]`), and never a marker as the value.
const SECRET_FIELD =
  /(?<!\[)\b(password|passwd|pwd|passcode|pin|secret|client_secret|token|access_token|refresh_token|id_token|api[_-]?key|apikey|session_?id|cookie)(\s*["']?\s*[:=]\s*["']?)([^\s"'&,;}[][^\s"'&,;}]*)/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\b/g;

export interface LogRedaction {
  secrets: ReadonlyArray<{ name: string; value: string }>;
  /** Texts typed on the phone during this lease. */
  typed: readonly string[];
}

/** The line (or lines) with secrets, typed texts and secret-shaped values replaced. */
export function redactLogText(text: string, what: LogRedaction): string {
  let out = scrubSecrets(text, what.secrets);
  out = scrubTypedText(out, typedPieces(what.typed), () => TYPED_TEXT_MARK);
  return out
    .replace(CREDENTIAL_HEADER, (_m, scheme: string) => `${scheme} ${REDACTED_MARK}`)
    .replace(SECRET_FIELD, (_m, key: string, sep: string) => `${key}${sep}${REDACTED_MARK}`)
    .replace(JWT, REDACTED_MARK);
}

/** Shortest word of a typed text scrubbed on its own (an access code is at least 8 characters). */
const TYPED_WORD_MIN = 6;

/**
 * Each typed text, and each of its longer words on its own: text with spaces reaches the phone
 * word by word (`input text` per word, a space key between), so an app logs the words apart.
 */
function typedPieces(typed: readonly string[]): string[] {
  const pieces = new Set<string>();
  for (const text of typed) {
    pieces.add(text);
    for (const word of text.split(/\s+/)) if (word.length >= TYPED_WORD_MIN) pieces.add(word);
  }
  return [...pieces];
}

/** Each line redacted on its own (a typed text is matched against a line, never across two). */
export function redactLogLines(lines: readonly string[], what: LogRedaction): string[] {
  return lines.map((line) => redactLogText(line, what));
}

/**
 * Typing text into the focused field so that the field receives exactly the given string.
 *
 * Printable ASCII goes through `input text`, whose quirks we work around: it turns every
 * `%s` into a space (so spaces are sent as `%s`, and a literal `%` followed by `s` is split
 * across two calls so it is never read as that escape), and it cannot type newlines or tabs
 * (sent as key events 66 and 61). Anything else (accents, CJK, emoji, control characters)
 * needs the ADB Keyboard IME, which receives base64 UTF-8 through a broadcast.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { runInput } from './input';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

export const MAX_TEXT_LENGTH = 10_000;
/** Longest argument given to one `input text` call (after `%s` encoding). */
export const MAX_INPUT_TEXT_CHUNK = 200;
/** Code points per ADB Keyboard broadcast; keeps the command line small even on old adbd. */
export const MAX_IME_CHUNK_CODE_POINTS = 1_000;
export const ADB_KEYBOARD_IME = 'com.android.adbkeyboard/.AdbIME';
export const ADB_KEYBOARD_ACTION = 'ADB_INPUT_B64';
const KEYCODE_TAB = '61';
const KEYCODE_ENTER = '66';
const KEYCODE_DEL = '67';
const KEYCODE_MOVE_END = '123';
const DEFAULT_CLEAR_PRESSES = 64;
const MAX_CLEAR_PRESSES = 2_000;
/** Budget per `input`/`am` call: each starts a JVM on the phone. */
const PER_CALL_BUDGET_MS = 3_000;
const BASE_BUDGET_MS = 5_000;
const MAX_DEFAULT_BUDGET_MS = 120_000;

const UNICODE_HELP =
  'The text contains characters that `input text` cannot type (anything outside printable ASCII, ' +
  'e.g. accents, CJK, emoji). Install the ADB Keyboard IME on the phone ' +
  '(https://github.com/senzhk/ADBKeyBoard: `adb install ADBKeyboard.apk`, then ' +
  `\`adb shell ime enable ${ADB_KEYBOARD_IME}\` and \`adb shell ime set ${ADB_KEYBOARD_IME}\`), ` +
  'or turn on the fast lane on the phone’s card (its helper types any language while it runs), or type ASCII only.';

/** Line breaks are typed as ENTER; a CR (alone or in CRLF) is one line break. */
function normaliseLineBreaks(text: string): string {
  return text.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
}

/** True when the text has a character `input text` cannot type (outside 0x20..0x7E, \n, \t). */
export function needsUnicodeIme(text: string): boolean {
  return /[^\x20-\x7e\n\t]/.test(normaliseLineBreaks(text));
}

/** Splits one line segment (no \n, \t) into `input text` arguments. */
function encodeSegment(segment: string, out: string[][]): void {
  let current = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment.charAt(i);
    const encoded = ch === ' ' ? '%s' : ch;
    // A literal "%s" must not reach one `input text` call, or it would become a space.
    const splitEscape = ch === 's' && i > 0 && segment.charAt(i - 1) === '%';
    if (current !== '' && (splitEscape || current.length + encoded.length > MAX_INPUT_TEXT_CHUNK)) {
      out.push(['input', 'text', current]);
      current = '';
    }
    current += encoded;
  }
  if (current !== '') out.push(['input', 'text', current]);
}

/**
 * The exact argv sequence that types `text` (printable ASCII, \n, \t) through `input text`
 * and key events. Consecutive line breaks/tabs share one `input keyevent` call.
 */
export function planAsciiTyping(text: string): string[][] {
  const normalised = normaliseLineBreaks(text);
  if (needsUnicodeIme(normalised)) {
    throw new BridgeError('invalid_arguments', 'planAsciiTyping accepts printable ASCII, newlines and tabs only');
  }
  const calls: string[][] = [];
  let segment = '';
  let keys: string[] = [];
  const flushSegment = (): void => {
    if (segment !== '') encodeSegment(segment, calls);
    segment = '';
  };
  const flushKeys = (): void => {
    if (keys.length > 0) calls.push(['input', 'keyevent', ...keys]);
    keys = [];
  };
  for (const ch of normalised) {
    if (ch === '\n' || ch === '\t') {
      flushSegment();
      keys.push(ch === '\n' ? KEYCODE_ENTER : KEYCODE_TAB);
    } else {
      flushKeys();
      segment += ch;
    }
  }
  flushSegment();
  flushKeys();
  return calls;
}

/** The argv sequence that sends `text` through ADB Keyboard, split on code point boundaries. */
export function planImeTyping(text: string): string[][] {
  const calls: string[][] = [];
  const codePoints = Array.from(text);
  for (let i = 0; i < codePoints.length; i += MAX_IME_CHUNK_CODE_POINTS) {
    const chunk = codePoints.slice(i, i + MAX_IME_CHUNK_CODE_POINTS).join('');
    const base64 = Buffer.from(chunk, 'utf8').toString('base64');
    calls.push(['am', 'broadcast', '-a', ADB_KEYBOARD_ACTION, '--es', 'msg', base64]);
  }
  return calls;
}

export interface TypeTextOptions extends OperationOptions {
  /**
   * Whether ADB Keyboard is installed and selected; asked only when the text needs it.
   * Omitted: detected with detectUnicodeIme().
   */
  hasUnicodeIme?: boolean | (() => Promise<boolean>);
}

export interface TypeTextResult {
  method: 'input_text' | 'unicode_ime';
  /** Number of shell calls made. */
  calls: number;
}

function validateText(text: string): void {
  if (typeof text !== 'string' || text.length === 0) {
    throw new BridgeError('invalid_arguments', 'text must be a non-empty string');
  }
  if (text.length > MAX_TEXT_LENGTH) {
    throw new BridgeError(
      'invalid_arguments',
      `text is ${text.length} characters long; the limit is ${MAX_TEXT_LENGTH}`,
    );
  }
}

function defaultBudget(calls: number): number {
  return Math.min(MAX_DEFAULT_BUDGET_MS, BASE_BUDGET_MS + calls * PER_CALL_BUDGET_MS);
}

/**
 * Types `text` into the focused field. ASCII-only text uses `input text`; other text goes
 * whole through ADB Keyboard when available, else BridgeError('unicode_input_unavailable').
 * CR and CRLF are typed as one ENTER each.
 */
export async function typeText(shell: DeviceShell, text: string, options?: TypeTextOptions): Promise<TypeTextResult> {
  validateText(text);
  if (!needsUnicodeIme(text)) {
    const calls = planAsciiTyping(text);
    const deadline = new OperationDeadline(options, defaultBudget(calls.length), 'typing text');
    for (const argv of calls) await runInput(shell, argv, deadline);
    return { method: 'input_text', calls: calls.length };
  }

  const calls = planImeTyping(text);
  const deadline = new OperationDeadline(options, defaultBudget(calls.length + 1), 'typing text');
  const hasIme = options?.hasUnicodeIme;
  let available: boolean;
  if (typeof hasIme === 'boolean') available = hasIme;
  else if (typeof hasIme === 'function') available = await hasIme();
  else available = await detectUnicodeIme(shell, deadline.next());
  if (!available) throw new BridgeError('unicode_input_unavailable', UNICODE_HELP);

  for (const argv of calls) {
    const out = await runText(shell, argv, deadline.next());
    if ((out.exitCode !== undefined && out.exitCode !== 0) || !out.text.includes('Broadcast completed')) {
      throw new BridgeError('command_failed', `sending text to ADB Keyboard failed${excerpt(out.text)}`, {
        exitCode: out.exitCode,
      });
    }
  }
  return { method: 'unicode_ime', calls: calls.length };
}

/**
 * True when ADB Keyboard is among the enabled input methods (`ime list -s`). Its broadcast
 * receiver only runs while it is the selected keyboard; see isUnicodeImeSelected().
 */
export async function detectUnicodeIme(shell: DeviceShell, options?: OperationOptions): Promise<boolean> {
  const deadline = new OperationDeadline(options, 10_000, 'listing input methods');
  const out = await runText(shell, ['ime', 'list', '-s'], deadline.next());
  return out.text.split('\n').some((line) => line.trim() === ADB_KEYBOARD_IME);
}

/** True when ADB Keyboard is the current keyboard (`settings get secure default_input_method`). */
export async function isUnicodeImeSelected(shell: DeviceShell, options?: OperationOptions): Promise<boolean> {
  const deadline = new OperationDeadline(options, 10_000, 'reading the current input method');
  const out = await runText(shell, ['settings', 'get', 'secure', 'default_input_method'], deadline.next());
  return out.text.trim() === ADB_KEYBOARD_IME;
}

export interface ClearFieldOptions extends OperationOptions {
  /** Length of the field's current text, when known (e.g. from the UI tree). */
  currentLength?: number;
}

/**
 * Empties the focused single-line field: MOVE_END, then as many DEL presses as the text is
 * long (64 when unknown, at most 2000) in one `input keyevent 67 67 …` call.
 * Returns the number of DEL presses sent.
 */
export async function clearField(shell: DeviceShell, options?: ClearFieldOptions): Promise<{ deletes: number }> {
  const known = options?.currentLength;
  if (known !== undefined && (!Number.isSafeInteger(known) || known < 0)) {
    throw new BridgeError('invalid_arguments', `currentLength must be a non-negative integer, got ${String(known)}`);
  }
  const deletes = Math.min(known ?? DEFAULT_CLEAR_PRESSES, MAX_CLEAR_PRESSES);
  const deadline = new OperationDeadline(options, 15_000, 'clearing the field');
  await runInput(shell, ['input', 'keyevent', KEYCODE_MOVE_END], deadline);
  if (deletes > 0) await runInput(shell, ['input', 'keyevent', ...Array<string>(deletes).fill(KEYCODE_DEL)], deadline);
  return { deletes };
}

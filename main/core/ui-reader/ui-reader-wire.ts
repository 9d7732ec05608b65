/**
 * The xagent UI reader's protocol 1 (device/ui-reader/README.md), as bytes arrive from its adb
 * stream: lines ending in `\n`, and two answers (`tree <n>`, `focus <n>`) followed by exactly n
 * bytes of XML. Pure: no stream, no timer — the session (ui-reader-session.ts) feeds it.
 *
 * The one rule: a counted answer is taken by its count, never by looking for a line end (XML
 * may hold any byte). Everything else the stream carries between answers (ART or the linker on
 * stderr, merged by adbd) is a line the protocol does not know: it is handed up as `other`,
 * never an error. An answer larger than MAX_ANSWER_BYTES is skipped by its count (never
 * buffered) and reported as `too_large`, so the stream stays in step and the reader goes on.
 */
import { BridgeError } from '../errors';

/** The protocol this bridge speaks (the reader's first argument, and its `ready` line). */
export const UI_READER_PROTOCOL = 1;
/** As the stock dump's limit (android/ui-tree.ts MAX_DUMP_CHARS): a bigger tree is no use to an agent. */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
/** A line longer than this with no `\n` is no protocol line and no stack trace: the stream is broken. */
export const MAX_LINE_BYTES = 64 * 1024;
/** A count with more digits is more than MAX_ANSWER_BYTES anyway; it is still skipped by count. */
const MAX_COUNT_DIGITS = 15;

export type ReaderMessage =
  | { kind: 'ready'; protocol: number; pid: number }
  | { kind: 'tree'; xml: string }
  | { kind: 'focus'; xml: string }
  | { kind: 'none' }
  | { kind: 'error'; message: string }
  /** A counted answer skipped by its count: it was bigger than MAX_ANSWER_BYTES. */
  | { kind: 'too_large'; answer: 'tree' | 'focus'; bytes: number }
  /** A line the protocol does not know (kept for the program's last output). */
  | { kind: 'other'; line: string };

type Mode =
  | { at: 'line' }
  | { at: 'body'; answer: 'tree' | 'focus'; left: number; parts: Buffer[] }
  | { at: 'skip'; answer: 'tree' | 'focus'; left: number; bytes: number };

const READY = /^xagent-ui-reader (\d{1,6}) ready (\d{1,10})$/;
const COUNTED = /^(tree|focus) (\d+)$/;

/** Cuts the reader's stream into messages; one parser per stream. */
export class UiReaderWireParser {
  private mode: Mode = { at: 'line' };
  private pending: Buffer = Buffer.alloc(0);

  /**
   * The messages completed by this chunk, in order. Throws BridgeError('helper_unavailable',
   * details.reason `reader_wire_broken`) when the stream can no longer be read in step: the session
   * then ends the reader (a read is only a read; the caller falls back).
   */
  push(chunk: Buffer): ReaderMessage[] {
    const out: ReaderMessage[] = [];
    let data = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = Buffer.alloc(0);
    while (data.length > 0) {
      const mode = this.mode;
      if (mode.at === 'body') {
        const take = Math.min(mode.left, data.length);
        mode.parts.push(data.subarray(0, take));
        mode.left -= take;
        data = data.subarray(take);
        if (mode.left === 0) {
          out.push({ kind: mode.answer, xml: Buffer.concat(mode.parts).toString('utf8') });
          this.mode = { at: 'line' };
        }
        continue;
      }
      if (mode.at === 'skip') {
        const take = Math.min(mode.left, data.length);
        mode.left -= take;
        data = data.subarray(take);
        if (mode.left === 0) {
          out.push({ kind: 'too_large', answer: mode.answer, bytes: mode.bytes });
          this.mode = { at: 'line' };
        }
        continue;
      }
      const end = data.indexOf(0x0a);
      if (end < 0) {
        if (data.length > MAX_LINE_BYTES) throw wireBroken(`a line longer than ${MAX_LINE_BYTES} bytes`);
        // Copied: the caller's chunk may be reused.
        this.pending = Buffer.from(data);
        break;
      }
      const line = data.subarray(0, end).toString('utf8').replace(/\r$/, '');
      data = data.subarray(end + 1);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  /** Whether the parser is inside a counted answer (a stream that ends now cut an answer short). */
  get midAnswer(): boolean {
    return this.mode.at !== 'line';
  }

  private line(line: string): ReaderMessage | null {
    const counted = COUNTED.exec(line);
    if (counted) {
      const answer = counted[1] as 'tree' | 'focus';
      const digits = counted[2] ?? '';
      const bytes = digits.length > MAX_COUNT_DIGITS ? Number.MAX_SAFE_INTEGER : Number(digits);
      if (bytes > MAX_ANSWER_BYTES) {
        // A count this long could never be skipped in step: nothing real sends it.
        if (digits.length > MAX_COUNT_DIGITS) throw wireBroken(`an answer of ${digits.length} digits`);
        this.mode = { at: 'skip', answer, left: bytes, bytes };
        return null;
      }
      if (bytes === 0) return { kind: answer, xml: '' };
      this.mode = { at: 'body', answer, left: bytes, parts: [] };
      return null;
    }
    if (line === 'none') return { kind: 'none' };
    if (line.startsWith('error ')) return { kind: 'error', message: line.slice('error '.length).slice(0, 300) };
    const ready = READY.exec(line);
    if (ready) return { kind: 'ready', protocol: Number(ready[1]), pid: Number(ready[2]) };
    return line === '' ? null : { kind: 'other', line: line.slice(0, 500) };
  }
}

/** The request line for a read of the active window (`tree`) or of the focused node (`focus`). */
export function requestLine(kind: 'tree' | 'focus', display: ReaderDisplay): string {
  const { rotation, width, height } = display;
  if (![0, 1, 2, 3].includes(rotation)) throw new BridgeError('invalid_arguments', `rotation 0–3, got ${rotation}`);
  for (const side of [width, height])
    if (!Number.isSafeInteger(side) || side <= 0 || side > 100_000)
      throw new BridgeError('invalid_arguments', `a display side in pixels, got ${String(side)}`);
  return `${kind} ${rotation} ${width} ${height}\n`;
}

/** What the dumper is told of the display: Surface.ROTATION_* and the current size in pixels. */
export interface ReaderDisplay {
  rotation: number;
  width: number;
  height: number;
}

function wireBroken(what: string): BridgeError {
  return new BridgeError('helper_unavailable', `the UI reader's stream is out of step (${what})`, {
    reason: 'reader_wire_broken',
  });
}

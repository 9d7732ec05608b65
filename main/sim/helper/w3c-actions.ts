/**
 * W3C WebDriver actions (POST /session/:id/actions) as the simulated helper performs them:
 * each pointer source's pointerMove / pointerDown / pause / pointerUp ticks become one
 * gesture — a tap, a long press (held still ≥ the long-press timeout), a swipe, or a drag
 * (held still that long, then moved) — and key sources' keyDown values become typed
 * characters or keys. Only the `viewport` and `pointer` origins are supported; an element
 * origin needs an element id the sim never hands out. Malformed input throws ActionsError
 * (the server's InvalidArgumentException, HTTP 400).
 */
import { LONG_PRESS_MS } from '../screen/input-dispatcher';

export class ActionsError extends Error {}

interface PointGesture {
  x: number;
  y: number;
  durationMs: number;
}
interface PathGesture extends PointGesture {
  x2: number;
  y2: number;
}
export type Gesture =
  | (PointGesture & { kind: 'tap' })
  | (PointGesture & { kind: 'long-press' })
  | (PathGesture & { kind: 'swipe' })
  | (PathGesture & { kind: 'drag' });

export type KeyStroke = { kind: 'char'; text: string } | { kind: 'key'; keycode: number };

export interface ParsedActions {
  gestures: Gesture[];
  keys: KeyStroke[];
  /** How long performing the whole chain takes on a real phone (pauses and move durations). */
  durationMs: number;
}

/** WebDriver's special key code points (U+E000 block) that map onto Android keys. */
const SPECIAL_KEYS: Record<number, number> = {
  0xe003: 67, // Backspace → KEYCODE_DEL
  0xe004: 61, // Tab
  0xe006: 66, // Return → KEYCODE_ENTER
  0xe007: 66, // Enter
  0xe00c: 111, // Escape
  0xe012: 21, // Left
  0xe013: 19, // Up
  0xe014: 22, // Right
  0xe015: 20, // Down
  0xe017: 112, // Delete → KEYCODE_FORWARD_DEL
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function number(value: unknown, what: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ActionsError(`'${what}' must be a number`);
  return value;
}

function pointerGestures(actions: unknown[], slopPx: number): { gestures: Gesture[]; durationMs: number } {
  const gestures: Gesture[] = [];
  let t = 0;
  let x = 0;
  let y = 0;
  let down: { t: number; x: number; y: number; movedAt: number | undefined } | undefined;
  for (const item of actions) {
    if (!isRecord(item)) throw new ActionsError('each action must be an object');
    switch (item.type) {
      case 'pause':
        t += Math.max(0, number(item.duration, 'duration', 0));
        break;
      case 'pointerMove': {
        const origin = item.origin ?? 'viewport';
        const dx = number(item.x, 'x');
        const dy = number(item.y, 'y');
        if (origin === 'pointer') {
          x += dx;
          y += dy;
        } else if (origin === 'viewport') {
          x = dx;
          y = dy;
        } else
          throw new ActionsError(
            `An unknown element origin ${JSON.stringify(origin)}: only 'viewport' and 'pointer' are supported here`,
          );
        t += Math.max(0, number(item.duration, 'duration', 0));
        if (down && down.movedAt === undefined && (Math.abs(x - down.x) > slopPx || Math.abs(y - down.y) > slopPx))
          down.movedAt = t;
        break;
      }
      case 'pointerDown':
        down = { t, x, y, movedAt: undefined };
        break;
      case 'pointerUp': {
        if (!down) throw new ActionsError('pointerUp without a preceding pointerDown');
        const durationMs = t - down.t;
        const rx = Math.round(x);
        const ry = Math.round(y);
        const at = { x: Math.round(down.x), y: Math.round(down.y), durationMs };
        if (down.movedAt === undefined)
          gestures.push(durationMs >= LONG_PRESS_MS ? { kind: 'long-press', ...at } : { kind: 'tap', ...at });
        // Held still past the long-press timeout before moving: Android starts a drag.
        else if (down.movedAt - down.t >= LONG_PRESS_MS) gestures.push({ kind: 'drag', ...at, x2: rx, y2: ry });
        else gestures.push({ kind: 'swipe', ...at, x2: rx, y2: ry });
        down = undefined;
        break;
      }
      case 'pointerCancel':
        down = undefined;
        break;
      default:
        throw new ActionsError(`Unsupported pointer action type ${JSON.stringify(item.type)}`);
    }
  }
  return { gestures, durationMs: t };
}

function keyStrokes(actions: unknown[]): { keys: KeyStroke[]; durationMs: number } {
  const keys: KeyStroke[] = [];
  let t = 0;
  for (const item of actions) {
    if (!isRecord(item)) throw new ActionsError('each action must be an object');
    if (item.type === 'pause') t += Math.max(0, number(item.duration, 'duration', 0));
    else if (item.type === 'keyDown') {
      if (typeof item.value !== 'string' || [...item.value].length !== 1)
        throw new ActionsError("'value' of a key action must be a single character");
      const code = item.value.codePointAt(0) ?? 0;
      const special = SPECIAL_KEYS[code];
      if (special !== undefined) keys.push({ kind: 'key', keycode: special });
      else if (code < 0xe000 || code > 0xf8ff) keys.push({ kind: 'char', text: item.value });
    } else if (item.type !== 'keyUp')
      throw new ActionsError(`Unsupported key action type ${JSON.stringify(item.type)}`);
  }
  return { keys, durationMs: t };
}

/** Parses the request body of POST /actions. */
export function parseActions(body: unknown, slopPx: number): ParsedActions {
  if (!isRecord(body) || !Array.isArray(body.actions))
    throw new ActionsError("'actions' are mandatory and must be an array");
  const out: ParsedActions = { gestures: [], keys: [], durationMs: 0 };
  for (const source of body.actions) {
    if (!isRecord(source) || !Array.isArray(source.actions))
      throw new ActionsError("each input source must have an 'actions' array");
    if (source.type === 'pointer') {
      const { gestures, durationMs } = pointerGestures(source.actions, slopPx);
      out.gestures.push(...gestures);
      out.durationMs = Math.max(out.durationMs, durationMs);
    } else if (source.type === 'key') {
      const { keys, durationMs } = keyStrokes(source.actions);
      out.keys.push(...keys);
      out.durationMs = Math.max(out.durationMs, durationMs);
    } else if (source.type !== 'none')
      throw new ActionsError(`Unsupported input source type ${JSON.stringify(source.type)}`);
  }
  return out;
}

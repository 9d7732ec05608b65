/**
 * Touch and key input through Android's `input` command: tap, long press, swipe, drag and
 * drop, key presses. Owns the validation of coordinates (integers, inside the screen) and
 * gesture durations, and the check of what `input` answers.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { keyCode } from './keys';
import { phoneProblem } from './phone-fixes';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

export interface Point {
  x: number;
  y: number;
}

/** Screen size in the current orientation, i.e. the coordinate space of taps and screenshots. */
export interface ScreenSize {
  width: number;
  height: number;
}

export interface InputOptions extends OperationOptions {
  /** When given, every point must lie inside it (BridgeError('out_of_bounds') otherwise). */
  screen?: ScreenSize;
}

export type SwipeDirection = 'up' | 'down' | 'left' | 'right';

/**
 * A swipe in a direction as two points: through the screen's centre, over `distance` of its
 * width or height (0.5 by default). "up" moves the finger up (scrolls the content down).
 */
export function directionSwipe(
  direction: SwipeDirection,
  distance: number | undefined,
  screen: ScreenSize,
): { from: Point; to: Point } {
  const d = distance ?? 0.5;
  const cx = Math.round(screen.width / 2);
  const cy = Math.round(screen.height / 2);
  const dx = Math.round((screen.width * d) / 2);
  const dy = Math.round((screen.height * d) / 2);
  const moves = {
    up: [cx, cy + dy, cx, cy - dy],
    down: [cx, cy - dy, cx, cy + dy],
    left: [cx + dx, cy, cx - dx, cy],
    right: [cx - dx, cy, cx + dx, cy],
  } as const;
  const m = moves[direction];
  return { from: { x: m[0], y: m[1] }, to: { x: m[2], y: m[3] } };
}

export const MIN_GESTURE_MS = 1;
export const MAX_GESTURE_MS = 10_000;
const DEFAULT_LONG_PRESS_MS = 800;
const DEFAULT_SWIPE_MS = 300;
const DEFAULT_DRAG_MS = 1_000;
/** `input` starts a JVM per call (300–400 ms on phones); the gesture itself adds its duration. */
const DEFAULT_TIMEOUT_MS = 10_000;

/** Whether a point lies on a screen of this size (pixels 0..width-1, 0..height-1). */
export function isInside(point: Point, screen: ScreenSize): boolean {
  return point.x >= 0 && point.y >= 0 && point.x < screen.width && point.y < screen.height;
}

/** Throws BridgeError('out_of_bounds') unless the point is inside the screen. */
export function assertInsideScreen(point: Point, screen: ScreenSize): void {
  assertPoint(point);
  if (!isInside(point, screen)) {
    throw new BridgeError(
      'out_of_bounds',
      `point (${point.x}, ${point.y}) is outside the screen, which is ${screen.width}x${screen.height} (x 0..${screen.width - 1}, y 0..${screen.height - 1})`,
      { x: point.x, y: point.y, width: screen.width, height: screen.height },
    );
  }
}

function assertPoint(point: Point): void {
  for (const [axis, value] of [
    ['x', point.x],
    ['y', point.y],
  ] as const) {
    if (!Number.isSafeInteger(value)) {
      throw new BridgeError('invalid_arguments', `${axis} must be an integer pixel coordinate, got ${String(value)}`);
    }
    if (value < 0) throw new BridgeError('out_of_bounds', `${axis} must not be negative, got ${value}`);
  }
}

function checkPoint(point: Point, options: InputOptions | undefined): void {
  if (options?.screen) assertInsideScreen(point, options.screen);
  else assertPoint(point);
}

/** Throws BridgeError('invalid_arguments') unless durationMs is an integer in 1..10000. */
export function assertGestureDuration(durationMs: number): void {
  if (!Number.isSafeInteger(durationMs) || durationMs < MIN_GESTURE_MS || durationMs > MAX_GESTURE_MS) {
    throw new BridgeError(
      'invalid_arguments',
      `durationMs must be an integer from ${MIN_GESTURE_MS} to ${MAX_GESTURE_MS}, got ${String(durationMs)}`,
    );
  }
}

/** MIUI/HyperOS without "USB debugging (Security settings)" (both wordings, before and after Android 13). */
const INJECT_DENIED_RE =
  /SecurityException: Injecting (?:to another application|input events) requires[^\n]*INJECT_EVENTS/;

/**
 * Runs one `input …` argv, once: a refused injection is never retried (nothing reached the
 * screen, and the phone will refuse again until a person changes a setting). `input` reports
 * bad arguments on stderr with a non-zero status, and some builds print `Error:` or an
 * exception on stdout with status 0; both are failures. The INJECT_EVENTS SecurityException
 * is BridgeError('input_blocked') with its fix.
 */
export async function runInput(
  shell: DeviceShell,
  argv: readonly string[],
  deadline: OperationDeadline,
): Promise<void> {
  const out = await runText(shell, argv, deadline.next());
  if (INJECT_DENIED_RE.test(out.text)) {
    throw phoneProblem(
      'inject_events_denied',
      `the phone refused ${argv.slice(0, 2).join(' ')}: it does not let USB debugging inject input (SecurityException: INJECT_EVENTS)`,
      {
        exitCode: out.exitCode,
      },
    );
  }
  const failed =
    (out.exitCode !== undefined && out.exitCode !== 0) ||
    /^(Error:|Exception|java\.lang\.)/m.test(out.text) ||
    /Unknown command/.test(out.text);
  if (failed) {
    throw new BridgeError('command_failed', `${argv.slice(0, 2).join(' ')} failed${excerpt(out.text)}`, {
      exitCode: out.exitCode,
    });
  }
}

function coords(...points: Point[]): string[] {
  return points.flatMap((p) => [String(p.x), String(p.y)]);
}

/** Taps at (x, y): `input tap x y`. */
export async function tap(shell: DeviceShell, x: number, y: number, options?: InputOptions): Promise<void> {
  const point = { x, y };
  checkPoint(point, options);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'tap');
  await runInput(shell, ['input', 'tap', ...coords(point)], deadline);
}

/** Presses and holds at (x, y): a swipe that does not move, `input swipe x y x y ms`. */
export async function longPress(
  shell: DeviceShell,
  x: number,
  y: number,
  durationMs: number = DEFAULT_LONG_PRESS_MS,
  options?: InputOptions,
): Promise<void> {
  const point = { x, y };
  checkPoint(point, options);
  assertGestureDuration(durationMs);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS + durationMs, 'long press');
  await runInput(shell, ['input', 'swipe', ...coords(point, point), String(durationMs)], deadline);
}

/** Swipes from one point to another over durationMs: `input swipe x1 y1 x2 y2 ms`. */
export async function swipe(
  shell: DeviceShell,
  from: Point,
  to: Point,
  durationMs: number = DEFAULT_SWIPE_MS,
  options?: InputOptions,
): Promise<void> {
  checkPoint(from, options);
  checkPoint(to, options);
  assertGestureDuration(durationMs);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS + durationMs, 'swipe');
  await runInput(shell, ['input', 'swipe', ...coords(from, to), String(durationMs)], deadline);
}

/**
 * Long-presses `from`, moves to `to` and releases: `input draganddrop x1 y1 x2 y2 ms`
 * (Android 11+; older phones answer "Unknown command", reported as command_failed).
 */
export async function dragAndDrop(
  shell: DeviceShell,
  from: Point,
  to: Point,
  durationMs: number = DEFAULT_DRAG_MS,
  options?: InputOptions,
): Promise<void> {
  checkPoint(from, options);
  checkPoint(to, options);
  assertGestureDuration(durationMs);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS + durationMs, 'drag and drop');
  await runInput(shell, ['input', 'draganddrop', ...coords(from, to), String(durationMs)], deadline);
}

export interface PressKeyOptions extends OperationOptions {
  /** Hold the key (`--longpress`), e.g. a long power press. */
  longPress?: boolean;
}

/** Presses one named key: `input keyevent [--longpress] CODE`. */
export async function pressKey(shell: DeviceShell, name: string, options?: PressKeyOptions): Promise<void> {
  const code = keyCode(name);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'key press');
  const argv = ['input', 'keyevent', ...(options?.longPress ? ['--longpress'] : []), String(code)];
  await runInput(shell, argv, deadline);
}

const MAX_KEYS_PER_CALL = 100;

/** Presses several named keys in order with one `input keyevent C1 C2 …` (one JVM start). */
export async function pressKeys(
  shell: DeviceShell,
  names: readonly string[],
  options?: OperationOptions,
): Promise<void> {
  if (names.length === 0 || names.length > MAX_KEYS_PER_CALL) {
    throw new BridgeError('invalid_arguments', `give between 1 and ${MAX_KEYS_PER_CALL} keys, got ${names.length}`);
  }
  const codes = names.map((name) => String(keyCode(name)));
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'key presses');
  await runInput(shell, ['input', 'keyevent', ...codes], deadline);
}

/**
 * The person's own input while they hold a phone (take over, issue #26): a tap, a press and
 * hold, a swipe, a scroll from the mouse wheel, one of a few keys, or the text they type, all
 * from the phone view. Each runs on the phone's control queue like the agent's calls (so it
 * never interleaves with one) and is recorded in the audit and the timeline as the person's.
 *
 * Only fixed shapes reach the phone — `input tap|swipe|keyevent` with numbers, the typing of
 * android/text-input.ts (its quoting: `input text` with `%s`, ADB Keyboard's base64
 * broadcast) or the fast lane helper's typing — never a shell line. Points must lie on the
 * screen (out_of_bounds). Refused (invalid_arguments) while the person has not taken the phone
 * over: the agent has it then.
 *
 * What was typed is never kept: the audit and the timeline keep its length only
 * (`describePersonInput`), the way docs/REFERENCE.md "typed text" promises for text at rest.
 */
import { z } from 'zod';
import type { ActionLane, AdminActionPoint, AdminPersonInput } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import { longPress, pressKey, swipe, tap, type Point, type ScreenSize } from '../android/input';
import { typeText, type TypeTextOptions } from '../android/text-input';
import type { DeviceShell } from '../devices/device-shell';
import type { DeviceQueue } from '../queue/device-queue';

/** The queue channel of the person's input (not an agent's channel: Stop and the card do not count it). */
export const PERSON_CHANNEL = 'person';

/**
 * The keys the phone view sends: its Back, Home and Recents buttons, and the keyboard's
 * Enter, Backspace, Delete, Tab and arrows (Escape is sent as Back by the view).
 */
export const PERSON_KEYS = [
  'back',
  'home',
  'app_switch',
  'enter',
  'backspace',
  'forward_delete',
  'tab',
  'dpad_up',
  'dpad_down',
  'dpad_left',
  'dpad_right',
] as const;

/** Which way the content moves, as a mouse wheel says it: `down` shows what is below (the finger moves up). */
export const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
export type ScrollDirection = (typeof SCROLL_DIRECTIONS)[number];

/** One wheel notch moves the finger this share of the screen's side along the scroll. */
export const SCROLL_SHARE_PER_NOTCH = 0.15;
/** However hard the flick, one scroll is at most this share of the side (a fling, not a page jump). */
export const SCROLL_MAX_SHARE = 0.6;
export const MAX_SCROLL_NOTCHES = 10;
/** The swipe that carries a scroll: slow enough to move the content by about the distance, not to fling it. */
export const SCROLL_SWIPE_MS = 250;
export const DEFAULT_PERSON_LONG_PRESS_MS = 800;
/** One typing message from the view: the view sends what was typed in the last instant, not documents. */
export const MAX_PERSON_TEXT_CHARS = 1_000;

const coord = z.number().int().min(0).max(100_000);
export const personInputSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('tap'), x: coord, y: coord }),
  z.strictObject({
    kind: z.literal('long_press'),
    x: coord,
    y: coord,
    duration_ms: z.number().int().min(300).max(5000).optional(),
  }),
  z.strictObject({
    kind: z.literal('swipe'),
    x1: coord,
    y1: coord,
    x2: coord,
    y2: coord,
    duration_ms: z.number().int().min(50).max(3000).optional(),
  }),
  z.strictObject({
    kind: z.literal('scroll'),
    x: coord,
    y: coord,
    direction: z.enum(SCROLL_DIRECTIONS),
    notches: z.number().int().min(1).max(MAX_SCROLL_NOTCHES).optional(),
  }),
  z.strictObject({ kind: z.literal('key'), key: z.enum(PERSON_KEYS) }),
  z.strictObject({ kind: z.literal('text'), text: z.string().min(1).max(MAX_PERSON_TEXT_CHARS) }),
]);
export type PersonInput = z.infer<typeof personInputSchema>;

/** The schema and the contract's type are one shape: this line stops compiling when they part. */
type SameShape<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const schemaMatchesContract: SameShape<PersonInput, AdminPersonInput> = true;
void schemaMatchesContract;

const SHAPES =
  '{kind: "tap", x, y}, {kind: "long_press", x, y, duration_ms?: 300..5000}, ' +
  '{kind: "swipe", x1, y1, x2, y2, duration_ms?}, ' +
  `{kind: "scroll", x, y, direction: ${SCROLL_DIRECTIONS.join(' | ')}, notches?: 1..${MAX_SCROLL_NOTCHES}}, ` +
  `{kind: "key", key: ${PERSON_KEYS.join(' | ')}} or {kind: "text", text: 1..${MAX_PERSON_TEXT_CHARS} characters}`;

/** What the person's input was, as the audit and the timeline keep it: typed text as its length only. */
export function describePersonInput(input: PersonInput): Record<string, unknown> {
  if (input.kind === 'text') return { kind: 'text', characters: [...input.text].length };
  return { ...input };
}

/** How the phone was reached and where it was touched, for the timeline. */
export interface PersonInputDone {
  points: AdminActionPoint[];
  lane: ActionLane;
}

export interface PersonInputDeps {
  queue: Pick<DeviceQueue, 'submit'>;
  isTaken: (deviceId: string) => boolean;
  screenSize: (deviceId: string, shell: DeviceShell) => Promise<ScreenSize | null>;
  /**
   * Types through the fast lane's helper when it runs and is allowed on this phone, else the
   * stock way (helper/fast-lane.ts typeText). Absent: always the stock way.
   */
  typeText?: (
    deviceId: string,
    shell: DeviceShell,
    text: string,
    options: TypeTextOptions,
  ) => Promise<{ lane: ActionLane }>;
  /** Told of every input, done (code null) or refused; `described` is describePersonInput's. */
  record: (
    deviceId: string,
    described: Record<string, unknown>,
    outcome: { code: string | null; message: string | null; durationMs: number; done: PersonInputDone | null },
  ) => void;
  commandTimeoutMs: number;
  clock: () => number;
}

/** Parses the body of POST /admin/api/devices/:id/input (BridgeError invalid_arguments when it is not one of the shapes). */
export function parsePersonInput(body: unknown): PersonInput {
  const parsed = personInputSchema.safeParse(body);
  if (!parsed.success) throw new BridgeError('invalid_arguments', `input is ${SHAPES}`);
  return parsed.data;
}

/**
 * The swipe that scrolls the content `direction` by `notches` wheel notches around `at`:
 * centred on the point along the scroll's axis, shifted to stay on the screen.
 */
export function scrollSwipe(
  at: Point,
  direction: ScrollDirection,
  notches: number,
  screen: ScreenSize,
): { from: Point; to: Point } {
  const vertical = direction === 'up' || direction === 'down';
  const side = vertical ? screen.height : screen.width;
  const distance = Math.round(side * Math.min(SCROLL_MAX_SHARE, notches * SCROLL_SHARE_PER_NOTCH));
  const centre = vertical ? at.y : at.x;
  // Inside 1..side-2, so neither end is on the screen's very edge (a system gesture there).
  const start = Math.min(side - 2 - distance, Math.max(1, Math.round(centre - distance / 2)));
  const low = Math.max(1, start);
  const high = Math.min(side - 2, low + distance);
  // Scrolling down (to what is below) moves the finger up: from the high end to the low end.
  const [a, b] = direction === 'down' || direction === 'right' ? [high, low] : [low, high];
  return vertical
    ? { from: { x: at.x, y: a }, to: { x: at.x, y: b } }
    : { from: { x: a, y: at.y }, to: { x: b, y: at.y } };
}

const point = (kind: AdminActionPoint['kind'], from: Point, to: Point | null = null): AdminActionPoint => ({
  kind,
  x: from.x,
  y: from.y,
  to_x: to?.x ?? null,
  to_y: to?.y ?? null,
});

/** Runs the person's input on the phone, in its control queue; recorded either way. */
export async function runPersonInput(
  deps: PersonInputDeps,
  deviceId: string,
  shell: DeviceShell,
  input: PersonInput,
): Promise<void> {
  if (!deps.isTaken(deviceId))
    throw new BridgeError('invalid_arguments', 'take the phone over first: the agent has it now');
  const started = deps.clock();
  const described = describePersonInput(input);
  try {
    const done = await deps.queue.submit(deviceId, 'control', PERSON_CHANNEL, async (signal) => {
      const options = { timeoutMs: deps.commandTimeoutMs, signal };
      if (input.kind === 'key') {
        await pressKey(shell, input.key, options);
        return { points: [], lane: 'adb' } satisfies PersonInputDone;
      }
      if (input.kind === 'text') {
        // Typing a long text starts a JVM per chunk on the stock lane: the tool's own budget.
        const typing = { timeoutMs: Math.max(deps.commandTimeoutMs, 60_000), signal };
        const typed = deps.typeText
          ? await deps.typeText(deviceId, shell, input.text, typing)
          : (await typeText(shell, input.text, typing), { lane: 'adb' as const });
        return { points: [], lane: typed.lane } satisfies PersonInputDone;
      }
      const screen = (await deps.screenSize(deviceId, shell)) ?? undefined;
      const withScreen = screen ? { ...options, screen } : options;
      if (input.kind === 'tap') {
        await tap(shell, input.x, input.y, withScreen);
        return { points: [point('tap', input)], lane: 'adb' } satisfies PersonInputDone;
      }
      if (input.kind === 'long_press') {
        await longPress(shell, input.x, input.y, input.duration_ms ?? DEFAULT_PERSON_LONG_PRESS_MS, withScreen);
        return { points: [point('long_press', input)], lane: 'adb' } satisfies PersonInputDone;
      }
      if (input.kind === 'scroll') {
        if (!screen)
          throw new BridgeError(
            'command_failed',
            'the phone’s screen size could not be read, so the scroll has no length',
          );
        const at = { x: input.x, y: input.y };
        // The wheel's point must be on the screen like a tap's, before a swipe is made from it.
        if (at.x >= screen.width || at.y >= screen.height)
          throw new BridgeError(
            'out_of_bounds',
            `point (${at.x}, ${at.y}) is outside the screen, which is ${screen.width}x${screen.height}`,
            { ...at, ...screen },
          );
        const { from, to } = scrollSwipe(at, input.direction, input.notches ?? 1, screen);
        await swipe(shell, from, to, SCROLL_SWIPE_MS, withScreen);
        return { points: [point('swipe', from, to)], lane: 'adb' } satisfies PersonInputDone;
      }
      const from = { x: input.x1, y: input.y1 };
      const to = { x: input.x2, y: input.y2 };
      await swipe(shell, from, to, input.duration_ms ?? 300, withScreen);
      return { points: [point('swipe', from, to)], lane: 'adb' } satisfies PersonInputDone;
    });
    deps.record(deviceId, described, { code: null, message: null, durationMs: deps.clock() - started, done });
  } catch (error) {
    deps.record(deviceId, described, {
      code: error instanceof BridgeError ? error.code : 'internal_error',
      message: error instanceof Error ? error.message : null,
      durationMs: deps.clock() - started,
      done: null,
    });
    throw error;
  }
}

/**
 * `input` (Android 14's `cmd input`): text, keyevent, tap, swipe, draganddrop, press, roll,
 * motionevent, keycombination, with InputShellCommand's argument rules and failures:
 * `%s` is a space in text; a string with any character the virtual keyboard cannot type
 * (non-ASCII) fails with the NullPointerException real phones print and types nothing;
 * missing or malformed numbers fail with IllegalArgumentException (exit 255). With the
 * `inject-events-denied` quirk (MIUI/HyperOS without "USB debugging (Security settings)")
 * every injection throws the SecurityException those phones print, after the arguments were
 * read and before anything reaches the screen (exit 255).
 */
import { KEYCODE, keyCodeFromString, virtualKeyboardCanType } from '../screen/keycodes';
import type { CommandIo, PhoneContext } from './command-types';
import { reportShellException } from './java-exception';

const SOURCES = [
  'keyboard',
  'dpad',
  'gamepad',
  'touchscreen',
  'mouse',
  'stylus',
  'trackball',
  'touchpad',
  'touchnavigation',
  'joystick',
];

const HELP = `Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are: 
${SOURCES.map((s) => `      ${s}\n`).join('')}
-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap|--async|--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
`;

/** An IllegalArgumentException from the service, with the frame that threw it. */
class InputArgumentError extends Error {
  constructor(
    message: string,
    readonly frame: string,
  ) {
    super(message);
  }
}
class NumberFormatError extends Error {}
/** The input service refused to inject (INJECT_EVENTS), thrown from the frame that injected. */
class InjectionDenied extends Error {
  constructor(readonly frames: string[]) {
    super('INJECT_EVENTS');
  }
}

/** The SecurityException text: Android 13 reworded it when injection moved to injectInputEventToTarget. */
function injectEventsMessage(sdk: number): string {
  return sdk >= 33
    ? 'Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.'
    : 'Injecting to another application requires INJECT_EVENTS permission';
}

/** Throws InjectionDenied when the phone carries `inject-events-denied`. */
function checkInjection(phone: PhoneContext, inject: 'injectKeyEvent' | 'injectMotionEvent', caller: string): void {
  if (!phone.quirks.has('inject-events-denied')) return;
  const frame = (method: string, line: number): string =>
    `com.android.server.input.InputShellCommand.${method}(InputShellCommand.java:${line})`;
  throw new InjectionDenied([
    'com.android.server.input.InputManagerService.injectInputEventToTarget(InputManagerService.java:912)',
    'android.hardware.input.InputManagerGlobal.injectInputEvent(InputManagerGlobal.java:1217)',
    'android.hardware.input.InputManagerGlobal.injectInputEvent(InputManagerGlobal.java:1227)',
    frame(inject, inject === 'injectKeyEvent' ? 181 : 196),
    frame(caller, 430),
    frame('onCommand', 257),
  ]);
}

/** Java Float.parseFloat: trims, accepts exponents, NaN/Infinity and an f/d suffix. */
function parseJavaFloat(text: string): number {
  const m = /^\s*([+-]?(?:NaN|Infinity|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?))[fFdD]?\s*$/.exec(text);
  if (!m?.[1]) throw new NumberFormatError(text);
  return Number(m[1]);
}

function parseJavaInt(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new NumberFormatError(text);
  return Number(text);
}

/** `input text`: "%s" becomes a space, exactly as InputShellCommand.sendText scans it. */
export function decodeInputText(text: string): string {
  const chars = [...text];
  const out: string[] = [];
  let escape = false;
  for (const ch of chars) {
    if (escape) {
      escape = false;
      if (ch === 's') {
        out[out.length - 1] = ' ';
        continue;
      }
    }
    out.push(ch);
    if (ch === '%') escape = true;
  }
  return out.join('');
}

/** Where touches for another display go: that display's windows, never this screen. */
const OTHER_DISPLAY = {
  typeText: () => undefined,
  key: () => undefined,
  tap: () => undefined,
  swipe: () => undefined,
  dragAndDrop: () => undefined,
  selectAllInFocused: () => undefined,
} as unknown as PhoneContext['input'];

const motionDowns = new WeakMap<object, { x: number; y: number; at: number }>();

export async function inputCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  const args = io.argv.slice(1);
  let pos = 0;
  const nextArg = (): string | undefined => args[pos++];
  const required = (frame: string): string => {
    const arg = args[pos];
    if (arg === undefined) throw new InputArgumentError(`Argument expected after "${args[pos - 1] ?? 'input'}"`, frame);
    pos++;
    return arg;
  };
  const firstArg = args[0];
  if (firstArg === undefined || firstArg === 'help' || firstArg === '-h') {
    io.out(HELP);
    return 0;
  }
  let verb = nextArg() ?? '';
  try {
    if (SOURCES.includes(verb))
      verb = required('com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:226)');
    let display = 0;
    if (verb === '-d') {
      const id = required('com.android.server.input.InputShellCommand.getDisplayId(InputShellCommand.java:133)');
      try {
        display = parseJavaInt(id);
      } catch {
        throw new InputArgumentError(
          `Error: Invalid arguments for command: -d`,
          'com.android.server.input.InputShellCommand.getDisplayId(InputShellCommand.java:137)',
        );
      }
      verb = required('com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:233)');
    }
    try {
      // Events for another display (a cast screen) never reach the phone's own screen.
      if (display !== 0 && ['tap', 'swipe', 'draganddrop', 'motionevent'].includes(verb))
        return await runVerb(verb, io, phone, required, nextArg, true);
      return await runVerb(verb, io, phone, required, nextArg);
    } catch (error) {
      if (error instanceof NumberFormatError) {
        throw new InputArgumentError(
          `Error: Invalid arguments for command: ${verb}`,
          'com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:256)',
        );
      }
      throw error;
    }
  } catch (error) {
    if (error instanceof InjectionDenied) {
      return reportShellException(
        io,
        'input',
        firstArg,
        `java.lang.SecurityException: ${injectEventsMessage(phone.info.sdk)}`,
        error.frames,
      );
    }
    if (error instanceof InputArgumentError) {
      return reportShellException(io, 'input', firstArg, `java.lang.IllegalArgumentException: ${error.message}`, [
        ...(error.message.startsWith('Argument expected')
          ? ['com.android.modules.utils.BasicShellCommandHandler.getNextArgRequired(BasicShellCommandHandler.java:295)']
          : []),
        error.frame,
      ]);
    }
    throw error;
  }
}

async function runVerb(
  verb: string,
  io: CommandIo,
  phone: PhoneContext,
  required: (frame: string) => string,
  nextArg: () => string | undefined,
  elsewhere = false,
): Promise<number> {
  const frame = (method: string, line: number): string =>
    `com.android.server.input.InputShellCommand.${method}(InputShellCommand.java:${line})`;
  const input = elsewhere ? OTHER_DISPLAY : phone.input;
  switch (verb) {
    case 'text': {
      const text = decodeInputText(required(frame('runText', 311)));
      if (![...text].every(virtualKeyboardCanType)) {
        // KeyCharacterMap.getEvents returns null and sendText dereferences it.
        return reportShellException(
          io,
          'input',
          io.argv[1] ?? 'text',
          'java.lang.NullPointerException: Attempt to get length of null array',
          [frame('sendText', 345), frame('runText', 311), frame('onCommand', 237)],
        );
      }
      checkInjection(phone, 'injectKeyEvent', 'sendText');
      input.typeText(text);
      return 0;
    }
    case 'keyevent': {
      let arg: string | undefined = required(frame('runKeyEvent', 356));
      let doubleTap = false;
      while (arg?.startsWith('--')) {
        if (arg === '--doubletap') doubleTap = true;
        if (arg === '--delay') parseJavaInt(required(frame('runKeyEvent', 366)));
        arg = nextArg();
      }
      if (arg === undefined)
        throw new InputArgumentError('Argument expected after "keyevent"', frame('runKeyEvent', 356));
      checkInjection(phone, 'injectKeyEvent', 'sendKeyEvent');
      for (; arg !== undefined; arg = nextArg()) {
        const code = keyCodeFromString(arg);
        input.key(code);
        if (doubleTap) input.key(code);
      }
      return 0;
    }
    case 'tap': {
      const x = parseJavaFloat(required(frame('runTap', 382)));
      const y = parseJavaFloat(required(frame('runTap', 383)));
      checkInjection(phone, 'injectMotionEvent', 'sendTap');
      input.tap(x, y);
      return 0;
    }
    case 'swipe':
    case 'draganddrop': {
      const f = frame('sendSwipe', 405);
      const [x1, y1, x2, y2] = [
        parseJavaFloat(required(f)),
        parseJavaFloat(required(f)),
        parseJavaFloat(required(f)),
        parseJavaFloat(required(f)),
      ];
      const durationArg = nextArg();
      let duration = durationArg === undefined ? -1 : parseJavaInt(durationArg);
      if (duration < 0) duration = 300;
      checkInjection(phone, 'injectMotionEvent', verb === 'draganddrop' ? 'sendDragAndDrop' : 'sendSwipe');
      if (verb === 'draganddrop') input.dragAndDrop(x1, y1, x2, y2);
      else input.swipe(x1, y1, x2, y2, duration);
      return 0;
    }
    case 'press':
      return 0;
    case 'roll':
      parseJavaFloat(required(frame('runRoll', 455)));
      parseJavaFloat(required(frame('runRoll', 456)));
      return 0;
    case 'motionevent': {
      const action = required(frame('getAction', 475)).toUpperCase();
      if (!['DOWN', 'UP', 'MOVE', 'CANCEL'].includes(action)) {
        throw new InputArgumentError(`Unknown action: ${action}`, frame('getAction', 486));
      }
      if (action === 'CANCEL') {
        motionDowns.delete(input);
        return 0;
      }
      const x = parseJavaFloat(required(frame('runMotionEvent', 497)));
      const y = parseJavaFloat(required(frame('runMotionEvent', 498)));
      checkInjection(phone, 'injectMotionEvent', 'runMotionEvent');
      if (action === 'DOWN') motionDowns.set(input, { x, y, at: phone.now() });
      if (action === 'UP') {
        const down = motionDowns.get(input);
        motionDowns.delete(input);
        if (down) input.swipe(down.x, down.y, x, y, Math.max(0, phone.now() - down.at));
      }
      return 0;
    }
    case 'keycombination': {
      let arg = required(frame('runKeyCombination', 524));
      if (arg === '-t') {
        parseJavaInt(required(frame('runKeyCombination', 529)));
        arg = required(frame('runKeyCombination', 530));
      }
      const codes: number[] = [];
      for (let a: string | undefined = arg; a !== undefined; a = nextArg()) {
        const code = keyCodeFromString(a);
        if (code === KEYCODE.UNKNOWN)
          throw new InputArgumentError(`Unknown keycode: ${a}`, frame('runKeyCombination', 537));
        codes.push(code);
      }
      if (codes.length < 2)
        throw new InputArgumentError('keycombination requires at least 2 keycodes', frame('runKeyCombination', 545));
      checkInjection(phone, 'injectKeyEvent', 'runKeyCombination');
      const ctrl = codes.some((c) => c === KEYCODE.CTRL_LEFT || c === KEYCODE.CTRL_RIGHT);
      if (ctrl && codes.includes(29)) input.selectAllInFocused();
      return 0;
    }
    default:
      io.out(`Unknown command: ${verb}\n`);
      return 0;
  }
}

/**
 * Control tools: serialized per phone, FIFO, journaled for exactly-once. Every argument is
 * validated by its schema before any adb call; text and names reach the phone only as
 * quoted argv elements through the android/ library.
 */
import { basename } from 'node:path';
import { z } from 'zod';
import { SECRET_NAME_PATTERN } from '../../contract/admin-api';
import { directionSwipe, isInside, longPress, pressKey, swipe, tap } from '../android/input';
import { KEY_NAMES } from '../android/keys';
import { clearField, typeText } from '../android/text-input';
import { currentUser, installApk, launchApp, listPackages, openUrl, stopApp } from '../android/apps';
import {
  coordinate,
  defineTool,
  elementRef,
  elementSelector,
  observeFlag,
  CONTROL_RESULT,
  SCREEN_CONTROL_RESULT as RESULT,
  type ToolContext,
  type ToolDefinition,
} from './tool-definition';
import {
  checkInsideScreen,
  checkPoint,
  describeElement,
  resolveElement,
  resolvePoint,
  resolveTarget,
  withObserve,
  type PointTargetArgs,
} from './targets';
import { makeBatchTool } from './batch-tool';
import { requireFocusedField } from './focused-field';
import { secretFieldNotMasked } from './secret-field';
import { createReadStream } from 'node:fs';
import { BridgeError } from '../errors';
import { SHORT_COMMAND_MS } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';

const PACKAGE = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/, 'a package name like com.example.app')
  .max(255)
  .describe('Android package name, e.g. com.example.notes.');

const tapArgs = z.strictObject({
  x: coordinate.optional().describe('X in screen pixels (with y).'),
  y: coordinate.optional().describe('Y in screen pixels (with x).'),
  element: elementSelector.optional(),
  ref: elementRef.optional(),
  observe: observeFlag,
});

/**
 * The target of a tap or long press, checked at the edge (before any card could be shown):
 * something to act on must be given (a point, a ref or an element), and a ref is the whole
 * target: with coordinates or a selector beside it, which one was meant is unclear.
 */
function withOneTarget<A extends PointTargetArgs>(args: z.ZodType<A>): z.ZodType<A> {
  return args
    .refine((a) => a.ref !== undefined || a.element !== undefined || (a.x !== undefined && a.y !== undefined), {
      message: 'give x and y, ref, or element',
    })
    .refine((a) => a.ref === undefined || (a.element === undefined && a.x === undefined && a.y === undefined), {
      message: 'give ref alone, without element or x and y',
      path: ['ref'],
    });
}

const tapTool = defineTool({
  id: 'android_tap',
  title: 'Tap',
  description:
    'Tap once at x,y, on an element ref from the last android_ui_tree (e.g. @kq12), or on an element found by text, resource id, content description or index. Coordinates outside the screen are refused.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'point', screenInput: true, usesDisplay: true, timeline: 'tap' },
  args: withOneTarget(tapArgs),
  output: RESULT,
  check: checkPoint,
  run: async (ctx, args) => {
    const point = await resolvePoint(ctx, args);
    const opts = { timeoutMs: ctx.timeoutMs, signal: ctx.signal };
    const lane = ctx.lanes
      ? await ctx.lanes.tap(point.x, point.y, opts)
      : (await tap(ctx.shell, point.x, point.y, opts), 'adb');
    return withObserve(ctx, args.observe, {
      status: 'tapped',
      x: point.x,
      y: point.y,
      ...(point.element ? { element: describeElement(point.element) } : {}),
      lane,
    });
  },
});

const longPressTool = defineTool({
  id: 'android_long_press',
  title: 'Long press',
  description: 'Press and hold at x,y, on an element ref or on an element (default 800 ms).',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'point', screenInput: true, usesDisplay: true, timeline: 'long_press' },
  args: withOneTarget(
    tapArgs.extend({
      duration_ms: z.number().int().min(300).max(10_000).optional().describe('Hold time, 300–10000 ms (default 800).'),
    }),
  ),
  output: RESULT,
  check: checkPoint,
  run: async (ctx, args) => {
    const point = await resolvePoint(ctx, args);
    const hold = args.duration_ms ?? 800;
    const opts = { timeoutMs: ctx.timeoutMs + hold, signal: ctx.signal };
    const lane = ctx.lanes
      ? await ctx.lanes.longPress(point.x, point.y, hold, opts)
      : (await longPress(ctx.shell, point.x, point.y, hold, opts), 'adb');
    return withObserve(ctx, args.observe, { status: 'long_pressed', x: point.x, y: point.y, lane });
  },
});

const swipeArgs = z
  .strictObject({
    from_x: coordinate.optional(),
    from_y: coordinate.optional(),
    to_x: coordinate.optional(),
    to_y: coordinate.optional(),
    direction: z
      .enum(['up', 'down', 'left', 'right'])
      .optional()
      .describe('Finger direction: "up" scrolls content down (reveals what is below).'),
    distance: z
      .number()
      .min(0.05)
      .max(0.95)
      .optional()
      .describe('Fraction of the screen to travel with direction (default 0.5).'),
    duration_ms: z.number().int().min(50).max(10_000).optional().describe('Gesture time (default 300 ms).'),
    observe: observeFlag,
  })
  .refine(
    (a) =>
      a.direction !== undefined ||
      (a.from_x !== undefined && a.from_y !== undefined && a.to_x !== undefined && a.to_y !== undefined),
    {
      message: 'give direction, or from_x, from_y, to_x and to_y',
    },
  );

const swipeTool = defineTool({
  id: 'android_swipe',
  title: 'Swipe',
  description:
    'Swipe between two points, or in a direction (up/down/left/right) over a fraction of the screen, to scroll or page.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'screen', screenInput: true, usesDisplay: true, timeline: 'swipe' },
  args: swipeArgs,
  output: RESULT,
  check: async (ctx, args) => {
    if (args.direction) return;
    await checkInsideScreen(ctx, [
      { x: args.from_x ?? 0, y: args.from_y ?? 0 },
      { x: args.to_x ?? 0, y: args.to_y ?? 0 },
    ]);
  },
  run: async (ctx, args) => {
    // Coordinates: a cached size both points fit will do; a direction is scaled to a fresh size.
    const screen = await ctx.screenSize(
      args.direction
        ? undefined
        : (size) =>
            isInside({ x: args.from_x ?? 0, y: args.from_y ?? 0 }, size) &&
            isInside({ x: args.to_x ?? 0, y: args.to_y ?? 0 }, size),
    );
    let from: { x: number; y: number };
    let to: { x: number; y: number };
    if (args.direction) {
      ({ from, to } = directionSwipe(args.direction, args.distance, screen));
    } else {
      from = { x: args.from_x ?? 0, y: args.from_y ?? 0 };
      to = { x: args.to_x ?? 0, y: args.to_y ?? 0 };
    }
    const duration = args.duration_ms ?? 300;
    const opts = { screen, timeoutMs: ctx.timeoutMs + duration, signal: ctx.signal };
    const lane = ctx.lanes
      ? await ctx.lanes.swipe(from, to, duration, opts)
      : (await swipe(ctx.shell, from, to, duration, opts), 'adb');
    return withObserve(ctx, args.observe, { status: 'swiped', from: [from.x, from.y], to: [to.x, to.y], lane });
  },
});

const typeTextTool = defineTool({
  id: 'android_type_text',
  title: 'Type text',
  description:
    'Type text into the focused field (or tap the given element first). Any Unicode text is delivered exactly; non-ASCII text needs the ADB Keyboard IME on the phone. Optional clear first and submit (Enter) after. For a password or other secret stored at the bridge, give its name as secret instead of text: it is typed without you seeing it.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'type', typedTextArg: 'text', secretArg: 'secret', screenInput: true, usesDisplay: true },
  args: z
    .strictObject({
      text: z
        .string()
        .min(1)
        .max(10_000)
        .optional()
        .describe('The exact text to type (up to 10000 characters). Give text or secret.'),
      secret: z
        .string()
        .regex(SECRET_NAME_PATTERN, 'a secret name (letters, digits, ".", "-", "_")')
        .optional()
        .describe(
          'Name of a secret stored at the bridge (e.g. a test account password), typed instead of text; results show it as [secret: name].',
        ),
      element: elementSelector.optional().describe('Field to tap before typing.'),
      ref: elementRef
        .optional()
        .describe('Field to tap before typing, as an element ref from the last android_ui_tree (e.g. @kq12).'),
      clear: z.boolean().optional().describe('Delete the field’s current text first.'),
      submit: z.boolean().optional().describe('Press Enter after typing.'),
      observe: observeFlag,
    })
    .refine((a) => (a.text === undefined) !== (a.secret === undefined), {
      message: 'give exactly one of text or secret',
    })
    .refine((a) => a.ref === undefined || a.element === undefined, {
      message: 'give ref or element, not both',
      path: ['ref'],
    }),
  output: RESULT,
  check: async (ctx, args) => {
    // Its name and scope (secret_not_found, secret_out_of_scope); the value itself is not kept.
    if (args.secret !== undefined) ctx.services.secretText(args.secret);
    if (args.element?.index !== undefined) await resolveElement(ctx, args.element);
  },
  run: async (ctx, args) => {
    // A secret's value is asked for now, before anything reaches the phone, and goes only to it.
    const text = args.secret !== undefined ? ctx.services.secretText(args.secret) : (args.text ?? '');
    const opts = { timeoutMs: ctx.timeoutMs, signal: ctx.signal };
    let currentLength: number | undefined;
    // A password field (as the last tree shows the focused one) is typed the stock way.
    let password = ctx.lastTree()?.nodes.some((n) => n.focused && n.password) ?? false;
    const element = await resolveTarget(ctx, args);
    let focusChecked = true;
    if (element) {
      // A secret goes only into a field the phone masks, checked before the field is even tapped.
      if (args.secret !== undefined && !element.password)
        throw secretFieldNotMasked(args.secret, element.resourceId || element.className);
      password = element.password;
      if (ctx.lanes) await ctx.lanes.tap(element.center[0], element.center[1], opts);
      else await tap(ctx.shell, element.center[0], element.center[1], opts);
      currentLength = element.password ? undefined : element.text.length;
    } else {
      // Before anything is typed, whatever the text's language or the lane: no focus, no typing.
      const focus = await requireFocusedField(ctx);
      if ('field' in focus) password = focus.field.password;
      else focusChecked = false;
      // Whether the focused field masks it must be known, not assumed.
      if (args.secret !== undefined && !('field' in focus && focus.field.password))
        throw secretFieldNotMasked(
          args.secret,
          'field' in focus ? focus.field.resourceId || focus.field.className : null,
        );
    }
    if (args.clear) await clearField(ctx.shell, { ...opts, ...(currentLength !== undefined ? { currentLength } : {}) });
    const typeOptions = {
      timeoutMs: Math.max(ctx.timeoutMs, 60_000),
      signal: ctx.signal,
      hasUnicodeIme: () => ctx.services.unicodeIme(),
    };
    // The helper types any Unicode without ADB Keyboard; the stock lane needs it for non-ASCII.
    const typed = ctx.lanes
      ? await ctx.lanes.typeText(text, { ...typeOptions, password })
      : { ...(await typeText(ctx.shell, text, typeOptions)), lane: 'adb' };
    if (args.submit) {
      if (ctx.lanes) await ctx.lanes.pressKey('enter', opts);
      else await pressKey(ctx.shell, 'enter', opts);
    }
    // A secret is answered by its name (not even its length).
    const what = args.secret !== undefined ? { secret: args.secret } : { characters: [...text].length };
    return withObserve(ctx, args.observe, {
      status: 'typed',
      ...what,
      method: typed.method,
      submitted: args.submit === true,
      lane: typed.lane,
      // The screen's tree could not be read: whether a field had focus is unknown (focused-field.ts).
      ...(focusChecked ? {} : { focus_checked: false }),
    });
  },
});

const pressKeyTool = defineTool({
  id: 'android_press_key',
  title: 'Press a key',
  description: 'Press a named key: home, back, enter, app_switch, delete, tab, volume_up/down, dpad_*, power and more.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'key', screenInput: true, usesDisplay: true },
  args: z.strictObject({
    key: z.enum(KEY_NAMES).describe('Named key.'),
    long_press: z.boolean().optional(),
    observe: observeFlag,
  }),
  output: RESULT,
  run: async (ctx, args) => {
    const opts = { timeoutMs: ctx.timeoutMs, signal: ctx.signal, ...(args.long_press ? { longPress: true } : {}) };
    const lane = ctx.lanes
      ? await ctx.lanes.pressKey(args.key, opts)
      : (await pressKey(ctx.shell, args.key, opts), 'adb');
    return withObserve(ctx, args.observe, { status: 'pressed', key: args.key, lane });
  },
});

const launchAppTool = defineTool({
  id: 'android_launch_app',
  title: 'Launch an app',
  description: 'Start an installed app by package name (its launcher activity, or the given activity).',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'launch' },
  args: z.strictObject({
    package: PACKAGE,
    activity: z
      .string()
      .regex(/^\.?[A-Za-z][A-Za-z0-9_$]*(\.[A-Za-z][A-Za-z0-9_$]*)*$/, 'an activity class name')
      .max(255)
      .optional(),
    observe: observeFlag,
  }),
  output: RESULT,
  run: async (ctx, args) => {
    await launchApp(ctx.shell, args.package, args.activity, { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    return appAnswer(ctx, 'launched', args);
  },
});

/**
 * A launch's or a stop's answer: the package and the name the person knows it by (the
 * timeline and the audit say "Notes", not the package), when the phone has one.
 */
async function appAnswer(
  ctx: ToolContext,
  status: 'launched' | 'stopped',
  args: { package: string; observe?: boolean | undefined },
): Promise<Record<string, unknown>> {
  const label = await ctx.services.appLabel(args.package);
  return withObserve(ctx, args.observe, {
    status,
    package: args.package,
    ...(label !== null ? { app_label: label } : {}),
  });
}

const stopAppTool = defineTool({
  id: 'android_stop_app',
  title: 'Stop an app',
  description: 'Force-stop an app by package name.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'stop' },
  args: z.strictObject({ package: PACKAGE, observe: observeFlag }),
  output: RESULT,
  run: async (ctx, args) => {
    await stopApp(ctx.shell, args.package, { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    return appAnswer(ctx, 'stopped', args);
  },
});

const openUrlTool = defineTool({
  id: 'android_open_url',
  title: 'Open a URL',
  description:
    'Open a URL with the phone’s default handler: http(s) in the browser or an app; other app links (market:, tel:, mailto:, geo:, custom schemes) need approval at the computer. file:, content:, data:, javascript: and intent: URLs are refused.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'url' },
  args: z.strictObject({
    url: z
      .string()
      .max(4096)
      .refine((u) => {
        try {
          // Schemes that read local data or run code are never opened; other non-web links
          // are high risk and go through the safety policy (approval by default).
          return !['file:', 'content:', 'data:', 'javascript:', 'intent:', 'about:'].includes(new URL(u).protocol);
        } catch {
          return false;
        }
      }, 'an absolute URL (http, https or an app link; not file, content, data, javascript or intent)'),
    observe: observeFlag,
  }),
  output: RESULT,
  run: async (ctx, args) => {
    await openUrl(ctx.shell, args.url, { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    return withObserve(ctx, args.observe, { status: 'opened' });
  },
});

const installApkTool = defineTool({
  id: 'android_install_apk',
  title: 'Install an APK',
  description:
    'Install an APK previously uploaded through the transfer plane (file_ref) on the bound phone. High risk: the person at the computer approves it.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'install' },
  args: z.strictObject({ file_ref: z.string().regex(/^file_[A-Za-z0-9_-]{32}$/, 'a file_ref from /files/uploads') }),
  output: CONTROL_RESULT,
  check: async (ctx, args) => void ctx.services.uploadedFile(args.file_ref),
  run: async (ctx, args) => {
    const file = ctx.services.uploadedFile(args.file_ref);
    const remote = `/data/local/tmp/xagent-${Date.now().toString(36)}.apk`;
    // For the person's own user (the one in front), not every user: a work profile keeps its
    // own apps, and the turnover uninstalls for this user only (#36 point 6).
    const user =
      (await currentUser(ctx.shell, { timeoutMs: SHORT_COMMAND_MS, signal: ctx.signal }).catch(() => null)) ??
      undefined;
    // The apps installed before and after name what this install added: the lease's turnover
    // removes exactly those (an update of an app the phone already had is left installed).
    const userApps = (): Promise<string[] | null> =>
      listPackages(ctx.shell, {
        thirdPartyOnly: true,
        ...(user !== undefined ? { user } : {}),
        timeoutMs: 30_000,
        signal: ctx.signal,
      }).catch(() => null);
    const before = await userApps();
    await ctx.shell.push(createReadStream(file.path), remote, { timeoutMs: 120_000, signal: ctx.signal });
    try {
      await installApk(ctx.shell, remote, {
        timeoutMs: 180_000,
        signal: ctx.signal,
        ...(user !== undefined ? { user } : {}),
      });
    } finally {
      await ctx.shell.run(['rm', '-f', remote], { timeoutMs: SHORT_COMMAND_MS }).catch(() => undefined);
    }
    const after = before ? await userApps() : null;
    const added = before && after ? after.filter((pkg) => !before.includes(pkg)) : [];
    return {
      status: 'installed',
      filename: file.filename,
      byte_size: file.byteSize,
      ...(added.length === 1 ? { package: added[0] } : {}),
      new_packages: added,
      ...(user !== undefined ? { user } : {}),
    };
  },
});

/** Names tried for a pushed file before it is refused: the name, then "name (1).ext" … "name (20).ext". */
const MAX_PUSH_RENAMES = 20;

/**
 * A path in the Download folder that holds no file yet. A file already there may be the
 * person's own, and the lease's reset deletes what the lease pushed: overwriting it would first
 * replace it and then delete it (#36 point 6). Browsers number a second download the same way.
 */
async function unusedDownloadPath(
  shell: DeviceShell,
  name: string,
  options: { timeoutMs: number; signal: AbortSignal },
): Promise<string> {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 0; n <= MAX_PUSH_RENAMES; n++) {
    const path = `/sdcard/Download/${n === 0 ? name : `${stem} (${n})${ext}`}`;
    // Exit status 1: nothing there. Anything else (0, unknown) is taken as taken.
    const { exitCode } = await runText(shell, ['test', '-e', path], options);
    if (exitCode === 1) return path;
  }
  throw new BridgeError(
    'invalid_arguments',
    `/sdcard/Download already holds ${name} and ${MAX_PUSH_RENAMES} numbered copies of it; choose another filename`,
  );
}

const pushFileTool = defineTool({
  id: 'android_push_file',
  title: 'Copy a file to the phone',
  description:
    'Copy a file uploaded through the transfer plane (file_ref) into the phone’s Download folder. A file already there is never overwritten: the copy gets a new name (name (1).ext), returned as path.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'push' },
  args: z.strictObject({
    file_ref: z.string().regex(/^file_[A-Za-z0-9_-]{32}$/, 'a file_ref from /files/uploads'),
    filename: z
      .string()
      .min(1)
      .max(120)
      .regex(/^[^/\\\0]+$/, 'a plain file name without folders')
      .optional(),
  }),
  output: CONTROL_RESULT,
  check: async (ctx, args) => void ctx.services.uploadedFile(args.file_ref),
  run: async (ctx, args) => {
    const file = ctx.services.uploadedFile(args.file_ref);
    const name = (args.filename ?? basename(file.filename)).replace(/[^\w.\- ()]/g, '_').replace(/^\.+/, '_');
    const remote = await unusedDownloadPath(ctx.shell, name, { timeoutMs: SHORT_COMMAND_MS, signal: ctx.signal });
    await ctx.shell.push(createReadStream(file.path), remote, { timeoutMs: 120_000, signal: ctx.signal });
    return { status: 'copied', path: remote, byte_size: file.byteSize };
  },
});

/** The control tools a batch may take as its steps. */
const BATCH_STEPS = [
  tapTool,
  longPressTool,
  swipeTool,
  typeTextTool,
  pressKeyTool,
  launchAppTool,
  stopAppTool,
  openUrlTool,
];

export const CONTROL_TOOLS: ToolDefinition<unknown>[] = [
  ...BATCH_STEPS,
  makeBatchTool(BATCH_STEPS),
  installApkTool,
  pushFileTool,
];

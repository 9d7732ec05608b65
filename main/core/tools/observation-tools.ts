/**
 * Observation tools: read the phone without changing it. They may run concurrently on one
 * phone (bounded by the queue), and are not journaled.
 */
import { z } from 'zod';
import { readDeviceStatus } from '../android/device-info';
import { listPackages } from '../android/apps';
import { findElements, isInteractive } from '../android/ui-tree';
import { systemDialogFromTree, systemDialogNote } from '../android/system-dialogs';
import { MAX_RECORD_SECONDS, recordScreenChunks } from '../android/screen-record';
import { BridgeError } from '../errors';
import { pauseFor } from '../devices/deadline';
import { defineTool, elementSelector, type SeenToast, type ToolContext, type ToolDefinition } from './tool-definition';
import { compactNode, freshTree, toSelector } from './targets';
import { takeScreenshot } from './screenshot-pipeline';
import { TOASTS_NOT_WATCHED } from './toast-window';

const statusTool = defineTool({
  id: 'android_device_status',
  title: 'Phone status',
  description:
    'Model, manufacturer, Android version, screen size/density/rotation, battery, whether the screen is on, the app in front and the transport (USB or LAN).',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none' },
  args: z.strictObject({}),
  output: { type: 'object' },
  run: async (ctx) => {
    const device = ctx.device;
    // Build properties were read when the phone was (re)verified on this connection.
    const buildProps =
      device.verifiedAt !== null
        ? {
            model: device.model,
            manufacturer: device.manufacturer,
            androidVersion: device.androidVersion,
            sdk: device.sdk,
          }
        : undefined;
    const status = await readDeviceStatus(ctx.shell, { timeoutMs: ctx.timeoutMs, signal: ctx.signal }, buildProps);
    return {
      model: status.model,
      manufacturer: status.manufacturer,
      android_version: status.androidVersion,
      sdk: status.sdk,
      screen: status.screen,
      battery: status.battery,
      screen_on: status.screenOn,
      foreground: status.foreground,
      // A dialog over the app: the agent sees it rather than tapping the app under it.
      system_dialog: status.systemDialog?.description ?? null,
      ...(status.systemDialog ? { note: systemDialogNote(status.systemDialog) } : {}),
      transport: ctx.device.transport,
    };
  },
});

const uiTreeTool = defineTool({
  id: 'android_ui_tree',
  title: 'UI tree',
  description:
    'The accessibility tree of the current screen as compact JSON: index, ref (elements you can act on), text, resource_id, content_desc, class, bounds, center and flags. Pass a ref (e.g. @kq12) to control tools; refs expire with any control action or screen change (ref_stale: read again).',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none', seesScreen: true, readsTree: true, usesDisplay: true },
  args: z.strictObject({
    interactive_only: z
      .boolean()
      .optional()
      .describe('Only elements that can be tapped, scrolled or focused (default true).'),
    max_nodes: z.number().int().min(1).max(3000).optional().describe('Cap on returned nodes (default 400).'),
  }),
  output: { type: 'object' },
  run: async (ctx, args) => {
    const tree = await freshTree(ctx);
    const wanted = args.interactive_only === false ? tree.nodes : tree.nodes.filter(isInteractive);
    const max = args.max_nodes ?? 400;
    const truncated = wanted.length > max || tree.truncated;
    const shown = Math.min(max, wanted.length);
    const dialog = systemDialogFromTree(tree.nodes);
    const notes = [
      ...(dialog ? [systemDialogNote(dialog)] : []),
      ...(truncated
        ? [
            `the screen has ${tree.truncated ? `more than ${tree.nodes.length}` : wanted.length} elements; the first ${shown} are listed. Select by text or resource_id, raise max_nodes (up to 3000), or scroll to a smaller part of the screen.`,
          ]
        : []),
    ];
    return {
      nodes: wanted.slice(0, max).map((node) => compactNode(node, tree.refTag)),
      count: wanted.length,
      truncated,
      ...(dialog ? { system_dialog: dialog.description } : {}),
      ...(notes.length > 0 ? { note: notes.join(' ') } : {}),
      signature: tree.signature,
      lane: tree.lane,
    };
  },
});

const listAppsTool = defineTool({
  id: 'android_list_apps',
  title: 'Installed apps',
  description:
    'Package names of installed apps (third-party apps by default), and in apps[] each with the name its launcher icon shows (label; null when the phone does not say, or for an app without a launcher icon).',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none' },
  args: z.strictObject({ include_system: z.boolean().optional().describe('Also list system apps.') }),
  output: { type: 'object' },
  run: async (ctx, args) => {
    const packages = await listPackages(ctx.shell, {
      thirdPartyOnly: args.include_system !== true,
      timeoutMs: ctx.timeoutMs,
      signal: ctx.signal,
    });
    const labels = await ctx.services.appLabels();
    const sorted = packages.sort();
    return {
      packages: sorted,
      apps: sorted.map((name) => ({ package: name, label: labels.get(name) ?? null })),
      count: packages.length,
    };
  },
});

/** Between polls of android_wait_for. */
const WAIT_POLL_MS = 250;

/**
 * Polls the fast lane's helper until a toast whose text contains `wanted` (case-insensitive)
 * is among those its page source reports (the helper keeps a toast 3.5 s: helper/toast-log.ts).
 * Without the helper there is nothing to poll: the answer says so at once.
 */
async function waitForToast(ctx: ToolContext, wanted: string, timeout: number): Promise<Record<string, unknown>> {
  const started = Date.now();
  const needle = wanted.toLowerCase();
  let polls = 0;
  const notWatched = (why: string): Record<string, unknown> => ({
    met: false,
    condition: 'toast',
    elapsed_ms: Date.now() - started,
    polls,
    toasts_watched: false,
    toasts_note: why,
  });
  if (!ctx.lanes) return notWatched(TOASTS_NOT_WATCHED.otherDisplay);
  const options = { timeoutMs: Math.max(ctx.timeoutMs, 30_000), signal: ctx.signal };
  while (true) {
    if (ctx.signal.aborted) throw new BridgeError('canceled', 'the wait was canceled');
    const read = await ctx.lanes.tree(options);
    polls += 1;
    if (read.lane !== 'helper') return notWatched(TOASTS_NOT_WATCHED.noHelper);
    const elapsed = Date.now() - started;
    const found: SeenToast | undefined = read.toasts?.find((t) => t.text.toLowerCase().includes(needle));
    if (found) {
      const toast = { text: found.text, at: new Date(found.at).toISOString() };
      return { met: true, condition: 'toast', elapsed_ms: elapsed, polls, toast, toasts_watched: true };
    }
    if (elapsed >= timeout) return { met: false, condition: 'toast', elapsed_ms: elapsed, polls, toasts_watched: true };
    await betweenPolls(ctx, 'a toast', elapsed, timeout);
  }
}

/** Between two polls of a wait: the agent hears how long it has waited, then a pause that never passes the timeout. */
async function betweenPolls(ctx: ToolContext, what: string, elapsed: number, timeout: number): Promise<void> {
  ctx.progress('waiting', `waiting for ${what}, ${Math.round(elapsed / 1000)} s`, Math.min(0.99, elapsed / timeout));
  await pauseFor(Math.min(WAIT_POLL_MS, Math.max(0, timeout - elapsed)), ctx.signal);
}

const waitForTool = defineTool({
  id: 'android_wait_for',
  title: 'Wait for the screen',
  description:
    'Wait until an element appears or disappears, until the screen stops changing, or until a toast containing the given text shows (fast lane only), up to a timeout. Sends progress while waiting.',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none', seesScreen: true, readsTree: true, usesDisplay: true },
  args: z
    .strictObject({
      element: elementSelector.optional(),
      condition: z
        .enum(['appears', 'disappears', 'settled'])
        .optional()
        .describe('Default: appears when element is given, else settled.'),
      toast: z
        .string()
        .min(1)
        .max(500)
        .optional()
        .describe(
          'Wait for a toast whose text contains this (case-insensitive). Needs appium-uiautomator2-server, which the person turns on per phone; give it without element or condition.',
        ),
      timeout_ms: z.number().int().min(100).max(60_000).optional().describe('Default 10000.'),
    })
    .refine((a) => a.element !== undefined || a.condition === undefined || a.condition === 'settled', {
      message: 'appears/disappears need element',
    })
    .refine((a) => a.toast === undefined || (a.element === undefined && a.condition === undefined), {
      message: 'toast is given alone, without element or condition',
    }),
  output: { type: 'object' },
  run: async (ctx, args) => {
    const timeout = args.timeout_ms ?? 10_000;
    if (args.toast !== undefined) return waitForToast(ctx, args.toast, timeout);
    const condition = args.condition ?? (args.element ? 'appears' : 'settled');
    const started = Date.now();
    let previous: string | undefined;
    let polls = 0;
    while (true) {
      if (ctx.signal.aborted) throw new BridgeError('canceled', 'the wait was canceled');
      const tree = await freshTree(ctx);
      polls += 1;
      const elapsed = Date.now() - started;
      if (condition === 'settled') {
        if (previous !== undefined && previous === tree.signature)
          return { met: true, condition, elapsed_ms: elapsed, polls };
        previous = tree.signature;
      } else if (args.element) {
        const found = findElements(tree.nodes, toSelector(args.element));
        if ((condition === 'appears') === found.length > 0) {
          return {
            met: true,
            condition,
            elapsed_ms: elapsed,
            polls,
            ...(found[0] ? { element: compactNode(found[0], tree.refTag) } : {}),
          };
        }
      }
      if (elapsed >= timeout) return { met: false, condition, elapsed_ms: elapsed, polls };
      await betweenPolls(ctx, `the screen (${condition})`, elapsed, timeout);
    }
  },
});

const screenshotTool = defineTool({
  id: 'android_screenshot',
  title: 'Screenshot',
  description:
    'Capture the screen. Returns file_ref and a short-lived download_url (never bytes), size, byte_size, sha256, unchanged (identical to your previous capture), secure_screen (the app blocks screenshots) and source (stream: the phone’s screen stream, always newer than your last action; screencap). Optional boxes over interactive elements labelled with their refs (annotate).',
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none', seesScreen: true, usesDisplay: true },
  args: z.strictObject({
    format: z.enum(['png', 'jpeg', 'webp']).optional().describe('Default webp (smallest at equal legibility).'),
    quality: z.number().int().min(30).max(100).optional().describe('JPEG/WebP quality (default 80).'),
    max_side: z
      .number()
      .int()
      .min(160)
      .max(4096)
      .optional()
      .describe('Longest side in pixels after scaling (default 1280).'),
    annotate: z
      .boolean()
      .optional()
      .describe(
        'Draw a box over each interactive element labelled with its ref (e.g. @kq12), for control tools’ ref; `elements` lists them.',
      ),
  }),
  output: { type: 'object' },
  run: (ctx, args) => takeScreenshot(ctx, args, ctx.services.lastCaptures),
});

const recordTool = defineTool({
  id: 'android_screen_record',
  title: 'Record the screen',
  description: `Record the screen for 1–${MAX_RECORD_SECONDS} seconds. Up to 180 s: one MP4 (file_ref + download_url). Longer: \`chunks\`, MP4s of at most 180 s in order, each starting before the previous ends (start_ms, overlap_ms: trim that when joining). A still screen is still recorded (its last frame is held).`,
  kind: 'observation',
  sideEffect: false,
  facts: { policy: 'none', seesScreen: true, usesDisplay: true },
  args: z.strictObject({
    seconds: z.number().int().min(1).max(MAX_RECORD_SECONDS).describe('Length of the recording.'),
  }),
  output: { type: 'object' },
  run: async (ctx, args) => {
    ctx.progress('recording', `recording ${args.seconds} s`, 0);
    const recorded = await recordScreenChunks(ctx.shell, { seconds: args.seconds, signal: ctx.signal });
    const at = Date.now();
    const chunks = [];
    for (const [i, chunk] of recorded.entries()) {
      const stored = await ctx.services.storeFile({
        data: chunk.data,
        mimeType: 'video/mp4',
        filename: recorded.length > 1 ? `screen-${at}-part${i + 1}.mp4` : `screen-${at}.mp4`,
        kind: 'recording',
      });
      chunks.push({
        index: i + 1,
        ...stored,
        start_ms: chunk.startMs,
        seconds: chunk.seconds,
        overlap_ms: chunk.overlapMs,
        frames: chunk.frames,
      });
    }
    const [only] = chunks;
    if (chunks.length === 1 && only) {
      const { index: _i, start_ms: _s, seconds: _l, overlap_ms: _o, ...file } = only;
      return { ...file, seconds: args.seconds, frames: only.frames };
    }
    return { seconds: args.seconds, chunks };
  },
});

export const OBSERVATION_TOOLS: ToolDefinition<unknown>[] = [
  statusTool,
  uiTreeTool,
  listAppsTool,
  waitForTool,
  screenshotTool,
  recordTool,
];

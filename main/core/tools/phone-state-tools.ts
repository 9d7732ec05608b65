/**
 * Tools that change what the phone holds rather than what it shows: its clipboard, an app's
 * runtime permissions, an app's data. They are control calls (one at a time per phone, judged
 * by the safety policy: reading the clipboard, changing a permission and clearing data ask a
 * person by default), and none of them touches the screen, so none needs it unlocked.
 *
 * The clipboard has no stock lane (no stock shell command reads or sets it): only the fast
 * lane's helper serves it (helper/helper-clipboard.ts), and without it the call is refused with
 * `fast_lane_required` and the fix. Permissions and data go through `pm` (android/).
 */
import { z } from 'zod';
import { BridgeError } from '../errors';
import { clearAppData } from '../android/apps';
import { isValidPermissionName, setRuntimePermission } from '../android/app-permissions';
import { defineTool, packageName, type PhoneClipboard, type ToolContext, type ToolDefinition } from './tool-definition';

/** Android 10 (API 29) and later let only the app in front and the keyboard read the clipboard. */
const CLIPBOARD_READ_LIMIT_SDK = 29;
/** Deadline of one clipboard request to the helper. */
const CLIPBOARD_TIMEOUT_MS = 10_000;
const MAX_CLIPBOARD_CHARS = 10_000;

export const FAST_LANE_FIX =
  'try again in a few seconds: the bridge starts scrcpy-server on the phone with the lease’s first call; if it stays unavailable, ask the person at the computer to turn on “Programs on this phone” on its card, which also says why it is not running';
export const CLIPBOARD_UNREADABLE_FIX =
  'paste it where you can read it: tap a text field, press the paste key (android_press_key with key paste), then read the field with android_ui_tree';

const permissionName = z
  .string()
  .max(255)
  .refine(isValidPermissionName, 'a permission name like android.permission.CAMERA')
  .describe(
    'The permission’s full name, e.g. android.permission.CAMERA, android.permission.ACCESS_FINE_LOCATION, android.permission.POST_NOTIFICATIONS.',
  );

const RESULT = { type: 'object', properties: { status: { type: 'string' } } };

/** The helper's clipboard, or `fast_lane_required` with the fix. */
async function helperClipboard(ctx: ToolContext, what: string): Promise<PhoneClipboard> {
  const clipboard = ctx.lanes ? await ctx.lanes.clipboard({ signal: ctx.signal }) : null;
  if (clipboard) return clipboard;
  throw new BridgeError(
    'fast_lane_required',
    `${what} the clipboard needs the fast lane (scrcpy-server, which the bridge runs through adb while the phone is leased), which is not running on this phone now (still starting, turned off for this phone, failed, or the phone is driven on another display than its main one); no stock command reads or sets the clipboard. Fix: ${FAST_LANE_FIX}`,
    { fix: FAST_LANE_FIX },
  );
}

function clipboardOptions(ctx: ToolContext): { timeoutMs: number; signal: AbortSignal } {
  return { timeoutMs: Math.min(ctx.timeoutMs, CLIPBOARD_TIMEOUT_MS), signal: ctx.signal };
}

const readClipboardTool = defineTool({
  id: 'android_read_clipboard',
  title: 'Read the clipboard',
  description:
    'The text on the phone’s clipboard. Needs the fast lane (scrcpy-server, which the bridge runs through adb while the phone is leased; it reads the clipboard on every Android version). Where the phone is served by appium-uiautomator2-server instead, Android 10 and later hand it nothing: there an empty answer is refused with clipboard_unreadable rather than reported as an empty clipboard. It may hold a password or a one-time code, so the person at the computer approves each read by default.',
  kind: 'control',
  sideEffect: false,
  facts: { policy: 'clipboard_read' },
  args: z.strictObject({}),
  output: {
    type: 'object',
    properties: { status: { type: 'string' }, text: { type: 'string' }, characters: { type: 'integer' } },
  },
  run: async (ctx) => {
    const clipboard = await helperClipboard(ctx, 'reading');
    const text = await clipboard.read(clipboardOptions(ctx));
    // An unknown Android version counts as 10+: an empty answer is never taken for an empty clipboard there.
    if (
      text === '' &&
      !clipboard.readsEveryApp &&
      (ctx.device.sdk ?? CLIPBOARD_READ_LIMIT_SDK) >= CLIPBOARD_READ_LIMIT_SDK
    ) {
      throw new BridgeError(
        'clipboard_unreadable',
        `the clipboard read came back empty: on Android 10 and later only the app in front and the keyboard may read the clipboard, so an empty answer cannot tell an empty clipboard from a refused read. Fix: ${CLIPBOARD_UNREADABLE_FIX}`,
        { fix: CLIPBOARD_UNREADABLE_FIX },
      );
    }
    return { status: 'read', text, characters: [...text].length, lane: clipboard.lane };
  },
});

const setClipboardTool = defineTool({
  id: 'android_set_clipboard',
  title: 'Set the clipboard',
  description:
    'Put text on the phone’s clipboard (any Unicode, up to 10000 characters; empty text clears it), e.g. to paste it into a field with android_press_key key paste. Needs the fast lane (scrcpy-server, which the bridge runs through adb while the phone is leased).',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'clipboard_write', typedTextArg: 'text' },
  args: z.strictObject({
    text: z
      .string()
      .max(MAX_CLIPBOARD_CHARS)
      .describe('The exact text to put on the clipboard (up to 10000 characters; empty clears it).'),
  }),
  output: RESULT,
  run: async (ctx, args) => {
    const clipboard = await helperClipboard(ctx, 'setting');
    await clipboard.write(args.text, clipboardOptions(ctx));
    return { status: 'set', characters: [...args.text].length, lane: clipboard.lane };
  },
});

const permissionArgs = z.strictObject({ package: packageName, permission: permissionName });

/** Grant or revoke one runtime permission: the same checks and the state the phone reports after. */
function permissionTool(grant: boolean): ToolDefinition<unknown> {
  return defineTool({
    id: grant ? 'android_grant_permission' : 'android_revoke_permission',
    title: grant ? 'Grant an app a permission' : 'Revoke an app’s permission',
    description: grant
      ? 'Grant an app one runtime permission it requests in its manifest (camera, location, contacts, microphone, notifications …), as the person would in Settings. The result is the state the phone reports afterwards. The person at the computer approves it by default.'
      : 'Revoke one runtime permission an app holds (camera, location, contacts, microphone, notifications …), as the person would in Settings; Android stops the app if it is running. The result is the state the phone reports afterwards. The person at the computer approves it by default.',
    kind: 'control',
    sideEffect: true,
    facts: { policy: grant ? 'grant' : 'revoke' },
    args: permissionArgs,
    output: RESULT,
    run: async (ctx, args) => {
      const state = await setRuntimePermission(ctx.shell, args.package, args.permission, grant, {
        timeoutMs: ctx.timeoutMs,
        signal: ctx.signal,
      });
      return {
        status: grant ? 'granted' : 'revoked',
        package: args.package,
        permission: args.permission,
        granted: state.granted,
        changed: state.changed,
      };
    },
  });
}

const grantPermissionTool = permissionTool(true);
const revokePermissionTool = permissionTool(false);

const clearAppDataTool = defineTool({
  id: 'android_clear_app_data',
  title: 'Clear an app’s data',
  description:
    'Erase all data of an app: its accounts, settings, files and caches, as a fresh install has none; the app is stopped and its runtime permissions are reset. It cannot be undone, so the person at the computer approves it by default.',
  kind: 'control',
  sideEffect: true,
  facts: { policy: 'clear_data' },
  args: z.strictObject({ package: packageName }),
  output: RESULT,
  run: async (ctx, args) => {
    await clearAppData(ctx.shell, args.package, { timeoutMs: ctx.timeoutMs, signal: ctx.signal });
    return { status: 'cleared', package: args.package };
  },
});

export const PHONE_STATE_TOOLS: ToolDefinition<unknown>[] = [
  readClipboardTool,
  setClipboardTool,
  grantPermissionTool,
  revokePermissionTool,
  clearAppDataTool,
];

/**
 * Every tool the bridge offers, by id, with what the console and the approval sentence need
 * to put one of its calls in words: its name, the shape of its arguments, and its approval
 * sentence. One row per tool in a `Record<ToolId, …>`, so a tool added without its words does
 * not compile; main/core/tools/ defines each tool under one of these ids, and
 * test/unit/tool-names.test.ts checks that the catalogue and this list are the same tools.
 * Nothing here names a tool elsewhere: the wording code reads the row, never an id.
 */
import type { MessageKey } from './i18n';

/** What a call's arguments are, for the words that describe it (the timeline, the approval sentence). */
export type ToolShape =
  /** Nothing to say beyond its name (observation). */
  | 'none'
  /** A point or element on the screen (tap, long press). */
  | 'target'
  | 'swipe'
  /** Text typed into a field (or a lab secret by name). */
  | 'typed'
  | 'key'
  /** One app, by its package. */
  | 'app'
  /** One app's runtime permission. */
  | 'permission'
  | 'url'
  /** A condition on the screen awaited for a while. */
  | 'wait'
  /** The screen recorded for some seconds. */
  | 'record'
  /** An uploaded APK installed. */
  | 'install'
  /** An uploaded file copied onto the phone. */
  | 'push'
  /** Several steps, each another tool's call. */
  | 'batch'
  /** The agent asks the person to take the phone over, with its reason. */
  | 'ask'
  | 'clipboard_read'
  | 'clipboard_write';

export interface ToolWords {
  /** What a person calls the tool ("Tap", "点按"). */
  readonly name: MessageKey;
  readonly shape: ToolShape;
  /** The sentence an approval of it reads as, without and with the app it happens in; null: the general one. */
  readonly approval: { readonly plain: MessageKey; readonly inApp: MessageKey } | null;
}

function sentence(plain: MessageKey, inApp: MessageKey = plain): ToolWords['approval'] {
  return { plain, inApp };
}

/** Every tool the bridge offers. */
export const TOOL_IDS = [
  'android_device_status',
  'android_ui_tree',
  'android_list_apps',
  'android_wait_for',
  'android_screenshot',
  'android_screen_record',
  'android_logcat',
  'android_tap',
  'android_long_press',
  'android_swipe',
  'android_type_text',
  'android_press_key',
  'android_launch_app',
  'android_stop_app',
  'android_open_url',
  'android_install_apk',
  'android_push_file',
  'android_batch',
  'android_read_clipboard',
  'android_set_clipboard',
  'android_grant_permission',
  'android_revoke_permission',
  'android_clear_app_data',
  'android_ask_person',
] as const;

export type ToolId = (typeof TOOL_IDS)[number];

export function isToolId(id: string): id is ToolId {
  return (TOOL_IDS as readonly string[]).includes(id);
}

/** Each tool's words: a tool of TOOL_IDS without its row does not compile. */
export const TOOL_WORDS: Readonly<Record<ToolId, ToolWords>> = {
  android_device_status: { name: 'tools.device_status', shape: 'none', approval: null },
  android_ui_tree: { name: 'tools.ui_tree', shape: 'none', approval: null },
  android_list_apps: { name: 'tools.list_apps', shape: 'none', approval: null },
  android_wait_for: { name: 'tools.wait_for', shape: 'wait', approval: null },
  android_screenshot: { name: 'tools.screenshot', shape: 'none', approval: null },
  android_screen_record: { name: 'tools.screen_record', shape: 'record', approval: null },
  android_logcat: { name: 'tools.logcat', shape: 'none', approval: null },
  android_tap: {
    name: 'tools.tap',
    shape: 'target',
    approval: sentence('approvals.say.tap', 'approvals.say.tap.app'),
  },
  android_long_press: {
    name: 'tools.long_press',
    shape: 'target',
    approval: sentence('approvals.say.long_press', 'approvals.say.long_press.app'),
  },
  android_swipe: {
    name: 'tools.swipe',
    shape: 'swipe',
    approval: sentence('approvals.say.swipe', 'approvals.say.swipe.app'),
  },
  android_type_text: {
    name: 'tools.type_text',
    shape: 'typed',
    approval: sentence('approvals.say.type_text', 'approvals.say.type_text.app'),
  },
  android_press_key: {
    name: 'tools.press_key',
    shape: 'key',
    approval: sentence('approvals.say.press_key', 'approvals.say.press_key.app'),
  },
  android_launch_app: { name: 'tools.launch_app', shape: 'app', approval: sentence('approvals.say.launch_app') },
  android_stop_app: { name: 'tools.stop_app', shape: 'app', approval: sentence('approvals.say.stop_app') },
  android_open_url: { name: 'tools.open_url', shape: 'url', approval: sentence('approvals.say.open_url') },
  android_install_apk: {
    name: 'tools.install_apk',
    shape: 'install',
    approval: sentence('approvals.say.install_apk'),
  },
  android_push_file: { name: 'tools.push_file', shape: 'push', approval: sentence('approvals.say.push_file') },
  android_batch: {
    name: 'tools.batch',
    shape: 'batch',
    approval: sentence('approvals.say.batch', 'approvals.say.batch.app'),
  },
  android_read_clipboard: {
    name: 'tools.read_clipboard',
    shape: 'clipboard_read',
    approval: sentence('approvals.say.read_clipboard'),
  },
  android_set_clipboard: {
    name: 'tools.set_clipboard',
    shape: 'clipboard_write',
    approval: sentence('approvals.say.set_clipboard'),
  },
  android_grant_permission: {
    name: 'tools.grant_permission',
    shape: 'permission',
    approval: sentence('approvals.say.grant_permission'),
  },
  android_revoke_permission: {
    name: 'tools.revoke_permission',
    shape: 'permission',
    approval: sentence('approvals.say.revoke_permission'),
  },
  android_clear_app_data: {
    name: 'tools.clear_app_data',
    shape: 'app',
    approval: sentence('approvals.say.clear_app_data'),
  },
  android_ask_person: { name: 'tools.ask_person', shape: 'ask', approval: null },
};

/** The row of a tool id; undefined for an id this side does not know (a newer bridge's tool). */
export function toolWords(id: string): ToolWords | undefined {
  return isToolId(id) ? TOOL_WORDS[id] : undefined;
}

/** What the person does themselves that the timeline and the audit name beside the agent's tools. */
export const PERSON_ACTION_NAMES: Readonly<Record<'take_over' | 'hand_back', MessageKey>> = {
  take_over: 'tools.take_over',
  hand_back: 'tools.hand_back',
};

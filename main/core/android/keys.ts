/**
 * Named keys an agent may press, and their Android keycodes (android.view.KeyEvent).
 * KEY_NAMES is the enum of the press-key tool; aliases (backspace, recents) map to the same
 * code as their primary name.
 */
import { BridgeError } from '../errors';

const KEY_CODES = {
  home: 3,
  back: 4,
  call: 5,
  endcall: 6,
  dpad_up: 19,
  dpad_down: 20,
  dpad_left: 21,
  dpad_right: 22,
  dpad_center: 23,
  volume_up: 24,
  volume_down: 25,
  power: 26,
  camera: 27,
  tab: 61,
  space: 62,
  enter: 66,
  delete: 67,
  backspace: 67,
  focus: 80,
  menu: 82,
  notifications: 83,
  search: 84,
  media_play_pause: 85,
  media_stop: 86,
  media_next: 87,
  media_previous: 88,
  media_rewind: 89,
  media_fast_forward: 90,
  mic_mute: 91,
  page_up: 92,
  page_down: 93,
  escape: 111,
  forward_delete: 112,
  move_home: 122,
  move_end: 123,
  media_play: 126,
  media_pause: 127,
  volume_mute: 164,
  zoom_in: 168,
  zoom_out: 169,
  settings: 176,
  app_switch: 187,
  recents: 187,
  assist: 219,
  brightness_down: 220,
  brightness_up: 221,
  sleep: 223,
  wakeup: 224,
  cut: 277,
  copy: 278,
  paste: 279,
  all_apps: 284,
} as const satisfies Record<string, number>;

export type KeyName = keyof typeof KEY_CODES;

/** Every accepted key name, for the tool's enum (in keycode order). */
export const KEY_NAMES = Object.keys(KEY_CODES) as readonly KeyName[] as readonly [KeyName, ...KeyName[]];

export function isKeyName(name: string): name is KeyName {
  return Object.hasOwn(KEY_CODES, name);
}

/** The keycode for a named key; unknown names are BridgeError('invalid_arguments'). */
export function keyCode(name: string): number {
  if (!isKeyName(name)) {
    throw new BridgeError('invalid_arguments', `unknown key "${name}"; known keys: ${KEY_NAMES.join(', ')}`);
  }
  return KEY_CODES[name];
}

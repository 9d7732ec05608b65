/**
 * Android key codes (android.view.KeyEvent) the simulator knows by name, how
 * KeyEvent.keyCodeFromString resolves a name or number, and which character a key types
 * on the virtual keyboard (no modifiers).
 */

export const KEYCODE = {
  UNKNOWN: 0,
  SOFT_LEFT: 1,
  SOFT_RIGHT: 2,
  HOME: 3,
  BACK: 4,
  CALL: 5,
  ENDCALL: 6,
  STAR: 17,
  POUND: 18,
  DPAD_UP: 19,
  DPAD_DOWN: 20,
  DPAD_LEFT: 21,
  DPAD_RIGHT: 22,
  DPAD_CENTER: 23,
  VOLUME_UP: 24,
  VOLUME_DOWN: 25,
  POWER: 26,
  CAMERA: 27,
  CLEAR: 28,
  COMMA: 55,
  PERIOD: 56,
  ALT_LEFT: 57,
  ALT_RIGHT: 58,
  SHIFT_LEFT: 59,
  SHIFT_RIGHT: 60,
  TAB: 61,
  SPACE: 62,
  SYM: 63,
  EXPLORER: 64,
  ENVELOPE: 65,
  ENTER: 66,
  DEL: 67,
  GRAVE: 68,
  MINUS: 69,
  EQUALS: 70,
  LEFT_BRACKET: 71,
  RIGHT_BRACKET: 72,
  BACKSLASH: 73,
  SEMICOLON: 74,
  APOSTROPHE: 75,
  SLASH: 76,
  AT: 77,
  NUM: 78,
  HEADSETHOOK: 79,
  FOCUS: 80,
  PLUS: 81,
  MENU: 82,
  NOTIFICATION: 83,
  SEARCH: 84,
  MEDIA_PLAY_PAUSE: 85,
  MEDIA_STOP: 86,
  MEDIA_NEXT: 87,
  MEDIA_PREVIOUS: 88,
  MUTE: 91,
  PAGE_UP: 92,
  PAGE_DOWN: 93,
  ESCAPE: 111,
  FORWARD_DEL: 112,
  CTRL_LEFT: 113,
  CTRL_RIGHT: 114,
  MOVE_HOME: 122,
  MOVE_END: 123,
  VOLUME_MUTE: 164,
  APP_SWITCH: 187,
  SLEEP: 223,
  WAKEUP: 224,
  PASTE: 279,
} as const;

/** Highest key code Android 14 accepts (KeyEvent.getMaxKeyCode()). */
export const MAX_KEYCODE = 316;

const BY_NAME = new Map<string, number>(Object.entries(KEYCODE));
for (let i = 0; i <= 9; i++) BY_NAME.set(String(i), 7 + i);
for (let i = 0; i < 26; i++) BY_NAME.set(String.fromCharCode(65 + i), 29 + i);

const NAME_BY_CODE = new Map<number, string>();
for (const [name, code] of BY_NAME) if (!NAME_BY_CODE.has(code)) NAME_BY_CODE.set(code, name);

/**
 * KeyEvent.keyCodeFromString: a valid number, or a name with or without the KEYCODE_
 * prefix; anything else is KEYCODE_UNKNOWN (0), which `input keyevent` sends silently.
 */
export function keyCodeFromString(text: string): number {
  if (/^-?\d+$/.test(text)) {
    const n = Number(text);
    if (n >= 0 && n <= MAX_KEYCODE) return n;
  }
  const name = text.startsWith('KEYCODE_') ? text.slice('KEYCODE_'.length) : text;
  return BY_NAME.get(name) ?? KEYCODE.UNKNOWN;
}

export function keyCodeName(code: number): string {
  return `KEYCODE_${NAME_BY_CODE.get(code) ?? String(code)}`;
}

const PUNCTUATION: Record<number, string> = {
  [KEYCODE.STAR]: '*',
  [KEYCODE.POUND]: '#',
  [KEYCODE.COMMA]: ',',
  [KEYCODE.PERIOD]: '.',
  [KEYCODE.SPACE]: ' ',
  [KEYCODE.GRAVE]: '`',
  [KEYCODE.MINUS]: '-',
  [KEYCODE.EQUALS]: '=',
  [KEYCODE.LEFT_BRACKET]: '[',
  [KEYCODE.RIGHT_BRACKET]: ']',
  [KEYCODE.BACKSLASH]: '\\',
  [KEYCODE.SEMICOLON]: ';',
  [KEYCODE.APOSTROPHE]: "'",
  [KEYCODE.SLASH]: '/',
  [KEYCODE.AT]: '@',
  [KEYCODE.PLUS]: '+',
};

/** The character a key types with no modifier held, if any. */
export function keyChar(code: number): string | undefined {
  if (code >= 7 && code <= 16) return String(code - 7);
  if (code >= 29 && code <= 54) return String.fromCharCode(97 + code - 29);
  return PUNCTUATION[code];
}

/**
 * Whether KeyCharacterMap.VIRTUAL_KEYBOARD can type `ch` (KeyCharacterMap.getEvents returns
 * null for the whole string when one character cannot be typed).
 */
export function virtualKeyboardCanType(ch: string): boolean {
  const code = ch.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || ch === '\n' || ch === '\t';
}

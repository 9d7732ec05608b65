/**
 * ADB Keyboard (com.android.adbkeyboard/.AdbIME): the broadcast receiver the IME registers
 * while it is the current input method. ADB_INPUT_TEXT / ADB_INPUT_B64 commit text into
 * the focused field (B64 carries UTF-8, so any Unicode text arrives intact),
 * ADB_INPUT_CODE sends a key, ADB_EDITOR_CODE an editor action, ADB_CLEAR_TEXT empties it.
 */
import { ADB_KEYBOARD_PKG } from '../phone-packages';
import { ADB_IME_ID } from '../phone-settings';
import type { PhoneContext } from './command-types';
import type { ParsedIntent } from './intent';

export const ADB_KEYBOARD_ACTIONS = [
  'ADB_INPUT_TEXT',
  'ADB_INPUT_B64',
  'ADB_INPUT_CODE',
  'ADB_EDITOR_CODE',
  'ADB_CLEAR_TEXT',
];

/** Delivers a broadcast to ADB Keyboard if it is installed, selected and the intent reaches it. */
export function deliverToAdbKeyboard(intent: ParsedIntent, phone: PhoneContext): void {
  if (!intent.action || !ADB_KEYBOARD_ACTIONS.includes(intent.action)) return;
  if (!phone.packages.has(ADB_KEYBOARD_PKG) || phone.settings.currentIme() !== ADB_IME_ID) return;
  if (intent.pkg !== undefined && intent.pkg !== ADB_KEYBOARD_PKG) return;
  if (intent.component && intent.component.pkg !== ADB_KEYBOARD_PKG) return;
  const msg = intent.extras.get('msg');
  switch (intent.action) {
    case 'ADB_INPUT_TEXT':
      if (typeof msg === 'string') phone.input.commitText(msg);
      break;
    case 'ADB_INPUT_B64':
      if (typeof msg === 'string') phone.input.commitText(Buffer.from(msg, 'base64').toString('utf8'));
      break;
    case 'ADB_INPUT_CODE': {
      const code = intent.extras.get('code');
      if (typeof code === 'number') phone.input.key(code);
      break;
    }
    case 'ADB_EDITOR_CODE':
      phone.input.editorAction();
      break;
    case 'ADB_CLEAR_TEXT':
      phone.input.clearFocusedText();
      break;
  }
}

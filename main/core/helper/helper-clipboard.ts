/**
 * The phone's clipboard through the fast lane's helper (appium-uiautomator2-server), the one
 * way the bridge has to it: `cmd clipboard` has no shell command on stock Android, and no other
 * stock command reads or sets the clipboard.
 *
 * The helper's API (upstream server/AppiumServlet.java, handler/GetClipboard.java,
 * handler/SetClipboard.java, utils/ClipboardHelper.java):
 * - `POST /session/:id/appium/device/set_clipboard` `{content, contentType, label}`: `content`
 *   is the UTF-8 text as base64 (decoded with Base64.NO_WRAP); `contentType` only `plaintext`;
 *   without `label` the server labels the clip with the text's first 10 characters, so the
 *   bridge always sends its own label.
 * - `POST /session/:id/appium/device/get_clipboard` `{contentType}`: the value is the primary
 *   clip's text as base64 (NO_WRAP of UTF-8), "" when there is no clip. Android 10+ let only the
 *   app in front and the keyboard read the clipboard (ClipboardService); the helper is neither,
 *   so there its read answers "" too. Appium's own driver reads through the server only below
 *   API 29 (appium-uiautomator2-driver lib/commands/clipboard.ts).
 */
import { BridgeError, isBridgeError } from '../errors';
import type { PhoneClipboard } from '../tools/tool-definition';
import type { HelperSession } from './helper-manager';

export const GET_CLIPBOARD_PATH = '/appium/device/get_clipboard';
export const SET_CLIPBOARD_PATH = '/appium/device/set_clipboard';

/** The label of every clip the bridge sets: fixed, so the text is not copied into the label. */
export const CLIP_LABEL = 'xAgent';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The helper's clipboard answer as text; anything but base64 of UTF-8 is `helper_unavailable`. */
export function decodeClip(value: unknown): string {
  if (typeof value !== 'string' || !BASE64.test(value))
    throw new BridgeError('helper_unavailable', 'the helper’s clipboard answer was not base64 text', { status: 200 });
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
  } catch {
    throw new BridgeError('helper_unavailable', 'the helper’s clipboard answer was not UTF-8 text', { status: 200 });
  }
}

/** The body of a set_clipboard request for `text`. */
export function setClipboardBody(text: string): { content: string; contentType: 'plaintext'; label: string } {
  return { content: Buffer.from(text, 'utf8').toString('base64'), contentType: 'plaintext', label: CLIP_LABEL };
}

export interface HelperClipboardHooks {
  /** A request failed (the manager tells a crash from a refusal). */
  failed(error: unknown): Promise<void>;
  /** A request was served (counted as a helper call on the phone's card). */
  served(): void;
}

/** The clipboard of one running helper session. Nothing is retried: a set whose answer was lost may have happened. */
export class HelperClipboard implements PhoneClipboard {
  readonly lane = 'helper' as const;
  /** Android 10+ lets it read the clipboard only while its app is in front, which it never is. */
  readonly readsEveryApp = false;

  constructor(
    private readonly session: HelperSession,
    private readonly hooks: HelperClipboardHooks,
  ) {}

  async read(options: { timeoutMs: number; signal: AbortSignal }): Promise<string> {
    return decodeClip(await this.call(GET_CLIPBOARD_PATH, { contentType: 'plaintext' }, options));
  }

  async write(text: string, options: { timeoutMs: number; signal: AbortSignal }): Promise<void> {
    await this.call(SET_CLIPBOARD_PATH, setClipboardBody(text), options);
  }

  private async call(
    path: string,
    body: unknown,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<unknown> {
    try {
      const value = await this.session.call('POST', path, body, options);
      this.hooks.served();
      return value;
    } catch (error) {
      if (!(isBridgeError(error) && error.code === 'canceled')) await this.hooks.failed(error);
      throw error;
    }
  }
}

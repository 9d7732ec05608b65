/**
 * What the bridge knows of the resident helper, appium-uiautomator2-server (Apache-2.0): its
 * two packages, the instrumentation that starts it, its device port, and how its page source
 * (elements named by class under `<hierarchy>`) becomes the same UiNode list as a stock
 * `uiautomator dump`. Written from the server's public source (AppiumServlet.java routes,
 * SendKeysToElement, W3CActions, PressKeyCode, Source); nothing here is copied from it.
 */
import { BridgeError } from '../errors';
import { parseUiXml, type UiNode } from '../android/ui-tree';

/** The server app: holds the HTTP server and, while instrumented, the UiAutomation connection. */
export const HELPER_SERVER_PACKAGE = 'io.appium.uiautomator2.server';
/** The test app whose instrumentation runs the server. */
export const HELPER_TEST_PACKAGE = 'io.appium.uiautomator2.server.test';
/** Where the server listens on the phone (ServerConfig's default port). */
export const HELPER_DEVICE_PORT = 6790;
/** `am instrument -w` keeps running while the server does; its end means the server ended. */
export const HELPER_INSTRUMENT_ARGV: readonly string[] = [
  'am',
  'instrument',
  '-w',
  '-e',
  'disableAnalytics',
  'true',
  `${HELPER_TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner`,
];
/** Stops the server and frees UiAutomation, so stock `uiautomator dump` works again. */
export const HELPER_STOP_ARGV: readonly string[] = ['am', 'force-stop', HELPER_SERVER_PACKAGE];

/** Lines `am instrument` prints when the phone cannot run the instrumentation at all. */
const NO_INSTRUMENTATION_RE =
  /Unable to find instrumentation|INSTRUMENTATION_FAILED|INSTRUMENTATION_ABORTED|starting instrumentation|SecurityException|Error: Unknown command|not found/i;

/** True when `am instrument` output says the instrumentation cannot run on this phone. */
export function isNoInstrumentation(output: string): boolean {
  return NO_INSTRUMENTATION_RE.test(output);
}

/** `userId=` (the package's Linux uid) from `dumpsys package NAME`, or null. */
export function parseInstalledUid(dumpsys: string, packageName: string): number | null {
  const block = dumpsys.indexOf(`Package [${packageName}]`);
  if (block < 0) return null;
  const uid = /userId=(\d+)/.exec(dumpsys.slice(block));
  return uid ? Number(uid[1]) : null;
}

/**
 * `versionName=` of a package from `dumpsys package NAME`, or null when it is not installed
 * (dumpsys then prints no "Packages:" block for it).
 */
export function parseInstalledVersion(dumpsys: string, packageName: string): string | null {
  const block = dumpsys.indexOf(`Package [${packageName}]`);
  if (block < 0) return null;
  const version = /versionName=([^\s]+)/.exec(dumpsys.slice(block));
  return version?.[1] ?? null;
}

/**
 * Appium's page source names each element by its class (`<android.widget.TextView …>`) where
 * uiautomator writes `<node class="…">`; the attributes are the same ones (text, resource-id,
 * content-desc, bounds, flags), and the class is also an attribute: the one parser of
 * ui-tree.ts reads both, taking any element name but <hierarchy> as a node.
 */
export function parseAppiumSource(xml: string): UiNode[] {
  if (!xml.includes('<hierarchy'))
    throw new BridgeError('command_failed', 'the helper’s page source has no <hierarchy> element');
  return parseUiXml(xml, { anyElementName: true });
}

/** W3C pointer actions for one finger: down at `from`, optionally move to `to` over `moveMs`, held `holdMs`. */
export function pointerActions(
  from: { x: number; y: number },
  to: { x: number; y: number } | null,
  holdMs: number,
  moveMs = 0,
): Record<string, unknown> {
  const steps: Array<Record<string, unknown>> = [
    { type: 'pointerMove', duration: 0, x: from.x, y: from.y },
    { type: 'pointerDown', button: 0 },
  ];
  if (holdMs > 0) steps.push({ type: 'pause', duration: holdMs });
  if (to) steps.push({ type: 'pointerMove', duration: moveMs, x: to.x, y: to.y });
  steps.push({ type: 'pointerUp', button: 0 });
  return { actions: [{ type: 'pointer', id: 'finger1', parameters: { pointerType: 'touch' }, actions: steps }] };
}

/**
 * The `keys` calls that type `text` into the focused field, appending. Line breaks and tabs
 * are key presses (ENTER 66, TAB 61) between text runs, as the stock lane types them; a run
 * ending in a backslash and `n` is split, because the server reads a trailing `\n` (two
 * characters) as "press Enter" (SendKeysToElement.setText).
 */
export type HelperTypingStep = { text: string } | { keycode: number };

export function planHelperTyping(text: string): HelperTypingStep[] {
  const steps: HelperTypingStep[] = [];
  const normalised = text.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
  let run = '';
  const flush = (): void => {
    if (run === '') return;
    if (run.endsWith('\\n')) {
      steps.push({ text: run.slice(0, -1) }, { text: 'n' });
    } else {
      steps.push({ text: run });
    }
    run = '';
  };
  for (const ch of normalised) {
    if (ch === '\n' || ch === '\t') {
      flush();
      steps.push({ keycode: ch === '\n' ? 66 : 61 });
    } else {
      run += ch;
    }
  }
  flush();
  return steps;
}

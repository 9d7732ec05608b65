/**
 * The UI tree of the current screen: dumping it with `uiautomator`, with the one retry and the
 * file fallback real phones need, and their failures as screen_unreadable with a fix.
 *
 * This module is the rest of the core's one door to the UI tree: parsing (ui-xml.ts), finding
 * elements (element-selector.ts), compacting and change detection (ui-tree-summary.ts) are
 * re-exported here, so callers need not know how the idea is split across files.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { phoneProblem, type PhoneProblem } from './phone-fixes';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';
import { parseUiXml, type UiNode } from './ui-xml';

export { decodeXmlEntities, parseUiXml, type UiNode } from './ui-xml';
export { findElement, findElements, type ElementSelector } from './element-selector';
export {
  compactTree,
  isInteractive,
  screenSignature,
  type CompactTree,
  type CompactTreeOptions,
} from './ui-tree-summary';

export interface UiDumpOptions extends OperationOptions {
  /** `uiautomator dump --compressed`: leaves out views that are not important for accessibility. */
  compressed?: boolean;
}

const DUMP_FILE = '/sdcard/window_dump.xml';
const DEFAULT_DUMP_TIMEOUT_MS = 30_000;
const CLEANUP_TIMEOUT_MS = 5_000;
/**
 * A bigger dump is refused rather than parsed: ~30 000 nodes of real uiautomator XML. The
 * parser would cope, but an agent cannot use such a tree and the memory is better spent elsewhere.
 */
export const MAX_DUMP_CHARS = 16 * 1024 * 1024;
/** uiautomator's own failure lines (DumpCommand prints them and still exits 0). */
const DUMP_ERRORS: ReadonlyArray<readonly [RegExp, PhoneProblem, string]> = [
  [/could not get idle state/i, 'ui_not_idle', 'the screen never settled (uiautomator: could not get idle state)'],
  [
    /null root node returned by UiTestAutomationBridge/i,
    'ui_no_root',
    'the phone has no window to read (uiautomator: null root node)',
  ],
];
/** Phones where `/dev/tty` gave no XML but the file fallback worked; we go straight to the file. */
const ttyUnusable = new WeakSet<DeviceShell>();

/**
 * Cuts uiautomator's output down to the XML document: drops anything before `<?xml` (or
 * `<hierarchy`) and after `</hierarchy>` (the "UI hierchary dumped to: /dev/tty" line).
 * An empty `<hierarchy … />` is returned as it is. Null when there is no complete hierarchy.
 */
export function extractHierarchyXml(output: string): string | null {
  const hierarchy = output.indexOf('<hierarchy');
  if (hierarchy < 0) return null;
  const declaration = output.lastIndexOf('<?xml', hierarchy);
  const from = declaration >= 0 ? declaration : hierarchy;
  const end = output.lastIndexOf('</hierarchy>');
  if (end < hierarchy) {
    const empty = /^<hierarchy\b[^<>]*\/>/.exec(output.slice(hierarchy));
    return empty ? output.slice(from, hierarchy + empty[0].length) : null;
  }
  return output.slice(from, end + '</hierarchy>'.length);
}

/** Which known failure uiautomator reported, if any. */
function dumpError(output: string): { problem: PhoneProblem; what: string } | null {
  for (const [pattern, problem, what] of DUMP_ERRORS) if (pattern.test(output)) return { problem, what };
  return null;
}

function hasNodes(xml: string): boolean {
  return xml.includes('<node');
}

/**
 * Dumps the current screen's UI tree as XML: `uiautomator dump /dev/tty`, tried at most twice
 * (a dump only reads the screen, and real phones fail once now and then). When uiautomator
 * reports its own failure twice ("could not get idle state", "null root node") or the
 * hierarchy is empty twice, that is BridgeError('screen_unreadable') with the fix: a third
 * dump would fail the same way and costs up to 10 s on a real phone. When /dev/tty gave no
 * XML at all, the dump goes to /sdcard/window_dump.xml, is read with `cat` and removed; a
 * dump reported written that cannot be read back is screen_unreadable too.
 */
export async function dumpUiXml(shell: DeviceShell, options?: UiDumpOptions): Promise<string> {
  const deadline = new OperationDeadline(options, DEFAULT_DUMP_TIMEOUT_MS, 'dumping the UI tree');
  const flags = options?.compressed ? ['--compressed'] : [];
  let known: { problem: PhoneProblem; what: string } | null = null;
  let emptySeen = false;
  let last = '';

  if (!ttyUnusable.has(shell)) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const out = await runText(shell, ['uiautomator', 'dump', ...flags, '/dev/tty'], deadline.next());
      checkSize(out.text);
      const xml = extractHierarchyXml(out.text);
      if (xml !== null && hasNodes(xml)) return xml;
      if (xml !== null) emptySeen = true;
      known = dumpError(out.text) ?? known;
      last = out.text;
    }
    if (known) throw phoneProblem(known.problem, known.what);
    if (emptySeen)
      throw phoneProblem('ui_empty', 'the screen exposes no elements (uiautomator returned an empty hierarchy)');
  }

  try {
    const dumped = await runText(shell, ['uiautomator', 'dump', ...flags, DUMP_FILE], deadline.next());
    const error = dumpError(dumped.text);
    if (error) throw phoneProblem(error.problem, error.what);
    if (!/dumped to/i.test(dumped.text))
      throw new BridgeError(
        'command_failed',
        `uiautomator could not dump the screen${excerpt(dumped.text || last, 200)}`,
      );
    const file = await runText(shell, ['cat', DUMP_FILE], deadline.next());
    checkSize(file.text);
    const xml = extractHierarchyXml(file.text);
    if (xml === null) {
      throw phoneProblem(
        'ui_unreadable',
        `uiautomator reported the dump written, but it could not be read back${excerpt(file.text, 200)}`,
      );
    }
    if (!hasNodes(xml))
      throw phoneProblem('ui_empty', 'the screen exposes no elements (uiautomator returned an empty hierarchy)');
    ttyUnusable.add(shell);
    return xml;
  } finally {
    await runText(shell, ['rm', '-f', DUMP_FILE], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(() => undefined);
  }
}

function checkSize(text: string): void {
  if (text.length > MAX_DUMP_CHARS) {
    throw new BridgeError(
      'screen_unreadable',
      `the screen's UI tree is too large to read (${Math.round(text.length / 1048576)} MB of XML). Fix: use android_screenshot and tap by coordinates, or scroll to a simpler screen`,
    );
  }
}

/** Dumps and parses in one step. */
export async function readUiTree(shell: DeviceShell, options?: UiDumpOptions): Promise<UiNode[]> {
  return parseUiXml(await dumpUiXml(shell, options));
}

/**
 * The UI tree of the current screen: dumping it with `uiautomator` (with the one retry and the
 * file fallback real phones need, and their failures as screen_unreadable with a fix),
 * compacting it for an agent, and a signature for "did the screen change".
 *
 * This module is the rest of the core's one door to the UI tree: parsing (ui-xml.ts) and
 * finding elements (element-selector.ts) are re-exported here, so callers need not know how
 * the idea is split across files.
 */
import { createHash } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { phoneProblem, type PhoneProblem } from './phone-fixes';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';
import { parseUiXml, type UiNode } from './ui-xml';

export { decodeXmlEntities, parseUiXml, type UiNode } from './ui-xml';
export { findElement, findElements, type ElementSelector } from './element-selector';

// ---------------------------------------------------------------------------------------------
// Dumping

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
  [/null root node returned by UiTestAutomationBridge/i, 'ui_no_root', 'the phone has no window to read (uiautomator: null root node)'],
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
    if (emptySeen) throw phoneProblem('ui_empty', 'the screen exposes no elements (uiautomator returned an empty hierarchy)');
  }

  try {
    const dumped = await runText(shell, ['uiautomator', 'dump', ...flags, DUMP_FILE], deadline.next());
    const error = dumpError(dumped.text);
    if (error) throw phoneProblem(error.problem, error.what);
    if (!/dumped to/i.test(dumped.text)) throw new BridgeError('command_failed', `uiautomator could not dump the screen${excerpt(dumped.text || last, 200)}`);
    const file = await runText(shell, ['cat', DUMP_FILE], deadline.next());
    checkSize(file.text);
    const xml = extractHierarchyXml(file.text);
    if (xml === null) {
      throw phoneProblem('ui_unreadable', `uiautomator reported the dump written, but it could not be read back${excerpt(file.text, 200)}`);
    }
    if (!hasNodes(xml)) throw phoneProblem('ui_empty', 'the screen exposes no elements (uiautomator returned an empty hierarchy)');
    ttyUnusable.add(shell);
    return xml;
  } finally {
    await runText(shell, ['rm', '-f', DUMP_FILE], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(() => undefined);
  }
}

function checkSize(text: string): void {
  if (text.length > MAX_DUMP_CHARS) {
    throw new BridgeError('screen_unreadable', `the screen's UI tree is too large to read (${Math.round(text.length / 1048576)} MB of XML). Fix: use android_screenshot and tap by coordinates, or scroll to a simpler screen`);
  }
}

/** Dumps and parses in one step. */
export async function readUiTree(shell: DeviceShell, options?: UiDumpOptions): Promise<UiNode[]> {
  return parseUiXml(await dumpUiXml(shell, options));
}

// ---------------------------------------------------------------------------------------------
// Compacting

export interface CompactTreeOptions {
  /** Keep only nodes an agent can act on (click, long-click, scroll, focus). */
  interactiveOnly?: boolean;
  /** Cap on the number of nodes returned (default 1000). */
  maxNodes?: number;
}

export interface CompactTree {
  /** Kept nodes in document order, `index` renumbered 0..n-1, `depth` counting kept ancestors. */
  nodes: UiNode[];
  /** Nodes that passed the filter before the maxNodes cap. */
  total: number;
  truncated: boolean;
}

const DEFAULT_MAX_NODES = 1_000;

export function isInteractive(node: UiNode): boolean {
  return node.clickable || node.longClickable || node.scrollable || node.focusable;
}

function hasArea(node: UiNode): boolean {
  return node.bounds[2] > node.bounds[0] && node.bounds[3] > node.bounds[1];
}

/**
 * Drops empty layout containers (no text, description or id, not interactive) and nodes
 * with no area on screen, then numbers what is left. These indexes are what annotated
 * screenshots show and what `{ index }` selectors refer to.
 */
export function compactTree(nodes: readonly UiNode[], options?: CompactTreeOptions): CompactTree {
  const maxNodes = options?.maxNodes ?? DEFAULT_MAX_NODES;
  if (!Number.isSafeInteger(maxNodes) || maxNodes < 1) {
    throw new BridgeError('invalid_arguments', `maxNodes must be a positive integer, got ${String(maxNodes)}`);
  }
  const interactiveOnly = options?.interactiveOnly ?? false;
  const kept: UiNode[] = [];
  let total = 0;
  // Ancestors of the current node, to count how many of them were kept.
  const stack: Array<{ depth: number; kept: boolean }> = [];
  let keptAncestors = 0;

  for (const node of nodes) {
    while (stack.length > 0 && (stack[stack.length - 1]?.depth ?? -1) >= node.depth) {
      if (stack.pop()?.kept) keptAncestors--;
    }
    const interactive = isInteractive(node);
    const meaningful = interactive || node.text !== '' || node.contentDesc !== '' || node.resourceId !== '';
    const keep = hasArea(node) && (interactiveOnly ? interactive : meaningful);
    if (keep) {
      total++;
      if (kept.length < maxNodes) {
        kept.push({ ...node, index: kept.length, depth: keptAncestors, bounds: [...node.bounds], center: [...node.center] });
      }
    }
    stack.push({ depth: node.depth, kept: keep });
    if (keep) keptAncestors++;
  }
  return { nodes: kept, total, truncated: total > kept.length };
}

// ---------------------------------------------------------------------------------------------
// Change detection

/** Signatures already computed, by tree (a tree is never changed once read). */
const signatures = new WeakMap<readonly UiNode[], string>();

/**
 * A short stable hash of what is on screen (classes, ids, texts, descriptions, bounds,
 * states). Equal trees give equal signatures regardless of numbering.
 */
export function screenSignature(nodes: readonly UiNode[]): string {
  const known = signatures.get(nodes);
  if (known !== undefined) return known;
  const signature = computeSignature(nodes);
  signatures.set(nodes, signature);
  return signature;
}

function computeSignature(nodes: readonly UiNode[]): string {
  const hash = createHash('sha256');
  for (const n of nodes) {
    const flags =
      (n.checked ? 1 : 0) | (n.selected ? 2 : 0) | (n.focused ? 4 : 0) | (n.enabled ? 8 : 0) | (n.clickable ? 16 : 0) | (n.scrollable ? 32 : 0);
    hash.update(`${n.depth}\u0000${n.className}\u0000${n.resourceId}\u0000${n.text}\u0000${n.contentDesc}\u0000${n.bounds.join(',')}\u0000${flags}\u0001`);
  }
  return hash.digest('hex').slice(0, 16);
}

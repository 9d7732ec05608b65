/**
 * The UI tree of the current screen: dumping it with `uiautomator` (with the retry and the
 * file fallback real phones need), parsing its XML into flat nodes, compacting it for an
 * agent, finding elements by selector, and a signature for "did the screen change".
 *
 * The parser is a small single-pass scanner written for uiautomator's output (one element
 * type, attributes only, no text content); it needs no dependency and handles 20 000-node
 * trees in a few milliseconds. Anything it cannot read is BridgeError('command_failed').
 */
import { createHash } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { excerpt, OperationDeadline, runText } from './shell-quote';
import type { OperationOptions } from './shell-quote';

export interface UiNode {
  /** Position in the list it belongs to: document order from parseUiXml, renumbered by compactTree. */
  index: number;
  text: string;
  resourceId: string;
  contentDesc: string;
  className: string;
  package: string;
  bounds: [number, number, number, number];
  center: [number, number];
  clickable: boolean;
  longClickable: boolean;
  scrollable: boolean;
  focusable: boolean;
  focused: boolean;
  checked: boolean;
  enabled: boolean;
  /** Password fields never carry their text. */
  password: boolean;
  selected: boolean;
  /** Nesting depth below <hierarchy> (0 for the root window); compactTree counts kept ancestors only. */
  depth: number;
}

// ---------------------------------------------------------------------------------------------
// Dumping

export interface UiDumpOptions extends OperationOptions {
  /** `uiautomator dump --compressed`: leaves out views that are not important for accessibility. */
  compressed?: boolean;
}

const DUMP_FILE = '/sdcard/window_dump.xml';
const DEFAULT_DUMP_TIMEOUT_MS = 30_000;
const CLEANUP_TIMEOUT_MS = 5_000;
const IDLE_ERROR_RE = /could not get idle state/i;
/** Phones where `/dev/tty` gave no XML but the file fallback worked; we go straight to the file. */
const ttyUnusable = new WeakSet<DeviceShell>();

/**
 * Cuts uiautomator's output down to the XML document: drops anything before `<?xml` (or
 * `<hierarchy`) and after `</hierarchy>` (the "UI hierchary dumped to: /dev/tty" line).
 * Null when there is no complete hierarchy.
 */
export function extractHierarchyXml(output: string): string | null {
  const hierarchy = output.indexOf('<hierarchy');
  if (hierarchy < 0) return null;
  const declaration = output.lastIndexOf('<?xml', hierarchy);
  const end = output.lastIndexOf('</hierarchy>');
  if (end < hierarchy) return null;
  return output.slice(declaration >= 0 ? declaration : hierarchy, end + '</hierarchy>'.length);
}

/**
 * Dumps the current screen's UI tree as XML: `uiautomator dump /dev/tty`, retried once when
 * the phone answers "could not get idle state" or no XML; then, if still nothing usable,
 * dumps to /sdcard/window_dump.xml, reads it with `cat` and removes it.
 */
export async function dumpUiXml(shell: DeviceShell, options?: UiDumpOptions): Promise<string> {
  const deadline = new OperationDeadline(options, DEFAULT_DUMP_TIMEOUT_MS, 'dumping the UI tree');
  const flags = options?.compressed ? ['--compressed'] : [];
  const failures: string[] = [];

  let sawIdleError = false;
  if (!ttyUnusable.has(shell)) {
    for (let attempt = 0; attempt < 2; attempt++) {
      const out = await runText(shell, ['uiautomator', 'dump', ...flags, '/dev/tty'], deadline.next());
      const xml = extractHierarchyXml(out.text);
      if (xml !== null) return xml;
      if (IDLE_ERROR_RE.test(out.text)) sawIdleError = true;
      failures.push(out.text);
    }
  }

  try {
    const dumped = await runText(shell, ['uiautomator', 'dump', ...flags, DUMP_FILE], deadline.next());
    if (!IDLE_ERROR_RE.test(dumped.text) && /dumped to/i.test(dumped.text)) {
      const file = await runText(shell, ['cat', DUMP_FILE], deadline.next());
      const xml = extractHierarchyXml(file.text);
      if (xml !== null) {
        if (!sawIdleError) ttyUnusable.add(shell);
        return xml;
      }
      failures.push(file.text);
    } else {
      failures.push(dumped.text);
    }
  } finally {
    await runText(shell, ['rm', '-f', DUMP_FILE], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(() => undefined);
  }
  const last = failures[failures.length - 1] ?? '';
  throw new BridgeError('command_failed', `uiautomator could not dump the screen${excerpt(last, 200)}`);
}

/** Dumps and parses in one step. */
export async function readUiTree(shell: DeviceShell, options?: UiDumpOptions): Promise<UiNode[]> {
  return parseUiXml(await dumpUiXml(shell, options));
}

// ---------------------------------------------------------------------------------------------
// Parsing

const ENTITY_RE = /&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g;
const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes XML entities; unknown or out-of-range references stay as written. */
export function decodeXmlEntities(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(ENTITY_RE, (whole, ref: string) => {
    if (ref.charCodeAt(0) !== 35 /* # */) return NAMED_ENTITIES[ref] ?? whole;
    const code = ref.charCodeAt(1) === 120 /* x */ ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function malformed(why: string, at: number): BridgeError {
  return new BridgeError('command_failed', `the UI dump is not valid uiautomator XML (${why} at offset ${at})`);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

const BOUNDS_RE = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/;

function nodeFrom(attrs: Record<string, string>, index: number, depth: number): UiNode {
  const flag = (name: string): boolean => attrs[name] === 'true';
  const b = BOUNDS_RE.exec(attrs['bounds'] ?? '');
  const bounds: [number, number, number, number] = b ? [Number(b[1]), Number(b[2]), Number(b[3]), Number(b[4])] : [0, 0, 0, 0];
  const password = flag('password');
  return {
    index,
    text: password ? '' : (attrs['text'] ?? ''),
    resourceId: attrs['resource-id'] ?? '',
    contentDesc: attrs['content-desc'] ?? '',
    className: attrs['class'] ?? '',
    package: attrs['package'] ?? '',
    bounds,
    center: [Math.floor((bounds[0] + bounds[2]) / 2), Math.floor((bounds[1] + bounds[3]) / 2)],
    clickable: flag('clickable'),
    longClickable: flag('long-clickable'),
    scrollable: flag('scrollable'),
    focusable: flag('focusable'),
    focused: flag('focused'),
    checked: flag('checked'),
    enabled: flag('enabled'),
    password,
    selected: flag('selected'),
    depth,
  };
}

/**
 * Parses uiautomator XML into nodes in document order. Throws BridgeError('command_failed')
 * for anything that is not a complete `<hierarchy>` of `<node>` elements (truncated output,
 * unbalanced tags, broken attributes).
 */
export function parseUiXml(xml: string): UiNode[] {
  const nodes: UiNode[] = [];
  const len = xml.length;
  let pos = 0;
  let depth = 0;
  let openedHierarchy = false;
  let closedHierarchy = false;

  for (;;) {
    const lt = xml.indexOf('<', pos);
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);

    if (next === 63 /* ? */) {
      const end = xml.indexOf('?>', lt + 2);
      if (end < 0) throw malformed('unterminated declaration', lt);
      pos = end + 2;
      continue;
    }
    if (next === 33 /* ! */) {
      const isComment = xml.startsWith('<!--', lt);
      const end = isComment ? xml.indexOf('-->', lt + 4) : xml.indexOf('>', lt + 2);
      if (end < 0) throw malformed('unterminated comment', lt);
      pos = end + (isComment ? 3 : 1);
      continue;
    }
    if (next === 47 /* / */) {
      const end = xml.indexOf('>', lt + 2);
      if (end < 0) throw malformed('unterminated end tag', lt);
      const name = xml.slice(lt + 2, end).trim();
      if (name === 'node') {
        if (depth === 0) throw malformed('</node> without <node>', lt);
        depth--;
      } else if (name === 'hierarchy') {
        if (!openedHierarchy || depth !== 0 || closedHierarchy) throw malformed('misplaced </hierarchy>', lt);
        closedHierarchy = true;
      } else {
        throw malformed(`unexpected </${name.slice(0, 20)}>`, lt);
      }
      pos = end + 1;
      continue;
    }

    // Start tag: name, then attributes up to '>' or '/>'.
    let i = lt + 1;
    while (i < len) {
      const c = xml.charCodeAt(i);
      if (isSpace(c) || c === 62 /* > */ || c === 47 /* / */) break;
      i++;
    }
    const name = xml.slice(lt + 1, i);
    const attrs: Record<string, string> = {};
    let selfClosing = false;
    for (;;) {
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      if (i >= len) throw malformed('unterminated tag', lt);
      const c = xml.charCodeAt(i);
      if (c === 62 /* > */) {
        i++;
        break;
      }
      if (c === 47 /* / */) {
        if (xml.charCodeAt(i + 1) !== 62) throw malformed('stray "/" in tag', i);
        selfClosing = true;
        i += 2;
        break;
      }
      const nameStart = i;
      while (i < len) {
        const d = xml.charCodeAt(i);
        if (d === 61 /* = */ || isSpace(d) || d === 62 || d === 47 || d === 60 /* < */) break;
        i++;
      }
      const attrName = xml.slice(nameStart, i);
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      if (attrName === '' || xml.charCodeAt(i) !== 61) throw malformed('attribute without a value', i);
      i++;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      const quote = xml.charCodeAt(i);
      if (quote !== 34 /* " */ && quote !== 39 /* ' */) throw malformed('unquoted attribute value', i);
      const close = xml.indexOf(quote === 34 ? '"' : "'", i + 1);
      if (close < 0) throw malformed('unterminated attribute value', i);
      attrs[attrName] = decodeXmlEntities(xml.slice(i + 1, close));
      i = close + 1;
    }
    pos = i;

    if (name === 'hierarchy') {
      if (openedHierarchy) throw malformed('nested <hierarchy>', lt);
      openedHierarchy = true;
      if (selfClosing) closedHierarchy = true;
    } else if (name === 'node') {
      if (!openedHierarchy || closedHierarchy) throw malformed('<node> outside <hierarchy>', lt);
      nodes.push(nodeFrom(attrs, nodes.length, depth));
      if (!selfClosing) depth++;
    } else {
      throw malformed(`unexpected <${name.slice(0, 20)}>`, lt);
    }
  }

  if (!openedHierarchy) throw malformed('no <hierarchy> element', 0);
  if (!closedHierarchy || depth !== 0) throw malformed('document ends early', len);
  return nodes;
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
// Selecting

export interface ElementSelector {
  /** Exact, case-sensitive. */
  text?: string;
  /** Substring, case-insensitive. */
  textContains?: string;
  /** Exact; a bare name without `:` also matches `any.package:id/NAME`. */
  resourceId?: string;
  /** Exact, case-sensitive. */
  contentDesc?: string;
  /** The node's `index` (as numbered by compactTree). */
  index?: number;
}

function describeSelector(selector: ElementSelector): string {
  const parts = Object.entries(selector)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const text = parts.join(', ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function resourceIdMatches(actual: string, wanted: string): boolean {
  if (actual === wanted) return true;
  return !wanted.includes(':') && actual.endsWith(`:id/${wanted}`);
}

/** All nodes matching every given criterion, in order; [] when none. */
export function findElements(nodes: readonly UiNode[], selector: ElementSelector): UiNode[] {
  const { text, textContains, resourceId, contentDesc, index } = selector;
  if (text === undefined && textContains === undefined && resourceId === undefined && contentDesc === undefined && index === undefined) {
    throw new BridgeError('invalid_arguments', 'a selector needs at least one of text, textContains, resourceId, contentDesc, index');
  }
  if (index !== undefined && (!Number.isSafeInteger(index) || index < 0)) {
    throw new BridgeError('invalid_arguments', `index must be a non-negative integer, got ${String(index)}`);
  }
  const needle = textContains?.toLowerCase();
  return nodes.filter(
    (node) =>
      (index === undefined || node.index === index) &&
      (text === undefined || node.text === text) &&
      (needle === undefined || node.text.toLowerCase().includes(needle)) &&
      (resourceId === undefined || resourceIdMatches(node.resourceId, resourceId)) &&
      (contentDesc === undefined || node.contentDesc === contentDesc),
  );
}

/** The first node matching the selector; BridgeError('element_not_found') naming the selector otherwise. */
export function findElement(nodes: readonly UiNode[], selector: ElementSelector): UiNode {
  const found = findElements(nodes, selector)[0];
  if (!found) {
    throw new BridgeError('element_not_found', `no element on screen matches ${describeSelector(selector)}`, {
      selector: { ...selector },
    });
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Change detection

/**
 * A short stable hash of what is on screen (classes, ids, texts, descriptions, bounds,
 * states). Equal trees give equal signatures regardless of numbering.
 */
export function screenSignature(nodes: readonly UiNode[]): string {
  const hash = createHash('sha256');
  for (const n of nodes) {
    const flags =
      (n.checked ? 1 : 0) | (n.selected ? 2 : 0) | (n.focused ? 4 : 0) | (n.enabled ? 8 : 0) | (n.clickable ? 16 : 0) | (n.scrollable ? 32 : 0);
    hash.update(`${n.depth}\u0000${n.className}\u0000${n.resourceId}\u0000${n.text}\u0000${n.contentDesc}\u0000${n.bounds.join(',')}\u0000${flags}\u0001`);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The UI tree of the current screen: dumping it with `uiautomator` (with the one retry and the
 * file fallback real phones need, and their failures as screen_unreadable with a fix), parsing its XML into flat nodes, compacting it for an
 * agent, finding elements by selector, and a signature for "did the screen change".
 *
 * The parser is a small single-pass scanner written for uiautomator's output (one element
 * type, attributes only, no text content); it needs no dependency and handles 20 000-node
 * trees in a few milliseconds. Anything it cannot read is BridgeError('command_failed').
 */
import { createHash } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { phoneProblem, type PhoneProblem } from './phone-fixes';
import { excerpt, OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

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
// Parsing

const NAMED_ENTITIES = new Map([
  ['amp', '&'],
  ['lt', '<'],
  ['gt', '>'],
  ['quot', '"'],
  ['apos', "'"],
]);
const MAX_ENTITY_LENGTH = 10;

/** Decodes XML entities; unknown or out-of-range references stay as written. */
export function decodeXmlEntities(raw: string): string {
  let amp = raw.indexOf('&');
  if (amp < 0) return raw;
  let out = '';
  let copied = 0;
  while (amp >= 0) {
    const semi = raw.indexOf(';', amp + 1);
    if (semi < 0) break;
    const ref = raw.slice(amp + 1, semi);
    let decoded: string | undefined;
    if (ref.length > MAX_ENTITY_LENGTH) {
      decoded = undefined;
    } else if (ref.charCodeAt(0) === 35 /* # */) {
      const hex = ref.charCodeAt(1) === 120 /* x */;
      const digits = ref.slice(hex ? 2 : 1);
      if (digits.length > 0 && digits.length <= 8 && (hex ? /^[0-9a-fA-F]+$/ : /^[0-9]+$/).test(digits)) {
        const code = parseInt(digits, hex ? 16 : 10);
        if (code <= 0x10ffff) decoded = String.fromCodePoint(code);
      }
    } else {
      decoded = NAMED_ENTITIES.get(ref);
    }
    if (decoded !== undefined) {
      out += raw.slice(copied, amp) + decoded;
      copied = semi + 1;
    }
    amp = raw.indexOf('&', decoded !== undefined ? semi + 1 : amp + 1);
  }
  return out + raw.slice(copied);
}

function malformed(why: string, at: number): BridgeError {
  return new BridgeError('command_failed', `the UI dump is not valid uiautomator XML (${why} at offset ${at})`);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

// Attributes we read, identified by length + first letters and confirmed with startsWith,
// so the hot loop never allocates a string for an attribute name.
const enum Attr {
  Other,
  Text,
  ResourceId,
  Class,
  Package,
  ContentDesc,
  Clickable,
  LongClickable,
  Scrollable,
  Focusable,
  Focused,
  Checked,
  Enabled,
  Password,
  Selected,
  Bounds,
}

const ATTR_NAMES: ReadonlyArray<readonly [string, Attr]> = [
  ['text', Attr.Text],
  ['resource-id', Attr.ResourceId],
  ['class', Attr.Class],
  ['package', Attr.Package],
  ['content-desc', Attr.ContentDesc],
  ['clickable', Attr.Clickable],
  ['long-clickable', Attr.LongClickable],
  ['scrollable', Attr.Scrollable],
  ['focusable', Attr.Focusable],
  ['focused', Attr.Focused],
  ['checked', Attr.Checked],
  ['enabled', Attr.Enabled],
  ['password', Attr.Password],
  ['selected', Attr.Selected],
  ['bounds', Attr.Bounds],
];

/** Candidates by `length * 128 + first char code`. */
const ATTR_LOOKUP = new Map<number, Array<readonly [string, Attr]>>();
for (const entry of ATTR_NAMES) {
  const key = entry[0].length * 128 + entry[0].charCodeAt(0);
  const list = ATTR_LOOKUP.get(key) ?? [];
  list.push(entry);
  ATTR_LOOKUP.set(key, list);
}

function attributeAt(xml: string, start: number, end: number): Attr {
  const candidates = ATTR_LOOKUP.get((end - start) * 128 + xml.charCodeAt(start));
  if (candidates === undefined) return Attr.Other;
  for (let k = 0; k < candidates.length; k++) {
    const entry = candidates[k];
    if (entry !== undefined && xml.startsWith(entry[0], start)) return entry[1];
  }
  return Attr.Other;
}

/** The attributes of one <node>, reused across tags (fixed shape, reset per tag). */
interface NodeDraft {
  text: string;
  resourceId: string;
  className: string;
  package: string;
  contentDesc: string;
  flags: number;
  bounds: [number, number, number, number] | null;
}

const FLAG_BIT: Partial<Record<Attr, number>> = {
  [Attr.Clickable]: 1,
  [Attr.LongClickable]: 2,
  [Attr.Scrollable]: 4,
  [Attr.Focusable]: 8,
  [Attr.Focused]: 16,
  [Attr.Checked]: 32,
  [Attr.Enabled]: 64,
  [Attr.Password]: 128,
  [Attr.Selected]: 256,
};

/** Parses `[x1,y1][x2,y2]` between start and end; zeros when it does not fit. */
function parseBounds(xml: string, start: number, end: number): [number, number, number, number] {
  const out: [number, number, number, number] = [0, 0, 0, 0];
  let i = start;
  for (let k = 0; k < 4; k++) {
    const opener = k % 2 === 0 ? 91 /* [ */ : 44; /* , */
    if (xml.charCodeAt(i) !== opener) return [0, 0, 0, 0];
    i++;
    let negative = false;
    if (xml.charCodeAt(i) === 45 /* - */) {
      negative = true;
      i++;
    }
    const digitsStart = i;
    let value = 0;
    for (let c = xml.charCodeAt(i); c >= 48 && c <= 57; c = xml.charCodeAt(++i)) value = value * 10 + (c - 48);
    if (i === digitsStart || i - digitsStart > 9) return [0, 0, 0, 0];
    out[k] = negative ? -value : value;
    if (k % 2 === 1) {
      if (xml.charCodeAt(i) !== 93 /* ] */) return [0, 0, 0, 0];
      i++;
    }
  }
  return i === end ? out : [0, 0, 0, 0];
}

function nodeFrom(draft: NodeDraft, index: number, depth: number): UiNode {
  const f = draft.flags;
  const b = draft.bounds ?? [0, 0, 0, 0];
  const password = (f & 128) !== 0;
  return {
    index,
    text: password ? '' : draft.text,
    resourceId: draft.resourceId,
    contentDesc: draft.contentDesc,
    className: draft.className,
    package: draft.package,
    bounds: b,
    center: [Math.floor((b[0] + b[2]) / 2), Math.floor((b[1] + b[3]) / 2)],
    clickable: (f & 1) !== 0,
    longClickable: (f & 2) !== 0,
    scrollable: (f & 4) !== 0,
    focusable: (f & 8) !== 0,
    focused: (f & 16) !== 0,
    checked: (f & 32) !== 0,
    enabled: (f & 64) !== 0,
    password,
    selected: (f & 256) !== 0,
    depth,
  };
}

/**
 * Parses uiautomator XML into nodes in document order. Throws BridgeError('command_failed')
 * for anything that is not a complete `<hierarchy>` of `<node>` elements (truncated output,
 * unbalanced tags, broken attributes).
 */
export function parseUiXml(xml: string, options: { anyElementName?: boolean } = {}): UiNode[] {
  // Appium's page source names each element by its class (`<android.widget.TextView …>`)
  // where uiautomator writes `<node …>`: with anyElementName every element but <hierarchy>
  // is a node, read in place rather than renamed first.
  const anyName = options.anyElementName === true;
  const nodes: UiNode[] = [];
  const len = xml.length;
  let pos = 0;
  let depth = 0;
  let openedHierarchy = false;
  let closedHierarchy = false;
  const draft: NodeDraft = { text: '', resourceId: '', className: '', package: '', contentDesc: '', flags: 0, bounds: null };
  const repeated = new Map<string, string>();

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
      if (name === 'node' || (anyName && name !== 'hierarchy' && name.length > 0 && isNameStart(name.charCodeAt(0)))) {
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

    // Start tag: only <hierarchy …> and <node …> exist in a dump.
    let i = lt + 1;
    let isNode: boolean;
    if (xml.startsWith('hierarchy', i) && !isNameChar(xml.charCodeAt(i + 9))) {
      isNode = false;
      i += 9;
    } else if (xml.startsWith('node', i) && !isNameChar(xml.charCodeAt(i + 4))) {
      isNode = true;
      i += 4;
    } else if (anyName && isNameStart(xml.charCodeAt(i))) {
      isNode = true;
      while (i < len && isNameChar(xml.charCodeAt(i))) i++;
    } else {
      throw malformed('unexpected element', lt);
    }
    draft.text = '';
    draft.resourceId = '';
    draft.className = '';
    draft.package = '';
    draft.contentDesc = '';
    draft.flags = 0;
    draft.bounds = null;

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
      while (i < len && isNameChar(xml.charCodeAt(i))) i++;
      const nameEnd = i;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      if (nameEnd === nameStart || xml.charCodeAt(i) !== 61 /* = */) throw malformed('attribute without a value', i);
      i++;
      while (i < len && isSpace(xml.charCodeAt(i))) i++;
      const quote = xml.charCodeAt(i);
      if (quote !== 34 /* " */ && quote !== 39 /* ' */) throw malformed('unquoted attribute value', i);
      const valueStart = i + 1;
      const close = xml.indexOf(quote === 34 ? '"' : "'", valueStart);
      if (close < 0) throw malformed('unterminated attribute value', i);
      i = close + 1;
      if (!isNode) continue;

      const attr = attributeAt(xml, nameStart, nameEnd);
      if (attr === Attr.Other) continue;
      const bit = FLAG_BIT[attr];
      if (bit !== undefined) {
        if (close - valueStart === 4 && xml.startsWith('true', valueStart)) draft.flags |= bit;
      } else if (attr === Attr.Bounds) {
        draft.bounds = parseBounds(xml, valueStart, close);
      } else {
        if (close === valueStart) continue;
        const value = decodeXmlEntities(xml.slice(valueStart, close));
        if (attr === Attr.Text) draft.text = value;
        else if (attr === Attr.ContentDesc) draft.contentDesc = value;
        else {
          // Ids, classes and packages repeat across a tree; sharing one copy keeps a
          // 20 000-node parse from churning the young generation.
          let shared = repeated.get(value);
          if (shared === undefined) {
            shared = value;
            if (repeated.size < 4096) repeated.set(value, value);
          }
          if (attr === Attr.ResourceId) draft.resourceId = shared;
          else if (attr === Attr.Class) draft.className = shared;
          else draft.package = shared;
        }
      }
    }
    pos = i;

    if (!isNode) {
      if (openedHierarchy) throw malformed('nested <hierarchy>', lt);
      openedHierarchy = true;
      if (selfClosing) closedHierarchy = true;
    } else {
      if (!openedHierarchy || closedHierarchy) throw malformed('<node> outside <hierarchy>', lt);
      nodes.push(nodeFrom(draft, nodes.length, depth));
      if (!selfClosing) depth++;
    }
  }

  if (!openedHierarchy) throw malformed('no <hierarchy> element', 0);
  if (!closedHierarchy || depth !== 0) throw malformed('document ends early', len);
  return nodes;
}

/** The first character of an element name as Appium writes it: a letter or '_'. */
function isNameStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}

/** Characters of XML names as uiautomator writes them: letters, digits, '-', '_', ':', '.'. */
function isNameChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 45 || c === 95 || c === 58 || c === 46;
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

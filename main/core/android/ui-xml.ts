/**
 * Parsing uiautomator's XML into flat UiNodes in document order (and Appium's page source,
 * which names each element by its class).
 *
 * The parser is a small single-pass scanner written for uiautomator's output (one element
 * type, attributes only, no text content); it needs no dependency and handles 20 000-node
 * trees in a few milliseconds. Anything it cannot read is BridgeError('command_failed').
 */
import { BridgeError } from '../errors';

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
      const hex = ref.charCodeAt(1) === 120; /* x */
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
  const draft: NodeDraft = {
    text: '',
    resourceId: '',
    className: '',
    package: '',
    contentDesc: '',
    flags: 0,
    bounds: null,
  };
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
  return (
    (c >= 97 && c <= 122) ||
    (c >= 65 && c <= 90) ||
    (c >= 48 && c <= 57) ||
    c === 45 ||
    c === 95 ||
    c === 58 ||
    c === 46
  );
}

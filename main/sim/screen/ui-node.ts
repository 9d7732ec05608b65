/**
 * The view tree of one window: what uiautomator dumps (class, resource-id, text, flags,
 * bounds) plus how it is painted and what a tap on it does. One tree feeds both the
 * renderer and the dump, so what is drawn and what is dumped always agree.
 */

export interface Rect {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** How a node is drawn (never dumped). Colours are `#rrggbb`. */
export interface Paint {
  fill?: string;
  radius?: number;
  stroke?: string;
  strokeWidth?: number;
  /** Text to draw when it differs from the accessibility text (hint, dots, labels). */
  label?: string;
  textColor?: string;
  fontSize?: number;
  bold?: boolean | undefined;
  align?: 'start' | 'center' | undefined;
  /** Draws each line of the label; long lines wrap. */
  multiline?: boolean | undefined;
  /** Icon disc drawn above the label (launcher). */
  icon?: string;
  /** Draws a text caret after the label (at the start when the label is a hint). */
  caret?: boolean;
  labelIsHint?: boolean;
  /** Switch widget drawn at the right end. */
  toggle?: boolean;
}

export interface UiNode {
  className: string;
  resourceId: string;
  text: string;
  contentDesc: string;
  bounds: Rect;
  checkable: boolean;
  checked: boolean;
  clickable: boolean;
  enabled: boolean;
  focusable: boolean;
  focused: boolean;
  scrollable: boolean;
  longClickable: boolean;
  password: boolean;
  selected: boolean;
  children: UiNode[];
  paint?: Paint | undefined;
  /** App action run when the node is tapped. */
  action?: string;
  /** Editable text field this node shows (short resource id). */
  fieldId?: string;
  multiline?: boolean;
  /** Children are clipped to this node's bounds (scrolling lists). */
  clip?: boolean;
}

export type NodeSpec = Partial<Omit<UiNode, 'className' | 'bounds'>> & { className: string; bounds: Rect };

/** A node with uiautomator's defaults (enabled, everything else false/empty). */
export function uiNode(spec: NodeSpec): UiNode {
  return {
    resourceId: '',
    text: '',
    contentDesc: '',
    checkable: false,
    checked: false,
    clickable: false,
    enabled: true,
    focusable: false,
    focused: false,
    scrollable: false,
    longClickable: false,
    password: false,
    selected: false,
    children: [],
    ...spec,
  };
}

export function rect(left: number, top: number, right: number, bottom: number): Rect {
  return { left: Math.round(left), top: Math.round(top), right: Math.round(right), bottom: Math.round(bottom) };
}

export function contains(r: Rect, x: number, y: number): boolean {
  return x >= r.left && x < r.right && y >= r.top && y < r.bottom;
}

export function intersect(a: Rect, b: Rect): Rect | undefined {
  const out = {
    left: Math.max(a.left, b.left),
    top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right),
    bottom: Math.min(a.bottom, b.bottom),
  };
  return out.left < out.right && out.top < out.bottom ? out : undefined;
}

/** Depth-first walk, parents before children. */
export function* walk(node: UiNode): Generator<UiNode> {
  yield node;
  for (const child of node.children) yield* walk(child);
}

/**
 * The topmost node under (x, y) that reacts to a tap (clickable or an editable field).
 * Later siblings are drawn over earlier ones, so they win.
 */
export function hitTest(node: UiNode, x: number, y: number): UiNode | undefined {
  if (!contains(node.bounds, x, y)) return undefined;
  for (let i = node.children.length - 1; i >= 0; i--) {
    const child = node.children[i];
    const hit = child ? hitTest(child, x, y) : undefined;
    if (hit) return hit;
  }
  return node.clickable || node.fieldId ? node : undefined;
}

/** The innermost scrollable node under (x, y). */
export function scrollableAt(node: UiNode, x: number, y: number): UiNode | undefined {
  if (!contains(node.bounds, x, y)) return undefined;
  for (const child of node.children) {
    const hit = scrollableAt(child, x, y);
    if (hit) return hit;
  }
  return node.scrollable ? node : undefined;
}

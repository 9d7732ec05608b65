/**
 * Resolving where a control tool acts: explicit coordinates (checked against the current
 * screen), an element selector (resolved against a fresh UI tree, or the channel's last tree
 * for `index`), or an element ref (the channel's last tree, while it still shows the screen:
 * element-refs.ts). Also the shared `observe` step after an action.
 */
import { BridgeError } from '../errors';
import { pauseFor } from '../devices/deadline';
import { TOAST_SETTLE_MS } from './toast-window';
import { assertInsideScreen, isInside } from '../android/input';
import {
  compactTree,
  findElement,
  isInteractive,
  readUiTree,
  screenSignature,
  type ElementSelector,
  type UiNode,
} from '../android/ui-tree';
import { formatRef, parseRef, REF_STALE_FIX, refKey, type RememberedTree } from './element-refs';
import type { ElementSelectorArgs, Lane, ToolContext } from './tool-definition';

/** The most nodes a read keeps (numbered 0…2999): what tools, refs and the safety policy count. */
export const TREE_MAX_NODES = 3000;

export interface ResolvedPoint {
  x: number;
  y: number;
  element?: UiNode;
}

export interface FreshTree {
  nodes: UiNode[];
  signature: string;
  truncated: boolean;
  total: number;
  lane: Lane;
  /** The tag of this read's element refs (formatRef). */
  refTag: string;
}

/**
 * Reads the UI tree, numbers it once (the numbers agents use as `index` and in refs) and
 * remembers it. `afterAction`: this control call has acted and reads the screen after it (its
 * `observe`); the read stands for the screen the call leaves behind, which the pipeline counts
 * as one action once the call ends (element-refs.ts).
 */
export async function freshTree(ctx: ToolContext, options: { afterAction?: boolean } = {}): Promise<FreshTree> {
  // Noted before reading: an action that ends while the tree is read makes its refs stale.
  const actions = ctx.refs.actions() + (options.afterAction ? 1 : 0);
  const read = { timeoutMs: Math.max(ctx.timeoutMs, 30_000), signal: ctx.signal };
  // The read after the last action, while the screen stream shows nothing changed since (not
  // for this call's own read after its action: that one must see what the action did).
  const still = options.afterAction ? null : ((await ctx.screenStill?.()) ?? null);
  // Else the fast lane when there is one (helper, else the stock dump in the same call).
  const tree = still
    ? { nodes: still, lane: 'helper' as const }
    : ctx.lanes
      ? await ctx.lanes.tree(read)
      : { nodes: await readUiTree(ctx.shell, read), lane: 'adb' as const };
  const raw = tree.nodes;
  const compact = compactTree(raw, { maxNodes: TREE_MAX_NODES });
  const signature = screenSignature(raw);
  const remembered = ctx.rememberTree(compact.nodes, signature, actions);
  return {
    nodes: compact.nodes,
    signature,
    truncated: compact.truncated,
    total: compact.total,
    lane: tree.lane,
    refTag: remembered.refs.tag,
  };
}

/** The tool argument's snake_case selector as the android/ library's selector. */
export function toSelector(selector: ElementSelectorArgs): ElementSelector {
  return {
    ...(selector.text !== undefined ? { text: selector.text } : {}),
    ...(selector.text_contains !== undefined ? { textContains: selector.text_contains } : {}),
    ...(selector.resource_id !== undefined ? { resourceId: selector.resource_id } : {}),
    ...(selector.content_desc !== undefined ? { contentDesc: selector.content_desc } : {}),
    ...(selector.index !== undefined ? { index: selector.index } : {}),
  };
}

export async function resolveElement(ctx: ToolContext, selector: ElementSelectorArgs): Promise<UiNode> {
  const wanted = toSelector(selector);
  if (selector.index !== undefined) {
    const last = ctx.lastTree();
    if (!last)
      throw new BridgeError(
        'element_not_found',
        'index refers to the last android_ui_tree or annotated screenshot; take one first',
      );
    return findElement(last.nodes, wanted);
  }
  const tree = await freshTree(ctx);
  return findElement(tree.nodes, wanted);
}

/** The element a ref names in a remembered tree, whether or not the ref still holds (the safety policy's view). */
export function refNode(tree: RememberedTree, ref: string): UiNode | undefined {
  const parsed = parseRef(ref);
  if (!parsed || parsed.tag !== tree.refs.tag) return undefined;
  const node = tree.nodes[parsed.index];
  return node && isInteractive(node) ? node : undefined;
}

/** What a ref is checked against now: the phone, its action count, and a read of its screen since (if any). */
export interface RefNow {
  deviceId: string;
  actions: number;
  /** refKey of the screen read after the channel's last read (the safety gate's): it must be the same screen. */
  checkedKey?: string | undefined;
}

function staleRef(ref: string, why: string): BridgeError {
  return new BridgeError('ref_stale', `not run: ${why}. Fix: ${REF_STALE_FIX}`, { fix: REF_STALE_FIX, ref });
}

/**
 * The element a ref names, when it still holds: it comes from the channel's last read of this
 * phone, nothing has acted on the phone since that read began, and a read of the screen since
 * (when there is one) found the same screen. Otherwise BridgeError('ref_stale') with the fix;
 * a ref of that read naming no element to act on is element_not_found.
 */
export function refTarget(ref: string, tree: RememberedTree | undefined, now: RefNow): UiNode {
  const parsed = parseRef(ref);
  if (!parsed)
    throw new BridgeError(
      'invalid_arguments',
      `${JSON.stringify(ref.slice(0, 24))} is not an element ref (they look like @kq12)`,
    );
  if (!tree || tree.refs.tag !== parsed.tag || tree.refs.deviceId !== now.deviceId) {
    throw staleRef(ref, `${ref} is not from this channel's last read of the screen`);
  }
  if (tree.refs.actions !== now.actions) throw staleRef(ref, `the phone was acted on since ${ref} was read`);
  if (now.checkedKey !== undefined && now.checkedKey !== tree.refs.key)
    throw staleRef(ref, `the screen changed since ${ref} was read`);
  const node = tree.nodes[parsed.index];
  if (!node || !isInteractive(node)) {
    throw new BridgeError(
      'element_not_found',
      `${ref} names no element to act on in that read (refs are listed by android_ui_tree)`,
    );
  }
  return node;
}

/**
 * A ref resolved for this call, checked against the screen the safety gate read for it. A call
 * that waited for a person's approval reads the screen again first (it may have moved on
 * meanwhile): the same screen keeps the ref, another expires it.
 */
export async function resolveRef(ctx: ToolContext, ref: string): Promise<UiNode> {
  const tree = ctx.lastTree();
  const now = { deviceId: ctx.device.deviceId, actions: ctx.refs.actions() };
  if (ctx.refs.heldForApproval()) {
    const again = await freshTree(ctx);
    return refTarget(ref, tree, { ...now, checkedKey: refKey(again.nodes) });
  }
  const checked = ctx.refs.checkedTree();
  return refTarget(ref, tree, {
    ...now,
    checkedKey: checked ? refKey(compactTree(checked, { maxNodes: TREE_MAX_NODES }).nodes) : undefined,
  });
}

/** The refs a call's arguments name: its own `ref` and its batch steps'. */
export function refsIn(args: Readonly<Record<string, unknown>>): string[] {
  const refs = typeof args.ref === 'string' ? [args.ref] : [];
  for (const step of Array.isArray(args.steps) ? (args.steps as unknown[]) : []) {
    const ref = (step as { arguments?: { ref?: unknown } } | null)?.arguments?.ref;
    if (typeof ref === 'string') refs.push(ref);
  }
  return refs;
}

/** The element a tool targets by `ref` or `element`, if it names one (the one way tools resolve an element). */
export async function resolveTarget(
  ctx: ToolContext,
  args: { element?: ElementSelectorArgs | undefined; ref?: string | undefined },
): Promise<UiNode | undefined> {
  if (args.ref !== undefined) return resolveRef(ctx, args.ref);
  if (args.element) return resolveElement(ctx, args.element);
  return undefined;
}

/** What a tool aimed at one point may be given: a point, an element ref, or a selector. */
export interface PointTargetArgs {
  x?: number | undefined;
  y?: number | undefined;
  element?: ElementSelectorArgs | undefined;
  ref?: string | undefined;
}

export async function resolvePoint(ctx: ToolContext, args: PointTargetArgs): Promise<ResolvedPoint> {
  const element = await resolveTarget(ctx, args);
  if (element) return { x: element.center[0], y: element.center[1], element };
  if (args.x === undefined || args.y === undefined)
    throw new BridgeError('invalid_arguments', 'give x and y, ref, or element');
  const point = { x: args.x, y: args.y };
  assertInsideScreen(point, await ctx.screenSize((size) => isInside(point, size)));
  return point;
}

/**
 * What resolvePoint would refuse, checked before the safety gate may hold the call: no target
 * given, a point outside the screen (the cached size, read again when the point is outside
 * it), an `index` the last tree does not have. A ref is checked by the pipeline itself, a
 * selector against the gate's own read (assertSelectorsShown).
 */
export async function checkPoint(ctx: ToolContext, args: PointTargetArgs): Promise<void> {
  if (args.ref !== undefined) return;
  if (args.element) {
    if (args.element.index !== undefined) await resolveElement(ctx, args.element);
    return;
  }
  if (args.x === undefined || args.y === undefined)
    throw new BridgeError('invalid_arguments', 'give x and y, ref, or element');
  await checkInsideScreen(ctx, [{ x: args.x, y: args.y }]);
}

/** Every point must lie on the screen (out_of_bounds otherwise). */
export async function checkInsideScreen(ctx: ToolContext, points: readonly { x: number; y: number }[]): Promise<void> {
  const size = await ctx.screenSize((s) => points.every((p) => isInside(p, s)));
  for (const point of points) assertInsideScreen(point, size);
}

/**
 * The element selector a call (or its batch's first step; later steps act on what earlier ones
 * leave) names by its words or id, looked for in the tree the safety gate just read: one the
 * screen does not show is element_not_found before a person is asked to approve a tap on it.
 */
export function assertSelectorsShown(args: Readonly<Record<string, unknown>>, nodes: readonly UiNode[]): void {
  const first = Array.isArray(args.steps) ? (args.steps[0] as { arguments?: unknown } | undefined)?.arguments : args;
  const element = (first as { element?: ElementSelectorArgs } | undefined)?.element;
  if (!element || element.index !== undefined) return;
  findElement(compactTree(nodes, { maxNodes: TREE_MAX_NODES }).nodes, toSelector(element));
}

export function describeElement(node: UiNode): Record<string, unknown> {
  return {
    index: node.index,
    text: node.password ? '' : node.text,
    resource_id: node.resourceId,
    content_desc: node.contentDesc,
    class: node.className,
    bounds: node.bounds,
    center: node.center,
  };
}

/** A node as agents read it; an element to act on gets its ref when `refTag` is given. */
export function compactNode(node: UiNode, refTag?: string): Record<string, unknown> {
  const out: Record<string, unknown> = { index: node.index };
  if (refTag !== undefined && isInteractive(node)) out.ref = formatRef(refTag, node.index);
  out.class = node.className.replace(/^android\.(widget|view)\./, '');
  if (node.text && !node.password) out.text = node.text;
  if (node.resourceId) out.resource_id = node.resourceId;
  if (node.contentDesc) out.content_desc = node.contentDesc;
  out.bounds = node.bounds;
  out.center = node.center;
  if (node.clickable) out.clickable = true;
  if (node.longClickable) out.long_clickable = true;
  if (node.scrollable) out.scrollable = true;
  if (node.focused) out.focused = true;
  if (node.checked) out.checked = true;
  if (node.selected) out.selected = true;
  if (!node.enabled) out.enabled = false;
  if (node.password) out.password = true;
  if (node.depth) out.depth = node.depth;
  return out;
}

/** The `observe` step: the compact interactive tree after an action (with refs) and whether it changed. */
export async function observeAfter(ctx: ToolContext, before: string | undefined): Promise<Record<string, unknown>> {
  // A toast the action brought reaches the helper a moment after it (toast-window.ts): the read waits for it.
  if (ctx.lanes?.helperRunning()) await pauseFor(TOAST_SETTLE_MS, ctx.signal);
  const tree = await freshTree(ctx, { afterAction: true });
  return {
    screen_changed: before === undefined ? null : before !== tree.signature,
    ui: tree.nodes.filter(isInteractive).map((node) => compactNode(node, tree.refTag)),
  };
}

/** A control result, with the screen after the action when the call asked to `observe` it. */
export async function withObserve(
  ctx: ToolContext,
  observe: boolean | undefined,
  result: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  if (!observe) return result;
  return { ...result, ...(await observeAfter(ctx, ctx.lastTree()?.signature)) };
}

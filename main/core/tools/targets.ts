/**
 * Resolving where a control tool acts: explicit coordinates (checked against the current
 * screen) or an element selector (resolved against a fresh UI tree, or the channel's last
 * tree for `index`). Also the shared `observe` step after an action.
 */
import { BridgeError } from '../errors';
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
import type { ElementSelectorArgs, Lane, ToolContext } from './tool-definition';

export interface ResolvedPoint {
  x: number;
  y: number;
  element?: UiNode;
}

/** Reads the UI tree, numbers it once (the numbers agents use as `index`) and remembers it. */
export async function freshTree(
  ctx: ToolContext,
): Promise<{ nodes: UiNode[]; signature: string; truncated: boolean; total: number; lane: Lane }> {
  const options = { timeoutMs: Math.max(ctx.timeoutMs, 30_000), signal: ctx.signal };
  // The fast lane when there is one (helper, else the stock dump in the same call).
  const read = ctx.lanes
    ? await ctx.lanes.tree(options)
    : { nodes: await readUiTree(ctx.shell, options), lane: 'adb' as const };
  const raw = read.nodes;
  const compact = compactTree(raw, { maxNodes: 3000 });
  const signature = screenSignature(raw);
  ctx.rememberTree(compact.nodes, signature);
  return { nodes: compact.nodes, signature, truncated: compact.truncated, total: compact.total, lane: read.lane };
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

export async function resolvePoint(
  ctx: ToolContext,
  args: { x?: number | undefined; y?: number | undefined; element?: ElementSelectorArgs | undefined },
): Promise<ResolvedPoint> {
  if (args.element) {
    const element = await resolveElement(ctx, args.element);
    return { x: element.center[0], y: element.center[1], element };
  }
  if (args.x === undefined || args.y === undefined)
    throw new BridgeError('invalid_arguments', 'give x and y, or element');
  const point = { x: args.x, y: args.y };
  assertInsideScreen(point, await ctx.screenSize((size) => isInside(point, size)));
  return point;
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

export function compactNode(node: UiNode): Record<string, unknown> {
  const out: Record<string, unknown> = {
    index: node.index,
    class: node.className.replace(/^android\.(widget|view)\./, ''),
  };
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

/** The `observe` step: the compact interactive tree after an action and whether it changed. */
export async function observeAfter(ctx: ToolContext, before: string | undefined): Promise<Record<string, unknown>> {
  const tree = await freshTree(ctx);
  return {
    screen_changed: before === undefined ? null : before !== tree.signature,
    ui: tree.nodes.filter(isInteractive).map(compactNode),
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

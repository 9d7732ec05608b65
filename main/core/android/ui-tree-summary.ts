/**
 * Two condensed views of a parsed tree: the compact list an agent reads (whose indexes
 * annotated screenshots show and `{ index }` selectors use), and a short signature that
 * tells whether the screen changed.
 */
import { createHash } from 'node:crypto';
import { BridgeError } from '../errors';
import type { UiNode } from './ui-xml';

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
        kept.push({
          ...node,
          index: kept.length,
          depth: keptAncestors,
          bounds: [...node.bounds],
          center: [...node.center],
        });
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
      (n.checked ? 1 : 0) |
      (n.selected ? 2 : 0) |
      (n.focused ? 4 : 0) |
      (n.enabled ? 8 : 0) |
      (n.clickable ? 16 : 0) |
      (n.scrollable ? 32 : 0);
    hash.update(
      `${n.depth}\u0000${n.className}\u0000${n.resourceId}\u0000${n.text}\u0000${n.contentDesc}\u0000${n.bounds.join(',')}\u0000${flags}\u0001`,
    );
  }
  return hash.digest('hex').slice(0, 16);
}

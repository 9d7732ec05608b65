/**
 * Whether a tree the fast lane's helper returned can be trusted: which app it shows, and
 * whether it lost content against what the stock dump showed of the same app (sparse). A
 * sparse tree is never used; the call falls back to the stock dump (fast-lane.ts).
 */
import type { UiNode } from '../android/ui-tree';

/** A helper tree with fewer than this share of the stock tree's nodes or texts (same app) is sparse. */
const SPARSE_SHARE = 0.5;
const SYSTEM_UI = 'com.android.systemui';

export interface TreeStats {
  nodes: number;
  texts: number;
}

/** The app a tree shows: the package most of its nodes belong to, the status bar aside. */
export function treePackage(nodes: readonly UiNode[]): string | null {
  const counts = new Map<string, number>();
  for (const n of nodes)
    if (n.package && n.package !== SYSTEM_UI) counts.set(n.package, (counts.get(n.package) ?? 0) + 1);
  let best: string | null = null;
  let most = 0;
  for (const [pkg, count] of counts) {
    if (count > most) {
      best = pkg;
      most = count;
    }
  }
  return best;
}

export function statsOf(nodes: readonly UiNode[], pkg: string | null): TreeStats {
  let count = 0;
  let texts = 0;
  for (const n of nodes) {
    if (pkg !== null && n.package !== pkg) continue;
    count += 1;
    if (n.text || n.contentDesc) texts += 1;
  }
  return { nodes: count, texts };
}

/**
 * Whether a helper tree lost content: no element of the app carries text or a description,
 * or (when a stock tree of the same app was seen) far fewer elements or texts than it had.
 */
export function isSparse(nodes: readonly UiNode[], baseline: TreeStats | undefined): boolean {
  if (nodes.length === 0) return true;
  const pkg = treePackage(nodes);
  const own = statsOf(nodes, pkg);
  if (own.texts === 0) return true;
  if (!baseline) return false;
  return own.nodes < baseline.nodes * SPARSE_SHARE || own.texts < baseline.texts * SPARSE_SHARE;
}

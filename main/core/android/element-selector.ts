/**
 * Finding elements in a parsed tree by selector (text, id, description or compactTree's
 * index); a selector that matches nothing is element_not_found naming what was asked for.
 */
import { BridgeError } from '../errors';
import type { UiNode } from './ui-xml';

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
  if (
    text === undefined &&
    textContains === undefined &&
    resourceId === undefined &&
    contentDesc === undefined &&
    index === undefined
  ) {
    throw new BridgeError(
      'invalid_arguments',
      'a selector needs at least one of text, textContains, resourceId, contentDesc, index',
    );
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

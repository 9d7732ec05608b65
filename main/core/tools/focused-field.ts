/**
 * Typing needs a text field with focus. Android's `input text` (and the helper's typing)
 * sends key events to whatever has input focus and exits 0 when nothing takes them, so
 * without this check a call would report text as typed that went nowhere (issue #29). The
 * check reads the tree the bridge already has for this screen when it can: the safety gate's
 * fresh read for this call, else the channel's last read when nothing has acted on the phone
 * since; only then a read of its own — and when the UI reader runs, that read is the focused
 * node alone (`focus`), not the whole screen: the question is only "which node has input focus,
 * and is it a field, and does it mask its text", and the focused node's own attributes answer
 * it (class, password, resource-id). When the reader cannot answer, or finds no focused field,
 * the whole tree is read as before: it alone tells a screen with no focused field from one
 * that cannot be read. A screen whose tree cannot be read (a game, a secure surface) cannot be
 * checked: typing goes ahead and the result says the focus was not checked.
 */
import { BridgeError, isBridgeError } from '../errors';
import type { UiNode } from '../android/ui-tree';
import { freshTree } from './targets';
import type { ToolContext } from './tool-definition';

/** Classes that take typed text: EditText and its kinds (Compose and WebView fields are reported as EditText too). */
const EDITABLE_CLASS = /(^|\.)(\w*EditText|AutoCompleteTextView|MultiAutoCompleteTextView|SearchAutoComplete)$/;

export const NO_FOCUSED_FIELD_FIX =
  'tap a text field first (android_tap), or pass the field to android_type_text as element or ref';

/** Whether an element of this class takes typed text (its `text` is what someone typed). */
export function takesTypedText(className: string): boolean {
  return EDITABLE_CLASS.test(className);
}

/** Whether a node is a field that takes typed text. */
export function isEditable(node: UiNode): boolean {
  return node.password || takesTypedText(node.className);
}

/** The editable node with input focus in `nodes`; null when none has it. */
export function focusedField(nodes: readonly UiNode[]): UiNode | null {
  return nodes.find((n) => n.focused && isEditable(n)) ?? null;
}

/**
 * The focused text field of the screen as it is now, or BridgeError('no_focused_field') with
 * the fix when none has focus. `unchecked`: the tree could not be read, so nobody knows.
 */
export async function requireFocusedField(ctx: ToolContext): Promise<{ field: UiNode } | { unchecked: true }> {
  // A call that waited for a person reads again: the screen may have moved on meanwhile.
  const held = ctx.refs.heldForApproval();
  const last = ctx.lastTree();
  let nodes: readonly UiNode[] | null = held
    ? null
    : (ctx.refs.checkedTree() ?? (last && last.refs.actions === ctx.refs.actions() ? last.nodes : null));
  if (!nodes) {
    const focused = await focusedByReader(ctx);
    if (focused) return { field: focused };
    try {
      nodes = (await freshTree(ctx)).nodes;
    } catch (error) {
      if (isBridgeError(error) && error.code === 'screen_unreadable') return { unchecked: true };
      throw error;
    }
  }
  // An empty tree says nothing about focus (a surface uiautomator cannot see into).
  if (nodes.length === 0) return { unchecked: true };
  const field = focusedField(nodes);
  if (field) return { field };
  throw new BridgeError(
    'no_focused_field',
    `not typed: no text field on the screen has focus, so the text would go nowhere. Fix: ${NO_FOCUSED_FIELD_FIX}`,
    { fix: NO_FOCUSED_FIELD_FIX },
  );
}

/**
 * The focused field as the UI reader's `focus` shows it (the focused node and its subtree), or
 * null when it cannot say so: no reader, nothing focused, or a focused node that takes no text
 * (the whole tree then decides, with its own words for each case).
 */
async function focusedByReader(ctx: ToolContext): Promise<UiNode | null> {
  const subtree = await ctx.lanes?.focus?.({ timeoutMs: ctx.timeoutMs, signal: ctx.signal });
  return subtree ? focusedField(subtree) : null;
}

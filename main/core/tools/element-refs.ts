/**
 * Element refs: short names for the elements of one read of a phone's screen, e.g. `@kq12`
 * (the read's tag `kq`, then the element's number in that read). The channel's remembered
 * tree is the read they belong to (phone-memory.ts); targets.ts resolves them.
 *
 * The one rule: a ref holds while the channel's last read is the read that handed it out and
 * nothing has acted on the phone since. Every read notes the phone's count of control actions
 * when it starts; every control call adds one when it ends (a batch also after each step), so
 * a read that overlapped an action never validates a ref. A new read that finds the same
 * screen (the same compacted tree) keeps the tag, so the refs it hands out are the same ones
 * and hold again; a different screen gets a new tag, never used before in this bridge run.
 */
import { screenSignature, type UiNode } from '../android/ui-tree';

/** `@` + the read's tag (lowercase letters) + the element's number. */
export const REF_PATTERN = /^@([a-z]{1,8})(\d{1,5})$/;

/** The fix every stale ref is refused with. */
export const REF_STALE_FIX = 'read the screen again with android_ui_tree; refs expire with any control action';

/** Which read the channel's remembered tree is, for its refs. */
export interface RefFrame {
  /** The tag its refs carry. */
  tag: string;
  /** The phone the tree was read from. */
  deviceId: string;
  /** The phone's count of control actions when the read started (see the module comment). */
  actions: number;
  /** Identity of the numbered tree: equal keys, equal numbering (refKey). */
  key: string;
}

/** The channel's last UI tree (what `index` selectors and refs refer to). */
export interface RememberedTree {
  /** The compacted tree, numbered as tools and agents see it. */
  nodes: UiNode[];
  /** screenSignature of the raw tree (screen_changed, unchanged screenshots). */
  signature: string;
  refs: RefFrame;
}

export function formatRef(tag: string, index: number): string {
  return `@${tag}${index}`;
}

/** A ref's tag and number, or null when it is not a ref at all. */
export function parseRef(ref: string): { tag: string; index: number } | null {
  const match = REF_PATTERN.exec(ref);
  if (!match?.[1] || match[2] === undefined) return null;
  return { tag: match[1], index: Number(match[2]) };
}

/**
 * Identity of a compacted tree with its numbering: the signature of the numbered nodes
 * themselves (each node's place, class, id, texts, bounds and states), so two reads with the
 * same key give every element the same number.
 */
export function refKey(compactNodes: readonly UiNode[]): string {
  return screenSignature(compactNodes);
}

/** Bijective base 26: 1 → a, 26 → z, 27 → aa, … (every tag is new, none is empty). */
function letters(n: number): string {
  let out = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26))
    out = String.fromCharCode(97 + ((rest - 1) % 26)) + out;
  return out;
}

/**
 * Hands out read tags, never the same one twice in a bridge run. It starts at a random
 * two-letter tag, so refs an agent kept from before a restart rarely name a new read (and
 * still need the read's numbering and no action since to be honoured).
 */
export class RefTags {
  private next: number;

  constructor(random: () => number = Math.random) {
    // 27 is "aa", 702 is "zz".
    this.next = 27 + Math.floor(random() * 676);
  }

  take(): string {
    const tag = letters(this.next);
    this.next += 1;
    return tag;
  }
}

/**
 * What the bridge remembers between calls, per phone and per channel: the channel's last UI
 * tree (what `index` selectors and element refs refer to, element-refs.ts) and each phone's
 * count of control actions that expires refs, the last screenshot (`unchanged`), each channel's
 * last action (the console), each phone's last refusal per error code and last tree read
 * (the Descriptor's marks, the phone check), whether its keyboard types Unicode, how fast
 * each screenshot strategy is on it, and whether its screen is awake and unlocked.
 * Nothing here talks to a phone by itself; the call pipeline tells it what happened.
 */
import type { ErrorCode } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { UiNode } from '../android/ui-tree';
import { RefTags, refKey, type RememberedTree } from './element-refs';
import { detectUnicodeIme } from '../android/text-input';
import type { StoredAck } from './idempotency-journal';
import type { LastCaptureStore } from './screenshot-pipeline';
import { ScreenLockGuard } from './screen-lock-guard';
import type { ToolCall } from './tool-call';
import { typedTexts } from './typed-text';
import type { ToolFacts } from './tool-definition';

/** How long a read screen state (awake, locked) is believed before the next control call reads it again. */
const SCREEN_LOCK_FRESH_MS = 5_000;
/** How long a phone's keyboard is believed to type Unicode (or not) before it is read again. */
const IME_FRESH_MS = 60_000;

/** A call on a phone refused with a code: when, what the phone said, and its fix in words when it has one. */
export interface Refusal {
  at: number;
  message: string;
  fix: string | null;
}

export interface LastAction {
  toolId: string;
  at: number;
  outcome: string;
}

/** Typed texts remembered per channel for redacting its phone's log (the oldest go first). */
const MAX_TYPED_PER_CHANNEL = 500;

/** Refusals that mark tools in the Descriptor (tool-marks.ts). */
const MARKING_REFUSALS: ReadonlySet<ErrorCode> = new Set(['input_blocked', 'install_blocked']);

/** The refusal a success of this tool shows no longer holds (the person changed the setting). */
function clearedBySuccess(facts: ToolFacts): ErrorCode | undefined {
  if (facts.policy === 'install') return 'install_blocked';
  if (facts.screenInput && facts.policy !== 'batch') return 'input_blocked';
  return undefined;
}

export class PhoneMemory {
  /** Per channel. */
  private readonly trees = new Map<string, RememberedTree>();
  /** Per phone: control calls (and batch steps) that acted on it, for refs (element-refs.ts). */
  private readonly actionCounts = new Map<string, number>();
  private readonly refTags = new RefTags();
  /** Per channel: the last screenshot handed out (screenshot-pipeline.ts). */
  readonly lastCaptures: LastCaptureStore = new Map();
  private readonly lastActions = new Map<string, LastAction>();
  /** Per phone, the last refusal of each error code (the phone check shows input_blocked from here). */
  private readonly lastRefusals = new Map<string, Map<ErrorCode, Refusal>>();
  private readonly treeReadAt = new Map<string, number>();
  private readonly imes = new Map<string, { value: boolean; at: number }>();
  /** Per channel (a lease): the texts its calls typed, in memory only, to redact the phone's log. */
  private readonly typed = new Map<string, string[]>();
  readonly screenLock: ScreenLockGuard;

  constructor(private readonly clock: () => number) {
    this.screenLock = new ScreenLockGuard({ clock, freshMs: SCREEN_LOCK_FRESH_MS });
  }

  lastTree(channelId: string): RememberedTree | undefined {
    return this.trees.get(channelId);
  }

  /**
   * A tree read on this channel: it becomes the channel's last tree. `actions` is the phone's
   * action count when the read started. The same screen as the last read (same numbering) keeps
   * its ref tag, so refs handed out for it hold again; another screen gets a new tag.
   */
  rememberTree(
    channelId: string,
    deviceId: string,
    nodes: UiNode[],
    signature: string,
    actions: number,
  ): RememberedTree {
    const key = refKey(nodes);
    const previous = this.trees.get(channelId)?.refs;
    const tag = previous && previous.deviceId === deviceId && previous.key === key ? previous.tag : this.refTags.take();
    const tree: RememberedTree = { nodes, signature, refs: { tag, deviceId, actions, key } };
    this.trees.set(channelId, tree);
    return tree;
  }

  /** How many control calls (and batch steps) have acted on this phone in this bridge run. */
  actions(deviceId: string): number {
    return this.actionCounts.get(deviceId) ?? 0;
  }

  /** Something acted on this phone: every ref read before now expires. */
  acted(deviceId: string): void {
    this.actionCounts.set(deviceId, this.actions(deviceId) + 1);
  }

  /** A channel's lease ended: its tree and its last screenshot mean nothing to the next one. */
  forgetChannel(channelId: string): void {
    this.trees.delete(channelId);
    this.lastCaptures.delete(channelId);
    this.typed.delete(channelId);
  }

  /**
   * A call is about to type: its texts join the channel's (before it runs, so a log read
   * while it types, or its crash report, is already redacted).
   */
  noteTyping(call: ToolCall): void {
    const texts = typedTexts(call.tool.id, call.args);
    if (texts.length === 0) return;
    const list = this.typed.get(call.channelId) ?? [];
    list.push(...texts);
    if (list.length > MAX_TYPED_PER_CHANNEL) list.splice(0, list.length - MAX_TYPED_PER_CHANNEL);
    this.typed.set(call.channelId, list);
  }

  /** The texts this channel's calls typed during its lease. */
  typedTexts(channelId: string): readonly string[] {
    return this.typed.get(channelId) ?? [];
  }

  lastAction(channelId: string): LastAction | undefined {
    return this.lastActions.get(channelId);
  }

  /** The last call on this phone refused with `code`, if any. */
  lastRefusal(deviceId: string, code: ErrorCode): Refusal | null {
    return this.lastRefusals.get(deviceId)?.get(code) ?? null;
  }

  /** When a tool call last read this phone's UI tree (tool-marks.ts), or null. */
  lastTreeRead(deviceId: string): number | null {
    return this.treeReadAt.get(deviceId) ?? null;
  }

  /** Whether the phone's keyboard types any language (text-input.ts), read at most once a minute. */
  async unicodeIme(
    deviceId: string,
    shell: DeviceShell,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<boolean> {
    const cached = this.imes.get(deviceId);
    if (cached && this.clock() - cached.at < IME_FRESH_MS) return cached.value;
    const value = await detectUnicodeIme(shell, options);
    this.imes.set(deviceId, { value, at: this.clock() });
    return value;
  }

  /**
   * A call ended with this ack: its channel's last action, the phone's refusals and tree read.
   * Answers whether the tools marked on the phone may have changed.
   */
  noteFinished(call: ToolCall, ack: StoredAck): boolean {
    const deviceId = call.device.deviceId;
    const now = this.clock();
    this.lastActions.set(call.channelId, { toolId: call.tool.id, at: now, outcome: ack.error?.code ?? 'ok' });
    if (ack.error) {
      const refusals = this.lastRefusals.get(deviceId) ?? new Map<ErrorCode, Refusal>();
      refusals.set(ack.error.code, { at: now, message: ack.error.message, fix: ack.error.fix ?? null });
      this.lastRefusals.set(deviceId, refusals);
      return MARKING_REFUSALS.has(ack.error.code);
    }
    let marksChanged = false;
    // It works again (the person changed the setting): forget the refusal it replaces.
    const cleared = clearedBySuccess(call.tool.facts);
    if (cleared && this.lastRefusals.get(deviceId)?.delete(cleared)) marksChanged = true;
    if (call.tool.facts.readsTree) {
      this.treeReadAt.set(deviceId, now);
      marksChanged = true;
    }
    return marksChanged;
  }
}

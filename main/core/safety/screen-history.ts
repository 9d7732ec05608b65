/**
 * What the last allowed control action on each phone left on its screen, for the next call's
 * screen read: the channel's cached tree may stand in for a new dump while the same window is
 * in front (TREE_REUSE_MAX_AGE_MS), and the fast lane's helper reads the screen again right
 * after the action, while the agent thinks, so the next call needs only the window read.
 */
import type { UiNode } from '../android/ui-tree';
import type { WindowFacts } from '../android/screen-probe';
import { withDeadline } from '../devices/deadline';
import type { ToolCall } from '../tools/tool-call';

/**
 * How long the runtime's cached UI tree may stand in for a new dump (a dump costs 1–3 s on a
 * real phone). Only a tree taken after the last action on the phone, with the same window in
 * front as before that action, qualifies; a dialog or a new activity forces a dump.
 */
export const TREE_REUSE_MAX_AGE_MS = 15_000;

/** The screen as the fast lane's helper read it after the last action (CallLanes.screenAfter). */
interface ScreenAfter {
  token: string;
  /** The window in front as that read saw it (the gate judges with it when the stream vouches for the screen). */
  window: WindowFacts;
  nodes: UiNode[];
  /** The read's span (performance.now()): the stream says whether anything changed since. */
  read: { startedAt: number; endedAt: number };
  /** When the read started (after the action had ended). */
  at: number;
  /** The phone's control-call count when the read started: a later control call voids it. */
  generation: number;
}

interface PhoneHistory {
  channelId: string;
  /** Focused window before the last allowed control action (null: not read). */
  token: string | null;
  /** The channel's cached tree when that action ended, and whether it was taken after the action. */
  endTree: object | undefined;
  observedAfter: boolean;
  endAt: number;
  /** The helper's read of the screen after that action, once it came (fast lane only). */
  after?: ScreenAfter;
  /** That read while it runs (settles, never rejects). */
  afterRead?: Promise<void> | undefined;
}

export interface ScreenHistoryOptions {
  clock: () => number;
  /** The longest a call waits for the helper's read after the last action. */
  probeTimeoutMs: number;
  /**
   * Whether the phone's screen stream vouches that nothing changed since a read (ScreenStreams
   * .screenUnchangedSince); absent or false: the window is read again.
   */
  screenUnchanged?: (deviceId: string, read: { startedAt: number; endedAt: number }) => boolean;
  /** Whether the phone's screen stream runs now (it may then vouch for a read). */
  streamRunning?: (deviceId: string) => boolean;
}

export class ScreenHistory {
  private readonly history = new Map<string, PhoneHistory>();
  /** Control calls judged per phone: a screen read after one action is void once the next is judged. */
  private readonly generations = new Map<string, number>();
  /** The history a finished call settled, until its read after the ack starts (held by the call, not past it). */
  private readonly settledBy = new WeakMap<ToolCall, PhoneHistory>();
  /** Per phone, the read after an action that runs or waits now (one at a time; settles, never rejects). */
  private readonly readingAfter = new Map<string, Promise<void>>();

  constructor(private readonly o: ScreenHistoryOptions) {}

  /** A control call on this phone was judged: reads after earlier actions no longer stand in. */
  controlJudged(deviceId: string): void {
    this.generations.set(deviceId, (this.generations.get(deviceId) ?? 0) + 1);
  }

  /** The runtime's cached tree when it still shows this screen (see TREE_REUSE_MAX_AGE_MS), else null. */
  currentTree(call: ToolCall, token: string | null): UiNode[] | null {
    const h = this.history.get(call.device.deviceId);
    if (!h || h.channelId !== call.channelId || token === null) return null;
    if (h.token === token && this.o.clock() - h.endAt <= TREE_REUSE_MAX_AGE_MS) {
      const current = call.lastTree();
      if (current && (current !== h.endTree || h.observedAfter)) return current.nodes;
    }
    // The helper's read after the last action, while the same window is in front.
    const after = this.screenAfterFor(call);
    return after && after.token === token ? after.nodes : null;
  }

  /** The helper's read of the screen after this channel's last action, while it may stand in (see TREE_REUSE_MAX_AGE_MS). */
  screenAfterFor(call: ToolCall): ScreenAfter | null {
    const deviceId = call.device.deviceId;
    const after = this.history.get(deviceId)?.after;
    if (!after || this.history.get(deviceId)?.channelId !== call.channelId) return null;
    if (after.generation !== (this.generations.get(deviceId) ?? 0)) return null;
    if (this.o.clock() - after.at > TREE_REUSE_MAX_AGE_MS) return null;
    return after;
  }

  /** Whether the phone's screen stream may vouch for a read now (it runs). */
  mayVouch(deviceId: string): boolean {
    return this.o.screenUnchanged !== undefined && this.o.streamRunning?.(deviceId) === true;
  }

  /**
   * The screen after this channel's last action, window and tree, when the phone's screen
   * stream shows no change since it was read: the gate then judges on it without reading the
   * phone at all (no window read, no dump). Not for a window that keeps its content out of
   * screenshots (FLAG_SECURE): its changes need not reach the stream's pictures.
   */
  stillShowing(call: ToolCall): { window: WindowFacts; nodes: UiNode[] } | null {
    const after = this.screenAfterFor(call);
    if (!after || after.window.secure !== false || !this.o.screenUnchanged) return null;
    if (!this.o.screenUnchanged(call.device.deviceId, after.read)) return null;
    return { window: after.window, nodes: after.nodes };
  }

  /**
   * A call finished (told right after its ack is sent, in the same turn: before any later
   * packet is read): an allowed control call may have changed the screen, so what the next
   * call is judged on is settled now (readScreenAfter then starts the read of the new screen).
   */
  callFinished(call: ToolCall, outcome: 'ok' | 'error'): void {
    if (call.tool.kind !== 'control' || call.verdict?.decision !== 'allow') return;
    const history: PhoneHistory = {
      channelId: call.channelId,
      token: call.verdict.windowBefore,
      endTree: call.lastTree(),
      // With `observe`, the last tree the call took is the screen after its action.
      observedAfter: call.args.observe === true && outcome === 'ok',
      endAt: this.o.clock(),
    };
    this.history.set(call.device.deviceId, history);
    this.settledBy.set(call, history);
  }

  /**
   * After the call's ack (call-pipeline.ts runs it): the fast lane reads the screen again now,
   * while the agent decides its next call (the helper's page source waits for the screen to
   * settle first); the next control call's gate then needs only the window read when that
   * window is still in front. Nothing when a later call already replaced this one's history.
   */
  readScreenAfter(call: ToolCall, outcome: 'ok' | 'error'): void {
    const history = this.settledBy.get(call);
    this.settledBy.delete(call);
    const deviceId = call.device.deviceId;
    const screenAfter = call.lanesAtSlot?.screenAfter;
    if (!history || this.history.get(deviceId) !== history) return;
    if (!screenAfter || outcome !== 'ok' || history.observedAfter) return;
    const generation = this.generations.get(deviceId) ?? 0;
    const current = (): boolean =>
      this.history.get(deviceId) === history && (this.generations.get(deviceId) ?? 0) === generation;
    const read = async (): Promise<void> => {
      // Actions that came back to back: only the last one's screen is read, after the read
      // already running (each read costs the phone a walk of the screen; reads of screens
      // already gone would only queue up behind it).
      if (!current()) return;
      const at = this.o.clock();
      const screen = await screenAfter();
      if (!screen || screen.window.token === null || !current()) return;
      history.after = {
        token: screen.window.token,
        window: screen.window,
        nodes: screen.nodes,
        read: screen.span,
        at,
        generation,
      };
    };
    const before = this.readingAfter.get(deviceId);
    const reading = (before ? before.then(read) : read()).catch(() => undefined);
    this.readingAfter.set(deviceId, reading);
    history.afterRead = reading.finally(() => {
      history.afterRead = undefined;
      if (this.readingAfter.get(deviceId) === reading) this.readingAfter.delete(deviceId);
    });
  }

  /**
   * A control call that comes while the helper still reads the screen after the last action
   * waits for that read (it began earlier than a new one would), at most the probe's deadline.
   */
  awaitScreenAfter(call: ToolCall): Promise<void> | null {
    const h = this.history.get(call.device.deviceId);
    const reading = h?.afterRead;
    if (!reading || h.channelId !== call.channelId) return null;
    // Past the deadline or a stop, the call goes on without it (a timeout or cancel is no error here).
    return withDeadline(reading, {
      timeoutMs: this.o.probeTimeoutMs,
      signal: call.signal,
      what: 'the screen read after the last action',
    }).catch(() => undefined);
  }
}

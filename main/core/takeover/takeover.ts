/**
 * Take over and hand back (issue #26): a person at the computer takes a phone from the agent.
 * While a phone is taken, the agent's control calls on it are refused at once with
 * `human_in_control` (call-pipeline.ts), and so are the calls that would show the agent what
 * the person does (screenshots, trees, recordings, the log: ToolFacts `seesScreen`) unless
 * the person let the agent watch when they took it; a screen read that overlapped a hidden
 * span is refused too, whenever it ends. Other observation calls still work, its Descriptor marks
 * the control tools (bindings/tool-marks.ts) and its lease timers stand still (binding-service.ts
 * moves them on by the time the phone was held). State is in memory only: a restart hands back.
 */
import type { AdminTakenOver } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { BridgeEventSink, HandBack, TakenOver } from '../events/bridge-events';

export type { HandBack, TakenOver } from '../events/bridge-events';

/** The takeover as the admin API shows it. */
export function takenOverView(state: TakenOver | null): AdminTakenOver | null {
  return state && { since: state.since, by: state.by, agent_may_watch: state.agentMayWatch };
}

/** A past hold, kept a while so a screen read that overlapped it is refused when it ends. */
interface HeldSpan {
  since: number;
  until: number;
  agentMayWatch: boolean;
}

/** How many past holds per phone are kept (a read never lasts longer than a few of them). */
const SPANS_KEPT = 8;

export class Takeover {
  private readonly held = new Map<string, TakenOver>();
  private readonly past = new Map<string, HeldSpan[]>();
  /** When the last hold the agent could not watch ended, per phone: its log is not read back past it. */
  private readonly hiddenUntil = new Map<string, number>();

  constructor(
    private readonly clock: () => number,
    /** Told `takenOver` and `handedBack` (events/bridge-events.ts): the rooms that react subscribe there. */
    private readonly events: BridgeEventSink,
  ) {}

  /** A person takes the phone; taking a phone already taken is refused (one person at a time). */
  take(deviceId: string, by: string, options: { agentMayWatch?: boolean } = {}): TakenOver {
    const already = this.held.get(deviceId);
    if (already) throw new BridgeError('human_in_control', `${already.by} already has this phone`);
    const state: TakenOver = { since: this.clock(), by, agentMayWatch: options.agentMayWatch === true };
    this.held.set(deviceId, state);
    this.events.emit('takenOver', { deviceId, state });
    return state;
  }

  /** The person hands the phone back to the agent; an optional note says what they did. */
  handBack(deviceId: string, note?: string): HandBack {
    const state = this.held.get(deviceId);
    if (!state) throw new BridgeError('invalid_arguments', 'this phone is not taken over');
    this.held.delete(deviceId);
    const spans = [
      ...(this.past.get(deviceId) ?? []),
      { since: state.since, until: this.clock(), agentMayWatch: state.agentMayWatch },
    ];
    this.past.set(deviceId, spans.slice(-SPANS_KEPT));
    if (!state.agentMayWatch) this.hiddenUntil.set(deviceId, this.clock());
    const back: HandBack = {
      deviceId,
      heldMs: Math.max(0, this.clock() - state.since),
      note,
      by: state.by,
      agentMayWatch: state.agentMayWatch,
    };
    this.events.emit('handedBack', back);
    return back;
  }

  isTaken(deviceId: string): boolean {
    return this.held.has(deviceId);
  }

  /** The phone's takeover, or null when the agent has it. */
  state(deviceId: string): TakenOver | null {
    return this.held.get(deviceId) ?? null;
  }

  /**
   * Whether a person held the phone without letting the agent watch at any moment from `from`
   * (ms, the bridge's clock) until now: a screen read over that time would show what they did.
   */
  hidesScreenSince(deviceId: string, from: number): boolean {
    const now = this.held.get(deviceId);
    if (now && !now.agentMayWatch) return true;
    return (this.past.get(deviceId) ?? []).some((span) => !span.agentMayWatch && span.until > from);
  }

  /**
   * The end (ms, the bridge's clock) of the last hold the agent could not watch, or null: a log
   * read after the hand-back starts there, so what apps logged of the person's typing stays theirs.
   */
  logHiddenUntil(deviceId: string): number | null {
    return this.hiddenUntil.get(deviceId) ?? null;
  }

  /** The refusal of a screen read (ToolFacts `seesScreen`) while or after a person held the phone unwatched. */
  screenRefusal(deviceId: string): BridgeError {
    const by = this.held.get(deviceId)?.by ?? 'a person';
    return new BridgeError(
      'human_in_control',
      `not shown: a person (${by}) holds or held this phone at the computer during this read and did not let the agent watch, so the screen, its tree, recordings and the log are not shown for that time. Fix: wait for the hand-back (android_ask_person answers then), then read the screen again`,
      { fix: 'wait for the hand-back, then read the screen again' },
    );
  }

  /** The refusal of an agent's control call while a person holds the phone. */
  refusal(deviceId: string): BridgeError {
    const by = this.held.get(deviceId)?.by ?? 'a person';
    return new BridgeError(
      'human_in_control',
      `a person (${by}) has taken this phone over at the computer; control calls are refused until they hand it back${this.held.get(deviceId)?.agentMayWatch ? ' (they let the agent watch the screen meanwhile)' : ', and so are screen reads'}; try again after the hand-back`,
    );
  }
}

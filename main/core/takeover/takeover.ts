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

export interface TakenOver {
  /** When the person took the phone (ms). */
  since: number;
  /** Who took it, in words ('person at the computer', a console user's name). */
  by: string;
  /** The person lets the agent see the screen meanwhile (false: it sees nothing of it). */
  agentMayWatch: boolean;
}

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

export interface HandBack {
  deviceId: string;
  /** How long the phone was held (ms): the lease timers are moved on by this. */
  heldMs: number;
  note: string | undefined;
  /** Who held it, and whether they let the agent watch (the audit's hand-back line says so too). */
  by: string;
  agentMayWatch: boolean;
}

export interface TakeoverEvents {
  /** A phone was taken over: its queued agent control calls are canceled, its Descriptor changes. */
  taken(deviceId: string, state: TakenOver): void;
  /** A phone was handed back. */
  handedBack(back: HandBack): void;
}

export class Takeover {
  private readonly held = new Map<string, TakenOver>();
  private readonly past = new Map<string, HeldSpan[]>();

  constructor(
    private readonly clock: () => number,
    private readonly events: TakeoverEvents,
  ) {}

  /** A person takes the phone; taking a phone already taken is refused (one person at a time). */
  take(deviceId: string, by: string, options: { agentMayWatch?: boolean } = {}): TakenOver {
    const already = this.held.get(deviceId);
    if (already) throw new BridgeError('human_in_control', `${already.by} already has this phone`);
    const state: TakenOver = { since: this.clock(), by, agentMayWatch: options.agentMayWatch === true };
    this.held.set(deviceId, state);
    this.events.taken(deviceId, state);
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
    const back: HandBack = {
      deviceId,
      heldMs: Math.max(0, this.clock() - state.since),
      note,
      by: state.by,
      agentMayWatch: state.agentMayWatch,
    };
    this.events.handedBack(back);
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

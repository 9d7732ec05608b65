/**
 * Take over and hand back (issue #26): a person at the computer takes a phone from the agent.
 * While a phone is taken, the agent's control calls on it are refused at once with
 * `human_in_control` (call-pipeline.ts), its observation calls still work, its Descriptor marks
 * the control tools (bindings/tool-marks.ts) and its lease timers stand still (binding-service.ts
 * moves them on by the time the phone was held). State is in memory only: a restart hands back.
 */
import { BridgeError } from '../errors';

export interface TakenOver {
  /** When the person took the phone (ms). */
  since: number;
  /** Who took it, in words ('person at the computer', a console user's name). */
  by: string;
}

export interface HandBack {
  deviceId: string;
  /** How long the phone was held (ms): the lease timers are moved on by this. */
  heldMs: number;
  note: string | undefined;
}

export interface TakeoverEvents {
  /** A phone was taken over: its queued agent control calls are canceled, its Descriptor changes. */
  taken(deviceId: string, state: TakenOver): void;
  /** A phone was handed back. */
  handedBack(back: HandBack): void;
}

export class Takeover {
  private readonly held = new Map<string, TakenOver>();

  constructor(
    private readonly clock: () => number,
    private readonly events: TakeoverEvents,
  ) {}

  /** A person takes the phone; taking a phone already taken is refused (one person at a time). */
  take(deviceId: string, by: string): TakenOver {
    const already = this.held.get(deviceId);
    if (already) throw new BridgeError('human_in_control', `${already.by} already has this phone`);
    const state: TakenOver = { since: this.clock(), by };
    this.held.set(deviceId, state);
    this.events.taken(deviceId, state);
    return state;
  }

  /** The person hands the phone back to the agent; an optional note says what they did. */
  handBack(deviceId: string, note?: string): HandBack {
    const state = this.held.get(deviceId);
    if (!state) throw new BridgeError('invalid_arguments', 'this phone is not taken over');
    this.held.delete(deviceId);
    const back: HandBack = { deviceId, heldMs: Math.max(0, this.clock() - state.since), note };
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

  /** The refusal of an agent's control call while a person holds the phone. */
  refusal(deviceId: string): BridgeError {
    const by = this.held.get(deviceId)?.by ?? 'a person';
    return new BridgeError(
      'human_in_control',
      `a person (${by}) has taken this phone over at the computer; control calls are refused until they hand it back — observation calls still work; try again after the hand-back`,
    );
  }
}

/**
 * What the bridge's rooms tell each other, on one typed emitter (VS Code's `Emitter`, one
 * per bridge instead of one per fact). The service that knows a fact emits it; the room that
 * reacts subscribes in its own `wire.ts` and adds the returned stop to its DisposableStore, so
 * the composition root holds no "tell X when Y" closures.
 *
 * Listeners run synchronously, in the order they subscribed, within three stages: `first`
 * (read what the others are about to forget, as the evidence does at a lease's end), `then`
 * (the default) and `last` (queue behind what the others stopped, as the hand-over does). A
 * listener that throws is reported to `onError` and the others still run: one room's bug must
 * not leave another room's reaction undone.
 *
 * The payload types live here, at the bottom of the import graph, so that every room can
 * import them without reaching another room.
 */
import type { AdminTurnover } from '../../contract/admin-api';
import type { LimitValues } from '../../contract/limits';

/** Why a lease ended (bindings/binding-service.ts decides). */
export type LeaseEndReason = 'logout' | 'revoked' | 'expired' | 'runtime_lease_expired';

/** A person's hold of a phone (takeover/takeover.ts decides). */
export interface TakenOver {
  /** When the person took the phone (ms). */
  since: number;
  /** Who took it, in words ('person at the computer', a console user's name). */
  by: string;
  /** The person lets the agent see the screen meanwhile (false: it sees nothing of it). */
  agentMayWatch: boolean;
}

/** A hold that ended: the phone is the agent's again. */
export interface HandBack {
  deviceId: string;
  /** How long the phone was held (ms): the lease timers are moved on by this. */
  heldMs: number;
  note: string | undefined;
  /** Who held it, and whether they let the agent watch (the audit's hand-back line says so too). */
  by: string;
  agentMayWatch: boolean;
}

/** One line of the audit trail for something the bridge or the person did outside a tool call. */
export interface BridgeActionLine {
  deviceId: string;
  action: string;
  /** null: it went as it should. */
  code: string | null;
  reasons: string[];
  decision?: string;
  details?: Record<string, unknown>;
  durationMs?: number;
  /** Who did it: the bridge by itself (default), or the person at the computer (a takeover). */
  decidedBy?: 'bridge' | 'person';
}

/** Every fact, by name, with what it carries. */
export interface BridgeEventMap {
  /** A lease began: `channelId` holds `deviceId` now. */
  leaseStarted: { channelId: string; deviceId: string };
  /** A lease ended: its queued work ends, its phone's programs stop, its hand-over runs. */
  leaseEnded: { channelId: string; deviceId: string; reason: LeaseEndReason; flowId: string };
  /** A phone was added, changed state or went away (devices/device-registry.ts). */
  deviceChanged: { deviceId: string; ready: boolean };
  /** A person took a phone over at the computer. */
  takenOver: { deviceId: string; state: TakenOver };
  /** The person handed a phone back. */
  handedBack: HandBack;
  /** A phone's hand-over between leases changed state (handover/handover.ts); `finished`: the report of one done or failed. */
  handoverChanged: { deviceId: string; finished: AdminTurnover | null };
  /** A phone may be bound again: its hand-over finished, or none was needed (bindings/ lets the next claim in). */
  phoneFree: { deviceId: string };
  /** A program the bridge runs on phones (the fast lane's helper, scrcpy-server, the UI reader, the snapshot helper) changed state. */
  programsChanged: { program: 'helper' | 'phone_programs' };
  /** Settings → Limits changed (config/live-limits.ts); only the values that changed. */
  limitsChanged: { changed: Partial<LimitValues> };
  /** The bridge or the person did something the audit trail records (safety/ writes the line). */
  bridgeAction: BridgeActionLine;
}

export type BridgeEventName = keyof BridgeEventMap;
export type BridgeListener<K extends BridgeEventName> = (payload: BridgeEventMap[K]) => void;

/** When a listener runs among the others of the same fact. */
export type ListenerStage = 'first' | 'then' | 'last';
const STAGES: readonly ListenerStage[] = ['first', 'then', 'last'];

/** The part a service that only emits needs (narrow port). */
export interface BridgeEventSink {
  emit<K extends BridgeEventName>(name: K, payload: BridgeEventMap[K]): void;
}

/** The part a room that only reacts needs (narrow port). */
export interface BridgeEventSource {
  on<K extends BridgeEventName>(name: K, listener: BridgeListener<K>, stage?: ListenerStage): () => void;
}

export class BridgeEvents implements BridgeEventSink, BridgeEventSource {
  private readonly listeners = new Map<BridgeEventName, Map<ListenerStage, Set<(payload: never) => void>>>();

  /** `onError` hears a listener that threw, with the fact's name; the next listener runs anyway. */
  constructor(private readonly onError: (error: unknown, name: BridgeEventName) => void) {}

  /** Adds `listener` at `stage` (default `then`) and returns the stop that removes it. */
  on<K extends BridgeEventName>(name: K, listener: BridgeListener<K>, stage: ListenerStage = 'then'): () => void {
    const stages = this.listeners.get(name) ?? new Map<ListenerStage, Set<(payload: never) => void>>();
    this.listeners.set(name, stages);
    const set = stages.get(stage) ?? new Set<(payload: never) => void>();
    stages.set(stage, set);
    // A copy of the function, so one listener added twice is two subscriptions, each removed once.
    const entry = (payload: never): void => listener(payload);
    set.add(entry);
    return () => {
      set.delete(entry);
    };
  }

  /** Runs every listener of `name` now, stage by stage, each in the order it subscribed. */
  emit<K extends BridgeEventName>(name: K, payload: BridgeEventMap[K]): void {
    const stages = this.listeners.get(name);
    if (!stages) return;
    for (const stage of STAGES) {
      // A listener added while this fact is told hears the next one, not this one.
      for (const listener of [...(stages.get(stage) ?? [])]) {
        try {
          (listener as BridgeListener<K>)(payload);
        } catch (error) {
          this.onError(error, name);
        }
      }
    }
  }

  /** How many listeners `name` has (for tests and leak checks). */
  listenerCount(name: BridgeEventName): number {
    let count = 0;
    for (const set of this.listeners.get(name)?.values() ?? []) count += set.size;
    return count;
  }
}

/** Who holds each phone (bindings/binding-service.ts): the rooms that run something only while a phone is leased ask it. */
export interface LeaseHolders {
  /** The channel holding the phone's lease, or undefined. */
  leaseHolder(deviceId: string): string | undefined;
}

/** The audit sink rooms are wired with: a line goes out as a `bridgeAction` fact. */
export type AuditSink = (line: BridgeActionLine) => void;

/** An AuditSink that tells `events` (safety/ subscribes and writes the line). */
export function auditSink(events: BridgeEventSink): AuditSink {
  return (line) => events.emit('bridgeAction', line);
}

/**
 * The take-over room's wiring: the takeover itself, the agent's asks to the person, and the
 * audit lines both leave. The ask follows the takeover by subscribing to its facts here (not
 * through a closure in the composition root); the person's own input on a held phone is wired
 * by `wirePersonInput`, once the lanes and the timeline it needs exist.
 */
import type { AuditSink, BridgeEventSink, BridgeEventSource } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import { BridgeError } from '../errors';
import { ASK_AUDIT, PersonAsks, type AskRequest } from './person-asks';
import { runPersonInput, type PersonInput, type PersonInputDeps } from './person-input';
import { Takeover } from './takeover';
import type { ActionTimeline } from '../phone-view/action-timeline';
import type { PhoneShells } from '../tools/phone-shells';
import type { ToolLanes } from '../tools/tool-definition';

export interface TakeoverPorts {
  clock: () => number;
  events: BridgeEventSink & BridgeEventSource;
  audit: AuditSink;
  /** The console and the tray redraw (the admin event hub's 'state'). */
  changed: () => void;
  /** Settings → Limits as it is now: an ask waits at most the approval timeout, read at each ask. */
  liveLimits: { values(): { approval_timeout_ms: number } };
  onError: (error: unknown) => void;
}

export interface TakeoverRoom {
  takeover: Takeover;
  asks: PersonAsks;
  /** The ask backend the tools call (tools/tool-services.ts PersonAskBackend). */
  askPerson: {
    maxTimeoutMs: () => number;
    ask: (request: Omit<AskRequest, 'alreadyTakenSince'>) => ReturnType<PersonAsks['ask']>;
  };
  stop: () => Promise<void>;
}

export function wireTakeover(ports: TakeoverPorts): TakeoverRoom {
  const { clock, audit } = ports;
  const owned = new DisposableStore(ports.onError);
  const asks = new PersonAsks({
    clock,
    events: {
      changed: ports.changed,
      audit: (ask, action, details) =>
        audit({
          deviceId: ask.device_id,
          action,
          code: ASK_AUDIT[action].code,
          reasons: [ASK_AUDIT[action].reason],
          decision: action,
          decidedBy: action === 'ask_declined' ? 'person' : 'bridge',
          details: { ask_id: ask.ask_id, connector_channel_id: ask.connector_channel_id, ...details },
          ...(action === 'ask_person' ? {} : { durationMs: clock() - ask.asked_at }),
        }),
    },
  });
  const takeover = new Takeover(clock, ports.events);
  owned.add(
    ports.events.on('takenOver', ({ deviceId, state }) => {
      asks.taken(deviceId, state.since);
      audit({
        deviceId,
        action: 'take_over',
        code: null,
        reasons: ['a person took the phone over at the computer'],
        decision: 'taken_over',
        decidedBy: 'person',
        details: { by: state.by, agent_may_watch: state.agentMayWatch },
      });
    }),
  );
  owned.add(
    ports.events.on('handedBack', (back) => {
      asks.handedBack(back);
      audit({
        deviceId: back.deviceId,
        action: 'hand_back',
        code: null,
        reasons: ['the person handed the phone back to the agent'],
        decision: 'handed_back',
        decidedBy: 'person',
        details: {
          held_ms: back.heldMs,
          by: back.by,
          agent_may_watch: back.agentMayWatch,
          ...(back.note ? { note: back.note } : {}),
        },
        durationMs: back.heldMs,
      });
    }),
  );
  // Both redraw the console once every room has reacted (the stage `last`).
  owned.add(ports.events.on('takenOver', ports.changed, 'last'));
  owned.add(ports.events.on('handedBack', ports.changed, 'last'));
  return {
    takeover,
    asks,
    askPerson: {
      maxTimeoutMs: () => ports.liveLimits.values().approval_timeout_ms,
      ask: (request) => asks.ask({ ...request, alreadyTakenSince: takeover.state(request.deviceId)?.since ?? null }),
    },
    stop: () => owned.dispose(),
  };
}

export interface PersonInputPorts {
  takeover: Pick<Takeover, 'isTaken'>;
  audit: AuditSink;
  registry: { get(deviceId: string): DeviceRecord | undefined };
  shells: Pick<PhoneShells, 'shellFor' | 'screenSize'>;
  queue: PersonInputDeps['queue'];
  /** The fast lane's helper types any language while it runs and is allowed; else the phone's keyboard. */
  lanes: { forCall(deviceId: string, shell: DeviceShell): Pick<ToolLanes, 'typeText'> };
  /** The phone view's timeline shows the person's input beside the agent's calls. */
  timeline: Pick<ActionTimeline, 'recordPerson'>;
  commandTimeoutMs: number;
  clock: () => number;
}

/** The person's taps, keys and typing on a phone they hold, each audited and shown in the timeline. */
export function wirePersonInput(ports: PersonInputPorts): (deviceId: string, input: PersonInput) => Promise<void> {
  const { takeover, audit, timeline, shells, commandTimeoutMs } = ports;
  const run: PersonInputDeps = {
    queue: ports.queue,
    clock: ports.clock,
    commandTimeoutMs,
    isTaken: (id) => takeover.isTaken(id),
    screenSize: (id, shell) => shells.screenSize(id, shell, { timeoutMs: commandTimeoutMs }),
    typeText: (id, shell, text, typing) => ports.lanes.forCall(id, shell).typeText(text, typing),
    record: (id, described, outcome) => {
      audit({
        deviceId: id,
        action: `person_${String(described.kind)}`,
        code: outcome.code,
        reasons: ['the person at the computer, while holding the phone'],
        decision: 'allow',
        decidedBy: 'person',
        details: described,
        durationMs: outcome.durationMs,
      });
      timeline.recordPerson(id, described, {
        code: outcome.code,
        message: outcome.message,
        durationMs: outcome.durationMs,
        points: outcome.done?.points ?? [],
        lane: outcome.done?.lane ?? null,
      });
    },
  };
  return async (deviceId, input) => {
    const device = ports.registry.get(deviceId);
    if (!device) throw new BridgeError('device_not_found', 'no such phone');
    await runPersonInput(run, deviceId, shells.shellFor(device), input);
  };
}

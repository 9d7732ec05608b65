/**
 * The tools' room wiring: the runtime that carries each call from the edge through the queue,
 * the gate and the tool to its audit line, reading the lease and the takeover through narrow
 * ports. The tools follow the leases and the takeovers by subscribing here: at a lease's end
 * they cancel its queued calls (stage `first`, right after the evidence read the lease's log);
 * at a take-over a recording or wait that would film the person stops; at a hand-back the
 * failures seen while the person held the phone unwatched are forgotten before the marks are
 * recomputed (stage `first`).
 */
import type { BridgeError } from '../errors';
import type { DataPlane } from '../server/data-plane';
import type { BridgeEventSource } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import type { PersistedBinding } from '../store/state-store';
import { ToolRuntime, type ToolRuntimeOptions } from './tool-runtime';
import type { AfterAck, CallObserver, CallRecordSink } from './tool-call';

/** What the tools read of the leases (bindings/binding-service.ts). */
export interface ToolLeaseFacts {
  activeBinding(channelId: string): PersistedBinding | undefined;
  binding(channelId: string): PersistedBinding | null;
  bindingStatus(binding: PersistedBinding): { status: string };
  awayLeaseEnd(deviceId: string): number | null;
  touch(channelId: string): void;
  toolMarksChanged(deviceId: string): void;
}

/** What the tools read of a person's hold (takeover/takeover.ts). */
export interface ToolTakeoverFacts {
  isTaken(deviceId: string): boolean;
  refusal(deviceId: string): BridgeError;
  logHiddenUntil(deviceId: string): number | null;
  hidesScreenSince(deviceId: string, from: number): boolean;
  screenRefusal(deviceId: string): BridgeError;
}

type Given =
  'dataDir' | 'hashKey' | 'registry' | 'queue' | 'shells' | 'files' | 'signer' | 'options' | 'logger' | 'clock';

export interface ToolsPorts extends Pick<ToolRuntimeOptions, Given | 'lanes' | 'asks' | 'screens'> {
  events: BridgeEventSource;
  leases: ToolLeaseFacts;
  takeover: ToolTakeoverFacts;
  /** Policy, approvals and the audit trail (safety/): asked inside each call's slot, told before and after the ack. */
  safety: {
    gate: NonNullable<ToolRuntimeOptions['gate']> & NonNullable<AfterAck['screenHistory']>;
    sink: CallRecordSink;
    auditor: NonNullable<AfterAck['audit']>;
  };
  /** Told of every finished call as its ack is sent (before any later packet), after the safety's sink: the metrics, what the lease left, the evidence. */
  metrics: CallRecordSink;
  effects: CallRecordSink;
  evidence: { recorder: CallRecordSink };
  /** The phone view's timeline watches each call while it happens. */
  timeline: CallObserver;
  labSecrets: NonNullable<ToolRuntimeOptions['secrets']>;
  /** The programs the bridge runs on phones: the one that can tell the apps' names (phone-programs/). */
  programs: { appLabels: NonNullable<ToolRuntimeOptions['appLabels']> };
  /** A call's progress reaches its channel (server/data-plane.ts). */
  plane: DataPlane;
  changed: () => void;
  onError: (error: unknown) => void;
}

export function wireTools(ports: ToolsPorts): { tools: ToolRuntime; stop: () => Promise<void> } {
  const { events, leases, takeover, safety } = ports;
  const owned = new DisposableStore(ports.onError);
  const tools = new ToolRuntime({
    dataDir: ports.dataDir,
    hashKey: ports.hashKey,
    registry: ports.registry,
    queue: ports.queue,
    shells: ports.shells,
    files: ports.files,
    signer: ports.signer,
    options: ports.options,
    logger: ports.logger,
    clock: ports.clock,
    gate: safety.gate,
    sinks: [safety.sink, ports.metrics, ports.effects, ports.evidence.recorder],
    afterAck: { audit: safety.auditor, screenHistory: safety.gate },
    lanes: ports.lanes,
    observer: ports.timeline,
    secrets: ports.labSecrets,
    stateChanged: ports.changed,
    progress: (channelId, payload) => ports.plane.pushToChannel(channelId, 'tool.progress.push', payload),
    ...(ports.asks ? { asks: ports.asks } : {}),
    ...(ports.screens ? { screens: ports.screens } : {}),
    appLabels: (deviceId, shell, options) => ports.programs.appLabels(deviceId, shell, options),
    marksChanged: (deviceId) => leases.toolMarksChanged(deviceId),
    activeDeviceFor: (channelId) => leases.activeBinding(channelId)?.deviceId,
    leaseKeyFor: (channelId) => {
      const binding = leases.activeBinding(channelId);
      return binding && `${binding.deviceId}@${binding.lease.startedAt}`;
    },
    awayLeaseEnd: (deviceId) => leases.awayLeaseEnd(deviceId),
    bindingStatus: (channelId) => {
      const binding = leases.binding(channelId);
      return binding ? leases.bindingStatus(binding).status : 'created';
    },
    touch: (channelId) => leases.touch(channelId),
    heldByPerson: (deviceId) => (takeover.isTaken(deviceId) ? takeover.refusal(deviceId) : null),
    logHiddenUntil: (deviceId) => takeover.logHiddenUntil(deviceId),
    screenHidden: (deviceId, since) =>
      takeover.hidesScreenSince(deviceId, since) ? takeover.screenRefusal(deviceId) : null,
  });
  owned.add(
    events.on(
      'leaseEnded',
      ({ channelId, deviceId, reason }) => tools.onBindingEnded(channelId, deviceId, reason),
      'first',
    ),
  );
  owned.add(
    events.on(
      'takenOver',
      ({ deviceId, state }) => state.agentMayWatch || tools.stopScreenReads(deviceId, takeover.screenRefusal(deviceId)),
    ),
  );
  owned.add(events.on('handedBack', (back) => back.agentMayWatch || tools.forgetFailuresSeen(back.deviceId), 'first'));
  tools.registerHandlers(ports.plane);
  return { tools, stop: () => owned.dispose() };
}

/**
 * The bindings' room wiring: the leases, their Descriptors and the tool marks in them. The
 * marks are computed here from the facts the other rooms keep (the phone check, the tools'
 * refusals, a person's hold); the leases follow the takeovers and the hand-over by subscribing
 * to their facts: a hold moves the lease timers on and changes the marks, a phone the
 * hand-over freed lets the next claim in. The tools, the phone check, the hand-over and the
 * data plane are made after the bindings (they ask the bindings about leases): they are read
 * through `get()` once the bridge runs.
 */
import { leasePolicyOf } from '../config/core-options';
import type { LimitValues } from '../../contract/limits';
import { TOOLS } from '../tools/catalogue';
import type { AdminPhoneCheck } from '../../contract/admin-api';
import type { BridgeEventSink, BridgeEventSource, TakenOver } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import { BindingService, type BindingServiceOptions } from './binding-service';
import { toolMarks } from './tool-marks';

const TOOL_IDS = TOOLS.map((t) => t.id);

type Refusal = { at: number; message: string; fix: string | null } | null;

export interface BindingsPorts extends Pick<BindingServiceOptions, 'store' | 'runtime' | 'registry' | 'clock'> {
  events: BridgeEventSink & BridgeEventSource;
  /** Settings → Limits at start: the lease policy (a change reaches the bindings through config/apply-limits.ts). */
  limits: LimitValues;
  options: { pairingTtlMs: number };
  takeover: { isTaken(deviceId: string): boolean; state(deviceId: string): TakenOver | null };
  tools: {
    get(): {
      lastAction: NonNullable<BindingServiceOptions['lastAction']>;
      lastRefusal(deviceId: string, code: 'input_blocked' | 'install_blocked'): Refusal;
      lastTreeRead(deviceId: string): number | null;
    };
  };
  phoneCheck: { get(): { latest(deviceId: string): AdminPhoneCheck | null } };
  /** Why a phone nobody holds cannot be bound yet (its hand-over runs or failed), else null. */
  handover: { get(): { blocks(deviceId: string): string | null } };
  plane: { get(): { pushToChannel(channelId: string, type: string, payload: Record<string, unknown>): boolean } };
  /** Something the console shows changed (the admin event hub's 'state'): a Descriptor was pushed. */
  changed: () => void;
  onError: (error: unknown) => void;
}

export function wireBindings(ports: BindingsPorts): { bindings: BindingService; stop: () => Promise<void> } {
  const { events, takeover, tools } = ports;
  const owned = new DisposableStore(ports.onError);
  const bindings = new BindingService({
    store: ports.store,
    runtime: ports.runtime,
    registry: ports.registry,
    toolIds: () => TOOL_IDS,
    lease: leasePolicyOf(ports.limits),
    pairingTtlMs: ports.options.pairingTtlMs,
    clock: ports.clock,
    events,
    // Tools a phone refuses are marked in its channels' Descriptors (tool-marks.ts).
    toolMarks: (deviceId) =>
      toolMarks({
        check: ports.phoneCheck.get().latest(deviceId),
        inputRefusal: tools.get().lastRefusal(deviceId, 'input_blocked'),
        installRefusal: tools.get().lastRefusal(deviceId, 'install_blocked'),
        treeReadAt: tools.get().lastTreeRead(deviceId),
        takenOver: takeover.state(deviceId),
      }),
    deviceBlocked: (deviceId) => ports.handover.get().blocks(deviceId),
    heldByPerson: (deviceId) => takeover.isTaken(deviceId),
    // Bindings end only once the core runs, after the tools exist.
    lastAction: (channelId) => tools.get().lastAction(channelId),
    push: (channelId, descriptor) => {
      ports.plane.get().pushToChannel(channelId, 'connection.descriptor.push', { connection_descriptor: descriptor });
      ports.changed();
    },
  });
  owned.add(events.on('takenOver', ({ deviceId }) => bindings.toolMarksChanged(deviceId)));
  owned.add(
    events.on('handedBack', ({ deviceId, heldMs }) => {
      bindings.resumeAfterTakeover(deviceId, heldMs);
      bindings.toolMarksChanged(deviceId);
    }),
  );
  owned.add(events.on('phoneFree', ({ deviceId }) => bindings.phoneFree(deviceId)));
  return { bindings, stop: () => owned.dispose() };
}

/**
 * The hand-over room's wiring: what a lease leaves on its phone (lease-effects.ts) and the
 * hand-over that puts it back (handover.ts). It follows the leases and the phones by
 * subscribing to their facts here; it tells the others `handoverChanged` and `phoneFree`.
 */
import type { AdminTurnover } from '../../contract/admin-api';
import type { AuditSink, BridgeEventSink, BridgeEventSource } from '../events/bridge-events';
import { DisposableStore, listen } from '../lifecycle/disposables';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import type { ToolLanes } from '../tools/tool-definition';
import type { PhoneShells } from '../tools/phone-shells';
import { Handover, HANDOVER_CHANNEL } from './handover';
import { LeaseEffects } from './lease-effects';

/** How long clearing the clipboard may take. */
const CLIPBOARD_CLEAR_MS = 10_000;

export interface HandoverPorts {
  store: StateStore;
  clock: () => number;
  events: BridgeEventSink & BridgeEventSource;
  audit: AuditSink;
  /** How a channel's live lease began (desktop_approval, device_claim). */
  leases: { activeBinding(channelId: string): { flowId: string } | undefined };
  registry: { get(deviceId: string): DeviceRecord | undefined };
  shells: Pick<PhoneShells, 'shellFor'>;
  queue: {
    submit(
      deviceId: string,
      kind: 'control',
      channel: string,
      work: (signal: AbortSignal) => Promise<void>,
    ): Promise<void>;
  };
  /** The fast lane (helper/fast-lane.ts): the phone's clipboard through its helper or scrcpy-server. */
  lanes: { forCall(deviceId: string, shell: DeviceShell): Pick<ToolLanes, 'clipboard'> };
  /** Counts the finished hand-over (metrics/bridge-metrics.ts). */
  metrics: { turnoverFinished(report: AdminTurnover): void };
  onError: (error: unknown) => void;
  logger: Pick<Logger, 'warn'>;
}

export interface HandoverRoom {
  handover: Handover;
  effects: LeaseEffects;
  stop: () => Promise<void>;
}

export function wireHandover(ports: HandoverPorts): HandoverRoom {
  const { events, store } = ports;
  const owned = new DisposableStore(ports.onError);
  const { shells } = ports;
  const effects = new LeaseEffects(store, (channelId) => ports.leases.activeBinding(channelId)?.flowId);
  const handover = new Handover({
    store,
    effects,
    clock: ports.clock,
    device: (deviceId) => ports.registry.get(deviceId),
    labPhone: (deviceId) => store.get().accessCodes.some((code) => code.scope === deviceId),
    shellFor: (device) => shells.shellFor(device),
    submit: (deviceId, work) => ports.queue.submit(deviceId, 'control', HANDOVER_CHANNEL, work),
    clearClipboard: async (device, signal) => {
      const clipboard = await ports.lanes.forCall(device.deviceId, shells.shellFor(device)).clipboard({ signal });
      if (!clipboard) return false;
      await clipboard.write('', { timeoutMs: CLIPBOARD_CLEAR_MS, signal });
      return true;
    },
    onError: (error) => ports.logger.warn('turnover could not record its outcome', { error: String(error) }),
    audit: ({ deviceId, report }) => {
      ports.metrics.turnoverFinished(report);
      ports.audit({
        deviceId,
        action: 'turnover',
        decision: 'turnover',
        code: report.state === 'failed' ? 'turnover_failed' : null,
        reasons: report.problems,
        durationMs: report.duration_ms ?? 0,
        details: {
          lease_end: report.lease_end,
          stopped_apps: report.stopped_apps,
          removed_apps: report.removed_apps,
          deleted_files: report.deleted_files,
          cleared_apps: report.cleared_apps,
          restored_permissions: report.restored_permissions,
          clipboard_cleared: report.clipboard_cleared,
          home_pressed: report.home_pressed,
        },
      });
    },
  });
  owned.add(events.on('leaseStarted', ({ channelId, deviceId }) => handover.leaseStarted(channelId, deviceId)));
  // Last: after the lease's own work was canceled, the hand-over queues behind what still stops.
  owned.add(
    events.on(
      'leaseEnded',
      ({ channelId, deviceId, reason }) => handover.leaseEnded(channelId, deviceId, reason),
      'last',
    ),
  );
  owned.add(events.on('deviceChanged', ({ deviceId, ready }) => ready && handover.deviceReady(deviceId)));
  owned.add(listen(handover, 'free', (deviceId: string) => events.emit('phoneFree', { deviceId })));
  owned.add(
    listen(handover, 'changed', (deviceId: string) => {
      const report = handover.report(deviceId);
      const finished = report && (report.state === 'done' || report.state === 'failed') ? report : null;
      events.emit('handoverChanged', { deviceId, finished });
    }),
  );
  return { handover, effects, stop: () => owned.dispose() };
}

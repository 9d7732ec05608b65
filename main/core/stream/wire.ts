/**
 * The screen stream's room wiring: minicap on each phone while it is leased or watched, on
 * phones whose person agreed (the consent kept in the settings). Its pictures reach their users
 * through the screen room (screen/wire.ts). The stream follows the leases, the phones and the
 * control queue by subscribing here.
 */
import type { BridgeEventSource } from '../events/bridge-events';
import type { LeaseHolders } from '../events/bridge-events';
import type { PhoneShells } from '../tools/phone-shells';
import { DisposableStore } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import { settingsSlot, type SettingsSlot } from '../store/settings-slot';
import type { ProgramConsentStore } from '../program-lifecycle/program-lifecycle';

type StoredStreamConsent = { default: 'ask' | 'on'; devices: Record<string, 'on' | 'off'> };
import { STREAM_VIEW_GRACE_MS, ScreenStreams, type ScreenStreamsOptions } from './screen-streams';

export interface StreamPorts {
  store: StateStore;
  events: BridgeEventSource;
  /** The phone's shell on display 0 (undefined when it is not connected) and the display the tools act on. */
  shells: Pick<PhoneShells, 'defaultDisplayShell' | 'displayInUse'>;
  leases: LeaseHolders;
  /** The live view (phone-view/live-frames.ts), made after the stream: whether a view asked for frames lately. */
  frames: { get(): { watched(deviceId: string, graceMs: number): boolean } };
  queue: {
    lastControlEndedAt(deviceId: string): number | undefined;
    controlLoad(deviceId: string): number;
    onControlEnded(listener: (deviceId: string) => void): () => void;
  };
  changed: () => void;
  clock: () => number;
  /** The start options of the stream (core-options' `screenStream`). */
  options: { screenStream?: Partial<Pick<ScreenStreamsOptions, 'reconcileMs' | 'startTimeoutMs' | 'latencyFloorMs'>> };
  logger: Logger;
  onError: (error: unknown) => void;
}

export interface StreamRoom {
  streams: ScreenStreams;
  stop: () => Promise<void>;
}

/**
 * The stream's consent as every program's (program-lifecycle/program-lifecycle.ts), stored as the lab
 * sees it: `ask` (streams only phones a person turned it on for) is the default `off`.
 */
function streamConsent(slot: SettingsSlot<StoredStreamConsent>): ProgramConsentStore {
  return {
    get: () => {
      const saved = slot.get();
      return { default: saved.default === 'on' ? 'on' : 'off', devices: saved.devices };
    },
    set: (next) => slot.set({ default: next.default === 'on' ? 'on' : 'ask', devices: next.devices }),
  };
}

export function wireStream(ports: StreamPorts): StreamRoom {
  const { events, queue } = ports;
  const owned = new DisposableStore(ports.onError);
  const streams = new ScreenStreams({
    consent: streamConsent(settingsSlot(ports.store, 'screenStream', { default: 'ask', devices: {} })),
    shellFor: (deviceId) => ports.shells.defaultDisplayShell(deviceId),
    leased: (deviceId) => ports.leases.leaseHolder(deviceId) !== undefined,
    // A view that stopped asking (closed, or its page hidden) lets the stream go soon after.
    watched: (deviceId) => ports.frames.get().watched(deviceId, STREAM_VIEW_GRACE_MS),
    displayInUse: (deviceId) => ports.shells.displayInUse(deviceId),
    lastControlEndedAt: (deviceId) => queue.lastControlEndedAt(deviceId),
    controlLoad: (deviceId) => queue.controlLoad(deviceId),
    logger: ports.logger,
    changed: ports.changed,
    ...ports.options.screenStream,
  });
  owned.add(queue.onControlEnded((deviceId) => streams.controlEnded(deviceId)));
  owned.add(events.on('leaseEnded', ({ deviceId }) => streams.leaseEnded(deviceId)));
  owned.add(
    events.on('deviceChanged', ({ deviceId, ready }) =>
      ready ? streams.deviceReady(deviceId) : streams.forget(deviceId),
    ),
  );
  return { streams, stop: () => owned.dispose() };
}

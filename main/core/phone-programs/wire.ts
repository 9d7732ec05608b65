/**
 * The port-less programs' room wiring (scrcpy-server's input, the UI reader's and the snapshot
 * helper's tree): on
 * by default, reached through adb only, while the phone is leased, with their consent kept in
 * the settings. They follow the leases, the phones, the hand-back and Settings → Limits by
 * subscribing to those facts here.
 */
import type { BridgeEventSink, BridgeEventSource, LeaseHolders } from '../events/bridge-events';
import type { PhoneShells } from '../tools/phone-shells';
import { DisposableStore } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import { PhonePrograms } from './phone-programs';

/** What every program the bridge runs on phones is wired with (the helper's wire.ts takes it too). */
export interface ProgramRoomPorts {
  store: StateStore;
  events: BridgeEventSink & BridgeEventSource;
  /** Whether the phone is leased: the programs run only then (docs/REFERENCE.md "Fast lane"). */
  leases: LeaseHolders;
  /** A program's state changed: the console redraws (the phone check hears `programsChanged`). */
  changed: () => void;
  /** Settings → Limits at start: the idle stop (a change arrives as `limitsChanged`). */
  limits: { fast_lane_idle_stop_ms: number };
  logger: Logger;
  clock: () => number;
  onError: (error: unknown) => void;
}

export interface PhoneProgramsPorts extends ProgramRoomPorts {
  /** The screen's size, read within `commandTimeoutMs`. */
  shells: Pick<PhoneShells, 'screenSize'>;
  commandTimeoutMs: number;
  /** The start options (core-options' `fastLane`): off with `portless: false`, and the programs' deadlines. */
  options: {
    fastLane?: { portless?: boolean; uiReader?: boolean; programStartTimeoutMs?: number; programRetryMs?: number };
  };
}

export function wirePhonePrograms(ports: PhoneProgramsPorts): { programs: PhonePrograms; stop: () => Promise<void> } {
  const { events, commandTimeoutMs } = ports;
  const tuning = ports.options.fastLane;
  const owned = new DisposableStore(ports.onError);
  const programs = new PhonePrograms({
    enabled: tuning?.portless ?? true,
    // On by default: only a phone's own word is kept.
    consent: {
      get: () => ({ default: 'on', devices: ports.store.get().settings.phonePrograms?.devices ?? {} }),
      set: (next) =>
        ports.store.update((draft) => {
          draft.settings.phonePrograms = { devices: next.devices };
        }),
    },
    leaseActive: (deviceId) => ports.leases.leaseHolder(deviceId) !== undefined,
    screenSize: (deviceId, shell, options) =>
      ports.shells.screenSize(
        deviceId,
        shell,
        { timeoutMs: commandTimeoutMs },
        // Any size still usable (the cache refreshes it in the background and follows rotations).
        options?.anyUsable ? () => true : undefined,
      ),
    logger: ports.logger,
    clock: ports.clock,
    onChange: () => {
      ports.changed();
      events.emit('programsChanged', { program: 'phone_programs' });
    },
    idleStopMs: ports.limits.fast_lane_idle_stop_ms,
    ...(tuning?.programStartTimeoutMs !== undefined ? { startTimeoutMs: tuning.programStartTimeoutMs } : {}),
    ...(tuning?.programRetryMs !== undefined ? { retryMs: tuning.programRetryMs } : {}),
    ...(tuning?.uiReader === false ? { uiReaderJar: null } : {}),
  });
  owned.add(events.on('leaseEnded', ({ deviceId }) => void programs.leaseEnded(deviceId)));
  owned.add(events.on('handedBack', ({ deviceId }) => void programs.handedBack(deviceId)));
  owned.add(events.on('deviceChanged', ({ deviceId, ready }) => ready || programs.deviceGone(deviceId)));
  owned.add(
    events.on('limitsChanged', ({ changed }) => {
      if (changed.fast_lane_idle_stop_ms !== undefined) programs.setIdleStopMs(changed.fast_lane_idle_stop_ms);
    }),
  );
  return { programs, stop: () => owned.dispose() };
}

/**
 * The fast lane room's wiring: the resident helper on phones whose person agreed (its consent
 * kept in the settings), and its guard's alerts as audit lines. It follows the leases, the
 * phones and Settings → Limits by subscribing to their facts here.
 */
import type { AuditSink, BridgeEventSink, BridgeEventSource, LeaseHolders } from '../events/bridge-events';
import type { PhoneShells } from '../tools/phone-shells';
import { DisposableStore } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import { settingsSlot } from '../store/settings-slot';
import { findHelperApks } from './helper-apks';
import { HelperManager, type HelperManagerOptions } from './helper-manager';

/** The start options of the fast lane the helper reads (core-options' `fastLane`). */
type HelperTuning = Partial<Pick<HelperManagerOptions, 'startTimeoutMs' | 'pauseMs' | 'crashForgivenMs' | 'watchMs'>>;

export interface HelperPorts {
  store: StateStore;
  events: BridgeEventSink & BridgeEventSource;
  audit: AuditSink;
  /** The phone's shell on its main display, or undefined when it is not connected. */
  shells: Pick<PhoneShells, 'defaultDisplayShell'>;
  /** Whether the phone is leased: the helper runs only then (docs/REFERENCE.md "Fast lane"). */
  leases: LeaseHolders;
  /** The helper's state changed: the console redraws (the phone check hears `programsChanged`). */
  changed: () => void;
  limits: { fast_lane_idle_stop_ms: number };
  /** The start options of the fast lane (core-options' `fastLane`). */
  options: { fastLane?: HelperTuning };
  logger: Logger;
  clock: () => number;
  onError: (error: unknown) => void;
}

export function wireHelper(ports: HelperPorts): { helpers: HelperManager; stop: () => Promise<void> } {
  const { events, logger } = ports;
  const owned = new DisposableStore(ports.onError);
  const helpers = new HelperManager({
    consent: settingsSlot(ports.store, 'uia2Server', { devices: {} }),
    shellFor: (deviceId) => ports.shells.defaultDisplayShell(deviceId),
    apks: findHelperApks(),
    logger,
    clock: ports.clock,
    onChange: () => {
      ports.changed();
      events.emit('programsChanged', { program: 'helper' });
    },
    leaseActive: (deviceId) => ports.leases.leaseHolder(deviceId) !== undefined,
    onAlert: (alert) => {
      logger.warn('fast lane helper stopped to keep the phone safe', {
        device: alert.deviceId,
        code: alert.code,
        message: alert.message,
      });
      ports.audit({ deviceId: alert.deviceId, action: 'fast_lane_guard', code: alert.code, reasons: [alert.message] });
      ports.changed();
    },
    ...ports.options.fastLane,
    // Settings → Limits (the start flag or env has already won over the saved value).
    idleStopMs: ports.limits.fast_lane_idle_stop_ms,
  });
  owned.add(events.on('leaseEnded', ({ deviceId }) => helpers.leaseEnded(deviceId)));
  owned.add(events.on('deviceChanged', ({ deviceId, ready }) => ready || helpers.deviceGone(deviceId)));
  owned.add(
    events.on('limitsChanged', ({ changed }) => {
      if (changed.fast_lane_idle_stop_ms !== undefined) helpers.setIdleStopMs(changed.fast_lane_idle_stop_ms);
    }),
  );
  return { helpers, stop: () => owned.dispose() };
}

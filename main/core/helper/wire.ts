/**
 * The fast lane room's wiring: the resident helper on phones whose person agreed (its consent
 * kept in the settings), and its guard's alerts as audit lines. It follows the leases, the
 * phones and Settings → Limits by subscribing to their facts here.
 */
import type { AuditSink } from '../events/bridge-events';
import type { ProgramRoomPorts } from '../phone-programs/wire';
import type { PhoneShells } from '../tools/phone-shells';
import { DisposableStore } from '../lifecycle/disposables';
import { settingsSlot } from '../store/settings-slot';
import { findHelperApks } from './helper-apks';
import { HelperManager, type HelperManagerOptions } from './helper-manager';

/** The start options of the fast lane the helper reads (core-options' `fastLane`). */
type HelperTuning = Partial<Pick<HelperManagerOptions, 'startTimeoutMs' | 'pauseMs' | 'crashForgivenMs' | 'watchMs'>>;

export interface HelperPorts extends ProgramRoomPorts {
  audit: AuditSink;
  /** The phone's shell on its main display, or undefined when it is not connected. */
  shells: Pick<PhoneShells, 'defaultDisplayShell'>;
  /** The start options of the fast lane (core-options' `fastLane`). */
  options: { fastLane?: HelperTuning };
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

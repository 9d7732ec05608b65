/**
 * The guard's verdicts acted on (helper-guard.ts reads and judges): the helper's ports accept
 * anyone who reaches them, so it starts only as the bridge's own copy, on a phone whose person
 * turned it on knowing that; from its start, anything but the bridge seen on its ports stops it.
 * The phone's reachable addresses are read for the person to see, not to decide.
 */
import type { DeviceShell } from '../devices/device-shell';
import { bundledPackages } from './helper-apks';
import {
  HELPER_VERIFY_TIMEOUT_MS,
  describeForeign,
  foreignConnections,
  helperMismatch,
  readReachableAddresses,
  readTcpTables,
  type TcpSocketRow,
} from './helper-guard';
import { COMMAND_TIMEOUT_MS, failHelper, stopHelper, type HelperContext, type PhoneHelper } from './phone-helper';

/** Something the person must hear about now: the helper was stopped to keep the phone safe. */
export interface HelperAlert {
  deviceId: string;
  code: 'helper_foreign_connection' | 'helper_not_verified';
  message: string;
}

export interface ExposureContext extends HelperContext {
  /** How often the running helper's connections are read. */
  watchMs: number;
  /** The helper was stopped (or not started) to keep the phone safe: the person is told. */
  alert: (alert: HelperAlert) => void;
}

/**
 * Before the helper starts: the installed packages are the bridge's own copy (and the
 * phone's reachable addresses are noted for the card). False (and the phone marked) when it
 * must not start.
 */
export async function checkBeforeStart(
  context: ExposureContext,
  phone: PhoneHelper,
  shell: DeviceShell,
  generation: number,
): Promise<boolean> {
  const apks = context.apks;
  if (!apks) return false;
  const options = { timeoutMs: HELPER_VERIFY_TIMEOUT_MS };
  let addresses: string[] | null;
  let mismatch: string | null;
  try {
    [addresses, mismatch] = await Promise.all([
      readReachableAddresses(shell, options),
      helperMismatch(shell, bundledPackages(apks), options),
    ]);
  } catch (error) {
    // Could not tell (the phone did not answer): not started this time, asked again next call.
    if (phone.generation === generation) {
      phone.state = 'stopped';
      phone.lastError = `the helper was not started: its files could not be checked (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`;
      phone.lastErrorCode = 'helper_unavailable';
      context.changed();
    }
    return false;
  }
  if (phone.generation !== generation) return false;
  phone.networkAddresses = addresses;
  if (mismatch !== null) {
    const message = `the helper was not started: ${mismatch}. Something replaced it on the phone; enable the fast lane again to reinstall the bridge's copy`;
    failHelper(context, phone, message, 'helper_not_verified');
    context.alert({ deviceId: phone.deviceId, code: 'helper_not_verified', message });
    return false;
  }
  return true;
}

/**
 * From the moment its instrumentation starts until it stops: every watchMs, every socket on
 * its ports, in any state. Anything but the bridge's adb forward stops it and tells the
 * person.
 */
export function watchConnections(
  context: ExposureContext,
  phone: PhoneHelper,
  generation: number,
  delayMs: number,
): void {
  if (phone.watchTimer) clearTimeout(phone.watchTimer);
  phone.watchTimer = setTimeout(() => {
    phone.watchTimer = undefined;
    void watchOnce(context, phone, generation);
  }, delayMs);
  phone.watchTimer.unref();
}

async function watchOnce(context: ExposureContext, phone: PhoneHelper, generation: number): Promise<void> {
  const shell = context.shellFor(phone.deviceId);
  if (!shell || phone.generation !== generation || context.bridgeStopped()) return;
  const options = { timeoutMs: COMMAND_TIMEOUT_MS };
  const readAt = context.clock();
  let rows: TcpSocketRow[];
  let addresses: string[] | null;
  try {
    [rows, addresses] = await Promise.all([readTcpTables(shell, options), readReachableAddresses(shell, options)]);
  } catch (error) {
    context.logger.debug('fast lane guard could not read the phone', {
      device: phone.deviceId,
      error: error instanceof Error ? error.message : String(error),
    });
    if (phone.generation === generation) watchConnections(context, phone, generation, context.watchMs);
    return;
  }
  if (phone.generation !== generation) return;
  phone.watchedAt = context.clock();
  // A new address (Wi-Fi on while it runs) is news for the card: its ports are reachable there now.
  const moved = JSON.stringify(addresses) !== JSON.stringify(phone.networkAddresses);
  phone.networkAddresses = addresses;
  if (moved) context.changed();
  phone.ledger.beginRead(readAt);
  const foreign = foreignConnections(rows, phone.helperUid, phone.ledger);
  if (foreign.length > 0) {
    await stopHelper(context, phone, null);
    const message = `the helper was stopped: something other than the bridge connected to it (${describeForeign(foreign)}). It stays off until the fast lane is enabled again`;
    failHelper(context, phone, message, 'helper_foreign_connection');
    context.alert({ deviceId: phone.deviceId, code: 'helper_foreign_connection', message });
    return;
  }
  watchConnections(context, phone, generation, context.watchMs);
}

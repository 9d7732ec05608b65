/**
 * The guard's verdicts acted on (helper-guard.ts reads and judges): the helper's ports accept
 * anyone who reaches them, so it starts only as the bridge's own copy and, on a phone with a
 * network address, only after the person accepted that exposure; while it runs, anything but
 * the bridge connecting to it, or a network address the person has not accepted, stops it.
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
  /** Whether the helper may run on this phone while it has a network address. */
  networkAccepted: (deviceId: string) => boolean;
  /** How often the running helper's connections are read. */
  watchMs: number;
  /** The helper was stopped (or not started) to keep the phone safe: the person is told. */
  alert: (alert: HelperAlert) => void;
}

/**
 * Before the helper starts: the phone's network exposure is accepted (or it has no address
 * another host could reach), and the installed packages are the bridge's own copy. False
 * (and the phone marked) when it must not start.
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
  if (exposedWithoutConsent(context, phone, addresses)) {
    failHelper(context, phone, networkRefusal(addresses), 'helper_network_exposed');
    return false;
  }
  return true;
}

/**
 * From the moment its instrumentation starts until it stops: every watchMs, every socket on
 * its ports, in any state. Anything but the bridge's adb forward stops it and tells the
 * person; so does a network address the person has not accepted (Wi-Fi turned on while it ran).
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
  phone.networkAddresses = addresses;
  phone.ledger.beginRead(readAt);
  const foreign = foreignConnections(rows, phone.helperUid, phone.ledger);
  if (foreign.length > 0) {
    await stopHelper(context, phone, null);
    const message = `the helper was stopped: something other than the bridge connected to it (${describeForeign(foreign)}). It stays off until the fast lane is enabled again`;
    failHelper(context, phone, message, 'helper_foreign_connection');
    context.alert({ deviceId: phone.deviceId, code: 'helper_foreign_connection', message });
    return;
  }
  if (exposedWithoutConsent(context, phone, addresses)) {
    await stopHelper(context, phone, null);
    failHelper(context, phone, networkRefusal(addresses), 'helper_network_exposed');
    return;
  }
  watchConnections(context, phone, generation, context.watchMs);
}

/** The person accepted the exposure: a phone refused only for it may start again. */
export function clearNetworkRefusal(phone: PhoneHelper): void {
  if (phone.state === 'failed' && phone.lastErrorCode === 'helper_network_exposed') {
    phone.state = phone.version ? 'stopped' : 'absent';
    phone.lastError = null;
    phone.lastErrorCode = null;
  }
}

/** Whether other hosts may reach the phone (or that could not be read) and the person has not accepted it. */
export function exposedWithoutConsent(
  context: ExposureContext,
  phone: PhoneHelper,
  addresses: string[] | null,
): boolean {
  return (addresses === null || addresses.length > 0) && !context.networkAccepted(phone.deviceId);
}

/** Why the helper waits for the person on a phone that has a network address. */
function networkRefusal(addresses: string[] | null): string {
  const where =
    addresses === null
      ? 'its network addresses could not be read'
      : `it is on a network (${addresses.slice(0, 4).join(', ')})`;
  return `the helper was not started: ${where}. While it runs, its ports (6790, 7810) accept anyone who can reach the phone, with no password; allow the fast lane on this phone's network to use it`;
}

/**
 * The guard's verdicts acted on (helper-guard.ts reads and judges): the helper's ports accept
 * anyone who reaches them, so it starts only as the bridge's own copy, on a phone whose person
 * turned it on knowing that; from its start, anything but the bridge seen on its ports stops it.
 * The phone's reachable addresses are read for the person to see, not to decide.
 */
import type { DeviceShell } from '../devices/device-shell';
import { BridgeError } from '../errors';
import { bundledPackages } from './helper-apks';
import {
  HELPER_VERIFY_TIMEOUT_MS,
  describeForeign,
  foreignConnections,
  helperMismatch,
  readReachableAddresses,
  readTcpTables,
  type BridgeConnectionLedger,
  type TcpSocketRow,
} from './helper-guard';
import { SHORT_COMMAND_MS } from '../devices/deadline';
import { helperError, type HelperContext, type PhoneHelper } from './phone-helper';

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
  /** Something foreign was seen on its ports: the helper stops and stays failed (its lifecycle's `fail`). */
  foreign: (phone: PhoneHelper, error: Error) => Promise<void>;
}

/**
 * Before every start (the lifecycle's verify step): the installed packages are the bridge's own
 * copy, byte for byte (and the phone's reachable addresses are noted for the card). A copy that
 * differs is never run: the person is told, and it stays failed until enabled again (which
 * installs the bridge's copy); a check the phone did not answer is tried again at a later call.
 */
export async function verifyHelper(
  context: ExposureContext,
  phone: PhoneHelper,
  shell: DeviceShell,
  signal?: AbortSignal,
): Promise<void> {
  const apks = context.apks;
  if (!apks) throw new BridgeError('tool_unavailable', 'this build carries no appium-uiautomator2-server');
  const options = { timeoutMs: HELPER_VERIFY_TIMEOUT_MS, ...(signal ? { signal } : {}) };
  let addresses: string[] | null;
  let mismatch: string | null;
  try {
    [addresses, mismatch] = await Promise.all([
      readReachableAddresses(shell, options),
      helperMismatch(shell, bundledPackages(apks), options),
    ]);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw helperError(
      'uia2_check_unreadable',
      `the helper was not started: its files could not be checked (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`,
    );
  }
  phone.networkAddresses = addresses;
  if (mismatch !== null) {
    const message = `the helper was not started: ${mismatch}. Something replaced it on the phone; enable it again to reinstall the bridge's copy`;
    context.alert({ deviceId: phone.deviceId, code: 'helper_not_verified', message });
    throw helperError('uia2_not_verified', message);
  }
}

/** What the guard watches: one run of the helper, from `am instrument` until it stops. */
export interface WatchedRun {
  readonly stopped: boolean;
  readonly ledger: BridgeConnectionLedger;
  /** The pending read's timer (the run clears it when it stops). */
  watchTimer: NodeJS.Timeout | undefined;
}

/**
 * From the moment its instrumentation starts until it stops — starting, ready, whatever the
 * lifecycle's state — every watchMs, every socket on its ports, in any TCP state. Anything but
 * the bridge's adb forward stops it (`context.foreign`) and tells the person.
 */
export function watchConnections(context: ExposureContext, phone: PhoneHelper, run: WatchedRun, delayMs: number): void {
  if (run.watchTimer) clearTimeout(run.watchTimer);
  run.watchTimer = setTimeout(() => {
    run.watchTimer = undefined;
    void watchOnce(context, phone, run);
  }, delayMs);
  run.watchTimer.unref();
}

async function watchOnce(context: ExposureContext, phone: PhoneHelper, run: WatchedRun): Promise<void> {
  const shell = context.shellFor(phone.deviceId);
  if (!shell || run.stopped || context.bridgeStopped()) return;
  const options = { timeoutMs: SHORT_COMMAND_MS };
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
    if (!run.stopped) watchConnections(context, phone, run, context.watchMs);
    return;
  }
  if (run.stopped) return;
  phone.watchedAt = context.clock();
  // A new address (Wi-Fi on while it runs) is news for the card: its ports are reachable there now.
  const moved = JSON.stringify(addresses) !== JSON.stringify(phone.networkAddresses);
  phone.networkAddresses = addresses;
  if (moved) context.changed();
  run.ledger.beginRead(readAt);
  const foreign = foreignConnections(rows, phone.helperUid, run.ledger);
  if (foreign.length > 0) {
    const message = `the helper was stopped: something other than the bridge connected to it (${describeForeign(foreign)}). It stays off until it is enabled again`;
    context.alert({ deviceId: phone.deviceId, code: 'helper_foreign_connection', message });
    await context.foreign(phone, helperError('uia2_foreign_connection', message));
    return;
  }
  watchConnections(context, phone, run, context.watchMs);
}

/**
 * One phone's appium-uiautomator2-server as the bridge keeps it: its one lifecycle (state,
 * start with a deadline, stop, idle stop, failures, consent: program-lifecycle.ts) and what is
 * particular to it — the server app's uid and the phone's reachable addresses, which the guard
 * reads. helper-manager.ts keeps one record per phone; the install, check, start and guard
 * steps (helper-install.ts, helper-exposure.ts, helper-process.ts) act on it.
 *
 * Its failures carry a stable reason (`last_error_reason`, put in the person's language by the
 * console) and are taken by the rule in `helperFailureKind`.
 */
import type { DeviceShell } from '../devices/device-shell';
import { BridgeError, isBridgeError } from '../errors';
import type { Logger } from '../logging/logger';
import type { FailureKind } from '../program-lifecycle/program-lifecycle';
import type { HelperApks } from './helper-apks';

/**
 * What the install, check, start and guard steps read and write of one phone's helper. Its
 * lifecycle is the manager's (helper-manager.ts `KeptHelper`): the steps never change its state,
 * and leaving it out keeps this file free of the process it describes.
 */
export interface PhoneHelper {
  deviceId: string;
  /** The server app's uid (from dumpsys at install): its LISTEN sockets name its ports; null until this bridge installed or checked it. */
  helperUid: number | null;
  /** The phone's addresses another host could reach, as last read before a start or while it ran. */
  networkAddresses: string[] | null;
  /** When the guard last read the phone's connections while the helper ran (ms since epoch). */
  watchedAt: number | null;
}

/** What every step on a phone's helper needs from the bridge around it. */
export interface HelperContext {
  /** The phone's shell, or undefined when it is not connected. */
  shellFor: (deviceId: string) => DeviceShell | undefined;
  apks: HelperApks | null;
  logger: Logger;
  clock: () => number;
  /** Whether the bridge is shutting down: nothing is started, recorded or watched any more. */
  bridgeStopped: () => boolean;
  /** Something the admin state shows changed (outside the lifecycle: addresses, the guard's last read). */
  changed: () => void;
}

/**
 * Why the helper stopped or did not start, as `last_error_reason`. A crash is started again by
 * the next call, once within the crash-forgiven time (a second crash in it leaves it failed);
 * a check that could not be read is tried again; anything else — its files not the bridge's,
 * something foreign on its ports, a phone that cannot run it, a refused install or start —
 * leaves it failed until the person enables it again.
 */
export type HelperFailure =
  | 'uia2_crashed'
  | 'uia2_check_unreadable'
  | 'uia2_paused'
  | 'uia2_not_verified'
  | 'uia2_foreign_connection'
  | 'uia2_no_instrumentation'
  | 'uia2_install_refused'
  | 'uia2_start_failed';

const RETRIED: ReadonlySet<string> = new Set<HelperFailure>(['uia2_crashed', 'uia2_check_unreadable']);

/** The error of one of the helper's failures (code `helper_unavailable`, its reason in details). */
export function helperError(reason: HelperFailure, message: string): BridgeError {
  return new BridgeError('helper_unavailable', message, { reason });
}

/** The lifecycle's `failureKind` for the helper (the rule above). */
export function helperFailureKind(error: unknown): FailureKind {
  if (isBridgeError(error) && error.code === 'tool_unavailable') return 'unavailable';
  const reason = isBridgeError(error) ? error.details?.reason : undefined;
  return typeof reason === 'string' && RETRIED.has(reason) ? 'retry' : 'final';
}

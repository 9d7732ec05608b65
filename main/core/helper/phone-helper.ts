/**
 * One phone's helper as the bridge keeps it: its state, its process and timers, and the
 * transitions every step shares (fail, stop, forget). helper-manager.ts keeps one record per
 * phone; the install, start and guard steps (helper-install.ts, helper-process.ts,
 * helper-exposure.ts) act on it through the same context.
 */
import type { Duplex } from 'node:stream';
import type { DeviceShell } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';
import type { Logger } from '../logging/logger';
import type { HelperApks } from './helper-apks';
import { BridgeConnectionLedger } from './helper-guard';
import { HELPER_STOP_ARGV } from './helper-protocol';

export type HelperStateName = 'absent' | 'installing' | 'stopped' | 'starting' | 'running' | 'failed';

/** Deadline of one short phone command (dumpsys, force-stop, rm, a guard read, opening a stream). */
export const COMMAND_TIMEOUT_MS = 10_000;

export interface PhoneHelper {
  deviceId: string;
  state: HelperStateName;
  version: string | null;
  lastError: string | null;
  lastErrorCode: string | null;
  lanes: { helper: number; adb: number };
  crashes: number;
  /** Its last use (the idle stop counts from it). */
  lastUsedAt: number;
  /** When it last became `running` (null while not running). */
  runningSince: number | null;
  pausedUntil: number;
  instrument: Duplex | undefined;
  sessionId: string | undefined;
  starting: Promise<boolean> | undefined;
  installing: Promise<void> | undefined;
  idleTimer: NodeJS.Timeout | undefined;
  /** Bumped by every stop: a start that began before it gives up. */
  generation: number;
  /** The server app's uid (from dumpsys at install): its LISTEN sockets name its ports. */
  helperUid: number | null;
  networkAddresses: string[] | null;
  watchedAt: number | null;
  watchTimer: NodeJS.Timeout | undefined;
  /** The bridge's own connections to the helper since its last start (the guard matches what it reads against them). */
  ledger: BridgeConnectionLedger;
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
  /** Something the admin state shows changed. */
  changed: () => void;
}

/** A phone the bridge has not yet done anything with: no helper known. */
export function newPhoneHelper(deviceId: string): PhoneHelper {
  return {
    deviceId,
    state: 'absent',
    version: null,
    lastError: null,
    lastErrorCode: null,
    lanes: { helper: 0, adb: 0 },
    crashes: 0,
    lastUsedAt: 0,
    runningSince: null,
    pausedUntil: 0,
    instrument: undefined,
    sessionId: undefined,
    starting: undefined,
    installing: undefined,
    idleTimer: undefined,
    generation: 0,
    helperUid: null,
    networkAddresses: null,
    watchedAt: null,
    watchTimer: undefined,
    ledger: new BridgeConnectionLedger(),
  };
}

/** Whether the helper runs (or starts) on this phone: it then holds the phone's UiAutomation. */
export function helperHoldsPhone(phone: PhoneHelper): boolean {
  return phone.state === 'running' || phone.state === 'starting' || phone.instrument !== undefined;
}

/** The phone's helper is `failed` with this reason until the person enables it again. */
export function failHelper(context: HelperContext, phone: PhoneHelper, message: string, code: string): void {
  phone.state = 'failed';
  phone.lastError = message;
  phone.lastErrorCode = code;
  context.logger.warn('fast lane helper failed', { device: phone.deviceId, code, message });
  context.changed();
}

/**
 * Stops the helper on a phone and force-stops its app (UiAutomation is free afterwards).
 * `reason` (when given) is shown as the last error.
 */
export async function stopHelper(context: HelperContext, phone: PhoneHelper, reason: string | null): Promise<void> {
  const wasUp = helperHoldsPhone(phone);
  const stream = detachProcess(phone);
  if (reason) phone.lastError = reason;
  stream?.destroy();
  if (wasUp) {
    const shell = context.shellFor(phone.deviceId);
    if (shell) await runText(shell, HELPER_STOP_ARGV, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => undefined);
    context.changed();
  }
}

/** The phone went away: nothing to stop on it, only the bookkeeping. */
export function forgetProcess(phone: PhoneHelper): void {
  detachProcess(phone)?.destroy();
}

/**
 * Lets go of the helper's process, session and timers (a start under way gives up, since the
 * generation moved on); returns the instrumentation stream for the caller to end.
 */
function detachProcess(phone: PhoneHelper): Duplex | undefined {
  phone.generation += 1;
  if (phone.idleTimer) clearTimeout(phone.idleTimer);
  phone.idleTimer = undefined;
  if (phone.watchTimer) clearTimeout(phone.watchTimer);
  phone.watchTimer = undefined;
  phone.watchedAt = null;
  const stream = phone.instrument;
  phone.instrument = undefined;
  phone.sessionId = undefined;
  if (phone.state === 'running' || phone.state === 'starting') phone.state = 'stopped';
  phone.runningSince = null;
  return stream;
}

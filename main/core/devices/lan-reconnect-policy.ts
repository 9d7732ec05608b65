/**
 * How LAN phones are retried: the options (checked once, up front) and the capped
 * exponential backoff between connect attempts. Defaults are the documented limits in README.
 */
export interface LanOptions {
  /** Delay before the second attempt after a drop; doubles per failed attempt. Default 1 s. */
  backoffInitialMs?: number;
  /** Cap of the delay between attempts. Default 30 s. */
  backoffMaxMs?: number;
  /** Deadline of one `host:connect`; above adb's own 10 s so adb reports why it failed. Default 12 s. */
  connectTimeoutMs?: number;
  /** How long a phone adb says it connected may take to be listed as `device`. Default 4 s. */
  verifyTimeoutMs?: number;
}

/** How long adb 1.0.41 itself tries a `host:connect` before answering "failed to connect". */
export const ADB_CONNECT_WINDOW_MS = 10_000;

export const LAN_DEFAULTS = {
  backoffInitialMs: 1000,
  backoffMaxMs: 30_000,
  connectTimeoutMs: 12_000,
  verifyTimeoutMs: 4000,
} as const;

function checkMs(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`lan.${name} must be a positive integer of milliseconds (got ${String(value)})`);
  return value;
}

/** Resolves LAN options with defaults; a wrong value is a start-up error. */
export function resolveLanOptions(input: LanOptions = {}): Required<LanOptions> {
  const resolved = {
    backoffInitialMs: checkMs('backoffInitialMs', input.backoffInitialMs ?? LAN_DEFAULTS.backoffInitialMs),
    backoffMaxMs: checkMs('backoffMaxMs', input.backoffMaxMs ?? LAN_DEFAULTS.backoffMaxMs),
    connectTimeoutMs: checkMs('connectTimeoutMs', input.connectTimeoutMs ?? LAN_DEFAULTS.connectTimeoutMs),
    verifyTimeoutMs: checkMs('verifyTimeoutMs', input.verifyTimeoutMs ?? LAN_DEFAULTS.verifyTimeoutMs),
  };
  if (resolved.backoffMaxMs < resolved.backoffInitialMs)
    throw new TypeError('lan.backoffMaxMs must not be below lan.backoffInitialMs');
  return resolved;
}

/** Delay before attempt n+1 after n failed attempts: initial·2^(n−1), capped. */
export function backoffDelay(
  failedAttempts: number,
  options: { backoffInitialMs: number; backoffMaxMs: number },
): number {
  if (failedAttempts <= 0) return 0;
  return Math.min(options.backoffInitialMs * 2 ** Math.min(failedAttempts - 1, 30), options.backoffMaxMs);
}

/**
 * The lease timer: when a device lease ends by itself. A lease ends when its channel made no
 * tool call for the idle timeout, when it reaches its maximum (what the person agreed to;
 * extended or revoked by hand), or when its phone stays offline past the disconnect grace
 * (while it is offline, the idle timeout does not run).
 * The binding service checks every active lease against this every LEASE_CHECK_MS.
 */
import type { PersistedLease } from '../store/state-store';

/** How often active leases are checked (their ends are late by at most this). */
export const LEASE_CHECK_MS = 250;

export type LeaseEnd = 'idle' | 'max_duration' | 'offline';

/**
 * Why this lease ends now, or null while it holds. `offlineSince`: when its phone was last
 * seen going offline, undefined while it is online.
 */
export function leaseEndsNow(
  lease: PersistedLease,
  now: number,
  offlineSince: number | undefined,
  disconnectGraceMs: number,
): LeaseEnd | null {
  // An unplugged phone cannot be used, so its agent is not idle by choice: while it is away only
  // the disconnect grace (and the maximum) may end the lease, and the idle clock restarts when it
  // comes back (BindingService.onDeviceChanged).
  if (offlineSince === undefined && lease.idleTimeoutMs !== null && now - lease.lastActivityAt >= lease.idleTimeoutMs)
    return 'idle';
  if (lease.maxUntil !== null && now >= lease.maxUntil) return 'max_duration';
  if (offlineSince !== undefined && now - offlineSince >= disconnectGraceMs) return 'offline';
  return null;
}

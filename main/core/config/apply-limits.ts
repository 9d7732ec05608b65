/**
 * Settings → Limits changed while the bridge runs: each changed limit reaches the one service
 * that enforces it, and nothing else is touched (a new queue depth does not reset the cache).
 */
import type { LimitValues } from '../../contract/limits';
import type { BridgeEventSource } from '../events/bridge-events';
import type { FileCacheLimits } from '../files/file-cache';
import { leasePolicyOf, type LeasePolicy } from './core-options';

/** The services that hold a limit, by the one setter each offers. */
export interface LimitHolders {
  approvals: { setApprovalTimeout(ms: number): void };
  leases: { setLeasePolicy(policy: LeasePolicy): void };
  files: { setLimits(next: Partial<Pick<FileCacheLimits, 'ttlMs' | 'maxBytes' | 'maxFiles'>>): void };
  queue: { setMaxDepth(maxDepth: number): void };
  runtime: { setRuntimeLeaseMs(ms: number): void };
  /** Absent in the bridge: the fast lane's rooms follow `limitsChanged` themselves (helper/wire.ts, phone-programs/wire.ts). */
  fastLane?: { setIdleStopMs(ms: number): void };
}

const LEASE_LIMITS = ['lease_max_duration_ms', 'lease_idle_timeout_ms', 'lease_disconnect_grace_ms'] as const;
const CACHE_LIMITS = ['file_cache_ttl_ms', 'file_cache_max_bytes', 'file_cache_max_files'] as const;

/** Hands the `changed` limits, read whole from `now`, to the services in `holders`. */
export function applyLimitChanges(changed: Partial<LimitValues>, now: LimitValues, holders: LimitHolders): void {
  const touched = (names: readonly (keyof LimitValues)[]): boolean => names.some((name) => changed[name] !== undefined);
  if (changed.approval_timeout_ms !== undefined) holders.approvals.setApprovalTimeout(now.approval_timeout_ms);
  if (touched(LEASE_LIMITS)) holders.leases.setLeasePolicy(leasePolicyOf(now));
  if (touched(CACHE_LIMITS)) {
    holders.files.setLimits({
      ttlMs: now.file_cache_ttl_ms,
      maxBytes: now.file_cache_max_bytes,
      maxFiles: now.file_cache_max_files,
    });
  }
  if (changed.queue_max_depth !== undefined) holders.queue.setMaxDepth(now.queue_max_depth);
  if (changed.fast_lane_idle_stop_ms !== undefined) holders.fastLane?.setIdleStopMs(now.fast_lane_idle_stop_ms);
  if (changed.runtime_grace_ms !== undefined) holders.runtime.setRuntimeLeaseMs(now.runtime_grace_ms);
}

/** Hands every `limitsChanged` to the services in `holders`, then to `told`; returns the stop. */
export function followLimitChanges(
  events: BridgeEventSource,
  now: () => LimitValues,
  holders: LimitHolders,
  told: (changed: Partial<LimitValues>) => void,
): () => void {
  return events.on('limitsChanged', ({ changed }) => {
    applyLimitChanges(changed, now(), holders);
    told(changed);
  });
}

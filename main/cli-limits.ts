/**
 * The changeable limits on the command line of `serve` and `demo`: one flag and one env
 * variable per limit of main/contract/limits.ts (`--approval-timeout 2m`,
 * `DEVICE_BRIDGE_CACHE_SIZE=256MiB`, `--lease-max none`), parsed in the limit's unit and
 * range. A flag wins over its env variable; either wins over the value saved from Settings
 * (the core is told which one set it, and the console says so).
 */
import {
  LIMIT_DEFINITIONS,
  LIMIT_KEYS,
  describeLimitRange,
  formatLimitValue,
  type LimitKey,
  type LimitValues,
} from './contract/limits';
import type { CoreOptionsInput } from './core/config/core-options';
import { parseLimitText } from './core/config/limit-text';
import { UsageError, type FlagSpec } from './cli-args';

const PLACEHOLDER = { duration: 'DURATION', bytes: 'SIZE', count: 'N' } as const;

/** One valued flag per limit, for the flag tables of serve and demo. */
export const LIMIT_FLAGS: readonly FlagSpec[] = LIMIT_KEYS.map((key) => {
  const d = LIMIT_DEFINITIONS[key];
  return {
    name: d.flag.replace(/^--/, ''),
    kind: 'value',
    placeholder: d.nullable ? `${PLACEHOLDER[d.unit]}|none` : PLACEHOLDER[d.unit],
    help: `${d.label.toLowerCase()}, ${describeLimitRange(key)} (default ${formatLimitValue(d.unit, d.default)}; env ${d.env})`,
  };
});

/** Reads a flag's value by its name (ParsedFlags.value, or a stand-in in tests). */
export type FlagValue = (name: string) => string | undefined;

/**
 * The limits a command line or the environment sets, checked: a bad value is a UsageError
 * naming the flag or variable (exit 2 before anything starts).
 */
export function limitsFromCommandLine(
  flag: FlagValue,
  env: NodeJS.ProcessEnv,
): { values: Partial<LimitValues>; origins: Partial<Record<LimitKey, string>> } {
  const values: Partial<Record<LimitKey, number | null>> = {};
  const origins: Partial<Record<LimitKey, string>> = {};
  for (const key of LIMIT_KEYS) {
    const d = LIMIT_DEFINITIONS[key];
    const fromFlag = flag(d.flag.replace(/^--/, ''));
    const fromEnv = env[d.env];
    const [text, origin] =
      fromFlag !== undefined
        ? [fromFlag, d.flag]
        : fromEnv !== undefined && fromEnv.trim() !== ''
          ? [fromEnv, d.env]
          : [undefined, ''];
    if (text === undefined) continue;
    const parsed = parseLimitText(key, text, origin);
    if (!parsed.ok) throw new UsageError('invalid_value', parsed.message);
    values[key] = parsed.value;
    origins[key] = origin;
  }
  return { values: values as Partial<LimitValues>, origins };
}

/** The core options for those limits (the inverse of core-options' startLimits). */
export function coreOptionsForLimits(limits: {
  values: Partial<LimitValues>;
  origins: Partial<Record<LimitKey, string>>;
}): Partial<CoreOptionsInput> {
  const v = limits.values;
  const lease = {
    ...(v.lease_max_duration_ms !== undefined ? { maxDurationMs: v.lease_max_duration_ms } : {}),
    ...(v.lease_idle_timeout_ms !== undefined ? { idleTimeoutMs: v.lease_idle_timeout_ms } : {}),
    ...(v.lease_disconnect_grace_ms !== undefined ? { disconnectGraceMs: v.lease_disconnect_grace_ms } : {}),
  };
  const fileCache = {
    ...(v.file_cache_ttl_ms !== undefined ? { ttlMs: v.file_cache_ttl_ms } : {}),
    ...(v.file_cache_max_bytes !== undefined ? { maxBytes: v.file_cache_max_bytes } : {}),
    ...(v.file_cache_max_files !== undefined ? { maxFiles: v.file_cache_max_files } : {}),
  };
  return {
    ...(v.approval_timeout_ms !== undefined ? { approvalTimeoutMs: v.approval_timeout_ms } : {}),
    ...(Object.keys(lease).length > 0 ? { lease } : {}),
    ...(Object.keys(fileCache).length > 0 ? { fileCache } : {}),
    ...(v.queue_max_depth !== undefined ? { queue: { maxDepth: v.queue_max_depth } } : {}),
    ...(v.fast_lane_idle_stop_ms !== undefined ? { fastLane: { idleStopMs: v.fast_lane_idle_stop_ms } } : {}),
    ...(v.runtime_grace_ms !== undefined ? { runtimeLeaseMs: v.runtime_grace_ms } : {}),
    ...(Object.keys(limits.origins).length > 0 ? { limitOrigins: limits.origins } : {}),
  };
}

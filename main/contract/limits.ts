/**
 * The limits a person may change while the bridge runs — in Settings → Limits, with
 * `PATCH /admin/api/settings`, over IPC, and with `serve`/`demo` flags or env variables.
 * One definition per limit (name, unit, range, default, flag, env, what a change touches)
 * shared by the admin API's validation, the CLI parser and the UI's labels. Plain data and
 * pure functions, no imports: the renderer bundles this file too.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

/** Live values, as `GET /admin/api/settings` returns them and `PATCH` takes them. null = no cap. */
export interface LimitValues {
  approval_timeout_ms: number;
  lease_max_duration_ms: number | null;
  lease_idle_timeout_ms: number | null;
  lease_disconnect_grace_ms: number;
  file_cache_ttl_ms: number;
  file_cache_max_bytes: number;
  file_cache_max_files: number;
  queue_max_depth: number;
  fast_lane_idle_stop_ms: number;
  runtime_grace_ms: number;
}

export type LimitKey = keyof LimitValues;

/** milliseconds, bytes, or a plain count. */
export type LimitUnit = 'duration' | 'bytes' | 'count';

export interface LimitDefinition {
  key: LimitKey;
  /** What the UI calls it. */
  label: string;
  unit: LimitUnit;
  /** null ("none") is allowed and means no cap. */
  nullable: boolean;
  /** Inclusive range, in milliseconds, bytes or items. */
  min: number;
  max: number;
  default: number | null;
  /** `serve`/`demo` flag and env variable that set it at start (they win over the saved value). */
  flag: string;
  env: string;
  /** What a change touches, one sentence (UI hint and README). */
  applies: string;
}

export const LIMIT_DEFINITIONS: {
  readonly [K in LimitKey]: Readonly<Omit<LimitDefinition, 'key' | 'default'> & { key: K; default: LimitValues[K] }>;
} = {
  approval_timeout_ms: {
    key: 'approval_timeout_ms',
    label: 'Approval countdown',
    unit: 'duration',
    nullable: false,
    min: SECOND,
    max: HOUR,
    default: 2 * MINUTE,
    flag: '--approval-timeout',
    env: 'DEVICE_BRIDGE_APPROVAL_TIMEOUT',
    applies: 'Applies to calls held from now on; a pending approval keeps the countdown it was shown with.',
  },
  lease_max_duration_ms: {
    key: 'lease_max_duration_ms',
    label: 'Lease maximum',
    unit: 'duration',
    nullable: true,
    min: MINUTE,
    max: 30 * DAY,
    default: null,
    flag: '--lease-max',
    env: 'DEVICE_BRIDGE_LEASE_MAX',
    applies: 'Applies to leases that start from now on; running leases keep their end (extend or revoke them).',
  },
  lease_idle_timeout_ms: {
    key: 'lease_idle_timeout_ms',
    label: 'Idle timeout',
    unit: 'duration',
    nullable: true,
    min: MINUTE,
    max: 7 * DAY,
    default: 30 * MINUTE,
    flag: '--lease-idle',
    env: 'DEVICE_BRIDGE_LEASE_IDLE',
    applies: 'Applies to every lease at once, running ones included, counted from its last tool call.',
  },
  lease_disconnect_grace_ms: {
    key: 'lease_disconnect_grace_ms',
    label: 'Disconnect grace',
    unit: 'duration',
    nullable: false,
    min: 10 * SECOND,
    max: 7 * DAY,
    default: 10 * MINUTE,
    flag: '--lease-disconnect-grace',
    env: 'DEVICE_BRIDGE_LEASE_DISCONNECT_GRACE',
    applies: 'Applies to every lease at once, counted from when its phone went offline.',
  },
  file_cache_ttl_ms: {
    key: 'file_cache_ttl_ms',
    label: 'File lifetime',
    unit: 'duration',
    nullable: false,
    min: 30 * SECOND,
    max: DAY,
    default: 10 * MINUTE,
    flag: '--cache-ttl',
    env: 'DEVICE_BRIDGE_CACHE_TTL',
    applies: 'Applies to files stored from now on; a shorter lifetime also ends older files early.',
  },
  file_cache_max_bytes: {
    key: 'file_cache_max_bytes',
    label: 'Cache size',
    unit: 'bytes',
    nullable: false,
    min: 16 * MIB,
    max: 64 * GIB,
    default: 256 * MIB,
    flag: '--cache-size',
    env: 'DEVICE_BRIDGE_CACHE_SIZE',
    applies: 'Applies at once: a smaller cap deletes the least recently used files.',
  },
  file_cache_max_files: {
    key: 'file_cache_max_files',
    label: 'Cache files',
    unit: 'count',
    nullable: false,
    min: 10,
    max: 100_000,
    default: 500,
    flag: '--cache-max-files',
    env: 'DEVICE_BRIDGE_CACHE_MAX_FILES',
    applies: 'Applies at once: a smaller cap deletes the least recently used files.',
  },
  queue_max_depth: {
    key: 'queue_max_depth',
    label: 'Queue depth',
    unit: 'count',
    nullable: false,
    min: 1,
    max: 1000,
    default: 32,
    flag: '--queue-depth',
    env: 'DEVICE_BRIDGE_QUEUE_DEPTH',
    applies: 'Applies to the next call queued on each phone; calls already waiting stay.',
  },
  fast_lane_idle_stop_ms: {
    key: 'fast_lane_idle_stop_ms',
    label: 'Fast lane idle stop',
    unit: 'duration',
    nullable: false,
    min: 10 * SECOND,
    max: DAY,
    default: 5 * MINUTE,
    flag: '--fast-lane-idle',
    env: 'DEVICE_BRIDGE_FAST_LANE_IDLE',
    applies:
      'Applies at once: a running helper stops this long after its last call, which frees the phone for Android Studio and Appium.',
  },
  runtime_grace_ms: {
    key: 'runtime_grace_ms',
    label: 'xAgent reconnect grace',
    unit: 'duration',
    nullable: false,
    // The spec's one hour is the least; newer xAgent keeps a connector's channels for 24 h offline.
    min: HOUR,
    max: DAY,
    default: HOUR,
    flag: '--runtime-grace',
    env: 'DEVICE_BRIDGE_RUNTIME_GRACE',
    applies:
      'Applies at once, also while xAgent is away: its channels are kept this long after its last connection closes. 1 h is the protocol’s; xAgent 0.0.11 and later keep channels for 24 h.',
  },
};

export const LIMIT_KEYS = Object.keys(LIMIT_DEFINITIONS) as LimitKey[];

export function isLimitKey(key: string): key is LimitKey {
  return Object.prototype.hasOwnProperty.call(LIMIT_DEFINITIONS, key);
}

/** The built-in defaults of every limit. */
export function defaultLimitValues(): LimitValues {
  const out = {} as Record<LimitKey, number | null>;
  for (const key of LIMIT_KEYS) out[key] = LIMIT_DEFINITIONS[key].default;
  return out as unknown as LimitValues;
}

/** A value in the limit's own unit for messages: "2 min", "1 h 30 min", "256 MiB", "32". */
export function formatLimitValue(unit: LimitUnit, value: number | null): string {
  if (value === null) return 'none';
  if (unit === 'count') return String(value);
  if (unit === 'bytes') {
    for (const [name, size] of [
      ['GiB', GIB],
      ['MiB', MIB],
      ['KiB', 1024],
    ] as const) {
      if (value >= size && value % (size / 1024) === 0) return `${trimNumber(value / size)} ${name}`;
    }
    return `${value} B`;
  }
  const parts: string[] = [];
  let rest = value;
  for (const [name, size] of [
    ['d', DAY],
    ['h', HOUR],
    ['min', MINUTE],
    ['s', SECOND],
    ['ms', 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${name}`);
    rest -= count * size;
  }
  return parts.length > 0 ? parts.join(' ') : '0 ms';
}

function trimNumber(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(2).replace(/0+$/, '').replace(/\.$/, '');
}

/** The accepted range in words: "from 1 s to 1 h, or none (no cap)". */
export function describeLimitRange(key: LimitKey): string {
  const d = LIMIT_DEFINITIONS[key];
  const range = `from ${formatLimitValue(d.unit, d.min)} to ${formatLimitValue(d.unit, d.max)}`;
  return d.nullable ? `${range}, or none (no cap)` : range;
}

/** Why `value` cannot be this limit (`name` is how the message calls it), or null when it can. */
export function limitValueProblem(key: LimitKey, value: unknown, name: string = key): string | null {
  const d = LIMIT_DEFINITIONS[key];
  const unitWord =
    d.unit === 'duration'
      ? 'a whole number of milliseconds'
      : d.unit === 'bytes'
        ? 'a whole number of bytes'
        : 'a whole number';
  const bound = (n: number): string => (d.unit === 'count' ? String(n) : `${n} (${formatLimitValue(d.unit, n)})`);
  const expected = `${unitWord} from ${bound(d.min)} to ${bound(d.max)}${d.nullable ? ', or null for no cap' : ''}`;
  if (value === null) return d.nullable ? null : `${name} cannot be null: it must be ${expected}`;
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return `${name} must be ${expected}`;
  if (value < d.min) return `${name} is below its minimum: it must be ${expected}`;
  if (value > d.max) return `${name} is above its maximum: it must be ${expected}`;
  return null;
}

export type LimitsPatchResult =
  { ok: true; value: Partial<LimitValues> } | { ok: false; field: string; message: string };

/**
 * Checks the `limits` object of `PATCH /admin/api/settings` strictly: an object of known
 * limits only, each of the right type and in range. The first problem names its field.
 */
export function checkLimitsPatch(raw: unknown, path = 'limits'): LimitsPatchResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      field: path,
      message: `${path} must be an object of limits to change (${LIMIT_KEYS.join(', ')})`,
    };
  }
  const value: Partial<Record<LimitKey, number | null>> = {};
  for (const [key, entry] of Object.entries(raw)) {
    const field = `${path}.${key}`;
    if (!isLimitKey(key))
      return { ok: false, field, message: `${field} is not a limit that can be set (known: ${LIMIT_KEYS.join(', ')})` };
    const problem = limitValueProblem(key, entry, field);
    if (problem) return { ok: false, field, message: problem };
    value[key] = entry as number | null;
  }
  return { ok: true, value: value as Partial<LimitValues> };
}

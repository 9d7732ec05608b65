/**
 * Options of the core, checked once, up front, with precise messages (a wrong option is a
 * start-up error, never a surprise later). Defaults are the documented limits in README.md;
 * those a person may change while the bridge runs are defined in main/contract/limits.ts,
 * and their options here are start values (the live ones are in config/live-limits.ts).
 */
import { LIMIT_DEFINITIONS, type LimitKey, type LimitValues } from '../../contract/limits';
import type { FileCacheLimitsInput } from './limits';
import type { Logger } from '../logging/logger';
import type { BuildInfo } from '../build-info';
import type { LanOptions } from '../devices/lan-devices';
import { resolveNetworkOptions, type NetworkOptions, type NetworkOptionsInput } from './network-options';
import { resolveConnectionLimits, type ConnectionLimits } from './connection-limits';
import type { ApiKeySource } from '../secrets/system-api-key';
import type { SshOptions } from '../devices/ssh/ssh-tunnels';

export interface AdbServerAddress {
  host: string;
  port: number;
  /**
   * Reached over SSH (`--adb ssh://user@host`): host and port are then the ADB server on that
   * host's own loopback (127.0.0.1:5037 unless `?adb_port=`), the only place forwarded to.
   */
  ssh?: { user: string; host: string; port: number };
}

/** The ADB server adb itself would use: ADB_SERVER_SOCKET (tcp:[HOST:]PORT), else ANDROID_ADB_SERVER_PORT, else 5037. */
export function defaultAdbServer(env: NodeJS.ProcessEnv = process.env): AdbServerAddress {
  const socket = env.ADB_SERVER_SOCKET;
  if (socket) {
    const match = /^tcp:(?:(.+):)?(\d+)$/.exec(socket.trim());
    if (match) return { host: match[1] ?? '127.0.0.1', port: Number(match[2]) };
  }
  const port = Number.parseInt(env.ANDROID_ADB_SERVER_PORT ?? '', 10);
  return { host: '127.0.0.1', port: Number.isInteger(port) && port > 0 ? port : 5037 };
}

export interface LeasePolicy {
  /** Hard cap on one binding's lease; null = no cap. */
  maxDurationMs: number | null;
  /** Lease ends after this long without a tool call; null = never. */
  idleTimeoutMs: number | null;
  /** How long a bound phone may be offline before its lease ends. */
  disconnectGraceMs: number;
}

/** The lease policy the live limits set (Settings → Limits). */
export function leasePolicyOf(limits: LimitValues): LeasePolicy {
  return {
    maxDurationMs: limits.lease_max_duration_ms,
    idleTimeoutMs: limits.lease_idle_timeout_ms,
    disconnectGraceMs: limits.lease_disconnect_grace_ms,
  };
}

export interface CoreOptions {
  dataDir: string;
  host: string;
  port: number;
  apiKey?: string;
  /** Where apiKey came from: `env` (DEVICE_BRIDGE_API_KEY; a rotation lasts until the next start) or `store` (default). */
  apiKeySource?: ApiKeySource;
  adminToken?: string;
  adbServers: AdbServerAddress[];
  /** How ADB hosts given as ssh:// are signed in to and their host keys checked (devices/ssh/). */
  ssh?: SshOptions;
  /** Spec §8.2: one hour without any data plane unregisters the runtime instance. */
  runtimeLeaseMs: number;
  lease: LeasePolicy;
  fileCache: FileCacheLimitsInput;
  /** Signed download URLs live this long (never longer than the file itself). */
  downloadUrlTtlMs: number;
  maxUploadBytes: number;
  queue: { maxDepth: number; observationConcurrency: number };
  /** How long idempotency records of finished tool calls are kept. */
  idempotencyWindowMs: number;
  approvalTimeoutMs: number;
  pairingTtlMs: number;
  /** Admin API and console answer non-loopback clients only when true. */
  allowRemoteAdmin: boolean;
  /** Folder with the built web console (index.html + assets); none = no console. */
  consoleDir?: string | undefined;
  logger?: Logger;
  clock?: () => number;
  build?: BuildInfo;
  adbCommandTimeoutMs: number;
  /** Data-plane limits (defaults in server/data-plane.ts); maxBufferedBytes caps what a peer that does not read may hold. */
  dataPlane?: {
    maxFrameBytes?: number;
    maxConnections?: number;
    heartbeatMs?: number;
    maxBufferedBytes?: number;
    claimProbeMs?: number;
  };
  /** Channels per connector_id and the lifetime of abandoned (never bound, unused) ones (defaults in runtime/connector-runtime.ts, README). */
  channels?: { maxPerConnector?: number; abandonedTtlMs?: number };
  /** Connection caps (total, per address) and header/keep-alive deadlines on every plane (defaults in server/connection-limits.ts, README). */
  connections: ConnectionLimits;
  /** LAN phones: reconnect backoff and connect deadlines (defaults in lan-devices.ts, README). */
  lan?: LanOptions;
  /** Audit trail rotation and kept screenshots (defaults in safety/audit-log.ts, README). */
  audit?: { maxFileBytes?: number; maxFiles?: number; maxScreenshots?: number };
  /** Leases' evidence bundles kept: count, bytes, age, one bundle's size (defaults and checks in evidence/evidence-store.ts, docs/REFERENCE.md). */
  evidence?: { maxLeases?: number; maxBytes?: number; ttlMs?: number; maxBundleBytes?: number };
  /** The fast lane's helper: idle stop, pause after a sparse/stale tree, start deadline (defaults in helper/helper-manager.ts, docs/REFERENCE.md "Fast lane"). */
  fastLane?: {
    /** The port-less programs (scrcpy-server, the UI reader, the snapshot helper); default on. Off: stock commands only (`--no-phone-programs`). */
    portless?: boolean;
    /** false: the UI reader is not run (as in a build without its jar): the snapshot helper reads the tree (tests of that lane). */
    uiReader?: boolean;
    /** Their start deadline and the wait before a failed one is tried again (phone-programs/phone-programs.ts). */
    programStartTimeoutMs?: number;
    programRetryMs?: number;
    idleStopMs?: number;
    pauseMs?: number;
    startTimeoutMs?: number;
    crashForgivenMs?: number;
    watchMs?: number;
  };
  /** The screen stream (minicap): how often needs are re-checked, the start deadline (defaults in stream/screen-streams.ts, docs/REFERENCE.md "Screen stream"). */
  screenStream?: {
    reconcileMs?: number;
    startTimeoutMs?: number;
    latencyFloorMs?: number;
  };
  /**
   * What set the changeable limits given here, as the UI shows it ("--approval-timeout",
   * "DEVICE_BRIDGE_APPROVAL_TIMEOUT"); a limit given without a name shows its option name.
   */
  limitOrigins?: Partial<Record<LimitKey, string>>;
  /** TLS, public URL behind a proxy, trusted proxies, --allow-from (config/network-options.ts). */
  network: NetworkOptions;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8765,
  runtimeLeaseMs: 60 * 60 * 1000,
  lease: {
    maxDurationMs: LIMIT_DEFINITIONS.lease_max_duration_ms.default,
    idleTimeoutMs: LIMIT_DEFINITIONS.lease_idle_timeout_ms.default,
    disconnectGraceMs: LIMIT_DEFINITIONS.lease_disconnect_grace_ms.default,
  } satisfies LeasePolicy,
  downloadUrlTtlMs: 5 * 60 * 1000,
  maxUploadBytes: 200 * 1024 * 1024,
  queue: { maxDepth: LIMIT_DEFINITIONS.queue_max_depth.default, observationConcurrency: 4 },
  idempotencyWindowMs: 24 * 60 * 60 * 1000,
  approvalTimeoutMs: LIMIT_DEFINITIONS.approval_timeout_ms.default,
  pairingTtlMs: 5 * 60 * 1000,
  adbCommandTimeoutMs: 20_000,
} as const;

export type CoreOptionsInput = Partial<Omit<CoreOptions, 'lease' | 'queue' | 'network' | 'connections'>> & {
  network?: NetworkOptionsInput;
  connections?: Partial<ConnectionLimits>;
  dataDir: string;
  lease?: Partial<LeasePolicy>;
  queue?: Partial<CoreOptions['queue']>;
};

function positiveInt(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0)
    throw new TypeError(`${name} must be a positive integer (got ${String(value)})`);
  return value;
}

function nullablePositive(name: string, value: number | null): number | null {
  return value === null ? null : positiveInt(name, value);
}

export function resolveCoreOptions(input: CoreOptionsInput): CoreOptions {
  if (typeof input.dataDir !== 'string' || input.dataDir.length === 0)
    throw new TypeError('dataDir must be a non-empty path');
  const port = input.port ?? DEFAULTS.port;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new TypeError(`port must be an integer from 0 to 65535 (got ${String(port)})`);
  const lease = { ...DEFAULTS.lease, ...input.lease };
  const queue = { ...DEFAULTS.queue, ...input.queue };
  for (const server of input.adbServers ?? []) {
    if (!server.host || !Number.isInteger(server.port) || server.port <= 0 || server.port > 65535) {
      throw new TypeError(
        `adb server must be HOST:PORT with a port from 1 to 65535 (got ${server.host}:${String(server.port)})`,
      );
    }
  }
  for (const [key, value] of Object.entries(input.channels ?? {})) {
    if (value !== undefined) positiveInt(`channels.${key}`, value);
  }
  if (input.apiKey !== undefined && input.apiKey.length < 16)
    throw new TypeError('apiKey must be at least 16 characters');
  if (input.adminToken !== undefined && input.adminToken.length < 16)
    throw new TypeError('adminToken must be at least 16 characters');
  return {
    ...input,
    host: input.host ?? DEFAULTS.host,
    port,
    adbServers: input.adbServers ?? [],
    runtimeLeaseMs: positiveInt('runtimeLeaseMs', input.runtimeLeaseMs ?? DEFAULTS.runtimeLeaseMs),
    lease: {
      maxDurationMs: nullablePositive('lease.maxDurationMs', lease.maxDurationMs),
      idleTimeoutMs: nullablePositive('lease.idleTimeoutMs', lease.idleTimeoutMs),
      disconnectGraceMs: positiveInt('lease.disconnectGraceMs', lease.disconnectGraceMs),
    },
    fileCache: input.fileCache ?? {},
    connections: resolveConnectionLimits(input.connections),
    downloadUrlTtlMs: positiveInt('downloadUrlTtlMs', input.downloadUrlTtlMs ?? DEFAULTS.downloadUrlTtlMs),
    maxUploadBytes: positiveInt('maxUploadBytes', input.maxUploadBytes ?? DEFAULTS.maxUploadBytes),
    queue: {
      maxDepth: positiveInt('queue.maxDepth', queue.maxDepth),
      observationConcurrency: positiveInt('queue.observationConcurrency', queue.observationConcurrency),
    },
    idempotencyWindowMs: positiveInt('idempotencyWindowMs', input.idempotencyWindowMs ?? DEFAULTS.idempotencyWindowMs),
    approvalTimeoutMs: positiveInt('approvalTimeoutMs', input.approvalTimeoutMs ?? DEFAULTS.approvalTimeoutMs),
    pairingTtlMs: positiveInt('pairingTtlMs', input.pairingTtlMs ?? DEFAULTS.pairingTtlMs),
    adbCommandTimeoutMs: positiveInt('adbCommandTimeoutMs', input.adbCommandTimeoutMs ?? DEFAULTS.adbCommandTimeoutMs),
    allowRemoteAdmin: input.allowRemoteAdmin ?? false,
    network: resolveNetworkOptions(input.network),
    ...(input.audit ? { audit: resolveAudit(input.audit) } : {}),
  };
}

function resolveAudit(audit: NonNullable<CoreOptions['audit']>): NonNullable<CoreOptions['audit']> {
  const out: NonNullable<CoreOptions['audit']> = {};
  if (audit.maxFileBytes !== undefined) out.maxFileBytes = positiveInt('audit.maxFileBytes', audit.maxFileBytes);
  if (audit.maxFiles !== undefined) out.maxFiles = positiveInt('audit.maxFiles', audit.maxFiles);
  if (audit.maxScreenshots !== undefined)
    out.maxScreenshots = positiveInt('audit.maxScreenshots', audit.maxScreenshots);
  return out;
}

/**
 * The changeable limits the embedding code (or the CLI, from flags and env) gave explicitly,
 * by their contract keys: these win over saved values at start. Read from the unresolved
 * input, since resolving fills in defaults.
 */
export function startLimits(input: CoreOptionsInput): {
  values: Partial<LimitValues>;
  names: Partial<Record<LimitKey, string>>;
} {
  const found: Array<[LimitKey, number | null | undefined, string]> = [
    ['approval_timeout_ms', input.approvalTimeoutMs, 'approvalTimeoutMs'],
    ['lease_max_duration_ms', input.lease?.maxDurationMs, 'lease.maxDurationMs'],
    ['lease_idle_timeout_ms', input.lease?.idleTimeoutMs, 'lease.idleTimeoutMs'],
    ['lease_disconnect_grace_ms', input.lease?.disconnectGraceMs, 'lease.disconnectGraceMs'],
    ['file_cache_ttl_ms', input.fileCache?.ttlMs, 'fileCache.ttlMs'],
    ['file_cache_max_bytes', input.fileCache?.maxBytes, 'fileCache.maxBytes'],
    ['file_cache_max_files', input.fileCache?.maxFiles, 'fileCache.maxFiles'],
    ['queue_max_depth', input.queue?.maxDepth, 'queue.maxDepth'],
    ['fast_lane_idle_stop_ms', input.fastLane?.idleStopMs, 'fastLane.idleStopMs'],
    ['runtime_grace_ms', input.runtimeLeaseMs, 'runtimeLeaseMs'],
  ];
  const values: Partial<Record<LimitKey, number | null>> = {};
  const names: Partial<Record<LimitKey, string>> = {};
  for (const [key, value, option] of found) {
    if (value === undefined) continue;
    values[key] = value;
    names[key] = input.limitOrigins?.[key] ?? option;
  }
  return { values: values as Partial<LimitValues>, names };
}

/**
 * The admin API's routes (see main/contract/admin-api.ts): state for the UI, pairing
 * decisions, lease revoke/extend, the stop button, lab access codes, settings (the live
 * limits people may change, checked here with the contract's rules) and the API key, and
 * the phone thumbnail.
 */
import { hostViews } from './host-routes';
import { sshAddress } from '../devices/ssh/ssh-target';
import type {
  AdminBindingHolder,
  AdminBindingHistoryEntry,
  AdminChannel,
  AdminDevice,
  AdminFastLane,
  AdminPhoneProgram,
  AdminScreenStreamSettings,
  AdminPhoneCheck,
  AdminSecret,
  AdminSettings,
  AdminState,
  AdminPersonAsk,
  AdminTurnover,
  AdminTurnoverPolicy,
} from '../../contract/admin-api';
import { checkLimitsPatch } from '../../contract/limits';
import { isLanguageSetting, LANGUAGE_SETTINGS } from '../../contract/i18n/locale';
import { BridgeError } from '../errors';
import type { CoreOptions } from '../config/core-options';
import type { BuildInfo } from '../build-info';
import { displayName, type DeviceRegistry } from '../devices/device-registry';
import { reasonForAdbState } from '../devices/adb-state-reason';
import type { AdbServerLink } from '../devices/adb-server-link';
import type { ConnectorRuntime } from '../runtime/connector-runtime';
import type { BindingService } from '../bindings/binding-service';
import type { ToolRuntime } from '../tools/tool-runtime';
import type { PersistedHolder, StateStore } from '../store/state-store';
import type { FileCache } from '../files/file-cache';
import type { LiveLimits } from '../config/live-limits';
import type { ScreenSources } from '../screen/screen-sources';
import type { EventHub } from '../events/event-hub';
import { type AdminRouter, requireString } from './admin-router';
import { CONNECTOR_VERSION } from '../protocol/identity';
import { takenOverView, type TakenOver } from '../takeover/takeover';
import { sendJsonBytes } from '../server/http-util';
import { AdminStateEncoder } from './admin-state-encoder';

/** What the phone thumbnail needs: the phone, its shell, its queue and its pictures. */
export interface ThumbnailDeps {
  registry: Pick<DeviceRegistry, 'get'>;
  tools: Pick<ToolRuntime, 'shellFor' | 'queue'>;
  screens: Pick<ScreenSources, 'of'>;
}

/** The phone check as these routes use it (phone-check/phone-check.ts implements it). */
export interface PhoneCheckAccess {
  /** Runs the check now (joins one already running). */
  run(deviceId: string): Promise<AdminPhoneCheck>;
  latest(deviceId: string): AdminPhoneCheck | null;
}

/** What these routes and GET /admin/api/state read and change; createCore passes the pieces in. */
export interface AdminRouteDeps extends ThumbnailDeps {
  phoneCheck: PhoneCheckAccess;
  options: Pick<CoreOptions, 'host' | 'adbServers' | 'dataDir' | 'queue'>;
  /** The limits people may change while the bridge runs. */
  limits: Pick<LiveLimits, 'values' | 'sources' | 'update'>;
  build: Pick<BuildInfo, 'version'>;
  registry: DeviceRegistry;
  runtime: ConnectorRuntime;
  bindings: BindingService;
  tools: Pick<ToolRuntime, 'shellFor' | 'queue' | 'lastAction' | 'stopDevice' | 'agentQueueStats'>;
  files: Pick<FileCache, 'stats'>;
  hub: Pick<EventHub, 'publish'>;
  adbLinks: readonly Pick<AdbServerLink, 'getHealth'>[];
  store: StateStore;
  /** The base URL xAgent is given (the public URL behind a proxy). */
  url(): string;
  /** Port, certificate, public URL and address rules (server/network-endpoint.ts). */
  network(): Pick<AdminSettings, 'port' | 'tls' | 'public_url' | 'allow_from' | 'trust_proxy'>;
  apiKey(): string;
  rotateApiKey(): string;
  /** `env` when DEVICE_BRIDGE_API_KEY set the key (a rotation lasts until the next restart). */
  apiKeySource(): 'env' | 'store';
  warnings(): string[];
  /** Pending approvals (the safety layer's). */
  approvals(): AdminState['approvals'];
  /** LAN phones the bridge keeps connecting (the LAN feature's). */
  lanDevices(): AdminState['lan_devices'];
  /** appium-uiautomator2-server per phone, and whether this build carries it (helper/helper-manager.ts). */
  helpers?: {
    programView(deviceId: string): AdminPhoneProgram;
    settings(): AdminFastLane;
  };
  /** The port-less programs per phone (phone-programs/phone-programs.ts). */
  programs?: { view(deviceId: string): AdminPhoneProgram[] };
  /** minicap per phone, and the stream's lab-wide default (stream/screen-streams.ts). */
  streams?: {
    programView(deviceId: string): AdminPhoneProgram;
    settings(): AdminScreenStreamSettings;
  };
  /** The lab's named secrets: names, phones and times only (secrets/lab-secrets.ts). */
  secrets: { list(): AdminSecret[] };
  /** The agent's call running on a phone now (the phone view's timeline), else null. */
  doing?: (deviceId: string) => { tool_id: string; arguments: Record<string, unknown> } | null;
  /** The hand-over after leases (handover/handover.ts): each phone's last one, and the lab's policy. */
  turnover?: { report(deviceId: string): AdminTurnover | null; policy(): AdminTurnoverPolicy };
  /** Take over and hand back (takeover/takeover.ts): who holds each phone now. */
  takeover?: { state(deviceId: string): TakenOver | null };
  /** The agent's asks to the person (takeover/person-asks.ts): the one waiting on each phone. */
  asks?: { pending(deviceId: string): AdminPersonAsk | null };
  /** xAgents refused for their API key (server/refused-keys.ts). */
  refusedKeys?: { list(): AdminState['connector']['refused_keys'] };
}

export function buildAdminState(deps: AdminRouteDeps): AdminState {
  const channels = deps.runtime.channels();
  const devices: AdminDevice[] = deps.registry
    .list()
    // A leased phone adb forgot (unplugged) stays in sight while its lease waits for it.
    .filter((d) => d.state !== 'gone' || deps.bindings.awayLeaseEnd(d.deviceId) !== null)
    .map((d) => {
      const holder = channels.find((c) => c.binding && c.binding.ended === null && c.binding.deviceId === d.deviceId);
      return {
        device_id: d.deviceId,
        serial: d.serial,
        hardware_serial: d.hardwareSerial ?? null,
        adb_server: d.adbServer,
        state: d.state,
        reason: d.reason,
        reason_code: reasonForAdbState(d.rawState)?.code ?? null,
        model: d.model,
        manufacturer: d.manufacturer,
        android_version: d.androidVersion,
        transport: d.transport,
        simulated: d.simulated === true,
        display_name: displayName(d),
        lease: holder?.binding ? { connector_channel_id: holder.id, since: holder.binding.boundAt } : null,
        away_until: deps.bindings.awayLeaseEnd(d.deviceId),
        queue: deps.tools.agentQueueStats(d.deviceId),
        check: deps.phoneCheck.latest(d.deviceId),
        // Every program the bridge runs on the phone, in one shape: the port-less two, UIA2, minicap.
        programs: [
          ...(deps.programs?.view(d.deviceId) ?? []),
          ...(deps.helpers ? [deps.helpers.programView(d.deviceId)] : []),
          ...(deps.streams ? [deps.streams.programView(d.deviceId)] : []),
        ],
        ...(deps.turnover ? { turnover: deps.turnover.report(d.deviceId) } : {}),
        ...(deps.takeover ? { taken_over: takenOverView(deps.takeover.state(d.deviceId)) } : {}),
        ...(deps.asks ? { ask: deps.asks.pending(d.deviceId) } : {}),
        claim_line: deps.bindings.lineLength(d.deviceId),
        ...(deps.doing ? { doing: deps.doing(d.deviceId) } : {}),
      };
    });
  const adminChannels: AdminChannel[] = channels.map((c) => {
    const b = c.binding;
    const last = deps.tools.lastAction(c.id);
    return {
      connector_channel_id: c.id,
      descriptor_status: (deps.bindings.describe(c).connection as { status: string }).status,
      device_id: b?.deviceId ?? null,
      display_name: b?.displayName ?? null,
      bound_at: b?.boundAt ?? null,
      flow_id: b?.flowId ?? null,
      last_activity_at: b?.lease.lastActivityAt ?? null,
      last_action: last ? { tool_id: last.toolId, at: last.at, outcome: last.outcome } : null,
      lease_expires_at: b && b.ended === null ? b.lease.maxUntil : null,
      idle_expires_at:
        b && b.ended === null && b.lease.idleTimeoutMs !== null ? b.lease.lastActivityAt + b.lease.idleTimeoutMs : null,
      away_until: b && b.ended === null ? deps.bindings.awayLeaseEnd(b.deviceId) : null,
      open: true,
      holder: b ? holderView(b.holder) : null,
    };
  });
  const history: AdminBindingHistoryEntry[] = deps.bindings.history().map((h) => ({
    connector_channel_id: h.channelId,
    device_id: h.deviceId,
    display_name: h.displayName,
    bound_at: h.boundAt,
    flow_id: h.flowId,
    ended_at: h.endedAt,
    end: h.end,
    holder: holderView(h.holder),
    last_action: h.lastAction
      ? { tool_id: h.lastAction.toolId, at: h.lastAction.at, outcome: h.lastAction.outcome }
      : null,
  }));
  const cache = deps.files.stats().limits;
  const live = deps.limits.values();
  return {
    connector: {
      connector_id: deps.runtime.connectorId(),
      data_planes: deps.runtime.dataPlaneCount(),
      connected_since: deps.runtime.connectedSince(),
      last_hello_at: deps.runtime.lastHelloAt(),
      runtime_lease_expires_at: deps.runtime.leaseExpiresAt() ?? null,
      base_url: deps.url(),
      refused_keys: deps.refusedKeys?.list() ?? [],
    },
    devices,
    channels: adminChannels,
    pairings: deps.bindings.pendingSessions().map((s) => ({
      auth_session_id: s.authSessionId,
      connector_channel_id: s.channelId,
      flow_id: s.flowId,
      code: s.code,
      expires_at: s.expiresAt,
      device_id: s.deviceId,
      message: s.message,
    })),
    approvals: deps.approvals(),
    binding_history: history,
    adb_servers: deps.adbLinks.map((l) => {
      const h = l.getHealth();
      return {
        address: h.address,
        status: h.status,
        last_error: h.lastError,
        next_retry_at: h.nextRetryAt,
        device_count: h.deviceCount,
      };
    }),
    hosts: hostViews(deps),
    lan_devices: deps.lanDevices(),
    api_key: { source: deps.apiKeySource() },
    limits: {
      approval_timeout_ms: live.approval_timeout_ms,
      lease: {
        max_duration_ms: live.lease_max_duration_ms,
        idle_timeout_ms: live.lease_idle_timeout_ms,
        disconnect_grace_ms: live.lease_disconnect_grace_ms,
      },
      // What the cache enforces (the same values once a change is applied).
      file_cache: {
        ttl_ms: cache.ttlMs,
        max_bytes: cache.maxBytes,
        max_files: cache.maxFiles,
        cleanup_interval_ms: cache.cleanupIntervalMs,
      },
      queue: { max_depth: live.queue_max_depth, observation_concurrency: deps.options.queue.observationConcurrency },
      fast_lane: { idle_stop_ms: live.fast_lane_idle_stop_ms },
      runtime_grace_ms: live.runtime_grace_ms,
    },
    access_codes: deps.store.get().accessCodes.map((c) => ({ scope: c.scope, require_approval: c.requireApproval })),
    secrets: deps.secrets.list(),
    warnings: deps.warnings(),
    ...(deps.helpers ? { fast_lane: deps.helpers.settings() } : {}),
    ...(deps.streams ? { screen_stream: deps.streams.settings() } : {}),
    ...(deps.turnover ? { turnover_policy: deps.turnover.policy() } : {}),
    language: deps.store.get().settings.language ?? 'system',
  };
}

function holderView(h: PersistedHolder | null): AdminBindingHolder | null {
  if (!h) return null;
  return {
    how: h.how,
    requested_at: h.requestedAt,
    code: h.code,
    message: h.message,
    requester: h.requester,
    claimed_as: h.claimedAs,
    client_address: h.clientAddress,
  };
}

export function registerAdminRoutes(router: AdminRouter, deps: AdminRouteDeps): void {
  // Over HTTP, each phone's bytes are reused while its entry reads the same (admin-state-encoder.ts).
  const encoder = new AdminStateEncoder();
  router.add('GET /admin/api/state', () => buildAdminState(deps), {
    http: async ({ res }, answer) => sendJsonBytes(res, 200, encoder.encode(await answer())),
  });

  router.add('POST /admin/api/pairings/:auth_session_id', async ({ params, request }) => {
    const b = await request();
    // Optional `code`: the code the person saw; refused when a refresh replaced it.
    const code = typeof b.code === 'string' ? { code: b.code } : {};
    if (b.action === 'deny') {
      deps.bindings.decidePairing(params.auth_session_id, { action: 'deny', ...code });
      return { status: 'denied' };
    }
    if (b.action !== 'approve') throw new BridgeError('invalid_arguments', 'action must be approve or deny');
    const deviceId = typeof b.device_id === 'string' ? b.device_id : undefined;
    deps.bindings.decidePairing(params.auth_session_id, {
      action: 'approve',
      ...(deviceId ? { deviceId } : {}),
      ...code,
    });
    return { status: 'approved' };
  });

  router.add('POST /admin/api/channels/:connector_channel_id/revoke', ({ params }) => {
    deps.bindings.revoke(params.connector_channel_id);
    return { status: 'revoked' };
  });

  router.add('POST /admin/api/channels/:connector_channel_id/extend', async ({ params, request }) => {
    const b = await request();
    const extend = typeof b.extend_ms === 'number' ? b.extend_ms : NaN;
    deps.bindings.extendLease(params.connector_channel_id, extend);
    return { status: 'extended' };
  });

  router.add('POST /admin/api/devices/:device_id/stop', ({ params }) => {
    const deviceId = params.device_id;
    if (!deps.registry.get(deviceId)) throw new BridgeError('device_not_found', 'no such phone');
    const canceled = deps.tools.stopDevice(deviceId);
    deps.hub.publish('state');
    return { status: 'stopped', canceled };
  });

  router.add('GET /admin/api/devices/:device_id/check', async ({ params }) => {
    const deviceId = params.device_id;
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const result = await deps.phoneCheck.run(deviceId);
    deps.hub.publish('state');
    return result;
  });

  router.add('POST /admin/api/access-codes', async ({ request }) => {
    const b = await request();
    const scope = requireString(b, 'scope');
    const code = b.code === null ? null : requireString(b, 'code', 128);
    deps.bindings.setAccessCode(scope, code, b.require_approval === true);
    return { status: code === null ? 'removed' : 'set' };
  });

  const settings = (): AdminSettings => ({
    base_url: deps.url(),
    bind_host: deps.options.host,
    api_key_hint: `${deps.apiKey().slice(0, 4)}…${deps.apiKey().slice(-4)}`,
    adb_servers: deps.options.adbServers.map((s) =>
      s.ssh ? sshAddress({ ...s.ssh, adbPort: s.port }) : `${s.host}:${s.port}`,
    ),
    data_dir: deps.options.dataDir,
    version: deps.build.version,
    connector_version: CONNECTOR_VERSION,
    limits: deps.limits.values(),
    limit_sources: deps.limits.sources(),
    ...deps.network(),
    language: deps.store.get().settings.language ?? 'system',
  });
  router.add('GET /admin/api/settings', settings);

  // Strict: only `limits` (known limits, each of the right type and in range) and `language`;
  // the first problem is a 400 invalid_arguments naming its field, and nothing is changed.
  router.add('PATCH /admin/api/settings', async ({ request }) => {
    const b = await request();
    const unknown = Object.keys(b).find((key) => key !== 'limits' && key !== 'language');
    if (unknown !== undefined)
      throw new BridgeError(
        'invalid_arguments',
        `${unknown.slice(0, 60)} is not a setting that can be changed here (only limits and language)`,
      );
    if (!('limits' in b) && !('language' in b)) {
      throw new BridgeError(
        'invalid_arguments',
        'nothing to change: give limits (an object of the limits to change) or language',
      );
    }
    const checked = 'limits' in b ? checkLimitsPatch(b.limits) : null;
    if (checked && !checked.ok) throw new BridgeError('invalid_arguments', checked.message, { field: checked.field });
    if ('language' in b && !isLanguageSetting(b.language)) {
      throw new BridgeError('invalid_arguments', `language must be one of ${LANGUAGE_SETTINGS.join(', ')}`, {
        field: 'language',
      });
    }
    if (checked?.ok) deps.limits.update(checked.value);
    if (isLanguageSetting(b.language)) {
      const language = b.language;
      deps.store.update((state) => {
        state.settings.language = language;
      });
    }
    deps.hub.publish('state');
    return settings();
  });

  router.add('POST /admin/api/api-key/reveal', () => ({ api_key: deps.apiKey() }));
  router.add('POST /admin/api/api-key/rotate', () => ({ api_key: deps.rotateApiKey() }));

  router.add(
    'GET /admin/api/devices/:device_id/screen',
    async ({ params }) => new Uint8Array(await deviceThumbnail(deps, params.device_id)),
    {
      http: async ({ res }, answer) => {
        const jpeg = await answer();
        res.writeHead(200, {
          'Content-Type': 'image/jpeg',
          'Content-Length': jpeg.length,
          'Cache-Control': 'no-store',
        });
        res.end(jpeg);
      },
    },
  );
}

/**
 * A small JPEG of a phone's screen for the Devices list: the stream's newest frame while it
 * runs, else a screencap as observation work on its queue (screen/freshness.ts).
 */
export async function deviceThumbnail(deps: ThumbnailDeps, deviceId: string): Promise<Buffer> {
  const device = deps.registry.get(deviceId);
  if (!device || device.state !== 'device') throw new BridgeError('device_offline', 'the phone is not online');
  const shell = deps.tools.shellFor(device);
  const picture = await deps.screens
    .of(device.deviceId)
    .picture(
      'thumbnail',
      { maxSide: THUMBNAIL_MAX_SIDE, quality: 70 },
      (capture) => deps.tools.queue.submit(device.deviceId, 'observation', 'admin-thumbnail', capture),
      { shell, timeoutMs: 15_000 },
    );
  return picture.jpeg;
}

const THUMBNAIL_MAX_SIDE = 360;

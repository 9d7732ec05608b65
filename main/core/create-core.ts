/**
 * createCore(options): the whole bridge in plain Node — control, data and transfer planes,
 * devices, bindings, tools, approvals, admin API and console — with one start() and one
 * idempotent stop() that releases every socket, timer and child process it started.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { toolMarks, type ToolMark } from './bindings/tool-marks';
import { join } from 'node:path';
import { loadBuildInfo, type BuildInfo } from './build-info';
import { resolveCoreOptions, startLimits, type CoreOptions, type CoreOptionsInput, type LeasePolicy } from './config/core-options';
import { LiveLimits } from './config/live-limits';
import type { LimitValues } from '../contract/limits';
import { createLogger, type Logger } from './logging/logger';
import { bearerToken, loadOrCreateSecret } from './secrets/secret-store';
import { persistInDataDir, SystemApiKey, type ApiKeyRotation } from './secrets/system-api-key';
import { LabSecrets } from './secrets/lab-secrets';
import { StateStore } from './store/state-store';
import { ConnectorRuntime } from './runtime/connector-runtime';
import { DeviceRegistry } from './devices/device-registry';
import { AdbServerLink } from './devices/adb-server-link';
import { BindingService } from './bindings/binding-service';
import { AUTH_FLOWS, registerAuthHandlers } from './bindings/auth-handlers';
import { DataPlane } from './server/data-plane';
import { NetworkEndpoint, type TlsSummary } from './server/network-endpoint';
import { sendError, sendJson, sendText } from './server/http-util';
import { AdminGate } from './server/admin-gate';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildCard } from './protocol/card';
import { CONNECTOR_CARD_ID, CONNECTOR_VERSION, PROTOCOL_VERSION } from './protocol/identity';
import { renderSkill } from './protocol/skill';
import { FileCache } from './files/file-cache';
import { UrlSigner } from './files/signed-url';
import { handleDownload } from './files/download-handler';
import { handleUpload } from './files/upload-handler';
import { EventHub } from './events/event-hub';
import { AdminRouter } from './admin/admin-router';
import { buildAdminState, registerAdminRoutes, type AdminRouteDeps } from './admin/admin-routes';
import { PhoneCheck } from './phone-check/phone-check';
import { registerLanRoutes } from './admin/lan-routes';
import type { AdminState } from '../contract/admin-api';
import { serveConsole } from './server/console-static';
import { ToolRuntime } from './tools/tool-runtime';
import { TOOLS } from './tools/catalogue';
import { PhoneShells } from './tools/phone-shells';
import { DeviceQueue } from './queue/device-queue';
import { SafetyService } from './safety/safety-service';
import { registerSafetyRoutes } from './admin/safety-routes';
import { registerSecretRoutes } from './admin/secret-routes';
import { HelperManager } from './helper/helper-manager';
import { FastLanes } from './helper/fast-lane';
import { findHelperApks } from './helper/helper-apks';
import { registerHelperRoutes } from './admin/helper-routes';
import { registerPhoneViewRoutes } from './admin/phone-view-routes';
import { ActionTimeline } from './phone-view/action-timeline';
import { LiveFrames } from './phone-view/live-frames';

export interface Core {
  readonly options: CoreOptions;
  readonly build: BuildInfo;
  start(): Promise<{ url: string; host: string; port: number }>;
  stop(): Promise<void>;
  /** Where the bridge itself answers: http(s)://host:port ('' before start). */
  url(): string;
  /** The base URL xAgent is given: --public-url behind a proxy, else url(). */
  publicUrl(): string;
  /** The certificate served over https/wss (fingerprint, files, names), or null without TLS. */
  tls(): TlsSummary | null;
  /** Connections the server holds now on every plane (README "Documented limits": connection caps). */
  openConnections(): number;
  apiKey(): string;
  adminToken(): string;
  /** Replaces the API key: data planes opened with the old one are closed (4401), uploads under it refused. */
  rotateApiKey(): string;
  /** Told after each rotation of the API key; returns the way to stop listening. */
  onApiKeyRotated(listener: (rotation: ApiKeyRotation) => void): () => void;
  /** Problems found at start (e.g. a corrupt state file kept aside), shown in the UI. */
  warnings(): string[];
  readonly registry: DeviceRegistry;
  readonly runtime: ConnectorRuntime;
  readonly bindings: BindingService;
  readonly tools: ToolRuntime;
  /** The fast lane's helper per phone (README "Fast lane"). */
  readonly helpers: HelperManager;
  /** The phone view's timeline and live frames (README "The phone view"). */
  readonly phoneView: { timeline: ActionTimeline; frames: LiveFrames };
  readonly hub: EventHub;
  readonly files: FileCache;
  readonly logger: Logger;
  readonly adbLinks: AdbServerLink[];
  readonly admin: AdminRouter;
  /** The limits people may change while the bridge runs (Settings → Limits, PATCH settings). */
  readonly limits: LiveLimits;
  adminState(): AdminState;
}

function leasePolicyOf(limits: LimitValues): LeasePolicy {
  return {
    maxDurationMs: limits.lease_max_duration_ms,
    idleTimeoutMs: limits.lease_idle_timeout_ms,
    disconnectGraceMs: limits.lease_disconnect_grace_ms,
  };
}

/** Where the console fetches approval screenshots (see the route). */
const CONSOLE_FILES_PREFIX = '/console/files/refs/';

export function defaultAdbServer(env: NodeJS.ProcessEnv = process.env): { host: string; port: number } {
  const socket = env.ADB_SERVER_SOCKET;
  if (socket) {
    const match = /^tcp:(?:(.+):)?(\d+)$/.exec(socket.trim());
    if (match) return { host: match[1] ?? '127.0.0.1', port: Number(match[2]) };
  }
  const port = Number.parseInt(env.ANDROID_ADB_SERVER_PORT ?? '', 10);
  return { host: '127.0.0.1', port: Number.isInteger(port) && port > 0 ? port : 5037 };
}

export function createCore(input: CoreOptionsInput): Core {
  const autoStartLocalAdb = !input.adbServers || input.adbServers.length === 0;
  const options = resolveCoreOptions({ ...input, adbServers: input.adbServers?.length ? input.adbServers : [defaultAdbServer()] });
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const clock = options.clock ?? Date.now;
  const build = options.build ?? loadBuildInfo();
  const warnings: string[] = [];

  // A key given by the embedder (env variable, desktop vault) is kept by it; else by the data dir.
  const apiKey = new SystemApiKey({
    initial: options.apiKey ?? loadOrCreateSecret(options.dataDir, 'api-key'),
    source: options.apiKeySource ?? 'store',
    ...(options.apiKey ? {} : { persist: persistInDataDir(options.dataDir) }),
  });
  const adminToken = options.adminToken ?? loadOrCreateSecret(options.dataDir, 'admin-token');
  const signingKey = Buffer.from(loadOrCreateSecret(options.dataDir, 'url-signing-key'), 'base64url');
  // Keys the hashes kept at rest instead of typed text and of call arguments (tools/typed-text.ts).
  const hashKey = Buffer.from(loadOrCreateSecret(options.dataDir, 'text-hash-key'), 'base64url');
  // Named secrets agents type by name and never see (README "Secrets by reference"): never logged or written either.
  const labSecrets = new LabSecrets({ dataDir: options.dataDir, clock, warn: (message) => warnings.push(message) });
  const secrets = (): string[] => [apiKey.current(), adminToken, ...labSecrets.forms()];
  const logger = options.logger ?? createLogger({ secrets });

  const store = new StateStore(options.dataDir, ({ movedTo, reason }) => {
    const message = `The state file was damaged (${reason.slice(0, 120)}); it was kept aside as ${movedTo} and the bridge started with empty state.`;
    warnings.push(message);
    logger.warn('state file corrupt; kept aside', { movedTo });
  });
  // Start options win over saved changes, saved changes over defaults (config/live-limits.ts).
  const startValues = startLimits(input);
  const limits = new LiveLimits({
    store,
    start: startValues.values,
    startNames: startValues.names,
    warn: (message) => {
      warnings.push(message);
      logger.warn('saved limit ignored', { message });
    },
  });
  const live = limits.values();
  const hub = new EventHub();
  const registry = new DeviceRegistry(clock);
  const adbLinks = options.adbServers.map(
    (server, i) =>
      new AdbServerLink({
        host: server.host,
        port: server.port,
        registry,
        logger,
        autoStart: autoStartLocalAdb && i === 0 && (server.host === '127.0.0.1' || server.host === 'localhost'),
        commandTimeoutMs: options.adbCommandTimeoutMs,
        clock,
      }),
  );
  for (const link of adbLinks) link.on('health', () => hub.publish('state'));

  const files = new FileCache({
    dir: join(options.dataDir, 'cache'),
    limits: { ...options.fileCache, ttlMs: live.file_cache_ttl_ms, maxBytes: live.file_cache_max_bytes, maxFiles: live.file_cache_max_files },
    clock,
  });
  const signer = new UrlSigner(signingKey, clock);

  // Filled below; the runtime and tool services are created first and reach them lazily.
  const late: { dataPlane?: DataPlane; bindings?: BindingService } = {};
  const runtime = new ConnectorRuntime({
    store,
    runtimeLeaseMs: options.runtimeLeaseMs,
    clock,
    onChannelUnregistered: (channel) => late.bindings?.unregisterChannel(channel),
    ...(options.channels?.maxPerConnector !== undefined ? { maxChannels: options.channels.maxPerConnector } : {}),
    ...(options.channels?.abandonedTtlMs !== undefined ? { abandonedChannelTtlMs: options.channels.abandonedTtlMs } : {}),
    channelInUse: (channelId) =>
      (late.dataPlane?.isChannelHeld(channelId) ?? false) || (late.bindings?.pendingSessions().some((s) => s.channelId === channelId) ?? false),
  });
  // Every call on a phone waits its turn here; every command reaches the phone through these shells.
  const queue = new DeviceQueue(options.queue);
  queue.setMaxDepth(live.queue_max_depth);
  const shells = new PhoneShells({ links: adbLinks, registry, clock, commandTimeoutMs: options.adbCommandTimeoutMs });
  late.bindings = new BindingService({
    store,
    runtime,
    registry,
    toolIds: () => TOOLS.map((t) => t.id),
    lease: leasePolicyOf(live),
    pairingTtlMs: options.pairingTtlMs,
    clock,
    toolMarks: (deviceId) => marksFor(deviceId),
    push: (channelId, descriptor) => {
      late.dataPlane?.pushToChannel(channelId, 'connection.descriptor.push', { connection_descriptor: descriptor });
      hub.publish('state');
    },
  });
  const bindingService = late.bindings;
  bindingService.on('changed', () => hub.publish('state'));
  bindingService.on('ended', (channelId, deviceId, reason) => tools.onBindingEnded(channelId, deviceId, reason));
  // Policy, approvals and the audit trail: asked before every tool call, told after it.
  const safety = new SafetyService({
    dataDir: options.dataDir,
    approvalTimeoutMs: live.approval_timeout_ms,
    ...(options.audit ? { auditLimits: options.audit } : {}),
    downloadUrlTtlMs: options.downloadUrlTtlMs,
    adbCommandTimeoutMs: options.adbCommandTimeoutMs,
    store,
    files,
    signer,
    hub,
    logger,
    clock,
    secrets,
    hashKey,
    leaseId: (channelId) => bindingService.activeBinding(channelId)?.boundAt,
  });
  // The fast lane: the resident helper on phones whose person agreed (helper/helper-manager.ts).
  // The phone check (made below) follows the helper's state in its Unicode row.
  let helperChanged = (): void => undefined;
  const helpers = new HelperManager({
    consent: {
      get: () => store.get().settings.fastLane ?? { default: 'ask', devices: {} },
      set: (next) =>
        store.update((draft) => {
          draft.settings.fastLane = next;
        }),
    },
    shellFor: (deviceId) => shells.defaultDisplayShell(deviceId),
    apks: findHelperApks(),
    logger,
    clock,
    onChange: () => {
      helperChanged();
      hub.publish('state');
    },
    // The helper runs only while the phone is leased (README "Fast lane": what the guard does).
    leaseActive: (deviceId) => bindingService.leaseHolder(deviceId) !== undefined,
    onAlert: (alert) => {
      logger.warn('fast lane helper stopped to keep the phone safe', { device: alert.deviceId, code: alert.code, message: alert.message });
      safety.recordBridgeAction({ deviceId: alert.deviceId, action: 'fast_lane_guard', code: alert.code, reason: alert.message });
      hub.publish('state');
    },
    ...options.fastLane,
    // Settings → Limits (the start flag or env has already won over the saved value).
    idleStopMs: live.fast_lane_idle_stop_ms,
  });
  bindingService.on('ended', (_channelId, deviceId) => helpers.leaseEnded(deviceId));
  registry.on('changed', (device) => {
    if (device.state !== 'device') helpers.deviceGone(device.deviceId);
  });
  // The phone view: live frames that never wait for the agent, and the timeline of its calls.
  const frames = new LiveFrames({
    device: (deviceId) => registry.get(deviceId),
    shellFor: (device) => shells.shellFor(device),
    observe: (deviceId, run) => queue.submit(deviceId, 'observation', 'phone-view', run),
    agentBusy: (deviceId) => queue.controlLoad(deviceId) > 0 && !safety.gate.list().some((a) => a.device_id === deviceId),
    clock,
    captureTimeoutMs: Math.min(options.adbCommandTimeoutMs, 15_000),
    // The helper's stream shows display 0 only (as its other lanes work there).
    helperStream: (deviceId, read) => (shells.displayInUse(deviceId) === 0 ? helpers.screenStream(deviceId, read) : Promise.resolve(null)),
  });
  const timeline = new ActionTimeline({
    clock,
    redact: (call) => safety.auditArguments(call),
    changed: (deviceId) => hub.publish('action', { device_id: deviceId }),
    frames,
    logger,
  });
  // The tools: each call's path from the edge through the queue, the gate and the tool to its audit line.
  const tools = new ToolRuntime({
    dataDir: options.dataDir,
    hashKey,
    registry,
    queue,
    shells,
    files,
    signer,
    options,
    logger,
    clock,
    gate: safety.gate,
    sinks: [safety.sink],
    lanes: new FastLanes(helpers),
    observer: timeline,
    secrets: labSecrets,
    marksChanged: (deviceId) => bindingService.toolMarksChanged(deviceId),
    stateChanged: () => hub.publish('state'),
    activeDeviceFor: (channelId) => bindingService.activeBinding(channelId)?.deviceId,
    bindingStatus: (channelId) => {
      const binding = bindingService.binding(channelId);
      return binding ? bindingService.bindingStatus(binding).status : 'created';
    },
    touch: (channelId) => bindingService.touch(channelId),
    progress: (channelId, payload) => late.dataPlane?.pushToChannel(channelId, 'tool.progress.push', payload) ?? false,
  });
  bindingService.on('ended', (channelId) => safety.gate.leaseEnded(channelId));
  registry.on('changed', () => hub.publish('state'));
  // Observation only: its commands wait behind no control call and never hold one up.
  const phoneCheck = new PhoneCheck({
    registry,
    shellFor: (device) => shells.shellFor(device),
    // The check's one stock dump needs UiAutomation: a running fast lane helper stops first (the next call starts it).
    observe: async (deviceId, run) => {
      await helpers.stopPhone(deviceId, null);
      return queue.submit(deviceId, 'observation', 'phone-check', run);
    },
    inputRefusal: (deviceId) => tools.lastRefusal(deviceId, 'input_blocked'),
    helperTypes: (deviceId) => {
      const helper = helpers.view(deviceId);
      return helper.enabled && (helper.state === 'stopped' || helper.state === 'starting' || helper.state === 'running');
    },
    onDisplays: (deviceId, target) => shells.noteDisplays(deviceId, target),
    onResult: (check) => {
      tools.forgetScreenState(check.device_id);
      bindingService.toolMarksChanged(check.device_id);
      hub.publish('state');
    },
    clock,
    commandTimeoutMs: options.adbCommandTimeoutMs,
  });
  helperChanged = () => phoneCheck.helperChanged();
  // Tools a phone refuses are marked in its channels' Descriptors (bindings/tool-marks.ts).
  function marksFor(deviceId: string): Map<string, ToolMark> {
    return toolMarks({
      check: phoneCheck.latest(deviceId),
      inputRefusal: tools.lastRefusal(deviceId, 'input_blocked'),
      installRefusal: tools.lastRefusal(deviceId, 'install_blocked'),
      treeReadAt: tools.lastTreeRead(deviceId),
    });
  }
  runtime.on('changed', () => hub.publish('state'));
  limits.on('changed', (changed) => {
    const now = limits.values();
    if (changed.approval_timeout_ms !== undefined) safety.gate.setApprovalTimeout(now.approval_timeout_ms);
    if (changed.lease_max_duration_ms !== undefined || changed.lease_idle_timeout_ms !== undefined || changed.lease_disconnect_grace_ms !== undefined) {
      bindingService.setLeasePolicy(leasePolicyOf(now));
    }
    if (changed.file_cache_ttl_ms !== undefined || changed.file_cache_max_bytes !== undefined || changed.file_cache_max_files !== undefined) {
      files.setLimits({ ttlMs: now.file_cache_ttl_ms, maxBytes: now.file_cache_max_bytes, maxFiles: now.file_cache_max_files });
    }
    if (changed.queue_max_depth !== undefined) queue.setMaxDepth(now.queue_max_depth);
    if (changed.fast_lane_idle_stop_ms !== undefined) helpers.setIdleStopMs(now.fast_lane_idle_stop_ms);
    logger.info('limits changed', changed);
    hub.publish('state');
  });

  const authorizeKey = (token: string | undefined): boolean => apiKey.matches(token);
  late.dataPlane = new DataPlane({
    runtime,
    authorize: authorizeKey,
    keyGeneration: () => apiKey.generation(),
    logger,
    limits: options.dataPlane ?? {},
    describe: (channel) => {
      const descriptor = bindingService.describe(channel);
      bindingService.noteDescribed(channel.id, descriptor);
      return descriptor;
    },
  });
  const plane = late.dataPlane;
  // A key is checked at upgrade only; rotation is what ends the sockets it let in.
  const stopClosingOnRotation = apiKey.onRotated(({ generation }) => plane.closeKeyGenerationsBelow(generation));
  registerAuthHandlers(plane, bindingService);
  tools.registerHandlers(plane);

  const card = (): Record<string, unknown> => buildCard({ build, tools: tools.cardTools(), authFlows: AUTH_FLOWS });
  // Host, Origin and wrong-token lockout in front of the admin API and the console (DNS rebinding, cross-site calls).
  let listeningPort = (): number => 0;
  const adminGate = new AdminGate({
    listenHost: () => options.host,
    listenPort: () => listeningPort(),
    publicUrl: () => options.network.publicUrl,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const admin = new AdminRouter({ adminToken: () => adminToken, allowRemote: options.allowRemoteAdmin, hub, gate: adminGate });
  const consoleHostRefused = (req: IncomingMessage, res: ServerResponse): boolean => {
    const refused = adminGate.checkRequest(req, { checkOrigin: false });
    if (refused) sendError(res, refused.status, refused.code, refused.message);
    return refused !== null;
  };

  // One server for every plane, http or https/wss; /health and the transfer plane are
  // xAgent planes (with /ws) that --allow-from guards. The Card and Skill stay public (spec §3).
  const endpoint = new NetworkEndpoint({
    host: options.host,
    port: options.port,
    dataDir: options.dataDir,
    network: options.network,
    connections: options.connections,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    routes: {
      routes: [
        { prefix: '/connector-card.json', exact: true, handler: (_req, res) => sendJson(res, 200, card()) },
        { prefix: '/skill.md', exact: true, handler: (_req, res) => sendText(res, 200, 'text/markdown; charset=utf-8', renderSkill(tools.cardTools())) },
        {
          prefix: '/health',
          exact: true,
          xagentPlane: true,
          handler: (req, res) => {
            if (!authorizeKey(bearerToken(req.headers.authorization))) return sendError(res, 401, 'unauthorized', 'a valid system API key is required');
            sendJson(res, 200, {
              status: 'ok',
              connector_card_id: CONNECTOR_CARD_ID,
              connector_card_version: CONNECTOR_VERSION,
              protocol_version: PROTOCOL_VERSION,
              build,
            });
          },
        },
        { prefix: '/files/refs/', xagentPlane: true, handler: (req, res) => handleDownload(req, res, { cache: files, signer }) },
        {
          prefix: '/files/uploads',
          exact: true,
          xagentPlane: true,
          bodyByProgress: true,
          handler: (req, res) =>
            handleUpload(req, res, {
              cache: files,
              authorize: (r) => authorizeKey(bearerToken(r.headers.authorization)),
              // Taken at the key check: an upload still running when the key rotates is refused.
              keyRevoked: () => apiKey.revokedSignal(),
              channelExists: (id) => runtime.channel(id) !== undefined,
              maxUploadBytes: options.maxUploadBytes,
            }),
        },
        { prefix: '/admin/api/', handler: (req, res, url) => admin.handle(req, res, url) },
        {
          // Approval screenshots for the person at the console: signed like any download, but
          // gated like the console (loopback unless remote admin), not by --allow-from.
          prefix: CONSOLE_FILES_PREFIX,
          handler: (req, res) => {
            if (!admin.admitsClient(req)) return sendError(res, 403, 'forbidden', 'the console answers loopback clients only');
            if (consoleHostRefused(req, res)) return;
            req.url = (req.url ?? '').slice('/console'.length);
            handleDownload(req, res, { cache: files, signer });
          },
        },
        { prefix: '/console', handler: (req, res, url) => (consoleHostRefused(req, res) ? undefined : serveConsole(req, res, url, options.consoleDir)) },
        {
          prefix: '/',
          exact: true,
          handler: (_req, res) => sendText(res, 200, 'text/plain; charset=utf-8', 'xAgent Device Bridge — see /connector-card.json\n'),
        },
      ],
      upgrade: (req, socket, head, token) => plane.handleUpgrade(req, socket, head, token),
    },
  });
  listeningPort = () => endpoint.listeningPort();
  const baseUrl = (): string => endpoint.localUrl();
  const allWarnings = (): string[] => [...warnings, ...endpoint.warnings()];

  let started = false;
  let stopped = false;
  const core: Core = {
    options,
    build,
    registry,
    runtime,
    bindings: bindingService,
    tools,
    helpers,
    phoneView: { timeline, frames },
    hub,
    files,
    logger,
    adbLinks,
    admin,
    limits,
    url: baseUrl,
    publicUrl: () => endpoint.publicUrl(),
    tls: () => endpoint.tlsSummary(),
    openConnections: () => endpoint.openConnections(),
    apiKey: () => apiKey.current(),
    adminToken: () => adminToken,
    rotateApiKey: () => {
      const next = apiKey.rotate();
      if (apiKey.source === 'env') logger.warn('API key rotated; DEVICE_BRIDGE_API_KEY sets it again at the next start');
      else logger.info('API key rotated');
      return next;
    },
    onApiKeyRotated: (listener) => apiKey.onRotated(listener),
    warnings: allWarnings,
    adminState: () => buildAdminState(adminDeps),
    async start() {
      if (started) throw new Error('core already started');
      started = true;
      // A bad certificate file stops the start here, before anything else runs.
      endpoint.loadTls();
      await files.start();
      runtime.start();
      bindingService.start();
      plane.start();
      tools.start();
      phoneCheck.start();
      for (const link of adbLinks) link.start();
      lan.start();
      const listening = await endpoint.listen();
      logger.info('bridge started', { url: baseUrl(), public_url: endpoint.publicUrl(), adb: options.adbServers.map((s) => `${s.host}:${s.port}`) });
      return { url: baseUrl(), ...listening };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      admin.closeStreams();
      phoneCheck.stop();
      await tools.stop();
      // Before the ADB links close: each running helper is force-stopped on its phone.
      await helpers.stop();
      await safety.stop();
      lan.stop();
      for (const link of adbLinks) link.stop();
      stopClosingOnRotation();
      await plane.stop();
      await endpoint.close();
      bindingService.stop();
      // A lease-activity write still on the thread pool finishes before the folder may go.
      await store.settled();
      runtime.stop();
      hub.close();
      await files.stop();
    },
  };
  const lan = registerLanRoutes(admin, {
    store,
    registry,
    adbLinks,
    logger,
    hub,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.lan ? { options: options.lan } : {}),
  });
  registerSafetyRoutes(admin, { safety, hub });
  registerSecretRoutes(admin, { secrets: labSecrets, hub });
  registerHelperRoutes(admin, { helpers, registry, hub });
  registerPhoneViewRoutes(admin, { known: (deviceId) => registry.get(deviceId) !== undefined, timeline, frames });
  const adminDeps: AdminRouteDeps = {
    phoneCheck,
    options,
    limits,
    build,
    registry,
    runtime,
    bindings: bindingService,
    tools,
    files,
    hub,
    adbLinks,
    store,
    url: () => endpoint.publicUrl(),
    network: () => endpoint.adminView(),
    apiKey: () => apiKey.current(),
    apiKeySource: () => apiKey.source,
    rotateApiKey: () => core.rotateApiKey(),
    warnings: allWarnings,
    approvals: () => safety.gate.list().map((a) => (a.screenshot_url ? { ...a, screenshot_url: `/console${a.screenshot_url}` } : a)),
    lanDevices: () => lan.manager.list(),
    helpers,
    secrets: labSecrets,
  };
  registerAdminRoutes(admin, adminDeps);
  // Every operation of the contract is answered, over HTTP and the desktop app's IPC alike.
  const unanswered = admin.missingOperations();
  if (unanswered.length > 0) throw new Error(`admin operations without a handler: ${unanswered.join(', ')}`);
  return core;
}

/** Reads a JSON file if present (used by the CLI for optional config). */
export function readJsonIfExists(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

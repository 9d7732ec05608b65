/**
 * createCore(options): the whole bridge in plain Node — control, data and transfer planes,
 * devices, bindings, tools, approvals, admin API and console — with one start() and one
 * idempotent stop() that releases every socket, timer, child process and listener it took:
 * each stop joins one DisposableStore (lifecycle/) as its service starts, and runs in reverse.
 */
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { toolMarks, type ToolMark } from './bindings/tool-marks';
import { join } from 'node:path';
import type { Core } from './core';
import { loadBuildInfo } from './build-info';
import {
  defaultAdbServer,
  leasePolicyOf,
  resolveCoreOptions,
  startLimits,
  type CoreOptionsInput,
} from './config/core-options';
import { LiveLimits } from './config/live-limits';
import { applyLimitChanges } from './config/apply-limits';
import type { LimitValues } from '../contract/limits';
import { createLogger } from './logging/logger';
import { bearerToken, loadOrCreateSecret, secretEquals } from './secrets/secret-store';
import { persistInDataDir, SystemApiKey } from './secrets/system-api-key';
import { LabSecrets } from './secrets/lab-secrets';
import { StateStore } from './store/state-store';
import { ConnectorRuntime } from './runtime/connector-runtime';
import { DeviceRegistry, type DeviceRecord } from './devices/device-registry';
import { AdbServerLink } from './devices/adb-server-link';
import { BindingService, type BindingEndReason } from './bindings/binding-service';
import { registerAuthHandlers } from './bindings/auth-handlers';
import { RefusedKeys } from './server/refused-keys';
import { DataPlane } from './server/data-plane';
import { NetworkEndpoint } from './server/network-endpoint';
import { AdminGate } from './server/admin-gate';
import { FileCache } from './files/file-cache';
import { UrlSigner } from './files/signed-url';
import { EventHub } from './events/event-hub';
import { AdminRouter } from './admin/admin-router';
import { registerAdminApi } from './admin/register-admin-api';
import { PhoneCheck } from './phone-check/phone-check';
import { ToolRuntime } from './tools/tool-runtime';
import { BridgeMetrics } from './metrics/bridge-metrics';
import { wireHandover } from './handover/wire';
import { wirePersonInput, wireTakeover } from './takeover/wire';
import { auditSink, BridgeEvents } from './events/bridge-events';
import { CONNECTOR_VERSION } from './protocol/identity';
import { TOOLS } from './tools/catalogue';
import { PhoneShells } from './tools/phone-shells';
import { DeviceQueue } from './queue/device-queue';
import { SafetyService } from './safety/safety-service';
import { liveTyping } from './safety/redact';
import { HelperManager } from './helper/helper-manager';
import { FastLanes } from './helper/fast-lane';
import { PhonePrograms } from './phone-programs/phone-programs';
import { findHelperApks } from './helper/helper-apks';
import { ActionTimeline } from './phone-view/action-timeline';
import { EvidenceStore } from './evidence/evidence-store';
import { EvidenceRecorder, type LeaseStart } from './evidence/evidence-recorder';
import { LiveFrames } from './phone-view/live-frames';
import { wireScreen } from './screen/wire';
import { STREAM_VIEW_GRACE_MS, ScreenStreams } from './stream/screen-streams';
import { Lifecycle } from './lifecycle/lifecycle';
import { listen } from './lifecycle/disposables';
import { coreRoutes } from './core-routes';
import { exposedAdbServerWarning } from './config/adb-server-exposure';
import { SshTunnels } from './devices/ssh/ssh-tunnels';
import type { SshAdbTunnel } from './devices/ssh/ssh-adb-tunnel';
import { AdbHosts } from './devices/adb-hosts';
import { hostView } from './admin/host-routes';

export type { Core } from './core';
export { defaultAdbServer } from './config/core-options';

export function createCore(input: CoreOptionsInput): Core {
  const autoStartLocalAdb = !input.adbServers || input.adbServers.length === 0;
  const options = resolveCoreOptions({
    ...input,
    adbServers: input.adbServers?.length ? input.adbServers : [defaultAdbServer()],
  });
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const clock = options.clock ?? Date.now;
  const build = options.build ?? loadBuildInfo();
  const warnings: string[] = [];
  for (const server of options.adbServers) {
    const exposed = exposedAdbServerWarning(server);
    if (exposed) warnings.push(exposed);
  }

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
  // Named secrets agents type by name and never see (docs/REFERENCE.md "Secrets by reference"): never logged or written either.
  const labSecrets = new LabSecrets({ dataDir: options.dataDir, clock, warn: (message) => warnings.push(message) });
  const secrets = (): string[] => [apiKey.current(), adminToken, ...labSecrets.forms()];
  const logger = options.logger ?? createLogger({ secrets });
  // Everything the core must release, released in reverse at stop(): the listeners taken below
  // first (so removed last), then each service as start() starts it.
  const lifecycle = new Lifecycle('core', (error) =>
    logger.error('a step of the stop failed', { error: error instanceof Error ? error.message : String(error) }),
  );
  const owned = lifecycle.owned;

  const hub = new EventHub();
  const reportError = (error: unknown): void =>
    logger.error('a reaction failed', { error: error instanceof Error ? error.message : String(error) });
  // What rooms tell each other (events/bridge-events.ts); each room subscribes in its wire.ts.
  const events = new BridgeEvents(reportError);
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
    events,
  });
  const live = limits.values();
  const registry = new DeviceRegistry(clock, events);
  const ssh = new SshTunnels(options.ssh, { dataDir: options.dataDir, logger, clock, warn: (m) => warnings.push(m) });
  // An ssh:// host given at start without a way to sign in stops the start here, with the fix.
  const sshAuth = options.adbServers.some((s) => s.ssh) ? ssh.defaultAuth() : undefined;
  const makeLink = (
    server: { host: string; port: number },
    extra: { autoStart?: boolean; tunnel?: SshAdbTunnel; origin?: 'start' | 'added' },
  ): AdbServerLink =>
    new AdbServerLink({
      host: server.host,
      port: server.port,
      registry,
      logger,
      autoStart: extra.autoStart ?? false,
      commandTimeoutMs: options.adbCommandTimeoutMs,
      clock,
      ...(extra.tunnel ? { tunnel: extra.tunnel } : {}),
      ...(extra.origin ? { origin: extra.origin } : {}),
    });
  // One array for the bridge's whole life: hosts added or removed at runtime change it in place (adbHosts).
  const adbLinks = options.adbServers.map((server, i) =>
    makeLink(server, {
      autoStart:
        !server.ssh && autoStartLocalAdb && i === 0 && (server.host === '127.0.0.1' || server.host === 'localhost'),
      ...(server.ssh && sshAuth ? { tunnel: ssh.tunnel({ ...server.ssh, adbPort: server.port }, sshAuth) } : {}),
    }),
  );

  const files = new FileCache({
    dir: join(options.dataDir, 'cache'),
    limits: {
      ...options.fileCache,
      ttlMs: live.file_cache_ttl_ms,
      maxBytes: live.file_cache_max_bytes,
      maxFiles: live.file_cache_max_files,
    },
    clock,
  });
  const signer = new UrlSigner(signingKey, clock);

  // The runtime, the data plane and the bindings need each other; the tools need them too. They
  // are made in that order; a callback that names one made further down (bindingService, plane,
  // tools, phoneCheck, endpoint) runs only once the bridge works, when every one of them exists.
  const runtime = new ConnectorRuntime({
    store,
    // Settings → Limits → xAgent reconnect grace (a start option has already won over the saved value).
    runtimeLeaseMs: live.runtime_grace_ms,
    clock,
    onChannelUnregistered: (channel) => bindingService.unregisterChannel(channel),
    ...(options.channels?.maxPerConnector !== undefined ? { maxChannels: options.channels.maxPerConnector } : {}),
    ...(options.channels?.abandonedTtlMs !== undefined
      ? { abandonedChannelTtlMs: options.channels.abandonedTtlMs }
      : {}),
    channelInUse: (channelId) =>
      plane.isChannelHeld(channelId) || bindingService.pendingSessions().some((s) => s.channelId === channelId),
  });
  // Every call on a phone waits its turn here; every command reaches the phone through these shells.
  const queue = new DeviceQueue(options.queue);
  queue.setMaxDepth(live.queue_max_depth);
  const shells = new PhoneShells({ links: adbLinks, registry, clock, commandTimeoutMs: options.adbCommandTimeoutMs });
  const authorizeKey = (token: string | undefined): boolean => apiKey.matches(token);
  // The agent asks the person to take a phone over; a person takes a phone over and hands it back (takeover/wire.ts).
  const takeoverRoom = wireTakeover({
    clock,
    events,
    audit: auditSink(events),
    changed: () => hub.publish('state'),
    maxAskMs: () => limits.values().approval_timeout_ms,
    onError: reportError,
  });
  const { takeover, asks } = takeoverRoom;
  owned.add(takeoverRoom.stop);
  // A wrong key gets a clean 401; the person learns of it on Connect xAgent and in the terminal.
  const refusedKeys = new RefusedKeys({ clock, logger, changed: () => hub.publish('state') });
  const plane: DataPlane = new DataPlane({
    runtime,
    authorize: authorizeKey,
    refusedKey: (address, given) => refusedKeys.note(address, given),
    keyGeneration: () => apiKey.generation(),
    logger,
    limits: options.dataPlane ?? {},
    describe: (channel) => {
      const descriptor = bindingService.describe(channel);
      bindingService.noteDescribed(channel.id, descriptor);
      return descriptor;
    },
  });
  const bindingService: BindingService = new BindingService({
    store,
    runtime,
    registry,
    toolIds: () => TOOLS.map((t) => t.id),
    lease: leasePolicyOf(live),
    pairingTtlMs: options.pairingTtlMs,
    clock,
    events,
    toolMarks: (deviceId) => marksFor(deviceId),
    deviceBlocked: (deviceId) => turnover.blocks(deviceId),
    heldByPerson: (deviceId) => takeover.isTaken(deviceId),
    // Bindings end only once the core runs, after `tools` below exists.
    lastAction: (channelId) => tools.lastAction(channelId),
    push: (channelId, descriptor) => {
      plane.pushToChannel(channelId, 'connection.descriptor.push', { connection_descriptor: descriptor });
      hub.publish('state');
    },
  });
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
    screenStream: {
      running: (deviceId) => streams.live(deviceId) !== null,
      unchanged: (deviceId, read) => streams.screenUnchangedSince(deviceId, read),
    },
    screens: { of: (deviceId) => screen.service.of(deviceId) },
  });
  // The fast lane: the resident helper on phones whose person agreed (helper/helper-manager.ts).
  const helpers = new HelperManager({
    consent: {
      get: () => store.get().settings.uia2Server ?? { devices: {} },
      set: (next) =>
        store.update((draft) => {
          draft.settings.uia2Server = next;
        }),
    },
    shellFor: (deviceId) => shells.defaultDisplayShell(deviceId),
    apks: findHelperApks(),
    logger,
    clock,
    onChange: () => {
      // The phone check follows the helper's state in its Unicode row.
      phoneCheck.helperChanged();
      hub.publish('state');
    },
    // The helper runs only while the phone is leased (docs/REFERENCE.md "Fast lane": what the guard does).
    leaseActive: (deviceId) => bindingService.leaseHolder(deviceId) !== undefined,
    onAlert: (alert) => {
      logger.warn('fast lane helper stopped to keep the phone safe', {
        device: alert.deviceId,
        code: alert.code,
        message: alert.message,
      });
      safety.recordBridgeAction({
        deviceId: alert.deviceId,
        action: 'fast_lane_guard',
        code: alert.code,
        reasons: [alert.message],
      });
      hub.publish('state');
    },
    ...options.fastLane,
    // Settings → Limits (the start flag or env has already won over the saved value).
    idleStopMs: live.fast_lane_idle_stop_ms,
  });
  // The port-less programs (scrcpy-server's input, the snapshot helper's tree): on by default,
  // reached through adb only, while the phone is leased (phone-programs/phone-programs.ts).
  const programs = new PhonePrograms({
    enabled: options.fastLane?.portless ?? true,
    consent: {
      // On by default: only a phone's own word is kept.
      get: () => ({ default: 'on', devices: store.get().settings.phonePrograms?.devices ?? {} }),
      set: (next) =>
        store.update((draft) => {
          draft.settings.phonePrograms = { devices: next.devices };
        }),
    },
    leaseActive: (deviceId) => bindingService.leaseHolder(deviceId) !== undefined,
    screenSize: (deviceId, shell) => shells.screenSize(deviceId, shell, { timeoutMs: options.adbCommandTimeoutMs }),
    logger,
    clock,
    onChange: () => {
      // The phone check's Unicode row follows whether scrcpy-server can type here.
      phoneCheck.helperChanged();
      hub.publish('state');
    },
    idleStopMs: live.fast_lane_idle_stop_ms,
    ...(options.fastLane?.programStartTimeoutMs !== undefined
      ? { startTimeoutMs: options.fastLane.programStartTimeoutMs }
      : {}),
    ...(options.fastLane?.programRetryMs !== undefined ? { retryMs: options.fastLane.programRetryMs } : {}),
  });
  // The screen stream (minicap) of each phone while it is leased or watched, on phones whose person agreed.
  const streams: ScreenStreams = new ScreenStreams({
    consent: {
      get: () => store.get().settings.screenStream ?? { default: 'ask', devices: {} },
      set: (next) =>
        store.update((draft) => {
          draft.settings.screenStream = next;
        }),
    },
    shellFor: (deviceId) => shells.defaultDisplayShell(deviceId),
    leased: (deviceId) => bindingService.leaseHolder(deviceId) !== undefined,
    // A view that stopped asking (closed, or its page hidden) lets the stream go soon after.
    watched: (deviceId) => frames.watched(deviceId, STREAM_VIEW_GRACE_MS),
    displayInUse: (deviceId) => shells.displayInUse(deviceId),
    lastControlEndedAt: (deviceId) => queue.lastControlEndedAt(deviceId),
    controlLoad: (deviceId) => queue.controlLoad(deviceId),
    logger,
    changed: () => hub.publish('state'),
    ...options.screenStream,
  });
  queue.onControlEnded((deviceId) => streams.controlEnded(deviceId));
  // A picture of the screen: one ScreenSource per phone (the stream, the helper's, screencap) and one encoder.
  const screen = wireScreen({
    stream: streams,
    // The helper's stream shows display 0 only (as its other lanes work there).
    helper: {
      open: (deviceId, read) =>
        shells.displayInUse(deviceId) === 0 ? helpers.screenStream(deviceId, read) : Promise.resolve(null),
    },
    // While a person holds the phone unwatched the stream serves their live view only.
    hiddenFromAgent: (deviceId) =>
      takeover.hidesScreenSince(deviceId, clock()) ? takeover.screenRefusal(deviceId) : null,
  });
  // The phone view: live frames that never wait for the agent, and the timeline of its calls.
  const frames: LiveFrames = new LiveFrames({
    device: (deviceId) => registry.get(deviceId),
    shellFor: (device) => shells.shellFor(device),
    observe: (deviceId, run) => queue.submit(deviceId, 'observation', 'phone-view', run),
    agentBusy: (deviceId) =>
      queue.controlLoad(deviceId) > 0 && !safety.gate.list().some((a) => a.device_id === deviceId),
    clock,
    captureTimeoutMs: Math.min(options.adbCommandTimeoutMs, 15_000),
    screens: screen.service,
  });
  const timeline = new ActionTimeline({
    clock,
    redact: (call) => safety.auditArguments(call),
    typing: liveTyping,
    changed: (deviceId) => hub.publish('action', { device_id: deviceId }),
    frames,
    logger,
    encoder: screen.service.encoder,
  });
  // The take over, the hand-back and the reset after a lease join the phone's timeline as Activity words them.
  owned.add(events.on('bridgeAction', (line) => timeline.recordStep(line)));
  // GET /metrics (Prometheus): counts calls as the audit does, reads the rest from the console's snapshot.
  const metrics = new BridgeMetrics({
    state: () => adminApi.state(),
    cache: () => {
      const c = files.stats();
      return { files: c.files, bytes: c.bytes, maxBytes: c.limits.maxBytes, maxFiles: c.limits.maxFiles };
    },
    build: { version: build.version, connectorVersion: CONNECTOR_VERSION },
  });
  const fastLanes = new FastLanes(helpers, clock, programs);
  // The hand-over between leases: what a lease left on its phone, put back before the next bind.
  const handoverRoom = wireHandover({
    store,
    clock,
    events,
    audit: auditSink(events),
    flowOf: (channelId) => bindingService.activeBinding(channelId)?.flowId,
    device: (deviceId) => registry.get(deviceId),
    shellFor: (device) => tools.shellFor(device),
    queue,
    clearClipboard: async (device, signal) => {
      const clipboard = await fastLanes.forCall(device.deviceId, tools.shellFor(device)).clipboard?.({ signal });
      if (!clipboard) return false;
      await clipboard.write('', { timeoutMs: 10_000, signal });
      return true;
    },
    counted: (report) => metrics.turnoverFinished(report),
    onError: reportError,
    warn: (message, fields) => logger.warn(message, fields),
  });
  const { handover: turnover, effects: leaseEffects } = handoverRoom;
  owned.add(handoverRoom.stop);
  // Each lease's evidence bundle: noted while it runs, built when it ends, kept in the data dir (evidence/).
  const evidenceStore = new EvidenceStore({
    dir: join(options.dataDir, 'evidence'),
    clock,
    ...(options.evidence ? { limits: options.evidence } : {}),
  });
  const leaseStart = (channelId: string): LeaseStart | undefined => {
    const binding = bindingService.activeBinding(channelId);
    return binding
      ? {
          deviceId: binding.deviceId,
          phoneName: binding.displayName,
          boundAt: binding.boundAt,
          flowId: binding.flowId,
          holder: binding.holder
            ? {
                requester: binding.holder.requester,
                claimed_as: binding.holder.claimedAs,
                client_address: binding.holder.clientAddress,
              }
            : null,
        }
      : undefined;
  };
  const evidence = new EvidenceRecorder({
    store: evidenceStore,
    clock,
    activeLease: leaseStart,
    auditLines: (deviceId, limit) => safety.audit.read({ deviceId }, limit),
    auditScreenshot: async (name) => {
      const path = safety.audit.screenshotPath(name);
      return path ? readFile(path).catch(() => undefined) : undefined;
    },
    fileInfo: (fileRef) => files.get(fileRef),
    readFile: async (fileRef) => {
      const path = files.path(fileRef);
      return path ? readFile(path).catch(() => undefined) : undefined;
    },
    secrets,
    saved: (deviceId) => hub.publish('evidence', { device_id: deviceId }),
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
    sinks: [safety.sink, metrics, leaseEffects, evidence],
    afterAck: { audit: safety.auditor, screenHistory: safety.gate },
    lanes: fastLanes,
    observer: timeline,
    secrets: labSecrets,
    marksChanged: (deviceId) => bindingService.toolMarksChanged(deviceId),
    stateChanged: () => hub.publish('state'),
    activeDeviceFor: (channelId) => bindingService.activeBinding(channelId)?.deviceId,
    leaseKeyFor: (channelId) => {
      const binding = bindingService.activeBinding(channelId);
      return binding && `${binding.deviceId}@${binding.lease.startedAt}`;
    },
    awayLeaseEnd: (deviceId) => bindingService.awayLeaseEnd(deviceId),
    bindingStatus: (channelId) => {
      const binding = bindingService.binding(channelId);
      return binding ? bindingService.bindingStatus(binding).status : 'created';
    },
    touch: (channelId) => bindingService.touch(channelId),
    progress: (channelId, payload) => plane.pushToChannel(channelId, 'tool.progress.push', payload),
    heldByPerson: (deviceId) => (takeover.isTaken(deviceId) ? takeover.refusal(deviceId) : null),
    logHiddenUntil: (deviceId) => takeover.logHiddenUntil(deviceId),
    screenHidden: (deviceId, since) =>
      takeover.hidesScreenSince(deviceId, since) ? takeover.screenRefusal(deviceId) : null,
    screens: screen.service,
    asks: takeoverRoom.askPerson,
  });
  // Observation only: its commands wait behind no control call and never hold one up.
  const phoneCheck: PhoneCheck = new PhoneCheck({
    registry,
    shellFor: (device) => shells.shellFor(device),
    // The check's one stock dump needs UiAutomation: a running fast lane helper stops first (the next call starts it).
    observe: async (deviceId, run) => {
      await helpers.stopPhone(deviceId, null);
      return queue.submit(deviceId, 'observation', 'phone-check', run);
    },
    inputRefusal: (deviceId) => tools.lastRefusal(deviceId, 'input_blocked'),
    // The open-ports helper where it is on, else scrcpy-server (pastes any text) where this build and phone can run it.
    helperTypes: (deviceId) => {
      const helper = helpers.view(deviceId);
      const scrcpy = programs.view(deviceId).find((p) => p.program === 'scrcpy_input');
      return (
        (helper.enabled && (helper.state === 'stopped' || helper.state === 'starting' || helper.state === 'running')) ||
        (scrcpy !== undefined && scrcpy.state !== 'off' && scrcpy.state !== 'unavailable')
      );
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
  // Tools a phone refuses are marked in its channels' Descriptors (bindings/tool-marks.ts).
  function marksFor(deviceId: string): Map<string, ToolMark> {
    return toolMarks({
      check: phoneCheck.latest(deviceId),
      inputRefusal: tools.lastRefusal(deviceId, 'input_blocked'),
      installRefusal: tools.lastRefusal(deviceId, 'install_blocked'),
      treeReadAt: tools.lastTreeRead(deviceId),
      takenOver: takeover.state(deviceId),
    });
  }
  registerAuthHandlers(plane, bindingService);
  tools.registerHandlers(plane);

  // What the core listens to. Added to `owned` before anything starts, so removed after every
  // service has stopped: what a service reports while it stops is still heard.
  const publishState = (): void => hub.publish('state');
  // A binding ended: its queued calls end, the phone's helper stops, its approvals end (in this order).
  const onBindingEnded = (channelId: string, deviceId: string, reason: BindingEndReason): void => {
    // First: the lease's log and typed texts are still there (the tools forget them next).
    void evidence.leaseEnded(channelId, {
      deviceId,
      reason,
      log: tools.leaseLog(channelId, deviceId),
      turnoverExpected: turnover.appliesTo(deviceId),
    });
    tools.onBindingEnded(channelId, deviceId, reason);
    helpers.leaseEnded(deviceId);
    void programs.leaseEnded(deviceId);
    streams.leaseEnded(deviceId);
    safety.gate.leaseEnded(channelId);
  };
  const onDeviceChanged = (device: DeviceRecord): void => {
    if (device.state !== 'device') {
      helpers.deviceGone(device.deviceId);
      programs.deviceGone(device.deviceId);
      streams.forget(device.deviceId);
      screen.service.forget(device.deviceId);
    } else {
      streams.deviceReady(device.deviceId);
    }
    publishState();
  };
  const onLimitsChanged = (changed: Partial<LimitValues>): void => {
    applyLimitChanges(changed, limits.values(), {
      approvals: safety.gate,
      leases: bindingService,
      files,
      queue,
      fastLane: {
        setIdleStopMs: (ms) => {
          helpers.setIdleStopMs(ms);
          programs.setIdleStopMs(ms);
        },
      },
      runtime,
    });
    logger.info('limits changed', changed);
    publishState();
  };
  owned.add(events.on('bridgeAction', (line) => safety.recordBridgeAction(line)));
  owned.add(
    events.on('takenOver', ({ deviceId, state }) => {
      evidence.personTook(deviceId, state);
      // A recording or wait running now would film what the person does: it stops here.
      if (!state.agentMayWatch) tools.stopScreenReads(deviceId, takeover.screenRefusal(deviceId));
      bindingService.toolMarksChanged(deviceId);
    }),
  );
  owned.add(
    events.on('handedBack', (back) => {
      if (!back.agentMayWatch) tools.forgetFailuresSeen(back.deviceId);
      void programs.handedBack(back.deviceId);
      bindingService.resumeAfterTakeover(back.deviceId, back.heldMs);
      evidence.personHandedBack(back.deviceId, clock());
      bindingService.toolMarksChanged(back.deviceId);
    }),
  );
  for (const link of adbLinks) owned.add(listen(link, 'health', publishState));
  const adbHosts = new AdbHosts({
    links: adbLinks,
    makeLink: (server, tunnel) => makeLink(server, { origin: 'added', ...(tunnel ? { tunnel } : {}) }),
    ssh,
    store,
    registry,
    watch: (link) => listen(link, 'health', publishState),
    changed: publishState,
    warn: (message) => {
      warnings.push(message);
      logger.warn('adb host', { message });
    },
    view: (link) => hostView(link.getHealth(), registry.list()),
    clock,
  });
  owned.add(listen(bindingService, 'changed', publishState));
  owned.add(listen(bindingService, 'ended', onBindingEnded));
  owned.add(events.on('phoneFree', ({ deviceId }) => bindingService.phoneFree(deviceId)));
  owned.add(
    events.on('handoverChanged', ({ deviceId, finished }) => {
      if (finished) void evidence.turnoverFinished(deviceId, finished);
      publishState();
    }),
  );
  // A new lease starts its evidence record (a channel's binding may change without a call).
  owned.add(
    listen(bindingService, 'changed', () => {
      for (const channel of runtime.channels()) {
        const start = leaseStart(channel.id);
        if (start) evidence.noteLease(channel.id, start);
      }
    }),
  );
  owned.add(listen(registry, 'changed', onDeviceChanged));
  owned.add(listen(runtime, 'changed', publishState));
  owned.add(listen(limits, 'changed', onLimitsChanged));

  // Host, Origin and wrong-token lockout in front of the admin API and the console (DNS rebinding, cross-site calls).
  const adminGate = new AdminGate({
    listenHost: () => options.host,
    listenPort: () => endpoint.listeningPort(),
    publicUrl: () => options.network.publicUrl,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  const admin = new AdminRouter({
    adminToken: () => adminToken,
    allowRemote: options.allowRemoteAdmin,
    hub,
    gate: adminGate,
  });

  // One server for every plane (core-routes.ts).
  const endpoint: NetworkEndpoint = new NetworkEndpoint({
    host: options.host,
    port: options.port,
    dataDir: options.dataDir,
    network: options.network,
    connections: options.connections,
    authenticated: (req) => {
      const token = bearerToken(req.headers.authorization);
      return token !== undefined && (authorizeKey(token) || secretEquals(token, adminToken));
    },
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
    routes: coreRoutes({
      build,
      cardTools: () => tools.cardTools(),
      authorizeKey,
      keyRevoked: () => apiKey.revokedSignal(),
      channelExists: (id) => runtime.channel(id) !== undefined,
      files,
      signer,
      maxUploadBytes: options.maxUploadBytes,
      admin,
      adminGate,
      metrics: {
        render: () => metrics.render(),
        // Without --allow-from anyone may reach the bridge's port, so a scrape needs the admin token.
        openToAdmittedClients: options.network.allowFrom !== undefined,
        adminToken: () => adminToken,
      },
      consoleDir: options.consoleDir,
      upgrade: (req, socket, head, token) => plane.handleUpgrade(req, socket, head, token),
    }),
  });
  const baseUrl = (): string => endpoint.localUrl();
  const allWarnings = (): string[] => [...warnings, ...endpoint.warnings()];

  const rotateApiKey = (): string => {
    const next = apiKey.rotate();
    if (apiKey.source === 'env') logger.warn('API key rotated; DEVICE_BRIDGE_API_KEY sets it again at the next start');
    else logger.info('API key rotated');
    return next;
  };

  // Read by the embedder (Core) and the admin API alike.
  const services = {
    options,
    build,
    registry,
    runtime,
    bindings: bindingService,
    tools,
    screens: screen.service,
    helpers,
    programs,
    programShell: (deviceId: string) => shells.defaultDisplayShell(deviceId),
    hub,
    files,
    logger,
    adbLinks,
    limits,
    rotateApiKey,
  };
  const adminApi = registerAdminApi(admin, {
    ...services,
    phoneCheck,
    store,
    safety,
    secrets: labSecrets,
    turnover,
    takeover,
    asks,
    streams,
    refusedKeys,
    personInput: wirePersonInput({
      takeover,
      audit: auditSink(events),
      device: (id) => registry.get(id),
      shellFor: (device) => tools.shellFor(device),
      queue,
      screenSize: (id, shell) => shells.screenSize(id, shell, { timeoutMs: options.adbCommandTimeoutMs }),
      // The fast lane's helper types any language while it runs and is allowed; else the phone's keyboard.
      typeText: (id, shell, text, typing) => fastLanes.forCall(id, shell).typeText(text, typing),
      timeline,
      commandTimeoutMs: options.adbCommandTimeoutMs,
      clock,
    }),
    timeline,
    frames,
    evidence: evidenceStore,
    hosts: adbHosts,
    url: () => endpoint.publicUrl(),
    network: () => endpoint.adminView(),
    apiKey: () => apiKey.current(),
    apiKeySource: () => apiKey.source,
    warnings: allWarnings,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.lan ? { lan: options.lan } : {}),
  });

  /**
   * Starts every service; right after each start its stop joins `owned`, so stop() runs
   * them in reverse. Where a stop must come at another point, its add is placed where
   * reverse order gives that point, and the comment beside it says why.
   */
  async function startServices(): Promise<{ host: string; port: number }> {
    // A bad certificate file stops the start here, before anything else runs.
    await endpoint.loadTls();
    await files.start();
    owned.add(() => files.stop());
    // Closed once everything that publishes to it has stopped.
    owned.add(() => hub.close());
    // Late at stop (after the bindings and tools): a bundle still being built is written first.
    owned.add(() => evidence.settled());
    runtime.start();
    owned.add(() => runtime.stop());
    // After the bindings stop (added next), whose last lease-activity write may still be on
    // the thread pool: it finishes before the files stop and the folder may go.
    owned.add(() => store.settled());
    bindingService.start();
    owned.add(() => bindingService.stop());
    // The server closes after the data plane (added next) has stopped its sockets.
    owned.add(() => endpoint.close());
    plane.start();
    owned.add(() => plane.stop());
    owned.add(() => refusedKeys.dispose());
    // A key is checked at upgrade only; rotation is what ends the sockets it let in.
    owned.add(apiKey.onRotated(({ generation }) => plane.closeKeyGenerationsBelow(generation)));
    // The hosts given at start and those added in Settings → Hosts (kept in the store).
    adbHosts.start();
    owned.add(() => adbHosts.stop());
    adminApi.lan.start();
    owned.add(() => adminApi.lan.stop());
    // After the tools stop (added below): calls that finished before the stop still get their audit line.
    owned.add(() => safety.stop());
    // Before the ADB links close (added above): each running helper is force-stopped on its phone.
    owned.add(() => helpers.stop());
    // Before the ADB links close: scrcpy-server is stopped on every phone.
    owned.add(() => programs.stop());
    // Before the ADB links close (added above): minicap is stopped and removed from every phone.
    owned.add(() => streams.close());
    owned.add(() => screen.stop());
    tools.start();
    owned.add(() => tools.stop());
    // Before the tools stop (added above): a turnover their stop interrupts is owed at the next start.
    turnover.start((channelId) => bindingService.activeBinding(channelId) !== undefined);
    owned.add(() => turnover.stop());
    phoneCheck.start();
    owned.add(() => phoneCheck.stop());
    // First at stop: the console's event streams end before what they report stops.
    owned.add(() => admin.closeStreams());
    return endpoint.listen();
  }

  return {
    ...services,
    phoneView: { timeline, frames },
    admin,
    url: baseUrl,
    publicUrl: () => endpoint.publicUrl(),
    tls: () => endpoint.tlsSummary(),
    openConnections: () => endpoint.openConnections(),
    apiKey: () => apiKey.current(),
    adminToken: () => adminToken,
    onApiKeyRotated: (listener) => apiKey.onRotated(listener),
    warnings: allWarnings,
    adminState: () => adminApi.state(),
    async start() {
      const listening = await lifecycle.start(startServices);
      logger.info('bridge started', {
        url: baseUrl(),
        public_url: endpoint.publicUrl(),
        adb: options.adbServers.map((s) => `${s.host}:${s.port}`),
      });
      return { url: baseUrl(), ...listening };
    },
    stop: () => lifecycle.stop(),
  };
}

/**
 * createCore(options): the whole bridge in plain Node, as a table of contents. Each room wires
 * itself (its `wire.ts` takes the narrow ports it needs and returns its service and the stop of
 * its subscriptions); rooms tell each other facts on one typed bus (events/bridge-events.ts).
 * What stays here: the order things are made in, the ports each room is handed, and one start()
 * and one idempotent stop() that releases every socket, timer, child process and listener:
 * each stop joins one DisposableStore (lifecycle/) as its service starts, and runs in reverse.
 * A service made further down that one made earlier asks a question of goes through a `Later`
 * (lifecycle/later.ts): those few cycles are named below, in `later`.
 */
import { mkdirSync } from 'node:fs';
import type { Core } from './core';
import { loadBuildInfo } from './build-info';
import { defaultAdbServer, resolveCoreOptions, type CoreOptionsInput } from './config/core-options';
import type { LimitValues } from '../contract/limits';
import { followLimitChanges } from './config/apply-limits';
import { wireSettings } from './config/wire';
import { exposedAdbServerWarning } from './devices/adb-server-exposure';
import { createLogger } from './logging/logger';
import { wireSecrets } from './secrets/wire';
import { wireRuntime } from './runtime/wire';
import { wireDevices } from './devices/wire';
import { wireBindings } from './bindings/wire';
import { registerAuthHandlers } from './bindings/auth-handlers';
import { wireDataPlane } from './server/wire';
import { wireFiles } from './files/wire';
import { EventHub } from './events/event-hub';
import { auditSink, BridgeEvents } from './events/bridge-events';
import { registerAdminApi } from './admin/register-admin-api';
import { hostView } from './admin/host-routes';
import { wirePhoneCheck } from './phone-check/wire';
import { wireTools } from './tools/wire';
import { PhoneShells } from './tools/phone-shells';
import { wireMetrics } from './metrics/wire';
import { wireHandover } from './handover/wire';
import { wirePersonInput, wireTakeover } from './takeover/wire';
import { DeviceQueue } from './queue/device-queue';
import { wireSafety } from './safety/wire';
import { liveTyping } from './safety/redact';
import { wireHelper } from './helper/wire';
import { FastLanes } from './helper/fast-lane';
import { wirePhonePrograms } from './phone-programs/wire';
import { wirePhoneView } from './phone-view/wire';
import { wireEvidence } from './evidence/wire';
import { wireStream } from './stream/wire';
import { wireScreen } from './screen/wire';
import { Lifecycle } from './lifecycle/lifecycle';
import { kept, listen } from './lifecycle/disposables';
import { serviceCycles } from './cycles';
import { wireServer } from './core-routes';

export type { Core } from './core';
export { defaultAdbServer } from './config/core-options';

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export function createCore(input: CoreOptionsInput): Core {
  const adbServers = input.adbServers?.length ? input.adbServers : [defaultAdbServer()];
  const options = resolveCoreOptions({ ...input, adbServers });
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const { dataDir, adbCommandTimeoutMs: commandTimeoutMs } = options;
  const clock = options.clock ?? Date.now;
  const build = options.build ?? loadBuildInfo();
  // What the person is told at the start (the console's and the terminal's warnings).
  const warnings = options.adbServers.map(exposedAdbServerWarning).filter((w): w is string => Boolean(w));
  const warn = (message: string): number => warnings.push(message);
  const keys = wireSecrets({ options, clock, warn });
  const { apiKey, adminToken, labSecrets, secrets } = keys;
  const logger = options.logger ?? createLogger({ secrets });
  // Everything the core must release, released in reverse at stop(): the rooms' subscriptions
  // taken below first (so removed last: what a service reports while it stops is still heard),
  // then each service as start() starts it.
  const lifecycle = new Lifecycle('core', (error) =>
    logger.error('a step of the stop failed', { error: messageOf(error) }),
  );
  const owned = lifecycle.owned;
  const reportError = (error: unknown): void => logger.error('a reaction failed', { error: messageOf(error) });
  const hub = new EventHub();
  const changed = (): void => hub.publish('state');
  const events = new BridgeEvents(reportError);
  const audit = auditSink(events);
  // The services that ask each other questions both ways (cycles.ts, lifecycle/later.ts).
  const later = serviceCycles();
  // What every room's wire.ts is handed.
  const rooms = { events, onError: reportError, clock, logger };

  const { store, limits } = wireSettings({ ...rooms, input, options, warn });
  const live = limits.values();
  const autoStartLocalAdb = !input.adbServers?.length;
  const devices = kept(owned, wireDevices({ ...rooms, options, store, autoStartLocalAdb, changed, warn, hostView }));
  const { registry, adbLinks } = devices;
  const { files, signer } = wireFiles({ options, limits: live, signingKey: keys.signingKey, clock });
  const runtime = wireRuntime({ store, clock, options, limits: live, ...later });
  // Every call on a phone waits its turn here; every command reaches the phone through these shells.
  const queue = new DeviceQueue(options.queue);
  queue.setMaxDepth(live.queue_max_depth);
  const shells = new PhoneShells({ links: adbLinks, registry, clock, commandTimeoutMs });
  // What the rooms' wire.ts are handed, growing as rooms are made; each takes the narrow part it declares.
  const base = { ...rooms, options, store, registry, queue, shells, audit, changed, hub, files, signer };
  const ports = {
    ...base,
    secrets,
    labSecrets,
    runtime,
    apiKey,
    commandTimeoutMs,
    limits: live,
    hashKey: keys.hashKey,
    dataDir,
  };
  const { takeover, asks, askPerson } = kept(owned, wireTakeover({ ...ports, liveLimits: limits }));
  const bindings = later.bindings.set(kept(owned, wireBindings({ ...ports, ...later, takeover })).bindings);
  const { plane, refusedKeys } = wireDataPlane({ ...ports, bindings });
  later.plane.set(plane);
  const leased = { ...ports, leases: bindings, takeover, plane };
  const { streams } = kept(owned, wireStream({ ...leased, frames: later.frames }));
  const { helpers } = kept(owned, wireHelper(leased));
  const { service: screens } = kept(owned, wireScreen({ ...leased, streams, helpers }));
  const { safety } = kept(owned, wireSafety({ ...leased, streams, screens, tools: later.tools }));
  const { programs } = kept(owned, wirePhonePrograms(leased));
  const lanes = new FastLanes(helpers, clock, programs);
  const view = { ...leased, gate: safety.gate, helpers, programs, streams, screens, safety, lanes, typing: liveTyping };
  const { frames, timeline } = kept(owned, wirePhoneView(view));
  later.frames.set(frames);
  const metrics = wireMetrics({ ...ports, ...later, build });
  const { handover, effects } = kept(owned, wireHandover({ ...view, metrics }));
  later.handover.set(handover);
  const evidence = kept(owned, wireEvidence({ ...view, tools: later.tools, handover }));
  const calls = { ...view, metrics, effects, evidence, timeline, asks: askPerson };
  const tools = later.tools.set(kept(owned, wireTools(calls)).tools);
  const phoneCheck = later.phoneCheck.set(kept(owned, wirePhoneCheck({ ...view, tools })).phoneCheck);
  registerAuthHandlers(plane, bindings);
  // What the console redraws on, and each limit changed in Settings → Limits reaching its service.
  owned.add(listen(bindings, 'changed', changed));
  owned.add(listen(runtime, 'changed', changed));
  owned.add(events.on('handoverChanged', changed));
  const holders = { approvals: safety.gate, leases: bindings, files, queue, runtime };
  const told = (changes: Partial<LimitValues>): void => logger.info('limits changed', changes);
  owned.add(followLimitChanges(events, () => limits.values(), holders, told));
  owned.add(events.on('limitsChanged', changed, 'last'));
  const { endpoint, admin } = wireServer({ ...ports, ...keys, build, metrics, tools, plane });
  const allWarnings = (): string[] => [...warnings, ...endpoint.warnings()];
  const rotateApiKey = (): string => keys.rotateApiKey(logger);
  // Read by the embedder (Core) and the admin API alike.
  const services = { options, build, registry, runtime, bindings, tools, helpers, programs, hub, files, logger };
  const core = { ...services, adbLinks, limits, rotateApiKey, screens };
  const adminApi = later.adminApi.set(
    registerAdminApi(admin, {
      ...core,
      programShell: (deviceId) => shells.defaultDisplayShell(deviceId),
      phoneCheck,
      store,
      safety,
      secrets: labSecrets,
      turnover: handover,
      takeover,
      asks,
      streams,
      refusedKeys,
      personInput: wirePersonInput({ ...view, timeline }),
      timeline,
      frames,
      evidence: evidence.store,
      lan: devices.lan,
      hosts: devices.hosts,
      url: () => endpoint.publicUrl(),
      network: () => endpoint.adminView(),
      apiKey: () => apiKey.current(),
      apiKeySource: () => apiKey.source,
      warnings: allWarnings,
      ...(options.clock ? { clock: options.clock } : {}),
    }),
  );

  /**
   * Starts every service; right after each start its stop joins `owned`, so stop() runs
   * them in reverse. Where a stop must come at another point, its add is placed where
   * reverse order gives that point, and the comment beside it says why.
   */
  async function startServices(): Promise<{ url: string; host: string; port: number }> {
    // A bad certificate file stops the start here, before anything else runs.
    await endpoint.loadTls();
    await files.start();
    owned.add(() => files.stop());
    // Closed once everything that publishes to it has stopped.
    owned.add(() => hub.close());
    // Late at stop (after the bindings and tools): a bundle still being built is written first.
    owned.add(() => evidence.recorder.settled());
    runtime.start();
    owned.add(() => runtime.stop());
    // After the bindings stop (added next), whose last lease-activity write may still be on
    // the thread pool: it finishes before the files stop and the folder may go.
    owned.add(() => store.settled());
    bindings.start();
    owned.add(() => bindings.stop());
    // The server closes after the data plane (added next) has stopped its sockets.
    owned.add(() => endpoint.close());
    plane.start();
    owned.add(() => plane.stop());
    owned.add(() => refusedKeys.dispose());
    // A key is checked at upgrade only; rotation is what ends the sockets it let in.
    owned.add(apiKey.onRotated(({ generation }) => plane.closeKeyGenerationsBelow(generation)));
    // The ADB links and the LAN phones' manager.
    devices.start();
    owned.add(() => devices.close());
    // After the tools stop (added below): calls that finished before the stop still get their audit line.
    owned.add(() => safety.stop());
    // Before the ADB links close (added above): each running helper is force-stopped on its phone.
    owned.add(() => helpers.stop());
    // Before the ADB links close: scrcpy-server is stopped on every phone.
    owned.add(() => programs.stop());
    // Before the ADB links close (added above): minicap is stopped and removed from every phone.
    owned.add(() => streams.close());
    tools.start();
    owned.add(() => tools.stop());
    // Before the tools stop (added above): a hand-over their stop interrupts is owed at the next start.
    handover.start((channelId) => bindings.activeBinding(channelId) !== undefined);
    owned.add(() => handover.stop());
    phoneCheck.start();
    owned.add(() => phoneCheck.stop());
    // First at stop: the console's event streams end before what they report stops.
    owned.add(() => admin.closeStreams());
    const listening = await endpoint.listen();
    const url = endpoint.localUrl();
    logger.info('bridge started', {
      url,
      public_url: endpoint.publicUrl(),
      adb: options.adbServers.map((s) => `${s.host}:${s.port}`),
    });
    return { url, ...listening };
  }

  return {
    ...core,
    phoneView: { timeline, frames },
    admin,
    url: () => endpoint.localUrl(),
    publicUrl: () => endpoint.publicUrl(),
    tls: () => endpoint.tlsSummary(),
    openConnections: () => endpoint.openConnections(),
    apiKey: () => apiKey.current(),
    adminToken: () => adminToken,
    onApiKeyRotated: (listener) => apiKey.onRotated(listener),
    warnings: allWarnings,
    adminState: () => adminApi.state(),
    start: () => lifecycle.start(startServices),
    stop: () => lifecycle.stop(),
  };
}

/**
 * The whole admin API on one router: the LAN, safety, secrets, fast lane, phone view and core routes
 * (each module owns its own), checked complete against the contract before the bridge is
 * built. createCore passes the pieces in.
 */
import type { AdminState } from '../../contract/admin-api';
import type { LanDeviceManager } from '../devices/lan-devices';
import type { AdminRouter } from './admin-router';
import { buildAdminState, registerAdminRoutes, type AdminRouteDeps } from './admin-routes';
import { registerProgramRoutes, type ProgramRouteDeps } from './program-routes';
import { registerStreamRoutes, type StreamRouteDeps } from './stream-routes';
import { registerLanRoutes, type LanRouteDeps } from './lan-routes';
import { registerPhoneViewRoutes, type PhoneViewRouteDeps } from './phone-view-routes';
import { registerSafetyRoutes, type SafetyRouteDeps } from './safety-routes';
import { registerSecretRoutes, type SecretRouteDeps } from './secret-routes';
import { registerTakeoverRoutes, type TakeoverRouteDeps } from './takeover-routes';
import { registerTurnoverRoutes, type TurnoverRouteDeps } from './turnover-routes';
import { registerEvidenceRoutes, type EvidenceRouteDeps } from './evidence-routes';
import { registerHostRoutes, type HostChangeDeps } from './host-routes';

export interface AdminApiDeps extends Omit<
  AdminRouteDeps,
  | 'approvals'
  | 'lanDevices'
  | 'helpers'
  | 'programs'
  | 'adbLinks'
  | 'secrets'
  | 'turnover'
  | 'takeover'
  | 'asks'
  | 'streams'
> {
  streams: StreamRouteDeps['streams'] & ProgramRouteDeps['streams'] & NonNullable<AdminRouteDeps['streams']>;
  takeover: TakeoverRouteDeps['takeover'] & NonNullable<AdminRouteDeps['takeover']>;
  personInput: TakeoverRouteDeps['personInput'];
  asks: TakeoverRouteDeps['asks'] & NonNullable<AdminRouteDeps['asks']>;
  turnover: TurnoverRouteDeps['turnover'] & NonNullable<AdminRouteDeps['turnover']>;
  secrets: SecretRouteDeps['secrets'] & AdminRouteDeps['secrets'];
  adbLinks: AdminRouteDeps['adbLinks'] & LanRouteDeps['adbLinks'];
  helpers: ProgramRouteDeps['helpers'] & NonNullable<AdminRouteDeps['helpers']>;
  programs: ProgramRouteDeps['programs'] & NonNullable<AdminRouteDeps['programs']>;
  /** The phone's shell on its main display (the programs' remove). */
  programShell: ProgramRouteDeps['shellFor'];
  safety: SafetyRouteDeps['safety'];
  timeline: PhoneViewRouteDeps['timeline'];
  frames: PhoneViewRouteDeps['frames'];
  evidence: EvidenceRouteDeps['evidence'];
  /** The LAN phones' manager (devices/wire.ts builds and starts it). */
  lan: LanRouteDeps['manager'] & Pick<LanDeviceManager, 'list'>;
  /** Adds and removes ADB hosts while the bridge runs (devices/adb-hosts.ts). */
  hosts: HostChangeDeps;
}

export interface AdminApi {
  /** GET /admin/api/state, also what the desktop app reads directly. */
  state(): AdminState;
}

/** Registers every admin route on `router`; throws when an operation of the contract has no handler. */
export function registerAdminApi(router: AdminRouter, deps: AdminApiDeps): AdminApi {
  const { safety, timeline, frames, evidence, hosts, lan, ...shared } = deps;
  registerLanRoutes(router, { manager: lan, adbLinks: deps.adbLinks });
  registerSafetyRoutes(router, { safety, hub: deps.hub });
  registerSecretRoutes(router, { secrets: deps.secrets, hub: deps.hub });
  registerProgramRoutes(router, {
    programs: deps.programs,
    helpers: deps.helpers,
    streams: deps.streams,
    list: (deviceId) => [
      ...deps.programs.view(deviceId),
      deps.helpers.programView(deviceId),
      deps.streams.programView(deviceId),
    ],
    registry: deps.registry,
    shellFor: deps.programShell,
    hub: deps.hub,
  });
  registerStreamRoutes(router, { streams: deps.streams, hub: deps.hub });
  registerTurnoverRoutes(router, { turnover: deps.turnover, registry: deps.registry, hub: deps.hub });
  registerEvidenceRoutes(router, { evidence });
  registerHostRoutes(router, { adbLinks: deps.adbLinks, registry: deps.registry, hosts });
  registerTakeoverRoutes(router, {
    takeover: deps.takeover,
    asks: deps.asks,
    personInput: deps.personInput,
    registry: deps.registry,
    hub: deps.hub,
  });
  registerPhoneViewRoutes(router, { known: (deviceId) => deps.registry.get(deviceId) !== undefined, timeline, frames });
  const routeDeps: AdminRouteDeps = {
    ...shared,
    // The console fetches approval screenshots under /console (core-routes.ts).
    approvals: () =>
      safety.gate.list().map((a) => (a.screenshot_url ? { ...a, screenshot_url: `/console${a.screenshot_url}` } : a)),
    lanDevices: () => lan.list(),
    // The card's words for what the phone does: the agent's running call (the timeline has agents' calls only).
    doing: (deviceId) => {
      const running = timeline.list(deviceId).find((a) => a.state === 'running');
      return running ? { tool_id: running.tool_id, arguments: running.arguments } : null;
    },
  };
  registerAdminRoutes(router, routeDeps);
  // Every operation of the contract is answered, over HTTP and the desktop app's IPC alike.
  const unanswered = router.missingOperations();
  if (unanswered.length > 0) throw new Error(`admin operations without a handler: ${unanswered.join(', ')}`);
  return { state: () => buildAdminState(routeDeps) };
}

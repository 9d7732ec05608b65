/**
 * Admin routes for LAN phones (main/contract/admin-api.ts): add by address, forget, pair with
 * a code, list mDNS-discovered phones. Owns the LanDeviceManager's wiring into the core: its
 * rows in GET /admin/api/state and a hub 'state' event on every change.
 */
import type { AdminLanDevice, AdminLanDiscovered } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import { LanDeviceManager, type LanOptions } from '../devices/lan-devices';
import { LanDiscovery, pairLanDevice } from '../devices/lan-pairing';
import type { StateStore } from '../store/state-store';
import type { Core } from '../create-core';
import type { AdminRouter } from './admin-router';
import { adminStateParts } from './admin-routes';

/** How long adb may take to pair (it runs the TLS pairing handshake with the phone). */
const PAIRING_TIMEOUT_MS = 15_000;

export interface LanFeature {
  manager: LanDeviceManager;
  start(): void;
  stop(): void;
}

function optionalServer(body: Record<string, unknown>): string | undefined {
  const value = body.adb_server;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > 300) throw new BridgeError('invalid_arguments', 'adb_server must be the HOST:PORT of a configured ADB server');
  return value;
}

export function registerLanRoutes(router: AdminRouter, core: Core, extras: { store: StateStore; options?: LanOptions }): LanFeature {
  const manager = new LanDeviceManager({
    store: extras.store,
    registry: core.registry,
    links: core.adbLinks,
    logger: core.logger,
    onChange: () => core.hub.publish('state'),
    ...(core.options.clock ? { clock: core.options.clock } : {}),
    ...(extras.options ? { options: extras.options } : {}),
  });
  const discovery = new LanDiscovery(core.adbLinks, { cacheMs: 5000, timeoutMs: 2000 });
  adminStateParts.set(core, { ...adminStateParts.get(core), lanDevices: () => manager.list() });

  const linkFor = (adbServer: string | undefined): Core['adbLinks'][number] => {
    const link = adbServer === undefined ? core.adbLinks[0] : core.adbLinks.find((l) => l.address === adbServer);
    if (!link) throw new BridgeError('invalid_arguments', `adb_server must be one of: ${core.adbLinks.map((l) => l.address).join(', ')}`);
    return link;
  };

  router.add('POST', '/admin/api/lan-devices', async ({ body }): Promise<{ status: string; lan_device: AdminLanDevice }> => {
    const b = await body();
    const lanDevice = await manager.add(b.address, optionalServer(b));
    return { status: lanDevice.status, lan_device: lanDevice };
  });

  router.add('DELETE', '/admin/api/lan-devices/:address', async ({ params }) => {
    await manager.forget(params.address ?? '');
    return { status: 'forgotten' };
  });

  router.add('POST', '/admin/api/lan-pair', async ({ body }) => {
    const b = await body();
    return pairLanDevice(linkFor(optionalServer(b)), b.address, b.code, { timeoutMs: PAIRING_TIMEOUT_MS });
  });

  router.add('GET', '/admin/api/lan-discovered', (): Promise<AdminLanDiscovered> => discovery.list());

  return { manager, start: () => manager.start(), stop: () => manager.stop() };
}

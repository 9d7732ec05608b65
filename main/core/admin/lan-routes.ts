/**
 * Admin routes for LAN phones (main/contract/admin-api.ts): add by address, forget, pair with
 * a code, list mDNS-discovered phones. The LanDeviceManager is built and started by the
 * devices' room (devices/wire.ts); its rows show in GET /admin/api/state (`manager.list()`).
 */
import type { AdminLanDevice, AdminLanDiscovered } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { LanAdbServer, LanDeviceManager } from '../devices/lan-devices';
import { LanDiscovery, pairLanDevice } from '../devices/lan-pairing';
import type { AdminRouter } from './admin-router';

/** How long adb may take to pair (it runs the TLS pairing handshake with the phone). */
const PAIRING_TIMEOUT_MS = 15_000;

/** What the LAN routes use; createCore passes the pieces in. */
export interface LanRouteDeps {
  manager: Pick<LanDeviceManager, 'add' | 'forget'>;
  adbLinks: readonly LanAdbServer[];
}

function optionalServer(body: { readonly adb_server?: unknown }): string | undefined {
  const value = body.adb_server;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > 300)
    throw new BridgeError('invalid_arguments', 'adb_server must be the HOST:PORT of a configured ADB server');
  return value;
}

export function registerLanRoutes(router: AdminRouter, deps: LanRouteDeps): void {
  const { manager } = deps;
  const discovery = new LanDiscovery(deps.adbLinks, { cacheMs: 5000, timeoutMs: 2000 });

  const linkFor = (adbServer: string | undefined): LanAdbServer => {
    const link = adbServer === undefined ? deps.adbLinks[0] : deps.adbLinks.find((l) => l.address === adbServer);
    if (!link)
      throw new BridgeError(
        'invalid_arguments',
        `adb_server must be one of: ${deps.adbLinks.map((l) => l.address).join(', ')}`,
      );
    return link;
  };

  router.add(
    'POST /admin/api/lan-devices',
    async ({ request }): Promise<{ status: string; lan_device: AdminLanDevice }> => {
      const b = await request();
      const lanDevice = await manager.add(b.address, optionalServer(b));
      return { status: lanDevice.status, lan_device: lanDevice };
    },
  );

  router.add('DELETE /admin/api/lan-devices/:address', async ({ params }) => {
    await manager.forget(params.address);
    return { status: 'forgotten' };
  });

  router.add('POST /admin/api/lan-pair', async ({ request }) => {
    const b = await request();
    return pairLanDevice(linkFor(optionalServer(b)), b.address, b.code, { timeoutMs: PAIRING_TIMEOUT_MS });
  });

  router.add('GET /admin/api/lan-discovered', (): Promise<AdminLanDiscovered> => discovery.list());
}

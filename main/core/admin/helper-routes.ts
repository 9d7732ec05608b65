/**
 * Admin routes of the fast lane (main/contract/admin-api.ts): per phone enable (the person's
 * consent; the helper is installed), disable (stopped), remove (both APKs uninstalled) and
 * accept_network (the helper may run while the phone has a network address, its ports then
 * reachable there), and the lab-wide defaults of both. Each phone's helper state reaches GET state through createCore.
 */
import type { AdminFastLane, AdminHelper } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { HelperManager } from '../helper/helper-manager';
import type { AdminRouter } from './admin-router';
import type { EventHub } from '../events/event-hub';

export interface HelperRouteDeps {
  helpers: Pick<
    HelperManager,
    'enable' | 'disable' | 'remove' | 'acceptNetwork' | 'settings' | 'setDefault' | 'setNetworkDefault'
  >;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

const ACTIONS = ['enable', 'disable', 'remove', 'accept_network'] as const;
const STATUS: Record<(typeof ACTIONS)[number], string> = {
  enable: 'enabled',
  disable: 'disabled',
  remove: 'removed',
  accept_network: 'network_accepted',
};

export function registerHelperRoutes(router: AdminRouter, deps: HelperRouteDeps): void {
  router.add('POST /admin/api/devices/:device_id/helper', async ({ params, request }) => {
    const deviceId = params.device_id;
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const action = (await request()).action;
    if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
      throw new BridgeError('invalid_arguments', 'action must be enable, disable, remove or accept_network');
    }
    const chosen = action as (typeof ACTIONS)[number];
    if ((chosen === 'enable' || chosen === 'remove') && device.state !== 'device')
      throw new BridgeError('device_offline', 'the phone is not ready; try again when it shows as connected');
    let helper: AdminHelper;
    if (chosen === 'enable') helper = deps.helpers.enable(deviceId);
    else if (chosen === 'disable') helper = await deps.helpers.disable(deviceId);
    else if (chosen === 'accept_network') helper = deps.helpers.acceptNetwork(deviceId);
    else helper = await deps.helpers.remove(deviceId);
    deps.hub.publish('state');
    return { status: STATUS[chosen], helper };
  });

  router.add('GET /admin/api/fast-lane', (): AdminFastLane => deps.helpers.settings());

  router.add('PUT /admin/api/fast-lane', async ({ request }): Promise<AdminFastLane> => {
    const change = await request();
    const mode = change.default;
    const network = change.network_default;
    if (mode === undefined && network === undefined)
      throw new BridgeError('invalid_arguments', 'give default (ask or on), network_default (true or false), or both');
    if (mode !== undefined && mode !== 'ask' && mode !== 'on')
      throw new BridgeError('invalid_arguments', 'default must be ask or on');
    if (network !== undefined && typeof network !== 'boolean')
      throw new BridgeError('invalid_arguments', 'network_default must be true or false');
    if (mode !== undefined) deps.helpers.setDefault(mode);
    if (network !== undefined) deps.helpers.setNetworkDefault(network);
    deps.hub.publish('state');
    return deps.helpers.settings();
  });
}

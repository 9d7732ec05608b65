/**
 * Admin routes of the fast lane (main/contract/admin-api.ts): per phone enable (the person's
 * consent; the helper is installed), disable (stopped) and remove (both APKs uninstalled),
 * and the lab-wide default. Each phone's helper state reaches GET state through createCore.
 */
import type { AdminFastLane, AdminHelper } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { HelperManager } from '../helper/helper-manager';
import type { AdminRouter } from './admin-router';
import type { EventHub } from './event-hub';

export interface HelperRouteDeps {
  helpers: Pick<HelperManager, 'enable' | 'disable' | 'remove' | 'settings' | 'setDefault'>;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

const ACTIONS = ['enable', 'disable', 'remove'] as const;

export function registerHelperRoutes(router: AdminRouter, deps: HelperRouteDeps): void {
  router.add('POST', '/admin/api/devices/:device_id/helper', async ({ params, body }) => {
    const deviceId = params.device_id ?? '';
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const action = (await body()).action;
    if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
      throw new BridgeError('invalid_arguments', 'action must be enable, disable or remove');
    }
    if (action !== 'disable' && device.state !== 'device') throw new BridgeError('device_offline', 'the phone is not ready; try again when it shows as connected');
    let helper: AdminHelper;
    if (action === 'enable') helper = deps.helpers.enable(deviceId);
    else if (action === 'disable') helper = await deps.helpers.disable(deviceId);
    else helper = await deps.helpers.remove(deviceId);
    deps.hub.publish('state');
    return { status: action === 'enable' ? 'enabled' : action === 'disable' ? 'disabled' : 'removed', helper };
  });

  router.add('GET', '/admin/api/fast-lane', (): AdminFastLane => deps.helpers.settings());

  router.add('PUT', '/admin/api/fast-lane', async ({ body }): Promise<AdminFastLane> => {
    const mode = (await body()).default;
    if (mode !== 'ask' && mode !== 'on') throw new BridgeError('invalid_arguments', 'default must be ask or on');
    deps.helpers.setDefault(mode);
    deps.hub.publish('state');
    return deps.helpers.settings();
  });
}

/**
 * Admin routes of the open-ports helper, appium-uiautomator2-server (main/contract/admin-api.ts):
 * per phone enable (the person's yes, which must say `accept_open_ports: true`: while it runs,
 * any app on the phone and any computer on its network can control the phone with no
 * password; the helper is installed), disable (stopped) and remove (both APKs uninstalled).
 * There is no lab-wide default. Each phone's helper state reaches GET state through createCore.
 */
import type { AdminFastLane, AdminHelper } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { HelperManager } from '../helper/helper-manager';
import type { AdminRouter } from './admin-router';
import type { EventHub } from '../events/event-hub';

export interface HelperRouteDeps {
  helpers: Pick<HelperManager, 'enable' | 'disable' | 'remove' | 'settings'>;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

const ACTIONS = ['enable', 'disable', 'remove'] as const;
const STATUS: Record<(typeof ACTIONS)[number], string> = {
  enable: 'enabled',
  disable: 'disabled',
  remove: 'removed',
};

export function registerHelperRoutes(router: AdminRouter, deps: HelperRouteDeps): void {
  router.add('POST /admin/api/devices/:device_id/helper', async ({ params, request }) => {
    const deviceId = params.device_id;
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const body = await request();
    const action = body.action;
    if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
      throw new BridgeError('invalid_arguments', 'action must be enable, disable or remove');
    }
    const chosen = action as (typeof ACTIONS)[number];
    if (chosen === 'enable' && body.accept_open_ports !== true)
      throw new BridgeError(
        'invalid_arguments',
        'enable needs accept_open_ports: true — while appium-uiautomator2-server runs, any app on this phone and any computer on its network can control the phone through ports 6790 and 7810, with no password',
      );
    if ((chosen === 'enable' || chosen === 'remove') && device.state !== 'device')
      throw new BridgeError('device_offline', 'the phone is not ready; try again when it shows as connected');
    let helper: AdminHelper;
    if (chosen === 'enable') helper = deps.helpers.enable(deviceId);
    else if (chosen === 'disable') helper = await deps.helpers.disable(deviceId);
    else helper = await deps.helpers.remove(deviceId);
    deps.hub.publish('state');
    return { status: STATUS[chosen], helper };
  });

  router.add('GET /admin/api/fast-lane', (): AdminFastLane => deps.helpers.settings());
}

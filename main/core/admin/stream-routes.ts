/**
 * Admin routes of the screen stream (main/contract/admin-api.ts): per phone enable (the
 * person's consent: minicap may be copied to the phone and run while it is leased or watched)
 * and disable (stopped at once, its files removed), and the lab-wide default.
 */
import type { AdminScreenStream, AdminScreenStreamSettings } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { EventHub } from '../events/event-hub';
import type { ScreenStreams } from '../stream/screen-streams';
import type { AdminRouter } from './admin-router';

export interface StreamRouteDeps {
  streams: Pick<ScreenStreams, 'choose' | 'settings' | 'setDefault'>;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

export function registerStreamRoutes(router: AdminRouter, deps: StreamRouteDeps): void {
  router.add('POST /admin/api/devices/:device_id/screen-stream', async ({ params, request }) => {
    const device = deps.registry.get(params.device_id);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const action = (await request()).action;
    if (action !== 'enable' && action !== 'disable')
      throw new BridgeError('invalid_arguments', 'action must be enable or disable');
    const stream: AdminScreenStream = await deps.streams.choose(params.device_id, action === 'enable' ? 'on' : 'off');
    deps.hub.publish('state');
    return { status: action === 'enable' ? 'enabled' : 'disabled', stream };
  });

  router.add('GET /admin/api/screen-stream', (): AdminScreenStreamSettings => deps.streams.settings());

  router.add('PUT /admin/api/screen-stream', async ({ request }): Promise<AdminScreenStreamSettings> => {
    const mode = (await request()).default;
    if (mode !== 'ask' && mode !== 'on') throw new BridgeError('invalid_arguments', 'default must be ask or on');
    deps.streams.setDefault(mode);
    deps.hub.publish('state');
    return deps.streams.settings();
  });
}

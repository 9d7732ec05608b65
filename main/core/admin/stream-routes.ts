/**
 * The screen stream's lab-wide default (main/contract/admin-api.ts): `ask` streams only phones a
 * person turned it on for, `on` every phone unless turned off. Each phone's own choice is one of
 * its programs (`minicap_stream`, program-routes.ts).
 */
import type { AdminScreenStreamSettings } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { EventHub } from '../events/event-hub';
import type { ScreenStreams } from '../stream/screen-streams';
import type { AdminRouter } from './admin-router';

export interface StreamRouteDeps {
  streams: Pick<ScreenStreams, 'settings' | 'setDefault'>;
  hub: Pick<EventHub, 'publish'>;
}

export function registerStreamRoutes(router: AdminRouter, deps: StreamRouteDeps): void {
  router.add('GET /admin/api/screen-stream', (): AdminScreenStreamSettings => deps.streams.settings());

  router.add('PUT /admin/api/screen-stream', async ({ request }): Promise<AdminScreenStreamSettings> => {
    const mode = (await request()).default;
    if (mode !== 'ask' && mode !== 'on') throw new BridgeError('invalid_arguments', 'default must be ask or on');
    deps.streams.setDefault(mode);
    deps.hub.publish('state');
    return deps.streams.settings();
  });
}

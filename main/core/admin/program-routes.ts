/**
 * Admin route of the port-less programs on one phone (phone-programs/phone-programs.ts):
 * enable (the default), disable (what runs stops; the stock lane serves), remove (taken off
 * the phone: scrcpy-server's folder, the snapshot helper's package; then disabled).
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { PhonePrograms } from '../phone-programs/phone-programs';
import type { AdminRouter } from './admin-router';
import type { EventHub } from '../events/event-hub';

export interface ProgramRouteDeps {
  programs: Pick<PhonePrograms, 'setAllowed' | 'remove'>;
  registry: Pick<DeviceRegistry, 'get'>;
  shellFor: (deviceId: string) => DeviceShell | undefined;
  hub: Pick<EventHub, 'publish'>;
}

const STATUS = { enable: 'enabled', disable: 'disabled', remove: 'removed' } as const;

export function registerProgramRoutes(router: AdminRouter, deps: ProgramRouteDeps): void {
  router.add('POST /admin/api/devices/:device_id/programs', async ({ params, request }) => {
    const deviceId = params.device_id;
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const action = (await request()).action;
    if (action !== 'enable' && action !== 'disable' && action !== 'remove')
      throw new BridgeError('invalid_arguments', 'action must be enable, disable or remove');
    if (action === 'remove' && device.state !== 'device')
      throw new BridgeError('device_offline', 'the phone is not ready; try again when it shows as connected');
    let programs: AdminPhoneProgram[];
    if (action === 'remove') programs = await deps.programs.remove(deviceId, deps.shellFor(deviceId));
    else programs = await deps.programs.setAllowed(deviceId, action === 'enable');
    deps.hub.publish('state');
    return { status: STATUS[action], programs };
  });
}

/**
 * The one admin route of every program the bridge runs on a phone (program-lifecycle/program-lifecycle.ts):
 * `POST /admin/api/devices/:id/programs` with `action` enable | disable | remove and `program`:
 * - absent, `scrcpy_input`, `snapshot_tree` or `ui_reader`: the port-less three, one consent for
 *   all; enable (the default), disable (what runs stops; the stock lane serves), remove (taken off
 *   the phone: scrcpy-server's and the UI reader's folders, the snapshot helper's package; then
 *   disabled);
 * - `uia2_server`: the person's yes must say `accept_open_ports: true` (while it runs, any app on
 *   the phone and any computer on its network can control the phone with no password); enable
 *   installs it, disable stops it, remove uninstalls both APKs;
 * - `minicap_stream`: enable (runs while the phone is leased or watched), disable and remove (stopped,
 *   its files removed from the phone).
 * The answer lists all five programs on the phone, as `devices[].programs` does. This is the
 * only route that changes a program on a phone. `GET /admin/api/fast-lane` says whether this
 * build carries appium-uiautomator2-server.
 */
import type { AdminFastLane, AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { PhonePrograms } from '../phone-programs/phone-programs';
import type { HelperManager } from '../helper/helper-manager';
import type { ScreenStreams } from '../stream/screen-streams';
import type { AdminRouter } from './admin-router';
import type { EventHub } from '../events/event-hub';

export interface ProgramRouteDeps {
  programs: Pick<PhonePrograms, 'setAllowed' | 'remove'>;
  helpers: Pick<HelperManager, 'enable' | 'disable' | 'remove' | 'settings'>;
  streams: Pick<ScreenStreams, 'choose'>;
  /** Every program on the phone, as the admin state lists them. */
  list: (deviceId: string) => AdminPhoneProgram[];
  registry: Pick<DeviceRegistry, 'get'>;
  shellFor: (deviceId: string) => DeviceShell | undefined;
  hub: Pick<EventHub, 'publish'>;
}

const STATUS = { enable: 'enabled', disable: 'disabled', remove: 'removed' } as const;
const PROGRAMS: ReadonlyArray<AdminPhoneProgram['program']> = [
  'scrcpy_input',
  'snapshot_tree',
  'ui_reader',
  'uia2_server',
  'minicap_stream',
];

export function registerProgramRoutes(router: AdminRouter, deps: ProgramRouteDeps): void {
  router.add('POST /admin/api/devices/:device_id/programs', async ({ params, request }) => {
    const deviceId = params.device_id;
    const device = deps.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
    const body = await request();
    const action = body.action;
    if (action !== 'enable' && action !== 'disable' && action !== 'remove')
      throw new BridgeError('invalid_arguments', 'action must be enable, disable or remove');
    const program = body.program ?? 'scrcpy_input';
    if (typeof program !== 'string' || !(PROGRAMS as readonly string[]).includes(program))
      throw new BridgeError('invalid_arguments', `program must be one of ${PROGRAMS.join(', ')}`);
    if (program === 'uia2_server' && action === 'enable' && body.accept_open_ports !== true)
      throw new BridgeError(
        'invalid_arguments',
        'enable needs accept_open_ports: true — while appium-uiautomator2-server runs, any app on this phone and any computer on its network can control the phone through ports 6790 and 7810, with no password',
      );
    const needsPhone = action === 'remove' || (program === 'uia2_server' && action === 'enable');
    if (needsPhone && device.state !== 'device')
      throw new BridgeError('device_offline', 'the phone is not ready; try again when it shows as connected');
    if (program === 'uia2_server') {
      if (action === 'enable') await deps.helpers.enable(deviceId);
      else if (action === 'disable') await deps.helpers.disable(deviceId);
      else await deps.helpers.remove(deviceId);
    } else if (program === 'minicap_stream') {
      // Off stops it and removes its files from the phone: remove is the same.
      await deps.streams.choose(deviceId, action === 'enable' ? 'on' : 'off');
    } else if (action === 'remove') await deps.programs.remove(deviceId, deps.shellFor(deviceId));
    else await deps.programs.setAllowed(deviceId, action === 'enable');
    deps.hub.publish('state');
    return { status: STATUS[action], programs: deps.list(deviceId) };
  });

  router.add('GET /admin/api/fast-lane', (): AdminFastLane => deps.helpers.settings());
}

/**
 * Admin routes of the hand-over (handover/handover.ts): the lab's policy — after claims,
 * after the person's own approvals, apps whose data is cleared, each phone's choice — and a
 * person's answer to a failed turnover (retry, or dismiss: the phone was checked by hand).
 */
import type { AdminTurnover, AdminTurnoverPolicy } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { DeviceRegistry } from '../devices/device-registry';
import type { EventHub } from '../events/event-hub';
import type { Handover } from '../handover/handover';
import type { AdminRouter } from './admin-router';

export interface TurnoverRouteDeps {
  turnover: Pick<Handover, 'policy' | 'setPolicy' | 'decide'>;
  registry: Pick<DeviceRegistry, 'get'>;
  hub: Pick<EventHub, 'publish'>;
}

const optionalBoolean = (value: unknown, name: string): boolean | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new BridgeError('invalid_arguments', `${name} must be true or false`);
  return value;
};

export function registerTurnoverRoutes(router: AdminRouter, deps: TurnoverRouteDeps): void {
  router.add('GET /admin/api/turnover', (): AdminTurnoverPolicy => deps.turnover.policy());

  router.add('PUT /admin/api/turnover', async ({ request }): Promise<AdminTurnoverPolicy> => {
    const b = await request();
    const claims = optionalBoolean(b.claims, 'claims');
    const approvals = optionalBoolean(b.approvals, 'approvals');
    let clearData: string[] | undefined;
    if (b.clear_data !== undefined) {
      if (
        !Array.isArray(b.clear_data) ||
        b.clear_data.length > 100 ||
        !b.clear_data.every((p) => typeof p === 'string')
      )
        throw new BridgeError('invalid_arguments', 'clear_data must be a list of at most 100 package names');
      clearData = b.clear_data;
    }
    let devices: Record<string, 'on' | 'off' | 'default'> | undefined;
    if (b.devices !== undefined) {
      if (typeof b.devices !== 'object' || b.devices === null || Array.isArray(b.devices))
        throw new BridgeError('invalid_arguments', 'devices must map phone ids to on, off or default');
      devices = {};
      for (const [id, choice] of Object.entries(b.devices as Record<string, unknown>)) {
        if (choice !== 'on' && choice !== 'off' && choice !== 'default')
          throw new BridgeError('invalid_arguments', 'a phone’s turnover is on, off or default');
        if (choice !== 'default' && !deps.registry.get(id)) throw new BridgeError('device_not_found', `no phone ${id}`);
        devices[id] = choice;
      }
    }
    const policy = deps.turnover.setPolicy({
      ...(claims !== undefined ? { claims } : {}),
      ...(approvals !== undefined ? { approvals } : {}),
      ...(clearData ? { clear_data: clearData } : {}),
      ...(devices ? { devices } : {}),
    });
    deps.hub.publish('state');
    return policy;
  });

  router.add(
    'POST /admin/api/devices/:device_id/turnover',
    async ({ params, request }): Promise<{ status: string; turnover: AdminTurnover | null }> => {
      const device = deps.registry.get(params.device_id);
      if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'no such phone');
      const action = (await request()).action;
      if (action !== 'retry' && action !== 'dismiss')
        throw new BridgeError('invalid_arguments', 'action must be retry or dismiss');
      const turnover = await deps.turnover.decide(params.device_id, action);
      deps.hub.publish('state');
      return { status: action === 'retry' ? (turnover?.state ?? 'done') : 'dismissed', turnover };
    },
  );
}

/**
 * Admin routes of the lab's named secrets (docs/REFERENCE.md "Secrets by reference"): list them (names,
 * phones, times), store or replace one, delete one. No route answers a value; a request's
 * fields are checked here and its value goes straight to the store, never into a message.
 */
import type { AdminSecret } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import type { EventHub } from '../events/event-hub';
import type { AdminRouter } from './admin-router';

/** What these routes use of the secrets (secrets/lab-secrets.ts). */
export interface SecretRouteDeps {
  secrets: {
    list(): AdminSecret[];
    set(name: string, value: string, devices: readonly string[] | null): { created: boolean; secret: AdminSecret };
    delete(name: string): void;
  };
  hub: Pick<EventHub, 'publish'>;
}

export function registerSecretRoutes(router: AdminRouter, deps: SecretRouteDeps): void {
  router.add('GET /admin/api/secrets', () => ({ secrets: deps.secrets.list() }));

  // Strict: `value` (text) and `devices` (a list of device ids, or null / left out for every phone).
  router.add('PUT /admin/api/secrets/:name', async ({ params, request }) => {
    const b = await request();
    const unknown = Object.keys(b).find((key) => key !== 'value' && key !== 'devices');
    if (unknown !== undefined)
      throw new BridgeError(
        'invalid_arguments',
        `${unknown.slice(0, 60)} is not a field of a secret (only value and devices)`,
        { field: unknown.slice(0, 60) },
      );
    if (typeof b.value !== 'string')
      throw new BridgeError('invalid_arguments', 'value must be text', { field: 'value' });
    const devices = b.devices ?? null;
    if (devices !== null && !(Array.isArray(devices) && devices.every((d): d is string => typeof d === 'string'))) {
      throw new BridgeError('invalid_arguments', 'devices must be a list of device ids, or null for every phone', {
        field: 'devices',
      });
    }
    const { created, secret } = deps.secrets.set(params.name, b.value, devices);
    deps.hub.publish('state');
    return { status: created ? 'created' : 'replaced', secret };
  });

  router.add('DELETE /admin/api/secrets/:name', ({ params }) => {
    deps.secrets.delete(params.name);
    deps.hub.publish('state');
    return { status: 'deleted' };
  });
}

/**
 * The admin contract (main/contract/admin-operations.ts) is the one list of operations: the
 * core's router answers each exactly once, the desktop app's IPC exposes each under its name,
 * the preload names each, and the console's HTTP transport and IPC reach the same handler
 * with the same parameters and request. The `@ts-expect-error` lines pin the router's typing.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ADMIN_HTTP_ONLY_ROUTES,
  ADMIN_OPERATION_NAMES,
  ADMIN_OPERATIONS,
  type AdminResponse,
} from '../../main/contract/admin-operations';
import { DEVICE_BRIDGE_IPC_METHODS, ipcChannel } from '../../main/contract/ipc-api';
import { AdminRouter } from '../../main/core/admin/admin-router';
import { EventHub } from '../../main/core/events/event-hub';
import { createIpcHandlers } from '../../main/electron/ipc-handlers';
import type { BridgeApi, LiveFrameImage } from '../../renderer/src/api/bridge-api';
import { createHttpTransport } from '../../renderer/src/api/http-transport';
import { createIpcTransport } from '../../renderer/src/api/ipc-transport';
import type { DeviceBridgeIpcApi } from '../../main/contract/ipc-api';
import { startBridge, type TestBridge } from '../helpers/bridge';

const TOKEN = 'contract-admin-token-0123456789';

function newRouter(): AdminRouter {
  return new AdminRouter({ adminToken: () => TOKEN, allowRemote: false, hub: new EventHub() });
}

/** Compile-time only (never called): the router refuses what the map does not say. */
export function routerTyping(router: AdminRouter): void {
  // @ts-expect-error a route that is not in the map
  router.add('POST /admin/api/devices/:device_id/helpers', () => ({ status: 'enabled' }));
  // @ts-expect-error a method the map does not give this path
  router.add('POST /admin/api/state', () => ({ status: 'ok' }));
  // @ts-expect-error the answer must be the map's response (AdminFastLane here)
  router.add('GET /admin/api/fast-lane', () => ({ status: 'ok' }));
  router.add('GET /admin/api/devices/:device_id/actions/:action_id/screen', ({ params }) => {
    // @ts-expect-error only the template's parameters exist
    void params.approval_id;
    return new TextEncoder().encode(params.device_id + params.action_id);
  });
  router.add('POST /admin/api/approvals/:approval_id', async ({ request }) => {
    const body = await request();
    // @ts-expect-error only the contract's request fields can be read (still unknown: checked by the handler)
    void body.decison;
    return { status: String(body.decision) };
  });
  // @ts-expect-error an HTTP-only route is no operation
  router.add('GET /admin/api/audit/screens/:name', () => ({ status: 'ok' }));
}

/** Compile-time only (never called): the console's client is made from the map and typed by it. */
export async function clientTyping(api: BridgeApi): Promise<void> {
  // @ts-expect-error a path parameter left out
  await api.stopDevice({});
  // @ts-expect-error a request field the contract does not have
  await api.decideApproval({ approval_id: 'ap_1', decison: 'approve' });
  // @ts-expect-error an operation the map does not have
  await api.getStates();
  // An answer with bytes comes as something a page can show or save.
  const picture: Blob = await api.getDeviceScreen({ device_id: 'dev_1' });
  const frame: LiveFrameImage = await api.getDeviceFrame({ device_id: 'dev_1', max_side: 720 });
  // The other answers are the map's responses.
  const stopped: AdminResponse<'stopDevice'> = await api.stopDevice({ device_id: 'dev_1' });
  void [picture, frame, stopped];
}

void describe('admin contract: one list of operations, used on both sides', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge();
  });
  after(async () => {
    await bridge?.stop();
  });

  void test('the core registers every operation of the map once, and nothing else but the HTTP-only routes', () => {
    assert.deepEqual(bridge.core.admin.missingOperations(), []);
    const registered = bridge.core.admin.registeredRoutes();
    assert.equal(new Set(registered).size, registered.length, 'each route once');
    const expected = [...Object.values(ADMIN_OPERATIONS).map((op) => op.route), ADMIN_HTTP_ONLY_ROUTES.auditScreen];
    assert.deepEqual([...registered].sort(), expected.sort());
  });

  void test('every operation has its IPC handler and preload function, under the same name', () => {
    const handlers = createIpcHandlers({ isTrusted: () => true, invoke: () => Promise.resolve(null) });
    assert.deepEqual([...handlers.keys()].sort(), ADMIN_OPERATION_NAMES.map((name) => ipcChannel(name)).sort());
    assert.deepEqual([...DEVICE_BRIDGE_IPC_METHODS].sort(), [...ADMIN_OPERATION_NAMES, 'onAdminEvent'].sort());
    for (const name of ADMIN_OPERATION_NAMES) assert.equal(ipcChannel(name), `device-bridge:${name}`);
  });

  void test('a map entry without a handler is reported; a second registration of a route throws', async () => {
    const router = newRouter();
    router.add('GET /admin/api/fast-lane', () => ({
      default: 'ask',
      available: false,
      version: null,
      network_default: false,
    }));
    assert.equal(router.missingOperations().length, ADMIN_OPERATION_NAMES.length - 1);
    assert.ok(!router.missingOperations().includes('getFastLane'));
    assert.throws(
      () =>
        router.add('GET /admin/api/fast-lane', () => ({
          default: 'on',
          available: false,
          version: null,
          network_default: false,
        })),
      /registered twice: GET \/admin\/api\/fast-lane/,
    );
    await assert.rejects(
      router.invoke('getState'),
      (e: unknown) => (e as { code?: string }).code === 'invalid_arguments',
    );
  });

  void describe('HTTP and IPC reach the same handler with the same input', () => {
    const seen: unknown[] = [];
    let server: Server;
    let origin = '';
    const router = newRouter();
    router.add('POST /admin/api/pairings/:auth_session_id', async ({ params, request }) => {
      seen.push({ params, request: await request() });
      return { status: 'approved' };
    });
    router.add(
      'GET /admin/api/devices/:device_id/actions/:action_id/screen',
      ({ params }) => {
        seen.push({ params });
        return new Uint8Array([0xff, 0xd8, params.action_id.length]);
      },
      {
        http: async ({ res }, answer) => {
          const jpeg = await answer();
          res.writeHead(200, { 'Content-Type': 'image/jpeg' });
          res.end(jpeg);
        },
      },
    );
    router.add('DELETE /admin/api/lan-devices/:address', async ({ params, request }) => {
      seen.push({ params, request: await request() });
      return { status: 'forgotten' };
    });

    before(async () => {
      server = createServer((req, res) => void router.handle(req, res, new URL(req.url ?? '/', 'http://x')));
      await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise<void>((ok) => server.close(() => ok()));
    });

    void test('path parameters arrive decoded and the request without them, over either transport', async () => {
      const http = createHttpTransport({ origin, token: TOKEN });
      const handlers = createIpcHandlers({ isTrusted: () => true, invoke: (name, args) => router.invoke(name, args) });
      // The preload as the renderer sees it: each function runs the main process's handler.
      const preload = Object.fromEntries(
        ADMIN_OPERATION_NAMES.map((name) => [name, (args?: unknown) => handlers.get(ipcChannel(name))!({}, args)]),
      ) as unknown as DeviceBridgeIpcApi;
      const ipc = createIpcTransport(preload);

      for (const api of [http, ipc]) {
        for (const name of ADMIN_OPERATION_NAMES) assert.equal(typeof api[name], 'function', `${api.kind} ${name}`);
        seen.length = 0;
        assert.deepEqual(
          await api.decidePairing({ auth_session_id: 'as/1 ü', action: 'approve', device_id: 'dev_1' }),
          {
            status: 'approved',
          },
        );
        assert.deepEqual(await api.forgetLanDevice({ address: '10.0.0.2:5555' }), { status: 'forgotten' });
        const shot = await api.getActionScreen({ device_id: 'dev 1', action_id: 'act_12' });
        assert.deepEqual([...new Uint8Array(await shot.arrayBuffer())], [0xff, 0xd8, 6]);
        assert.deepEqual(
          seen,
          [
            { params: { auth_session_id: 'as/1 ü' }, request: { action: 'approve', device_id: 'dev_1' } },
            { params: { address: '10.0.0.2:5555' }, request: {} },
            { params: { device_id: 'dev 1', action_id: 'act_12' } },
          ],
          api.kind,
        );
      }
    });
  });
});

/**
 * The phone view's typed text in plain words reaches only the person at this computer: the
 * actions route asks the timeline for it when the admin request came over IPC or from a
 * loopback address, never for a remote console (remote admin on). The real router and route,
 * a timeline stand-in that records what it was asked.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AdminRouter } from '../../main/core/admin/admin-router';
import { registerPhoneViewRoutes } from '../../main/core/admin/phone-view-routes';
import { EventHub } from '../../main/core/events/event-hub';

const TOKEN = 'admin-token-for-this-test';

function setup(): { router: AdminRouter; asked: boolean[] } {
  const asked: boolean[] = [];
  const router = new AdminRouter({ adminToken: () => TOKEN, allowRemote: true, hub: new EventHub() });
  registerPhoneViewRoutes(router, {
    known: () => true,
    timeline: {
      capacity: 50,
      list: (_deviceId, options) => {
        asked.push(options?.typedText === true);
        return [];
      },
      screen: () => undefined,
    },
    frames: { frame: () => Promise.reject(new Error('unused')), scaled: () => Promise.reject(new Error('unused')) },
  });
  return { router, asked };
}

/** A GET of the actions route from `address`; its HTTP status. */
async function getFrom(router: AdminRouter, address: string): Promise<number> {
  let status = 0;
  const req = {
    method: 'GET',
    url: '/admin/api/devices/dev_1/actions',
    headers: { authorization: `Bearer ${TOKEN}`, host: '127.0.0.1' },
    socket: { remoteAddress: address },
    on: () => undefined,
  } as unknown as IncomingMessage;
  const res = {
    writeHead: (code: number) => {
      status = code;
      return res;
    },
    end: () => undefined,
    setHeader: () => undefined,
  } as unknown as ServerResponse;
  await router.handle(req, res, new URL('http://127.0.0.1/admin/api/devices/dev_1/actions'));
  return status;
}

void describe('typed text only for the console on this computer', () => {
  void test('loopback and IPC get it; a remote console does not', async () => {
    const { router, asked } = setup();
    assert.equal(await getFrom(router, '127.0.0.1'), 200);
    assert.equal(await getFrom(router, '::ffff:127.0.0.1'), 200);
    assert.equal(await getFrom(router, '192.168.1.40'), 200);
    await router.invoke('getDeviceActions', { device_id: 'dev_1' });
    assert.deepEqual(asked, [true, true, false, true]);
  });
});

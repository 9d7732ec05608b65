/**
 * Pairing and mDNS discovery against a scripted ADB server speaking the smart-socket protocol
 * (the real adb here is 1.0.41, which has neither): success, a refused code, an old server,
 * a server that never answers, and the discovery cache.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import Adb from '@devicefarmer/adbkit';
import { pairLanDevice, LanDiscovery } from '../../main/core/devices/lan-pairing';
import type { LanAdbServer } from '../../main/core/devices/lan-devices';
import { BridgeError } from '../../main/core/errors';

type Answer = { ok: boolean; text: string } | 'silent' | 'hangup';

function frame(text: string): Buffer {
  const body = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'latin1'), body]);
}

/** A scripted ADB server: one request per connection, answered by `answer(service)`. */
async function scriptedAdb(
  answer: (service: string) => Answer,
): Promise<{ server: Server; port: number; requests: string[]; sockets: Set<Socket> }> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (buffer.length < 4) return;
      const length = Number.parseInt(buffer.subarray(0, 4).toString('latin1'), 16);
      if (buffer.length < 4 + length) return;
      const service = buffer.subarray(4, 4 + length).toString('utf8');
      requests.push(service);
      const reply = answer(service);
      if (reply === 'silent') return;
      if (reply === 'hangup') return void socket.destroy();
      socket.end(Buffer.concat([Buffer.from(reply.ok ? 'OKAY' : 'FAIL', 'latin1'), frame(reply.text)]));
    });
  });
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  return { server, port: (server.address() as { port: number }).port, requests, sockets };
}

function linkTo(port: number): LanAdbServer {
  return {
    address: `127.0.0.1:${port}`,
    client: Adb.createClient({ host: '127.0.0.1', port, bin: '/bin/false' }),
    on: () => undefined,
    off: () => undefined,
  };
}

async function codeOf(work: Promise<unknown>): Promise<BridgeError> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof BridgeError, String(error));
    return error;
  }
  assert.fail('expected an error');
}

describe('pairing and discovery through a newer ADB server', () => {
  let modern: Awaited<ReturnType<typeof scriptedAdb>>;
  let old: Awaited<ReturnType<typeof scriptedAdb>>;

  before(async () => {
    modern = await scriptedAdb((service) => {
      if (service === 'host:pair:123456:10.0.0.5:37001')
        return { ok: true, text: 'Successfully paired to 10.0.0.5:37001 [guid=adb-R5CT1-AbCd]' };
      if (service.startsWith('host:pair:654321:'))
        return { ok: true, text: 'Failed: Wrong password or connection was dropped.' };
      if (service.startsWith('host:pair:111111:')) return 'silent';
      if (service.startsWith('host:pair:222222:')) return 'hangup';
      if (service === 'host:mdns:services')
        return { ok: true, text: 'adb-R5CT1-AbCd\t_adb-tls-connect._tcp.\t10.0.0.5:41235\n' };
      return { ok: false, text: 'unknown host service' };
    });
    old = await scriptedAdb((service) =>
      service === 'host:version' ? { ok: true, text: '0029' } : { ok: false, text: 'unknown host service' },
    );
  });

  after(async () => {
    for (const s of [modern, old]) {
      if (!s) continue;
      for (const socket of s.sockets) socket.destroy();
      await new Promise<void>((resolve) => s.server.close(() => resolve()));
    }
  });

  test("a right code pairs; a refused code is pairing_failed with adb's reason", async () => {
    const ok = await pairLanDevice(linkTo(modern.port), '10.0.0.5:37001', '123456', { timeoutMs: 2000 });
    assert.equal(ok.status, 'paired');
    assert.match(ok.message, /add the phone/);
    const refused = await codeOf(pairLanDevice(linkTo(modern.port), '10.0.0.5:37001', '654321', { timeoutMs: 2000 }));
    assert.equal(refused.code, 'pairing_failed');
    assert.match(refused.message, /Wrong password/);
  });

  test('an old server is pairing_unsupported naming its version and the one needed', async () => {
    const error = await codeOf(pairLanDevice(linkTo(old.port), '10.0.0.5:37001', '123456', { timeoutMs: 2000 }));
    assert.equal(error.code, 'pairing_unsupported');
    assert.match(error.message, /adb 1\.0\.41/);
    assert.match(error.message, /platform-tools 30\.0\.0 or later/);
  });

  test('no answer within the deadline is unreachable; bad input never reaches adb', async () => {
    const startedAt = Date.now();
    const error = await codeOf(pairLanDevice(linkTo(modern.port), '10.0.0.5:37001', '111111', { timeoutMs: 300 }));
    assert.equal(error.code, 'unreachable');
    assert.ok(Date.now() - startedAt < 2000);
    const before = modern.requests.length;
    assert.equal(
      (await codeOf(pairLanDevice(linkTo(modern.port), '10.0.0.5', '123456', { timeoutMs: 300 }))).code,
      'invalid_address',
    );
    assert.equal(
      (await codeOf(pairLanDevice(linkTo(modern.port), '10.0.0.5:37001', '12a456', { timeoutMs: 300 }))).code,
      'invalid_arguments',
    );
    assert.equal(modern.requests.length, before);
  });

  test('a server that hangs up or is not there is adb_unavailable', async () => {
    const hangup = await codeOf(pairLanDevice(linkTo(modern.port), '10.0.0.5:37001', '222222', { timeoutMs: 2000 }));
    assert.equal(hangup.code, 'adb_unavailable');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const absent = await codeOf(pairLanDevice(linkTo(port), '10.0.0.5:37001', '123456', { timeoutMs: 2000 }));
    assert.equal(absent.code, 'adb_unavailable');
    assert.match(absent.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  });

  test('discovery lists services where offered, notes where not, and caches', async () => {
    let now = 1_000_000;
    const discovery = new LanDiscovery([linkTo(modern.port), linkTo(old.port)], {
      cacheMs: 5000,
      timeoutMs: 1000,
      clock: () => now,
    });
    const first = await discovery.list();
    assert.deepEqual(first.servers[0]?.services, [
      { name: 'adb-R5CT1-AbCd', service_type: '_adb-tls-connect._tcp.', address: '10.0.0.5:41235', kind: 'connect' },
    ]);
    assert.equal(first.servers[0]?.supported, true);
    assert.equal(first.servers[1]?.supported, false);
    assert.match(first.servers[1]?.note ?? '', /platform-tools 30/);
    const asked = modern.requests.filter((r) => r === 'host:mdns:services').length;
    now += 1000;
    await discovery.list();
    assert.equal(modern.requests.filter((r) => r === 'host:mdns:services').length, asked, 'served from the cache');
    now += 5000;
    await discovery.list();
    assert.equal(modern.requests.filter((r) => r === 'host:mdns:services').length, asked + 1);
  });
});

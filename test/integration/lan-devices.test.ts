/**
 * LAN phones end to end: simulated phones listening on TCP (not attached to adb beforehand),
 * a private real adb server, and the bridge's admin API adding, keeping alive, forgetting and
 * remembering them across a restart; plus the error codes for bad input.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { invoke, waitUntil } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import { untilAnnounced } from '../helpers/until-announced';
import { XAgentClient, type Packet } from '../helpers/xagent-client';
import { AdbdServer } from '../../main/sim/adbd-server';
import { createSimulatedPhone } from '../../main/sim/phone';
import { hostDevices, hostDisconnect, waitForDeviceStates } from '../../main/sim/adb-host-client';
import type { AdminLanDevice, AdminState } from '../../main/contract/admin-api';
import type { CoreOptionsInput } from '../../main/core/config/core-options';

const LAN = { backoffInitialMs: 200, backoffMaxMs: 800, verifyTimeoutMs: 3000 };

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') throw new Error('no port');
  return address.port;
}

function descriptorStatus(p: Packet, channelId: string): string | undefined {
  if (p.type !== 'connection.descriptor.push' || p.connector_channel_id !== channelId) return undefined;
  return (p.payload?.connection_descriptor as { connection?: { status?: string } } | undefined)?.connection?.status;
}

describe('LAN phones through the admin API and a real adb server', () => {
  let adb: AdbServerRig;
  let bridge: TestBridge;
  let client: XAgentClient | undefined;
  const phones: AdbdServer[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'bridge-lan-'));
  const bridgeOptions = (): Partial<CoreOptionsInput> => ({
    adbServers: [{ host: '127.0.0.1', port: adb.port }],
    lan: LAN,
    lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
  });

  const newPhone = async (name: string, unauthorized = false): Promise<AdbdServer> => {
    const server = await AdbdServer.start({
      phone: createSimulatedPhone({ serial: `LAN${name}0042`, model: `Lan ${name}` }),
      unauthorized,
    });
    phones.push(server);
    return server;
  };
  const state = async (on = bridge): Promise<AdminState> =>
    (await on.admin('GET', '/admin/api/state')).body as unknown as AdminState;
  const lanRow = async (address: string, on = bridge): Promise<AdminLanDevice | undefined> =>
    (await state(on)).lan_devices.find((d) => d.address === address);
  const savedAddresses = (): string[] =>
    (
      JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as { lanDevices: Array<{ address: string }> }
    ).lanDevices.map((d) => d.address);
  const adbSerials = async (): Promise<Map<string, string>> =>
    new Map((await hostDevices({ host: '127.0.0.1', port: adb.port })).map((d) => [d.serial, d.state]));
  const readyDevice = (address: string) => {
    const record = bridge.core.registry.list().find((d) => d.serial === address);
    return record?.state === 'device' && record.model !== null ? record : undefined;
  };
  /** The phone's row once `check` holds, read again on each 'state' announcement (as the console is told). */
  const waitForLan = async (
    address: string,
    check: (row: AdminLanDevice) => boolean,
    timeoutMs: number,
    what: string,
    on = bridge,
  ): Promise<AdminLanDevice> =>
    (await untilAnnounced(
      on,
      'state',
      () => lanRow(address, on),
      (row) => row !== undefined && check(row),
      what,
      timeoutMs,
    ))!;
  /**
   * A remembered phone that stays away, so bridge `on` keeps retrying it on the same kind of
   * timer as any other LAN phone: its attempts show how far the retry schedule has run.
   * `threeMoreAttempts()` returns once it was tried three more times; the last two of those
   * waited the full backoff cap, begun after the call. Any retry of another phone that was
   * due within the cap of that moment has been made by then.
   */
  const retryingControl = async (name: string, on = bridge) => {
    const phone = await newPhone(name);
    const address = `127.0.0.1:${phone.port}`;
    const added = await on.admin('POST', '/admin/api/lan-devices', { address });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    await phone.goOffline();
    // backoff 200, 400, then the cap (800): from the third failed attempt on, every wait is the cap.
    await waitForLan(
      address,
      (r) => r.status === 'reconnecting' && r.attempts >= 3,
      15_000,
      `control ${name} retrying at the cap`,
      on,
    );
    return {
      address,
      async threeMoreAttempts(): Promise<void> {
        const seen = (await lanRow(address, on))?.attempts ?? 0;
        await waitForLan(address, (r) => r.attempts >= seen + 3, 15_000, `three more attempts of control ${name}`, on);
      },
      async forget(): Promise<void> {
        assert.equal((await on.admin('DELETE', `/admin/api/lan-devices/${encodeURIComponent(address)}`)).status, 200);
      },
    };
  };
  /** desktop_approval binding of one channel to a phone, approved through the admin API. */
  const bind = async (c: XAgentClient, deviceId: string): Promise<string> => {
    const opened = await c.openChannel('');
    const channelId = String(opened.payload?.connector_channel_id);
    const started = await c.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    const approve = await bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: deviceId,
    });
    assert.equal(approve.status, 200, JSON.stringify(approve.body));
    const status = await c.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: started.payload?.auth_session_id },
      channelId,
    );
    assert.equal(status.payload?.status, 'authenticated');
    return channelId;
  };

  before(async () => {
    adb = await startAdbServer();
    bridge = await startBridge(bridgeOptions(), dataDir);
  });

  after(async () => {
    await client?.close();
    await bridge?.stop();
    if (adb) {
      const address = { host: '127.0.0.1', port: adb.port };
      await Promise.all(
        phones.map((p) => hostDisconnect(address, `127.0.0.1:${p.port}`, { timeoutMs: 3000 }).catch(() => undefined)),
      );
    }
    await Promise.all(phones.map((p) => p.close()));
    await adb?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a malformed address is invalid_address; a closed port is unreachable, quickly; neither is kept', async () => {
    for (const address of ['', '999.1.1.1', '10.0.0.1:70000', 'http://10.0.0.1', 'a b']) {
      const res = await bridge.admin('POST', '/admin/api/lan-devices', { address });
      assert.equal(res.status, 400, address);
      assert.equal((res.body.error as { code: string }).code, 'invalid_address', address);
    }
    const missing = await bridge.admin('POST', '/admin/api/lan-devices', {});
    assert.equal((missing.body.error as { code: string }).code, 'invalid_address');
    const port = await closedPort();
    const started = Date.now();
    const res = await bridge.admin('POST', '/admin/api/lan-devices', { address: `127.0.0.1:${port}` });
    const tookMs = Date.now() - started;
    assert.equal(res.status, 502);
    const error = res.body.error as { code: string; message: string };
    assert.equal(error.code, 'unreachable');
    assert.match(error.message, /connection refused/);
    assert.ok(tookMs < 2000, `unreachable took ${tookMs} ms`);
    console.log(`# closed port answered unreachable in ${tookMs} ms`);
    const s = await state();
    assert.deepEqual(s.lan_devices, []);
    assert.deepEqual(
      s.adb_servers.map((h) => [h.address, h.status, h.last_error, h.next_retry_at]),
      [[`127.0.0.1:${adb.port}`, 'connected', null, null]],
    );
    assert.ok(!(await adbSerials()).has(`127.0.0.1:${port}`), 'adb keeps no transport for it');
  });

  test('a host that accepts TCP but never answers does not hold up another phone; adb keeps nothing of it', async () => {
    const silent = createServer((socket) => {
      socket.on('error', () => undefined);
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen({ host: '127.0.0.1', port: 0 }, () => resolve()));
    const silentAddress = `127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      const hungAt = Date.now();
      const hung = bridge.admin('POST', '/admin/api/lan-devices', { address: silentAddress });
      await waitForLan(silentAddress, (r) => r.status === 'connecting', 5000, 'hung host connecting');
      const phone = await newPhone('B');
      const quickAt = Date.now();
      const quick = await bridge.admin('POST', '/admin/api/lan-devices', { address: `127.0.0.1:${phone.port}` });
      const quickMs = Date.now() - quickAt;
      assert.equal(quick.status, 200, JSON.stringify(quick.body));
      assert.ok(quickMs < 3000, `the other phone took ${quickMs} ms`);
      const res = await hung;
      const hungMs = Date.now() - hungAt;
      console.log(
        `# other phone added in ${quickMs} ms while a silent host was pending; silent host answered unreachable after ${hungMs} ms`,
      );
      assert.equal(res.status, 502);
      assert.equal((res.body.error as { code: string }).code, 'unreachable');
      assert.ok(hungMs < 15_000, `the deadline held (${hungMs} ms)`);
      assert.equal(await lanRow(silentAddress), undefined);
      await waitUntil(
        () => !bridge.core.registry.list().some((d) => d.serial === silentAddress && d.state !== 'gone'),
        5000,
        'no transport left for the silent host',
      );
      assert.ok(!(await adbSerials()).has(silentAddress));
      const forget = await bridge.admin(
        'DELETE',
        `/admin/api/lan-devices/${encodeURIComponent(`127.0.0.1:${phone.port}`)}`,
      );
      assert.equal(forget.status, 200);
    } finally {
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  let phoneA: AdbdServer;
  let addressA: string;
  let channelA: string;

  test('added by address: tracked as device, listed as LAN, remembered, and bindable', async () => {
    phoneA = await newPhone('A');
    addressA = `127.0.0.1:${phoneA.port}`;
    assert.ok(!(await adbSerials()).has(addressA), 'the phone is not attached to adb beforehand');
    const res = await bridge.admin('POST', '/admin/api/lan-devices', { address: addressA });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const row = res.body.lan_device as AdminLanDevice;
    assert.equal(res.body.status, 'connected');
    assert.equal(row.status, 'connected');
    assert.equal(row.attempts, 0);
    assert.ok(row.device_id);
    await waitUntil(() => readyDevice(addressA) !== undefined, 10_000, 'phone A ready');
    const s = await state();
    const device = s.devices.find((d) => d.device_id === row.device_id);
    assert.equal(device?.state, 'device');
    assert.equal(device?.transport, 'tcp');
    assert.equal(device?.model, 'Lan A');
    assert.deepEqual(savedAddresses(), [addressA]);
    // Adding it again is harmless.
    const again = await bridge.admin('POST', '/admin/api/lan-devices', { address: `  ${addressA} ` });
    assert.equal(again.status, 200);
    assert.equal((await state()).lan_devices.length, 1);

    client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    await client.hello();
    channelA = await bind(client, row.device_id ?? '');
    const status = await invoke(client, channelA, 'android_device_status');
    assert.equal(status.type, 'tool.invoke.ack', JSON.stringify(status.error));
    assert.equal((status.payload?.result as { model?: string }).model, 'Lan A');
  });

  test('dropped: offline pushed, retries visible in state, back by itself when it listens again: connected pushed', async () => {
    const c = client!;
    const start = c.received.length;
    const events: string[] = [];
    const sse = await fetch(`${bridge.url}/admin/api/events`, {
      headers: { Authorization: `Bearer ${bridge.adminToken}` },
    });
    const reader = sse.body!.getReader();
    void (async () => {
      for (;;) {
        const chunk = await reader.read().catch(() => undefined);
        if (!chunk || chunk.done) return;
        events.push(Buffer.from(chunk.value).toString('utf8'));
      }
    })();
    try {
      await phoneA.goOffline();
      const offline = await c.waitFor((p) => descriptorStatus(p, channelA) === 'offline', 15_000, start);
      assert.deepEqual(validateDescriptor(offline.payload?.connection_descriptor), []);
      const retrying = await waitForLan(
        addressA,
        (r) => r.status === 'reconnecting' && r.attempts >= 3 && r.next_attempt_at !== null,
        15_000,
        'three failed attempts',
      );
      assert.ok(retrying.next_attempt_at! > Date.now() - 100, 'next_attempt_at is ahead');
      assert.ok(retrying.next_attempt_at! <= Date.now() + LAN.backoffMaxMs + 100, 'delay is capped');
      assert.equal(retrying.last_error_code, 'unreachable');
      assert.match(retrying.last_error ?? '', /refused/);
      assert.ok(events.join('').includes('"type":"state"'), 'the UI was told');
      const whileOffline = await invoke(c, channelA, 'android_device_status');
      assert.equal(whileOffline.error?.code, 'device_offline');

      const back = Date.now();
      await phoneA.goOnline();
      await c.waitFor((p) => descriptorStatus(p, channelA) === 'connected', 15_000, start);
      const tookMs = Date.now() - back;
      console.log(
        `# phone back in the bound channel ${tookMs} ms after it listened again (backoff cap ${LAN.backoffMaxMs} ms)`,
      );
      // adb alone would take up to 10 s; the manager's own attempts bring it back within the cap.
      assert.ok(tookMs < LAN.backoffMaxMs + 4000, `took ${tookMs} ms`);
      const row = await waitForLan(addressA, (r) => r.status === 'connected', 5000, 'connected row');
      assert.equal(row.attempts, 0);
      assert.equal(row.next_attempt_at, null);
      const status = await invoke(c, channelA, 'android_device_status');
      assert.equal(status.type, 'tool.invoke.ack', JSON.stringify(status.error));

      // A Wi-Fi blip (connection dropped, phone still listening) is over in moments.
      const blip = c.received.length;
      const blipAt = Date.now();
      phoneA.dropConnections();
      await c.waitFor((p) => descriptorStatus(p, channelA) === 'offline', 15_000, blip);
      await c.waitFor((p) => descriptorStatus(p, channelA) === 'connected', 15_000, blip);
      console.log(`# Wi-Fi blip: offline and connected again in ${Date.now() - blipAt} ms`);
    } finally {
      await reader.cancel().catch(() => undefined);
    }
  });

  test('an unauthorized phone gives device_unauthorized, stays listed, and connects once allowed on the phone', async () => {
    const phone = await newPhone('U', true);
    const address = `127.0.0.1:${phone.port}`;
    const res = await bridge.admin('POST', '/admin/api/lan-devices', { address });
    assert.equal(res.status, 502);
    const error = res.body.error as { code: string; message: string };
    assert.equal(error.code, 'device_unauthorized');
    assert.match(error.message, /Allow debugging/);
    const row = await lanRow(address);
    assert.equal(row?.status, 'unauthorized');
    assert.equal(row?.last_error_code, 'device_unauthorized');
    assert.ok(savedAddresses().includes(address));
    phone.authorize();
    await waitForLan(address, (r) => r.status === 'connected', 15_000, 'allowed phone connected');
    await waitUntil(() => readyDevice(address) !== undefined, 10_000, 'allowed phone ready');
  });

  test('pairing needs a newer adb here: pairing_unsupported naming the version; bad input is refused first', async () => {
    const pair = await bridge.admin('POST', '/admin/api/lan-pair', { address: '127.0.0.1:37123', code: '123456' });
    assert.equal(pair.status, 502);
    const error = pair.body.error as { code: string; message: string };
    assert.equal(error.code, 'pairing_unsupported');
    assert.match(error.message, /platform-tools 30\.0\.0 or later/);
    assert.match(error.message, /adb 1\.0\.41/);
    const badCode = await bridge.admin('POST', '/admin/api/lan-pair', { address: '127.0.0.1:37123', code: '12345' });
    assert.equal(badCode.status, 400);
    assert.equal((badCode.body.error as { code: string }).code, 'invalid_arguments');
    const noPort = await bridge.admin('POST', '/admin/api/lan-pair', { address: '127.0.0.1', code: '123456' });
    assert.equal((noPort.body.error as { code: string }).code, 'invalid_address');
    const discovered = await bridge.admin('GET', '/admin/api/lan-discovered');
    assert.equal(discovered.status, 200);
    const servers = discovered.body.servers as Array<{ supported: boolean; services: unknown[]; note: string }>;
    assert.equal(servers.length, 1);
    assert.equal(servers[0]?.supported, false);
    assert.deepEqual(servers[0]?.services, []);
    assert.match(servers[0]?.note ?? '', /platform-tools 30/);
  });

  test('forget: gone from state and state.json, detached from adb, and no more retries', async () => {
    const [control] = await Promise.all([
      retryingControl('C'),
      (async () => {
        await phoneA.goOffline();
        await waitForLan(
          addressA,
          (r) => r.status === 'reconnecting' && r.attempts >= 2,
          15_000,
          'retrying before forget',
        );
      })(),
    ]);
    const res = await bridge.admin('DELETE', `/admin/api/lan-devices/${encodeURIComponent(addressA)}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'forgotten');
    assert.equal(await lanRow(addressA), undefined);
    assert.ok(!savedAddresses().includes(addressA));
    let connections = 0;
    phoneA.on('connection', () => connections++);
    await phoneA.goOnline();
    // The forgotten phone's next retry was due within the cap: by the control's third attempt
    // from now it would have reached the phone, listening again.
    await control.threeMoreAttempts();
    assert.equal(connections, 0, 'a forgotten phone is not retried');
    // adb's own retry needs a transport, and adb keeps none for it.
    assert.ok(!(await adbSerials()).has(addressA));
    assert.equal(await lanRow(addressA), undefined);
    const again = await bridge.admin('DELETE', `/admin/api/lan-devices/${encodeURIComponent(addressA)}`);
    assert.equal(again.status, 404);
    assert.equal((again.body.error as { code: string }).code, 'device_not_found');
    await control.forget();
  });

  test('eight phones added at once all connect; forgetting them all detaches them all', async () => {
    const batch = await Promise.all(Array.from({ length: 8 }, (_v, i) => newPhone(`M${i}`)));
    const addresses = batch.map((p) => `127.0.0.1:${p.port}`);
    const startedAt = Date.now();
    const results = await Promise.all(
      addresses.map((address) => bridge.admin('POST', '/admin/api/lan-devices', { address })),
    );
    const tookMs = Date.now() - startedAt;
    assert.deepEqual(
      results.map((r) => r.status),
      addresses.map(() => 200),
      JSON.stringify(results.find((r) => r.status !== 200)?.body),
    );
    await waitUntil(() => addresses.every((a) => readyDevice(a) !== undefined), 15_000, 'eight phones ready');
    console.log(`# eight LAN phones added concurrently in ${tookMs} ms`);
    const forgotten = await Promise.all(
      addresses.map((a) => bridge.admin('DELETE', `/admin/api/lan-devices/${encodeURIComponent(a)}`)),
    );
    assert.deepEqual(
      forgotten.map((r) => r.status),
      addresses.map(() => 200),
    );
    const rows = (await state()).lan_devices.map((d) => d.address);
    assert.ok(addresses.every((a) => !rows.includes(a)));
    // adb drops a disconnected transport on its own thread; its device tracker announces it.
    await waitForDeviceStates({ host: '127.0.0.1', port: adb.port }, addresses, (state) => state === undefined, {
      timeoutMs: 5000,
    });
  });

  test('stopping the bridge stops the retries; restarted with the same data dir, remembered phones reconnect by themselves', async () => {
    const phone = await newPhone('R');
    const address = `127.0.0.1:${phone.port}`;
    const added = await bridge.admin('POST', '/admin/api/lan-devices', { address });
    assert.equal(added.status, 200);
    await phone.goOffline();
    await waitForLan(
      address,
      (r) => r.status === 'reconnecting' && r.attempts >= 2,
      15_000,
      'retrying before the stop',
    );
    // Nothing is left of a stopped bridge to say its timers have run: another bridge in this
    // process, retrying a phone of its own at the same cap, is the clock.
    const witness = await startBridge(bridgeOptions());
    try {
      const control = await retryingControl('W', witness);
      await client?.close();
      client = undefined;
      await bridge.stop();
      let connections = 0;
      phone.on('connection', () => connections++);
      await phone.goOnline();
      await control.threeMoreAttempts();
      assert.equal(connections, 0, 'a stopped bridge leaves no retry timer behind');
      await control.forget();
    } finally {
      await witness.stop();
    }
    assert.ok(!(await adbSerials()).has(address), 'adb does not hold the phone: only the new bridge can bring it back');

    const restartAt = Date.now();
    bridge = await startBridge(bridgeOptions(), dataDir);
    const row = await waitForLan(address, (r) => r.status === 'connected', 15_000, 'remembered phone connected');
    await waitUntil(() => readyDevice(address) !== undefined, 10_000, 'remembered phone ready');
    console.log(`# remembered phone connected ${Date.now() - restartAt} ms after the restart`);
    assert.equal(row.attempts, 0);
    const rows = (await state()).lan_devices.map((d) => d.address);
    assert.ok(rows.includes(address));
    assert.ok(!rows.includes(addressA), 'the forgotten phone stays forgotten');
    assert.equal((await adbSerials()).get(address), 'device');
  });
});

describe('LAN phones when the ADB server itself restarts', () => {
  test('a restarted ADB server has lost its TCP phones: the bridge connects them again', async (t) => {
    let adb = await startAdbServer();
    const phone = await AdbdServer.start({ phone: createSimulatedPhone({ serial: 'LANS0042', model: 'Lan S' }) });
    const address = `127.0.0.1:${phone.port}`;
    // A long backoff: only the bridge noticing the server is back can explain a quick return.
    const bridge = await startBridge({
      adbServers: [{ host: '127.0.0.1', port: adb.port }],
      lan: { ...LAN, backoffInitialMs: 10_000, backoffMaxMs: 30_000 },
    });
    t.after(async () => {
      await bridge.stop();
      await hostDisconnect({ host: '127.0.0.1', port: adb.port }, address, { timeoutMs: 3000 }).catch(() => undefined);
      await phone.close();
      await adb.stop();
    });
    const row = async (): Promise<AdminLanDevice | undefined> =>
      ((await bridge.admin('GET', '/admin/api/state')).body as unknown as AdminState).lan_devices.find(
        (d) => d.address === address,
      );
    const waitRow = async (check: (r: AdminLanDevice) => boolean, what: string): Promise<AdminLanDevice> =>
      (await untilAnnounced(bridge, 'state', row, (r) => r !== undefined && check(r), what, 20_000))!;
    const added = await bridge.admin('POST', '/admin/api/lan-devices', { address });
    assert.equal(added.status, 200, JSON.stringify(added.body));

    const port = adb.port;
    await adb.stop();
    const down = await waitRow(
      (r) => r.status === 'reconnecting' && r.attempts >= 1,
      'reconnecting while the ADB server is down',
    );
    assert.equal(down.last_error_code, 'adb_unavailable');
    // The link retries a dead server on its own backoff: each attempt shows `connecting` for a
    // moment (keeping the last error), then `down` again, so wait for `down` rather than expect it.
    const health = await untilAnnounced(
      bridge,
      'state',
      async () => ((await bridge.admin('GET', '/admin/api/state')).body as unknown as AdminState).adb_servers[0],
      (h) => {
        if (h?.status === 'down') return true;
        assert.equal(h?.status, 'connecting', 'a dead ADB server is never shown as connected');
        return false;
      },
      'the ADB server shown as down',
      10_000,
    );
    assert.ok(health?.last_error);

    const restartedAt = Date.now();
    adb = await startAdbServer({ port });
    await waitRow((r) => r.status === 'connected', 'connected through the restarted server');
    await waitUntil(
      () => bridge.core.registry.list().some((d) => d.serial === address && d.state === 'device'),
      10_000,
      'device again',
    );
    const tookMs = Date.now() - restartedAt;
    console.log(`# LAN phone back ${tookMs} ms after the ADB server restarted (backoff step was 10 s)`);
    assert.ok(tookMs < 6000, `took ${tookMs} ms`);
  });
});

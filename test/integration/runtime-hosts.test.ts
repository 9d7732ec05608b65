/**
 * ADB hosts added and removed while the bridge runs (`POST`/`DELETE /admin/api/hosts`),
 * against a real OpenSSH server on loopback in front of a private ADB server with simulated
 * phones: an SSH host's key is answered for the person to confirm before anything is trusted;
 * a wrong confirmation and a key known_hosts contradicts are refused with the fingerprint the
 * host presented; a confirmed host's phones arrive, the host is kept across a restart, and
 * its removal takes its phones offline with the host's reason. A plain HOST:PORT host is added
 * and removed the same way; a LAN phone added through a host is forgotten with it (out of
 * the list and state.json, disconnected from that host's ADB server, not back after a
 * restart). Nothing here reaches beyond 127.0.0.1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdbServerRig } from '../helpers/adb-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { waitUntil } from '../helpers/device-rig';
import { makeKeyPair, sshdMissing, startSshAdbHost, type SshAdbHostRig, type SshdRig } from '../helpers/sshd';
import { SSH_PINS_FILE } from '../../main/core/devices/ssh/ssh-tunnels';
import { AdbdServer } from '../../main/sim/adbd-server';
import { createSimulatedPhone } from '../../main/sim/phone';
import { hostDevices, hostDisconnect, waitForDeviceStates } from '../../main/sim/adb-host-client';

type Json = Record<string, unknown>;

const missing = sshdMissing();

describe('ADB hosts added and removed at runtime', { skip: missing ?? false }, () => {
  let adb: AdbServerRig;
  let sshd: SshdRig;
  let scratch: string;
  const bridges: TestBridge[] = [];

  let host: SshAdbHostRig | undefined;

  before(async () => {
    host = await startSshAdbHost({
      count: 2,
      serial: (i) => `RTHOST${i}77AB`,
      model: 'Pixel 8',
      scratchPrefix: 'runtime-hosts-test-',
    });
    ({ adb, sshd, scratch } = host);
  });
  after(async () => {
    for (const bridge of bridges) await bridge.stop();
    await host?.stop();
  });

  const sshUrl = (): string => `ssh://${sshd.user}@127.0.0.1:${sshd.port}?adb_port=${adb.port}`;
  const phonesOf = (bridge: TestBridge, address: string) =>
    bridge.core.registry.list().filter((d) => d.adbServer === address);
  const readyOn = (bridge: TestBridge, address: string): number =>
    phonesOf(bridge, address).filter((d) => d.state === 'device' && d.model !== null).length;
  const hosts = async (bridge: TestBridge): Promise<Json[]> =>
    ((await bridge.admin('GET', '/admin/api/hosts')).body as { hosts: Json[] }).hosts;
  const bridgeOn = async (knownHostsFile: string, dataDir?: string): Promise<TestBridge> => {
    const bridge = await startBridge(
      {
        // The start host (nothing listens on port 1): given at start, so it cannot be removed at runtime.
        ssh: {
          privateKeyFile: sshd.userKey.privateKeyFile,
          knownHostsFile,
          keepaliveMs: 500,
          backoff: { firstMs: 100, maxMs: 1000 },
        },
      },
      dataDir,
    );
    bridges.push(bridge);
    return bridge;
  };

  test('an SSH host: its key is shown to confirm, a wrong confirmation is refused, the confirmed host brings its phones, is kept across a restart, and its removal takes them offline', async (t) => {
    const dataDir = mkdtempSync(join(scratch, 'data-'));
    const knownHosts = join(scratch, 'known_hosts-absent');
    let bridge = await bridgeOn(knownHosts, dataDir);

    // 1. First ask: nothing vouches for the key, so it is answered and nothing is trusted.
    const first = await bridge.admin('POST', '/admin/api/hosts', { url: sshUrl() });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.status, 'confirm_host_key');
    assert.equal(first.body.address, sshUrl());
    assert.deepEqual(first.body.host_key, { type: 'ssh-ed25519', fingerprint: sshd.hostKey.fingerprint });
    assert.equal((await hosts(bridge)).length, 1, 'nothing added before the confirmation');
    assert.equal(existsSync(join(dataDir, SSH_PINS_FILE)), false, 'nothing pinned before the confirmation');

    // 2. A confirmation of another key is refused, naming the key the host presented.
    const other = makeKeyPair(scratch, 'confirm_other');
    const wrong = await bridge.admin('POST', '/admin/api/hosts', {
      url: sshUrl(),
      host_key_fingerprint: other.fingerprint,
    });
    assert.equal(wrong.status, 409);
    const wrongError = wrong.body.error as { code: string; message: string };
    assert.equal(wrongError.code, 'host_key_refused');
    assert.ok(wrongError.message.includes(sshd.hostKey.fingerprint), wrongError.message);
    assert.equal((await hosts(bridge)).length, 1);

    // 3. The person confirms the key shown: it is pinned, the host added, its phones arrive.
    const addedAt = Date.now();
    const added = await bridge.admin('POST', '/admin/api/hosts', {
      url: sshUrl(),
      host_key_fingerprint: sshd.hostKey.fingerprint,
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.status, 'added');
    const host = added.body.host as Json;
    assert.equal(host.address, sshUrl());
    assert.equal(host.via, 'ssh');
    assert.equal(host.origin, 'added');
    await waitUntil(() => readyOn(bridge, sshUrl()) === 2, 20_000, 'both phones ready through the added host');
    t.diagnostic(`2 phones ready ${Date.now() - addedAt} ms after the host was confirmed`);
    const listed = await hosts(bridge);
    assert.deepEqual(
      listed.map((h) => [h.address, h.origin]),
      [
        ['127.0.0.1:1', 'start'],
        [sshUrl(), 'added'],
      ],
    );
    assert.equal((listed[1]?.host_key as Json).pinned_by, 'pinned');
    const pins = JSON.parse(readFileSync(join(dataDir, SSH_PINS_FILE), 'utf8')) as Record<string, Json>;
    assert.equal(pins[`[127.0.0.1]:${sshd.port}`]?.fingerprint, sshd.hostKey.fingerprint);
    const again = await bridge.admin('POST', '/admin/api/hosts', { url: sshUrl() });
    assert.equal(again.status, 409);
    assert.equal((again.body.error as Json).code, 'host_exists');

    // 4. Kept across a restart: the next bridge on the same data folder starts it again.
    await bridge.stop();
    bridge = await bridgeOn(knownHosts, dataDir);
    await waitUntil(() => readyOn(bridge, sshUrl()) === 2, 20_000, 'phones back after the restart');
    assert.equal((await hosts(bridge))[1]?.origin, 'added');

    // 5. Removed: its phones go offline with the host's reason, at once; it is gone from the list and the store.
    const removedAt = Date.now();
    const removed = await bridge.admin('DELETE', `/admin/api/hosts/${encodeURIComponent(sshUrl())}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.status, 'removed');
    const gone = phonesOf(bridge, sshUrl());
    assert.equal(gone.length, 2);
    for (const phone of gone) {
      assert.equal(phone.state, 'offline');
      assert.match(phone.reason ?? '', /was removed from the bridge/);
    }
    t.diagnostic(`phones offline ${Date.now() - removedAt} ms after the removal`);
    assert.deepEqual(
      (await hosts(bridge)).map((h) => h.address),
      ['127.0.0.1:1'],
    );
    const state = JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as { settings: Json };
    assert.deepEqual(state.settings.adbHosts, []);
    const twice = await bridge.admin('DELETE', `/admin/api/hosts/${encodeURIComponent(sshUrl())}`);
    assert.equal(twice.status, 404);
    assert.equal((twice.body.error as Json).code, 'host_not_found');
    const startHost = await bridge.admin('DELETE', `/admin/api/hosts/${encodeURIComponent('127.0.0.1:1')}`);
    assert.equal(startHost.status, 409);
    assert.equal((startHost.body.error as Json).code, 'host_not_removable');
    // The phones stay offline: the stopped link no longer reports them.
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(phonesOf(bridge, sshUrl()).every((d) => d.state === 'offline'));
  });

  test('a key known_hosts contradicts is refused with the fingerprint the host presented, and nothing is added', async () => {
    const other = makeKeyPair(scratch, 'listed_other');
    const knownHosts = join(scratch, 'known_hosts-other');
    const [type, blob] = other.publicKey.split(' ');
    writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${type} ${blob}\n`);
    const bridge = await bridgeOn(knownHosts);
    // Even a confirmation of the presented key does not overrule the person's known_hosts.
    for (const body of [{ url: sshUrl() }, { url: sshUrl(), host_key_fingerprint: sshd.hostKey.fingerprint }]) {
      const refused = await bridge.admin('POST', '/admin/api/hosts', body);
      assert.equal(refused.status, 409, JSON.stringify(refused.body));
      const error = refused.body.error as { code: string; message: string };
      assert.equal(error.code, 'host_key_refused');
      assert.ok(error.message.includes(sshd.hostKey.fingerprint), error.message);
      assert.ok(error.message.includes(other.fingerprint), 'names the key known_hosts expects');
    }
    assert.equal((await hosts(bridge)).length, 1);
    assert.equal(existsSync(join(bridge.dataDir, SSH_PINS_FILE)), false);

    // The key known_hosts lists: added at once, without a confirmation.
    const [hostType, hostBlob] = sshd.hostKey.publicKey.split(' ');
    writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${hostType} ${hostBlob}\n`);
    const added = await bridge.admin('POST', '/admin/api/hosts', { url: sshUrl() });
    assert.equal(added.body.status, 'added', JSON.stringify(added.body));
    await waitUntil(() => readyOn(bridge, sshUrl()) === 2, 20_000, 'phones through the host known_hosts vouches for');
    assert.equal(((await hosts(bridge))[1]?.host_key as Json).pinned_by, 'known_hosts');
    await bridge.stop();
  });

  test('a plain HOST:PORT host is added and removed the same way; requests are checked at the edge', async () => {
    const bridge = await bridgeOn(join(scratch, 'known_hosts-plain'));
    const address = `127.0.0.1:${adb.port}`;
    const added = await bridge.admin('POST', '/admin/api/hosts', { url: address });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.status, 'added');
    assert.equal(added.body.warning, null, 'a loopback ADB server is not exposed');
    assert.equal((added.body.host as Json).via, 'direct');
    await waitUntil(() => readyOn(bridge, address) === 2, 20_000, 'both phones through the plain host');
    const removed = await bridge.admin('DELETE', `/admin/api/hosts/${encodeURIComponent(address)}`);
    assert.equal(removed.status, 200);
    assert.ok(phonesOf(bridge, address).every((d) => d.state === 'offline' && /removed/.test(d.reason ?? '')));

    const refused: Array<[unknown, number, string, RegExp]> = [
      [{ url: 'not a host' }, 400, 'invalid_arguments', /HOST:PORT/],
      [{ url: 'ssh://user:pw@127.0.0.1' }, 400, 'invalid_arguments', /no password/],
      [{ url: address, key_path: '/k' }, 400, 'invalid_arguments', /ssh:\/\/ hosts only/],
      [{ url: sshUrl(), key_path: 'relative/key' }, 400, 'invalid_arguments', /absolute/],
      [{ url: sshUrl(), key_path: join(scratch, 'no-such-key') }, 400, 'invalid_arguments', /cannot be read/],
      [{ url: sshUrl(), host_key_fingerprint: 'MD5:aa' }, 400, 'invalid_arguments', /SHA256/],
      [{ url: address, extra: 1 }, 400, 'invalid_arguments', /extra is not a field/],
      [{}, 400, 'invalid_arguments', /url/],
      // Nothing listens there: the key cannot be asked for.
      [{ url: `ssh://${sshd.user}@127.0.0.1:1` }, 502, 'unreachable', /did not present a host key/],
    ];
    for (const [body, status, code, message] of refused) {
      const answer = await bridge.admin('POST', '/admin/api/hosts', body);
      assert.equal(answer.status, status, `${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`);
      const error = answer.body.error as { code: string; message: string };
      assert.equal(error.code, code);
      assert.match(error.message, message);
    }
    assert.equal((await hosts(bridge)).length, 1);
    await bridge.stop();
  });

  test('a LAN phone added through a host is forgotten when the host is removed: out of the list and state.json, disconnected from its ADB server, not back after a restart', async (t) => {
    const dataDir = mkdtempSync(join(scratch, 'lan-host-'));
    const bridge = await bridgeOn(join(scratch, 'known_hosts-lan'), dataDir);
    const address = `127.0.0.1:${adb.port}`;
    const phone = await AdbdServer.start({ phone: createSimulatedPhone({ serial: 'RTLAN0042', model: 'Lan Host' }) });
    const lanAddress = `127.0.0.1:${phone.port}`;
    t.after(async () => {
      await hostDisconnect({ host: '127.0.0.1', port: adb.port }, lanAddress, { timeoutMs: 3000 }).catch(
        () => undefined,
      );
      await phone.close();
    });
    const adbLists = async (): Promise<boolean> =>
      (await hostDevices({ host: '127.0.0.1', port: adb.port })).some((d) => d.serial === lanAddress);
    const lanRows = async (on: TestBridge): Promise<Json[]> =>
      ((await on.admin('GET', '/admin/api/state')).body as { lan_devices: Json[] }).lan_devices;
    const savedLan = (): unknown[] =>
      (JSON.parse(readFileSync(join(dataDir, 'state.json'), 'utf8')) as { lanDevices: unknown[] }).lanDevices;

    assert.equal((await bridge.admin('POST', '/admin/api/hosts', { url: address })).body.status, 'added');
    const added = await bridge.admin('POST', '/admin/api/lan-devices', { address: lanAddress, adb_server: address });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    assert.equal(added.body.status, 'connected');
    assert.equal(savedLan().length, 1);
    assert.ok(await adbLists(), "the host's ADB server holds the LAN phone");

    const removed = await bridge.admin('DELETE', `/admin/api/hosts/${encodeURIComponent(address)}`);
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.deepEqual(await lanRows(bridge), [], 'no row left retrying a host that is gone');
    assert.deepEqual(savedLan(), []);
    // The bridge asked that ADB server to connect the phone; removing the host undoes it.
    await waitForDeviceStates({ host: '127.0.0.1', port: adb.port }, [lanAddress], (state) => state === undefined, {
      timeoutMs: 10_000,
    });
    await bridge.stop();

    const again = await bridgeOn(join(scratch, 'known_hosts-lan'), dataDir);
    assert.deepEqual(await lanRows(again), []);
    assert.deepEqual(await hosts(again).then((list) => list.map((h) => h.address)), ['127.0.0.1:1']);
    await again.stop();
  });
});

if (missing) test(`ADB hosts at runtime: skipped, ${missing}`, { skip: missing }, () => undefined);

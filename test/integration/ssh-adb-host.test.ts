/**
 * ADB hosts reached over SSH (`--adb ssh://user@host`), against a real OpenSSH server on
 * loopback in front of a private ADB server with simulated phones: the phones arrive through
 * the tunnel and are named by the SSH address; a host key other than the pinned one is
 * refused with the fingerprint it presented; a killed link takes the phones offline with
 * the host's reason within 5 s and a restored one brings them back; a key the host does not
 * accept fails with words that say so. Nothing here reaches beyond 127.0.0.1.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AdbServerRig } from '../helpers/adb-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { waitUntil } from '../helpers/device-rig';
import { makeKeyPair, sshdMissing, startSshAdbHost, type SshAdbHostRig, type SshdRig } from '../helpers/sshd';
import type { AdbServerAddress } from '../../main/core/config/core-options';
import type { SshOptions } from '../../main/core/devices/ssh/ssh-tunnels';

type Json = Record<string, unknown>;

const missing = sshdMissing();

describe('ADB host over SSH', { skip: missing ?? false }, () => {
  let adb: AdbServerRig;
  let sshd: SshdRig;
  let scratch: string;
  const bridges: TestBridge[] = [];

  let host: SshAdbHostRig | undefined;

  before(async () => {
    host = await startSshAdbHost({
      count: 2,
      serial: (i) => `SSHSIM${i}4F2A`,
      model: 'Pixel 7',
      scratchPrefix: 'ssh-host-test-',
    });
    ({ adb, sshd, scratch } = host);
  });
  after(async () => {
    for (const bridge of bridges) await bridge.stop();
    await host?.stop();
  });

  const server = (): AdbServerAddress => ({
    host: '127.0.0.1',
    port: adb.port,
    ssh: { user: sshd.user, host: '127.0.0.1', port: sshd.port },
  });
  const address = (): string => `ssh://${sshd.user}@127.0.0.1:${sshd.port}?adb_port=${adb.port}`;
  const bridgeWith = async (ssh: SshOptions): Promise<TestBridge> => {
    const bridge = await startBridge({
      adbServers: [server()],
      ssh: { keepaliveMs: 500, backoff: { firstMs: 100, maxMs: 1000 }, ...ssh },
    });
    bridges.push(bridge);
    return bridge;
  };
  const readyPhones = (bridge: TestBridge): number =>
    bridge.core.registry.list().filter((d) => d.state === 'device' && d.model !== null).length;
  const health = (bridge: TestBridge) => bridge.core.adbLinks[0]!.getHealth();

  test('phones arrive through the tunnel, named by the SSH address; the host key is pinned on first use and shown', async (t) => {
    const bridge = await bridgeWith({
      privateKeyFile: sshd.userKey.privateKeyFile,
      knownHostsFile: join(scratch, 'no-known-hosts'),
    });
    const startedAt = Date.now();
    await waitUntil(() => readyPhones(bridge) === 2, 20_000, 'both phones ready through SSH');
    t.diagnostic(`2 phones ready through SSH ${Date.now() - startedAt} ms after start`);
    for (const device of bridge.core.registry.list()) assert.equal(device.adbServer, address());
    const h = health(bridge);
    assert.equal(h.via, 'ssh');
    assert.equal(h.status, 'connected');
    assert.equal(h.ssh?.status, 'connected');
    assert.equal(h.ssh?.hostKey?.fingerprint, sshd.hostKey.fingerprint);
    assert.equal(h.ssh?.hostKey?.pinnedBy, 'first_use');
    assert.ok(
      bridge.core.warnings().some((w) => w.includes(sshd.hostKey.fingerprint) && w.includes('trusted on first use')),
      bridge.core.warnings().join('\n'),
    );
    // The pin holds: the same key on the next connection counts as pinned, not first use.
    await sshd.kill();
    const killedAt = Date.now();
    await waitUntil(
      () => bridge.core.registry.list().every((d) => d.state === 'offline'),
      5000,
      'phones offline within 5 s of the link being killed',
    );
    t.diagnostic(`phones offline ${Date.now() - killedAt} ms after sshd was killed`);
    for (const device of bridge.core.registry.list())
      assert.match(device.reason ?? '', /SSH link to 127\.0\.0\.1:\d+ (lost|failed)/);
    assert.notEqual(health(bridge).ssh?.status, 'connected');
    const down = (await bridge.admin('GET', '/admin/api/hosts')).body as { hosts: Json[] };
    assert.equal(down.hosts[0]?.address, address());
    assert.equal(down.hosts[0]?.via, 'ssh');
    assert.equal(down.hosts[0]?.state, 'reconnecting');
    assert.match(String(down.hosts[0]?.reason), /SSH link/);
    assert.equal(down.hosts[0]?.phones_online, 0);

    await sshd.restart();
    const restoredAt = Date.now();
    await waitUntil(() => readyPhones(bridge) === 2, 20_000, 'phones back once sshd listens again');
    t.diagnostic(`phones back ${Date.now() - restoredAt} ms after sshd listened again`);
    const back = health(bridge);
    assert.equal(back.ssh?.hostKey?.pinnedBy, 'pinned');
    assert.ok((back.ssh?.reconnects ?? 0) >= 1);
    assert.ok(back.rttMs !== null && back.rttMs >= 0);
  });

  test('a link that goes silent (the host stops answering, nothing closes) takes the phones offline within 5 s by keepalive', async (t) => {
    // Default keepalive timings: this is the bound the person is promised.
    const bridge = await startBridge({
      adbServers: [server()],
      ssh: { privateKeyFile: sshd.userKey.privateKeyFile, knownHostsFile: join(scratch, 'no-known-hosts-silent') },
    });
    bridges.push(bridge);
    await waitUntil(() => readyPhones(bridge) === 2, 20_000, 'both phones ready through SSH');
    sshd.freezeSessions(true);
    const frozenAt = Date.now();
    try {
      await waitUntil(
        () => bridge.core.registry.list().every((d) => d.state === 'offline' && d.adbServer === address()),
        5000,
        'phones offline within 5 s of the link going silent',
      );
      t.diagnostic(`phones offline ${Date.now() - frozenAt} ms after the link went silent`);
      assert.match(bridge.core.registry.list()[0]?.reason ?? '', /SSH link/);
    } finally {
      sshd.freezeSessions(false);
    }
    await bridge.stop();
  });

  test('a host key other than the one known_hosts lists is refused, with the fingerprint the host presented', async () => {
    const other = makeKeyPair(scratch, 'other_host_key');
    const knownHosts = join(scratch, 'known_hosts');
    const [type, blob] = other.publicKey.split(' ');
    writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${type} ${blob}\n`);
    const bridge = await bridgeWith({ privateKeyFile: sshd.userKey.privateKeyFile, knownHostsFile: knownHosts });
    await waitUntil(() => health(bridge).ssh?.status === 'host_key_refused', 10_000, 'host key refused');
    const h = health(bridge);
    assert.ok(h.ssh?.reason?.includes(sshd.hostKey.fingerprint), h.ssh?.reason ?? '');
    assert.ok(h.ssh?.reason?.includes(other.fingerprint), 'names the key it expected');
    assert.equal(h.ssh?.hostKey?.fingerprint, sshd.hostKey.fingerprint);
    assert.equal(readyPhones(bridge), 0);
    const hosts = (await bridge.admin('GET', '/admin/api/hosts')).body as { hosts: Json[] };
    assert.equal(hosts.hosts[0]?.state, 'host_key_refused');
    assert.ok(String(hosts.hosts[0]?.reason).includes(sshd.hostKey.fingerprint));
    assert.deepEqual(hosts.hosts[0]?.host_key, {
      type: 'ssh-ed25519',
      fingerprint: sshd.hostKey.fingerprint,
      pinned_by: null,
    });
    // The same key listed: accepted by known_hosts, not pinned in the data folder.
    const [hostType, hostBlob] = sshd.hostKey.publicKey.split(' ');
    writeFileSync(knownHosts, `[127.0.0.1]:${sshd.port} ${hostType} ${hostBlob}\n`);
    await waitUntil(() => readyPhones(bridge) === 2, 20_000, 'phones once known_hosts lists the real key');
    assert.equal(health(bridge).ssh?.hostKey?.pinnedBy, 'known_hosts');
  });

  test('a key the host does not accept fails with a clear sign-in error, and no phones', async () => {
    const stranger = makeKeyPair(scratch, 'stranger_key');
    const bridge = await bridgeWith({
      privateKeyFile: stranger.privateKeyFile,
      knownHostsFile: join(scratch, 'no-known-hosts-2'),
    });
    await waitUntil(() => health(bridge).ssh?.status === 'auth_failed', 10_000, 'sign-in refused');
    const reason = health(bridge).ssh?.reason ?? '';
    assert.match(reason, /sign-in refused/);
    assert.ok(reason.includes(stranger.privateKeyFile), reason);
    assert.ok(reason.includes(`user ${sshd.user}`), reason);
    assert.equal(readyPhones(bridge), 0);
  });

  test('an ssh:// host without any key is refused at start with what to give', () => {
    return assert.rejects(
      () => bridgeWith({ knownHostsFile: join(scratch, 'none') }),
      (error: Error) => error instanceof TypeError && /--ssh-key PATH, or run ssh-agent/.test(error.message),
    );
  });
});

if (missing) test(`ADB host over SSH: skipped, ${missing}`, { skip: missing }, () => undefined);

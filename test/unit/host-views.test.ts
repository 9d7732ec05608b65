/**
 * Settings → Hosts' rows (main/core/admin/host-routes.ts): a host's state folds the ADB link's
 * and, for SSH, the tunnel's; a refused host key or sign-in outranks "reconnecting"; phones are
 * counted per host.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostViews } from '../../main/core/admin/host-routes';
import type { AdbServerHealth } from '../../main/core/devices/adb-server-link';
import type { DeviceRecord } from '../../main/core/devices/device-registry';
import type { SshLinkState } from '../../main/core/devices/ssh/ssh-adb-tunnel';

function health(patch: Partial<AdbServerHealth>): AdbServerHealth {
  return {
    address: '127.0.0.1:5037',
    status: 'connected',
    lastError: null,
    nextRetryAt: null,
    deviceCount: 0,
    via: 'direct',
    ssh: null,
    rttMs: 3.2,
    reconnects: 0,
    since: 100,
    origin: 'start',
    ...patch,
  };
}

function ssh(patch: Partial<SshLinkState>): SshLinkState {
  return { status: 'connected', reason: null, hostKey: null, reconnects: 0, since: 200, nextRetryAt: null, ...patch };
}

const phone = (adbServer: string, state: DeviceRecord['state']): DeviceRecord => ({ adbServer, state }) as DeviceRecord;

test('direct hosts: connected, never up yet, and down after a failure with adb words', () => {
  const rows = hostViews({
    adbLinks: [
      { getHealth: () => health({}) },
      { getHealth: () => health({ address: '10.0.0.5:5037', status: 'connecting' }) },
      {
        getHealth: () =>
          health({
            address: '10.0.0.6:5037',
            status: 'down',
            lastError: 'connect ECONNREFUSED',
            since: 300,
            nextRetryAt: 900,
          }),
      },
    ],
    registry: {
      list: () => [
        phone('127.0.0.1:5037', 'device'),
        phone('127.0.0.1:5037', 'offline'),
        phone('127.0.0.1:5037', 'gone'),
      ],
    },
  });
  assert.deepEqual(
    rows.map((r) => [r.address, r.state, r.reason, r.since, r.phones, r.phones_online, r.next_retry_at]),
    [
      ['127.0.0.1:5037', 'connected', null, 100, 2, 1, null],
      ['10.0.0.5:5037', 'connecting', null, 100, 0, 0, null],
      ['10.0.0.6:5037', 'reconnecting', 'connect ECONNREFUSED', 300, 0, 0, 900],
    ],
  );
});

test('SSH hosts: the tunnel decides while it is down; a refused key keeps its fingerprint; up, the ADB server decides', () => {
  const address = 'ssh://lab@rack-1:22';
  const key = { type: 'ssh-ed25519', fingerprint: 'SHA256:abc', pinnedBy: null };
  const refused = hostViews({
    adbLinks: [
      {
        getHealth: () =>
          health({
            address,
            via: 'ssh',
            status: 'down',
            lastError: 'Connection closed',
            ssh: ssh({
              status: 'host_key_refused',
              reason: 'host key refused: … SHA256:abc …',
              hostKey: key,
              nextRetryAt: 5,
            }),
          }),
      },
    ],
    registry: { list: () => [phone(address, 'offline')] },
  })[0];
  assert.equal(refused?.state, 'host_key_refused');
  assert.match(refused?.reason ?? '', /SHA256:abc/);
  assert.deepEqual(refused?.host_key, { type: 'ssh-ed25519', fingerprint: 'SHA256:abc', pinned_by: null });
  assert.equal(refused?.next_retry_at, 5);

  const serverDown = hostViews({
    adbLinks: [
      {
        getHealth: () =>
          health({
            address,
            via: 'ssh',
            status: 'down',
            lastError: null,
            reconnects: 1,
            ssh: ssh({ status: 'connected' }),
          }),
      },
    ],
    registry: { list: () => [] },
  })[0];
  assert.equal(serverDown?.state, 'reconnecting');
  assert.equal(serverDown?.reason, 'ADB server on the SSH host unreachable');
});

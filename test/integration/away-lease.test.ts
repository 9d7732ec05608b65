/**
 * A leased phone unplugged mid-lease stays in sight (#37 point 2), end to end with a real adb
 * server: adb forgets the phone (`adb disconnect`, as a USB phone pulled out vanishes from
 * `adb devices`), yet the admin state keeps it with when its lease ends unless it comes back;
 * the Descriptor says so, and a tool call gets `device_offline` with the fix, the time left and
 * when to try again. Plugged back in, the same lease goes on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { runAdb } from '../helpers/adb-server';
import { XAgentClient } from '../helpers/xagent-client';
import type { AdminChannel, AdminDevice } from '../../main/contract/admin-api';

const GRACE_MS = 600_000;

let rig: DeviceRig;
let client: XAgentClient;

before(async () => {
  rig = await startDeviceRig(1, {
    lease: { maxDurationMs: null, idleTimeoutMs: 900_000, disconnectGraceMs: GRACE_MS },
  });
  client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
  await client.hello();
});
after(async () => {
  await client?.close().catch(() => undefined);
  await rig?.stop();
});

async function adminState(): Promise<{ devices: AdminDevice[]; channels: AdminChannel[] }> {
  return (await rig.bridge.admin('GET', '/admin/api/state')).body as unknown as {
    devices: AdminDevice[];
    channels: AdminChannel[];
  };
}

test('unplugged mid-lease: still listed, the Descriptor and the tool error say how long the lease waits and what brings it back', async () => {
  const deviceId = rig.device(0).deviceId;
  const channel = await bindChannel(rig, client, deviceId);
  const address = `127.0.0.1:${rig.farm.phones[0]!.port}`;
  const from = client.received.length;
  const unpluggedAt = Date.now();
  await runAdb(rig.adb, ['disconnect', address]);
  await waitUntil(() => rig.bridge.core.registry.get(deviceId)?.state === 'gone', 10_000, 'adb forgets the phone');

  const state = await adminState();
  const device = state.devices.find((d) => d.device_id === deviceId);
  assert.ok(device, 'the unplugged leased phone is still listed');
  assert.equal(device.state, 'gone');
  const until = device.away_until ?? 0;
  assert.ok(until >= unpluggedAt + GRACE_MS - 1000 && until <= Date.now() + GRACE_MS, `away until ${until}`);
  assert.equal(state.channels.find((c) => c.connector_channel_id === channel)?.away_until, until);

  const pushed = await client.waitFor(
    (p) =>
      p.type === 'connection.descriptor.push' &&
      p.connector_channel_id === channel &&
      (p.payload?.connection_descriptor as { connection: { status: string } }).connection.status === 'offline',
    5000,
    from,
  );
  const tools = (pushed.payload?.connection_descriptor as { tools: Array<{ reason?: string }> }).tools;
  assert.match(
    tools[0]?.reason ?? '',
    new RegExp(`plug it back in: the lease is kept until ${new Date(until).toISOString().replace(/\./g, '\\.')}`),
  );

  const refused = await invoke(client, channel, 'android_device_status');
  const error = refused.error as { code: string; fix?: string; retry_after_ms?: number; lease_kept_ms?: number };
  assert.equal(error.code, 'device_offline');
  assert.match(
    error.fix ?? '',
    /^Ask the person at the computer to plug the phone back in; the lease is kept (9|10) min \d+ s more, then ends\.$/,
  );
  assert.equal(error.retry_after_ms, 5000);
  assert.ok((error.lease_kept_ms ?? 0) > GRACE_MS - 60_000 && (error.lease_kept_ms ?? 0) <= GRACE_MS);

  // Plugged back in: the same lease goes on, and nothing says "away" any more.
  await rig.farm.bringOnline(0);
  await waitUntil(
    () =>
      rig.bridge.core.bindings.bindingStatus(rig.bridge.core.bindings.activeBinding(channel)!).status === 'connected',
    15_000,
    'the phone back and verified',
  );
  assert.equal(rig.bridge.core.bindings.leaseHolder(deviceId), channel);
  const back = await adminState();
  assert.equal(back.devices.find((d) => d.device_id === deviceId)?.away_until, null);
  assert.equal((await invoke(client, channel, 'android_device_status')).error, undefined);
});

/**
 * GET /admin/api/state reuses each phone's encoded entry while it reads the same
 * (admin/admin-state-encoder.ts): the answer must still be exactly the state, and a change to
 * one phone must show in the very next answer, never a stale one. Two hosts of simulated
 * phones, a real adb server each.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AdminDevice, AdminState } from '../../main/contract/admin-api';
import { startLabRig } from '../helpers/lab-rig';
import { waitUntil } from '../helpers/device-rig';
import { AdminStateEncoder } from '../../main/core/admin/admin-state-encoder';

void test('the admin state answer is exactly the state, and a phone’s change shows in the next answer', async () => {
  const rig = await startLabRig({ servers: 2, phonesPerServer: 3, bridge: { fastLane: { portless: true } } });
  try {
    const { core } = rig.bridge;
    const state = async (): Promise<AdminState> => {
      const res = await rig.bridge.admin('GET', '/admin/api/state');
      assert.equal(res.status, 200);
      return res.body as unknown as AdminState;
    };
    const entry = (s: AdminState, id: string): AdminDevice => s.devices.find((d) => d.device_id === id)!;
    // Twice: the second answer is made of the first's reused entries.
    await state();
    assert.deepEqual(await state(), JSON.parse(JSON.stringify(core.adminState())));

    // A program turned off on one phone: the next answer says so, the other phones' entries unchanged.
    const phone = core.registry.list().find((d) => d.adbServer === rig.address(0))!.deviceId;
    const before = await state();
    const off = await rig.bridge.admin('POST', `/admin/api/devices/${phone}/programs`, { action: 'disable' });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    const after = await state();
    assert.notDeepEqual(entry(after, phone).programs, entry(before, phone).programs);
    assert.deepEqual(
      entry(after, phone).programs,
      JSON.parse(JSON.stringify(core.adminState())).devices.find((d: AdminDevice) => d.device_id === phone).programs,
    );
    for (const d of before.devices) if (d.device_id !== phone) assert.deepEqual(entry(after, d.device_id), d);

    // A host lost: the first answer after the registry marked its phones offline shows them offline.
    const lost = rig.address(1);
    await rig.stopServer(1);
    await waitUntil(
      () => core.registry.list().every((d) => d.adbServer !== lost || d.state !== 'device'),
      15_000,
      'the lost host’s phones offline in the registry',
    );
    const next = await state();
    const onLost = next.devices.filter((d) => d.adb_server === lost);
    assert.equal(onLost.length, 3);
    for (const d of onLost) assert.notEqual(d.state, 'device');
  } finally {
    await rig.stop();
  }
});

void test('the encoder’s bytes are JSON.stringify’s, whatever changed, a phone gone and back included', () => {
  const encoder = new AdminStateEncoder();
  const device = (id: string, name: string): AdminDevice => ({ device_id: id, display_name: name }) as AdminDevice;
  const base = {
    connector: { base_url: 'http://127.0.0.1:1' },
    warnings: ['"devices":[] in a warning', 'Pixel 7 ···4F2A'],
  } as unknown as AdminState;
  const states: AdminState[] = [
    { ...base, devices: [] },
    { ...base, devices: [device('dev_a', 'Pixel 7 ···4F2A'), device('dev_b', '小米 ···0001')] },
    { ...base, devices: [device('dev_a', 'Pixel 7 ···4F2A @rack-1'), device('dev_b', '小米 ···0001')] },
    { ...base, devices: [device('dev_b', '小米 ···0001')] },
    { ...base, devices: [device('dev_b', '小米 ···0001'), device('dev_a', 'Pixel 7 ···4F2A')] },
  ];
  for (const s of states) assert.equal(encoder.encode(s).toString('utf8'), JSON.stringify(s));
});

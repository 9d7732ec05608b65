// The sim farm: many simulated phones attached to one real adb server at once.
import { connect } from 'node:net';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Adb from '@devicefarmer/adbkit';
import { hostDevices, waitForDeviceStates } from '../../main/sim/adb-host-client';
import { startSimFarm } from '../../main/sim/sim-farm';
import type { SimFarm } from '../../main/sim/sim-farm';
import { startAdbServer, runAdb } from '../helpers/adb-server';
import type { AdbServerRig } from '../helpers/adb-server';
import { FakePhone } from '../helpers/fake-phone';

const PHONES = 32;

async function refusesConnections(port: number): Promise<boolean> {
  const socket = connect({ host: '127.0.0.1', port });
  const refused = await new Promise<boolean>((resolve) => {
    socket.once('connect', () => resolve(false));
    socket.once('error', () => resolve(true));
  });
  socket.destroy();
  return refused;
}

void describe(`a farm of ${PHONES} simulated phones`, () => {
  let rig: AdbServerRig;
  let farm: SimFarm | undefined;
  let attachMs = 0;

  before(async () => {
    rig = await startAdbServer();
    const started = performance.now();
    farm = await startSimFarm({
      count: PHONES,
      adb: { host: rig.host, port: rig.port },
      createPhone: (index) => new FakePhone({ model: `Sim_${index}`, serial: `SIM${index}` }),
    });
    attachMs = performance.now() - started;
  });
  after(async () => {
    await farm?.stop();
    await rig?.stop();
  });

  void test('every phone is listed as device with its own model', async (t) => {
    t.diagnostic(`${PHONES} phones reached "device" in ${Math.round(attachMs)} ms`);
    const phones = farm?.phones ?? [];
    assert.equal(phones.length, PHONES);
    const listed = new Map((await hostDevices(rig)).map((d) => [d.serial, d]));
    for (const phone of phones) {
      assert.equal(phone.serial, `127.0.0.1:${phone.port}`);
      assert.equal(listed.get(phone.serial)?.state, 'device', phone.serial);
      assert.equal(listed.get(phone.serial)?.details.model, `Sim_${phone.index}`);
    }
  });

  void test('commands reach the right phone when all are used at once', async () => {
    const phones = farm?.phones ?? [];
    const client = Adb.createClient({ host: rig.host, port: rig.port });
    const outputs = await Promise.all(
      phones.map(async (p) =>
        (await Adb.util.readAll(await client.getDevice(p.serial).shell('getprop ro.serialno'))).toString(),
      ),
    );
    assert.deepEqual(
      outputs,
      phones.map((p) => `SIM${p.index}\n`),
    );
  });

  void test('bringOnline returns a phone that went offline to device at once', async () => {
    const phone = farm?.phones[3];
    assert.ok(phone && farm);
    await phone.server.goOffline();
    await waitForDeviceStates(rig, [phone.serial], (state) => state !== 'device');
    await farm.bringOnline(3);
    const { stdout } = await runAdb(rig, ['-s', phone.serial, 'shell', 'echo', 'again']);
    assert.equal(stdout.toString(), 'again\n');
  });

  void test('stop() detaches every phone from adb and closes their ports', async () => {
    assert.ok(farm);
    const ports = farm.phones.map((p) => p.port);
    await farm.stop();
    await farm.stop();
    assert.deepEqual(await hostDevices(rig), []);
    for (const port of ports.slice(0, 4)) assert.ok(await refusesConnections(port), `port ${port} still open`);
  });
});

void describe('startSimFarm options', () => {
  void test('are checked up front with precise messages', async () => {
    const createPhone = () => new FakePhone();
    const adb = { host: '127.0.0.1', port: 1 };
    await assert.rejects(startSimFarm({ count: 0, adb, createPhone }), /count must be a positive integer, got 0/);
    await assert.rejects(startSimFarm({ count: 2, adb: { host: '127.0.0.1', port: 0 }, createPhone }), /adb must be/);
    await assert.rejects(startSimFarm({ count: 2, adb, createPhone, basePort: 65535 }), /basePort 65535 with count 2/);
  });
});

// "32 phones on one machine at once", with the FULL simulated phone (screen model, apps,
// renderer) rather than the light FakePhone of adbd-farm.test.ts: time until the real adb
// server lists all 32 as `device`, memory of this process and of the adb server, and one
// command per phone in parallel through the adb CLI and through adbkit. The figures are
// printed as test diagnostics (`# …` lines).
import { readFileSync } from 'node:fs';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Adb from '@devicefarmer/adbkit';
import { hostDevices } from '../../main/sim/adb-host-client';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { startAdbServer, runAdb } from '../helpers/adb-server';
import type { AdbServerRig } from '../helpers/adb-server';

const PHONES = 32;

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number | 'self'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

void describe(`${PHONES} full simulated phones on one adb server`, () => {
  let rig: AdbServerRig;
  let farm: SimFarm | undefined;
  const phones: SimulatedPhone[] = [];
  let onlineMs = 0;
  let rssBefore = 0;

  before(async () => {
    rig = await startAdbServer();
    rssBefore = rssMiB('self');
    const started = performance.now();
    farm = await startSimFarm({
      count: PHONES,
      adb: { host: rig.host, port: rig.port },
      createPhone: (i) => {
        const phone = createSimulatedPhone({
          serial: `FARM${String(i).padStart(2, '0')}X`,
          model: i % 2 ? 'Galaxy S23' : 'Pixel 7',
        });
        phones[i] = phone;
        return phone;
      },
    });
    onlineMs = performance.now() - started;
  });
  after(async () => {
    await farm?.stop();
    for (const phone of phones) phone.close();
    await rig?.stop();
  });

  void test('all phones are `device`, and a command on each in parallel reaches the right phone', async (t) => {
    const entries = farm?.phones ?? [];
    assert.equal(entries.length, PHONES);
    const listed = await hostDevices(rig);
    assert.equal(listed.filter((d) => d.state === 'device').length, PHONES);
    t.diagnostic(`${PHONES} phones attached and listed as "device" in ${Math.round(onlineMs)} ms`);

    // The adb CLI, one process per phone, all at once.
    let started = performance.now();
    const cli = await Promise.all(
      entries.map((p) => runAdb(rig, ['-s', p.serial, 'shell', 'getprop', 'ro.serialno'], { timeoutMs: 30_000 })),
    );
    const cliMs = performance.now() - started;
    assert.deepEqual(
      cli.map((r) => [r.code, r.stdout.toString()]),
      entries.map((p) => [0, `FARM${String(p.index).padStart(2, '0')}X\n`]),
    );

    // adbkit (what the bridge uses): a tap then a UI dump on every phone at once.
    const client = Adb.createClient({ host: rig.host, port: rig.port });
    started = performance.now();
    const dumps = await Promise.all(
      entries.map(async (p) => {
        const device = client.getDevice(p.serial);
        await Adb.util.readAll(await device.shell(`input tap ${100 + p.index} 200`));
        return (await Adb.util.readAll(await device.shell('uiautomator dump /dev/tty'))).toString();
      }),
    );
    const kitMs = performance.now() - started;
    for (const [i, xml] of dumps.entries()) {
      assert.ok(xml.endsWith('UI hierchary dumped to: /dev/tty\n'), `phone ${i}`);
      assert.deepEqual(
        phones[i]?.argvLog.find((argv) => argv[0] === 'input'),
        ['input', 'tap', String(100 + i), '200'],
      );
    }

    const rssIdle = rssMiB('self');
    // Raw screencaps (10 MB each, `adb exec-out screencap`) from every phone at once: the
    // heaviest routine transfer.
    started = performance.now();
    const frames = await Promise.all(
      entries.map(
        async (p) =>
          (await runAdb(rig, ['-s', p.serial, 'exec-out', 'screencap'], { timeoutMs: 60_000 })).stdout.length,
      ),
    );
    const capMs = performance.now() - started;
    assert.ok(
      frames.every((n) => n === 16 + 1080 * 2400 * 4),
      JSON.stringify(frames),
    );

    const rssSelf = rssMiB('self');
    const rssAdb = rssMiB(rig.pid);
    t.diagnostic(`parallel adb CLI getprop on ${PHONES} phones: ${Math.round(cliMs)} ms`);
    t.diagnostic(`parallel adbkit tap + uiautomator dump on ${PHONES} phones: ${Math.round(kitMs)} ms`);
    t.diagnostic(`parallel adb exec-out screencap (9.9 MB raw each) from ${PHONES} phones: ${Math.round(capMs)} ms`);
    t.diagnostic(
      `RSS of the test process: ${rssBefore} MiB before the phones, ${rssIdle} MiB with ${PHONES} phones attached and used, ${rssSelf} MiB after the screencap burst; adb server ${rssAdb} MiB`,
    );
    const after = await hostDevices(rig);
    assert.equal(after.filter((d) => d.state === 'device').length, PHONES, 'no phone dropped under load');
  });
});

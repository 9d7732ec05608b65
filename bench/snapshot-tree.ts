/**
 * `node --import tsx bench/snapshot-tree.ts [--quick]` (issue #35, "The tree without a
 * listener"): p50 of every port-less way to read the tree, side by side on one `usb-phone`
 * simulated phone behind the private adb server, calls alternating so load affects them
 * alike: agent-device's snapshot helper (`am instrument -w`, status lines), stock `uiautomator
 * dump /dev/tty` through `shell:` (the bridge's stock lane), the same through `exec:`, and
 * `--compressed`. The resident UIA2 helper's /source is not re-measured here (part e of
 * `npm run bench` has it). Everything it starts is stopped before it exits.
 */
import Adb from '@devicefarmer/adbkit';
import { AdbDeviceShell } from '../main/core/devices/adb-device-shell';
import { dumpUiXml } from '../main/core/android/ui-tree';
import { ensureSnapshotHelper, findSnapshotHelperApk, readSnapshotTree } from '../main/core/snapshot/snapshot-helper';
import { AdbdServer } from '../main/sim/adbd-server';
import { attachToAdb } from '../main/sim/sim-farm';
import { createSimulatedPhone } from '../main/sim/phone';
import { startAdbServer } from '../test/helpers/adb-server';
import { now, summarize, type Summary } from './stats';

const QUICK = process.argv.includes('--quick');

async function main(): Promise<void> {
  const apk = findSnapshotHelperApk();
  if (!apk) throw new Error('agent-device does not ship the snapshot helper here');
  const rig = await startAdbServer();
  const phone = createSimulatedPhone({ serial: 'BENCHSNAP', profile: 'usb-phone' });
  const server = await AdbdServer.start({ phone });
  try {
    const serial = await attachToAdb(rig, server.port);
    const shell = new AdbDeviceShell(Adb.createClient({ host: '127.0.0.1', port: rig.port }), serial);
    const helper = await ensureSnapshotHelper(shell, apk, { timeoutMs: 60_000 });
    await shell.run(['monkey', '-p', 'com.example.notes', '-c', 'android.intent.category.LAUNCHER', '1'], {
      timeoutMs: 15_000,
    });
    const paths: Record<string, () => Promise<unknown>> = {
      'snapshot helper (am instrument, status lines)': () => readSnapshotTree(shell, { helper, timeoutMs: 30_000 }),
      'stock uiautomator dump /dev/tty (shell:)': () => dumpUiXml(shell, { timeoutMs: 30_000 }),
      'uiautomator dump /dev/tty (exec:)': () =>
        shell.execOut(['uiautomator', 'dump', '/dev/tty'], { timeoutMs: 30_000 }),
      'uiautomator dump --compressed /dev/tty': () => dumpUiXml(shell, { timeoutMs: 30_000, compressed: true }),
    };
    const samples = new Map<string, number[]>(Object.keys(paths).map((k) => [k, []]));
    const rounds = QUICK ? 4 : 12;
    for (let round = -1; round < rounds; round++) {
      for (const [name, run] of Object.entries(paths)) {
        const t0 = now();
        await run();
        if (round >= 0) samples.get(name)?.push(now() - t0);
      }
    }
    const stock = summarize(samples.get('stock uiautomator dump /dev/tty (shell:)') ?? []);
    const row = (name: string, s: Summary): string =>
      `| ${name} | ${s.p50.toFixed(0)} | ${s.p95.toFixed(0)} | ${(s.p50 / stock.p50).toFixed(2)}× |`;
    console.log(`Tree reads on usb-phone, ${rounds} each (${new Date().toISOString().slice(0, 10)})\n`);
    console.log('| way | p50 ms | p95 ms | p50 vs stock dump |\n| --- | ---: | ---: | ---: |');
    for (const [name, list] of samples) console.log(row(name, summarize(list)));
  } finally {
    phone.close();
    await server.close();
    await rig.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});

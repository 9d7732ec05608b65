/**
 * The tree without a listener (issue #35), through the real adb server and simulated phones:
 * agent-device's snapshot helper is installed only as the shipped bytes, reads the same tree
 * as stock `uiautomator dump`, leaves no process holding UiAutomation after a read, opens no
 * TCP socket while it runs, and every way it fails has its stable code.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Adb from '@devicefarmer/adbkit';
import { AdbDeviceShell } from '../../main/core/devices/adb-device-shell';
import { dumpUiXml, parseUiXml } from '../../main/core/android/ui-tree';
import { BridgeError } from '../../main/core/errors';
import {
  ensureSnapshotHelper,
  findSnapshotHelperApk,
  readSnapshotTree,
  removeSnapshotHelper,
  SNAPSHOT_TOASTS_UNWATCHED_REASON,
  type SnapshotHelperApk,
  type SnapshotHelperHandle,
} from '../../main/core/snapshot/snapshot-helper';
import { AdbdServer } from '../../main/sim/adbd-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import { runAdb, startAdbServer, type AdbServerRig } from '../helpers/adb-server';

interface Phone {
  phone: SimulatedPhone;
  serial: string;
  shell: AdbDeviceShell;
}

const bundled = findSnapshotHelperApk();

function codeOf(error: unknown): { code: string; reason: unknown } {
  assert.ok(error instanceof BridgeError, `a BridgeError, got ${String(error)}`);
  return { code: error.code, reason: error.details?.reason };
}

const installs = (phone: SimulatedPhone): string[][] =>
  phone.argvLog.filter((a) => a[0] === 'pm' && a[1] === 'install');

/** Rows of /proc/net/tcp{,6} in state LISTEN (0A). */
function listening(table: string): string[] {
  return table
    .split('\n')
    .slice(1)
    .filter((row) => row.trim().split(/\s+/)[3] === '0A');
}

describe('snapshot helper through the real adb server', () => {
  let rig: AdbServerRig;
  const servers: AdbdServer[] = [];
  const phones: SimulatedPhone[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'snapshot-helper-test-'));
  let client: ReturnType<typeof Adb.createClient>;
  let main: Phone;
  let helper: SnapshotHelperHandle;

  async function addPhone(options: Partial<SimulatedPhoneOptions> = {}): Promise<Phone> {
    const phone = createSimulatedPhone({ serial: `snap-${phones.length}`, ...options });
    phones.push(phone);
    const server = await AdbdServer.start({ phone });
    servers.push(server);
    const serial = await attachToAdb(rig, server.port);
    return { phone, serial, shell: new AdbDeviceShell(client, serial) };
  }

  before(async () => {
    assert.ok(bundled, 'agent-device ships the snapshot helper');
    rig = await startAdbServer();
    client = Adb.createClient({ host: '127.0.0.1', port: rig.port });
    main = await addPhone();
  });

  after(async () => {
    for (const phone of phones) phone.close();
    await Promise.all(servers.map((s) => s.close()));
    await rig?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('a phone without it gets the shipped APK; the next check installs nothing', async () => {
    const apk = bundled!;
    helper = await ensureSnapshotHelper(main.shell, apk, { timeoutMs: 60_000 });
    assert.equal(helper.installed, 'missing');
    assert.equal(helper.runner, 'com.callstack.agentdevice.snapshothelper/.SnapshotInstrumentation');
    main.phone.clearArgvLog();
    const again = await ensureSnapshotHelper(main.shell, apk, { timeoutMs: 60_000 });
    assert.equal(again.installed, 'current');
    assert.deepEqual(installs(main.phone), []);
  });

  test('the tree it reads is the stock dump: same XML, same nodes; toasts are said to be unwatched', async () => {
    await main.shell.run(['monkey', '-p', 'com.example.notes', '-c', 'android.intent.category.LAUNCHER', '1'], {
      timeoutMs: 10_000,
    });
    const tree = await readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 });
    const stock = await dumpUiXml(main.shell, { timeoutMs: 20_000 });
    assert.equal(tree.xml, stock);
    assert.deepEqual(tree.nodes, parseUiXml(stock));
    assert.ok(tree.nodes.some((n) => n.package === 'com.example.notes'));
    assert.deepEqual(tree.toasts, []);
    assert.equal(tree.toastsWatched, false);
    assert.equal(tree.toastsUnwatchedReason, SNAPSHOT_TOASTS_UNWATCHED_REASON);
    assert.ok(tree.durationMs >= 0);
    // The read ended the helper's process by itself: nothing holds UiAutomation, no force-stop needed.
    assert.equal(main.phone.snapshotHelper.holdsUiAutomation(), false);
  });

  test('while it reads, nothing listens on TCP (tcp and tcp6), and stock dump is blocked only meanwhile', async () => {
    const release = main.phone.snapshotHelper.holdNextRead();
    const reading = readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 });
    await main.phone.snapshotHelper.whenRunning(AbortSignal.timeout(10_000));
    try {
      for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
        const table = (await main.shell.run(['cat', file], { timeoutMs: 5_000 })).stdout.toString('utf8');
        assert.match(table, /local_address/);
        assert.deepEqual(listening(table), [], `${file} while the helper runs`);
      }
      assert.equal(main.phone.snapshotHelper.holdsUiAutomation(), true, 'the read is in progress');
    } finally {
      release();
    }
    const tree = await reading;
    assert.ok(tree.nodes.length > 0);
    assert.equal(main.phone.snapshotHelper.holdsUiAutomation(), false);
  });

  test('the helper dying mid-read is helper_unavailable "crashed", and UiAutomation is free after', async () => {
    const release = main.phone.snapshotHelper.holdNextRead();
    const reading = readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 });
    await main.phone.snapshotHelper.whenRunning(AbortSignal.timeout(10_000));
    main.phone.snapshotHelper.kill();
    release();
    const failure = await reading.then(
      () => assert.fail('a read whose process died must not succeed'),
      (error: unknown) => error,
    );
    assert.deepEqual(codeOf(failure), { code: 'helper_unavailable', reason: 'crashed' });
    assert.match((failure as BridgeError).message, /died during the read \(Process crashed\.\)\. Fix: /);
    assert.equal(main.phone.snapshotHelper.holdsUiAutomation(), false);
    // The stock dump, the fallback, works at once.
    assert.ok((await dumpUiXml(main.shell, { timeoutMs: 10_000 })).includes('<node'));
  });

  test('quirk snapshot-helper-crash: every read fails with the same code', async () => {
    main.phone.setQuirks(['snapshot-helper-crash']);
    try {
      const failure = await readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 }).catch((e: unknown) => e);
      assert.deepEqual(codeOf(failure), { code: 'helper_unavailable', reason: 'crashed' });
    } finally {
      main.phone.setQuirks([]);
    }
  });

  test('a read past its deadline is helper_unavailable "timeout" and the helper is force-stopped', async () => {
    const release = main.phone.snapshotHelper.holdNextRead();
    main.phone.clearArgvLog();
    try {
      const failure = await readSnapshotTree(main.shell, { helper, timeoutMs: 1_600 }).catch((e: unknown) => e);
      assert.deepEqual(codeOf(failure), { code: 'helper_unavailable', reason: 'timeout' });
      assert.ok(main.phone.argvLog.some((a) => a.join(' ') === `am force-stop ${helper.packageName}`));
      assert.equal(main.phone.snapshotHelper.holdsUiAutomation(), false, 'closing am alone would have left it running');
    } finally {
      release();
    }
  });

  test('an installed copy with other bytes is replaced by the shipped APK', async () => {
    const apk = bundled!;
    const tampered = join(scratch, 'planted.apk');
    // The same package and manifest, other bytes (a zip comment-sized tail): another hash.
    writeFileSync(tampered, Buffer.concat([readFileSync(apk.apkPath), Buffer.from('planted')]));
    const planted = await runAdb(rig, ['-s', main.serial, 'install', '-r', tampered], { timeoutMs: 60_000 });
    assert.match(planted.stdout.toString('utf8'), /Success/);
    const handle = await ensureSnapshotHelper(main.shell, apk, { timeoutMs: 60_000 });
    assert.equal(handle.installed, 'replaced');
    const path = (await main.shell.run(['pm', 'path', apk.packageName], { timeoutMs: 5_000 })).stdout
      .toString('utf8')
      .trim()
      .replace(/^package:/, '');
    const summed = await main.shell.run(['sha256sum', path], { timeoutMs: 5_000 });
    assert.match(summed.stdout.toString('utf8'), new RegExp(`^${apk.sha256}\\s`));
  });

  test('a changed or missing APK on this computer is never installed or run', async () => {
    const apk = bundled!;
    const fresh = await addPhone();
    const dir = join(scratch, 'helper');
    rmSync(dir, { recursive: true, force: true });
    const src = readdirSync(join(apk.apkPath, '..'));
    mkdirSync(dir);
    for (const f of src) copyFileSync(join(apk.apkPath, '..', f), join(dir, f));
    const copy = findSnapshotHelperApk(dir);
    assert.ok(copy);
    writeFileSync(copy.apkPath, Buffer.concat([readFileSync(apk.apkPath), Buffer.from('x')]));
    const tampered = await ensureSnapshotHelper(fresh.shell, copy, { timeoutMs: 30_000 }).catch((e: unknown) => e);
    assert.deepEqual(codeOf(tampered), { code: 'helper_unavailable', reason: 'apk_tampered' });
    rmSync(copy.apkPath);
    const gone: SnapshotHelperApk = { ...copy, apkPath: join(dir, basename(copy.apkPath)) };
    const missing = await ensureSnapshotHelper(fresh.shell, gone, { timeoutMs: 30_000 }).catch((e: unknown) => e);
    assert.deepEqual(codeOf(missing), { code: 'helper_unavailable', reason: 'apk_missing' });
    assert.equal(findSnapshotHelperApk(dir), null, 'a folder without its APK offers no helper');
    assert.deepEqual(installs(fresh.phone), []);
    assert.deepEqual(
      fresh.phone.argvLog.filter((a) => a[0] === 'am' && a[1] === 'instrument'),
      [],
      'nothing was run on the phone',
    );
  });

  test('Android 5.1 (API 22): tool_unavailable "android_too_old", nothing installed', async () => {
    const old = await addPhone({ androidVersion: '5.1', sdk: 22 });
    const failure = await ensureSnapshotHelper(old.shell, bundled!, { timeoutMs: 30_000 }).catch((e: unknown) => e);
    assert.deepEqual(codeOf(failure), { code: 'tool_unavailable', reason: 'android_too_old' });
    assert.match((failure as BridgeError).message, /Fix: .*stock uiautomator dump/);
    assert.deepEqual(installs(old.phone), []);
  });

  test('removed: the package is gone and a read says not_installed', async () => {
    await removeSnapshotHelper(main.shell, bundled!);
    const listed = await main.shell.run(['pm', 'list', 'packages', bundled!.packageName], { timeoutMs: 5_000 });
    assert.equal(listed.stdout.toString('utf8').trim(), '');
    const failure = await readSnapshotTree(main.shell, { helper, timeoutMs: 10_000 }).catch((e: unknown) => e);
    assert.deepEqual(codeOf(failure), { code: 'helper_unavailable', reason: 'not_installed' });
    await removeSnapshotHelper(main.shell, bundled!);
  });
});

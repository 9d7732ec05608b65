/**
 * The scrcpy input lane through a real adb server to a simulated phone: the jar pushed and
 * checked, the server started and reached on its abstract socket, input and clipboard acting
 * on the phone, refusals turned into codes, "not performed" told apart from "outcome unknown",
 * and nothing left behind or listening on TCP.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, beforeEach, describe, test } from 'node:test';
import Adb from '@devicefarmer/adbkit';
import { AdbDeviceShell } from '../../main/core/devices/adb-device-shell';
import { isBridgeError } from '../../main/core/errors';
import { notPerformed } from '../../main/core/helper/helper-client';
import { SCRCPY_JAR_REMOTE, ScrcpyInputSession, scrcpyJarLocalPath } from '../../main/core/scrcpy/scrcpy-input-session';
import { readScrcpyAppList } from '../../main/core/scrcpy/scrcpy-app-list';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';

const CALL = { timeoutMs: 10_000 };
const KEYCODE_HOME = 3;

describe('scrcpy input lane (real adb server, simulated phone)', () => {
  let adb: AdbServerRig;
  let farm: SimFarm;
  let phone: SimulatedPhone;
  let shell: AdbDeviceShell;
  const sessions: ScrcpyInputSession[] = [];

  const start = async (): Promise<ScrcpyInputSession> => {
    const lane = await ScrcpyInputSession.start(shell, { screen: { width: 1080, height: 2400 }, timeoutMs: 15_000 });
    sessions.push(lane);
    return lane;
  };

  const serverRunning = (): boolean => phone.processes.list().some((p) => p.name === 'app_process');

  /** The note field's centre, from the phone's own `uiautomator dump`. */
  const noteField = async (): Promise<{ x: number; y: number }> => {
    const out = await shell.run(['uiautomator', 'dump', '/dev/tty'], CALL);
    const xml = out.stdout.toString();
    const m = /resource-id="com\.example\.notes:id\/note_text"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(xml);
    assert.ok(m, 'the notes app shows its field');
    return { x: (Number(m[1]) + Number(m[3])) / 2, y: (Number(m[2]) + Number(m[4])) / 2 };
  };

  before(async () => {
    adb = await startAdbServer();
    farm = await startSimFarm({
      count: 1,
      adb: { host: '127.0.0.1', port: adb.port },
      createPhone: () => {
        phone = createSimulatedPhone({ serial: 'SIMSCRCPY01', withAdbKeyboard: false, profile: 'instant' });
        return phone;
      },
    });
    const client = Adb.createClient({ host: '127.0.0.1', port: adb.port, bin: '/bin/false' });
    shell = new AdbDeviceShell(client, farm.phones[0]?.serial ?? '');
  });

  after(async () => {
    for (const s of sessions) await s.stop();
    await farm?.stop();
    await adb?.stop();
  });

  beforeEach(async () => {
    for (const s of sessions.splice(0)) await s.stop();
    phone.setQuirks([]);
  });

  test('tap, swipe, keys, start app; stop() leaves no process and nothing listened on TCP', async () => {
    const lane = await start();
    assert.ok(serverRunning());
    const tcp = (await shell.run(['cat', '/proc/net/tcp', '/proc/net/tcp6'], CALL)).stdout.toString();
    assert.ok(
      !tcp.split('\n').some((line) => / 0A /.test(line)),
      `no socket listens on TCP while the server runs:\n${tcp}`,
    );

    await lane.startApp('com.example.notes', CALL);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    const field = await noteField();
    await lane.tap(field.x, field.y, CALL);
    assert.equal(phone.screenState().lastGesture?.kind, 'tap');
    assert.equal(phone.screenState().focusedField, 'note_text');

    await lane.swipe(540, 1800, 540, 600, 120, CALL);
    assert.equal(phone.screenState().lastGesture?.kind, 'swipe');
    await lane.longPress(field.x, field.y, { ...CALL, durationMs: 500 });
    assert.equal(phone.screenState().lastGesture?.kind, 'long-press');

    await lane.key(KEYCODE_HOME, CALL);
    assert.notEqual(phone.foregroundPackage(), 'com.example.notes');

    await assert.rejects(
      lane.startApp('com.example.nothere', CALL),
      (e: unknown) => isBridgeError(e) && e.code === 'app_not_found',
    );

    await lane.stop();
    assert.equal(serverRunning(), false, 'no scrcpy-server process after stop()');
  });

  test('Chinese and emoji by paste; clipboard get and set', async () => {
    const lane = await start();
    await lane.startApp('com.example.notes', CALL);
    const field = await noteField();
    await lane.tap(field.x, field.y, CALL);
    await lane.typeText('你好，世界', CALL);
    await lane.typeText('👍', CALL);
    assert.equal(phone.typedText('note_text'), '你好，世界👍');

    await lane.setClipboard('剪贴板 ✓', CALL);
    assert.equal(phone.clipboard.text(), '剪贴板 ✓');
    phone.clipboard.set('copied by an app');
    assert.equal(await lane.getClipboard(CALL), 'copied by an app');
  });

  test('a missing or tampered jar is replaced before start; another build’s jar refuses to serve', async () => {
    await shell.run(['rm', '-f', SCRCPY_JAR_REMOTE], CALL);
    await (await start()).stop();
    assert.ok(phone.fs.read(SCRCPY_JAR_REMOTE), 'pushed again');

    phone.fs.write(SCRCPY_JAR_REMOTE, Buffer.from('PK tampered'), 0o644, Date.now());
    const lane = await start();
    await lane.key(0, CALL);
    await lane.stop();
    assert.ok(
      phone.fs.read(SCRCPY_JAR_REMOTE)?.equals(readFileSync(scrcpyJarLocalPath() ?? '')),
      'replaced with the bridge’s bytes',
    );

    // A jar of another build: it runs, and refuses a client of another version.
    const local = scrcpyJarLocalPath();
    assert.ok(local);
    await assert.rejects(
      ScrcpyInputSession.start(shell, {
        screen: { width: 1080, height: 2400 },
        timeoutMs: 10_000,
        jar: local.replace('v3.3.1', 'v3.3'),
      }),
      (e: unknown) => isBridgeError(e) && e.code === 'tool_unavailable' && /does not match/.test(e.message),
    );
    assert.ok(!serverRunning());
  });

  test('Xiaomi without "USB debugging (Security settings)": input_blocked with the fix, at start', async () => {
    phone.setQuirks(['inject-events-denied']);
    await assert.rejects(
      start(),
      (e: unknown) =>
        isBridgeError(e) &&
        e.code === 'input_blocked' &&
        typeof e.details?.fix === 'string' &&
        e.details.fix.includes('USB debugging (Security settings)'),
    );
    assert.equal(serverRunning(), false, 'the refused server is not left running');
  });

  test('a phone that refuses the clipboard: clipboard_unreadable with the fix, then the session is gone (not performed)', async () => {
    const lane = await start();
    phone.clipboard.set('before');
    phone.setQuirks(['clipboard-refused']);
    await assert.rejects(
      lane.typeText('你好', CALL),
      (e: unknown) => isBridgeError(e) && e.code === 'clipboard_unreadable' && typeof e.details?.fix === 'string',
    );
    assert.equal(phone.clipboard.text(), 'before', 'nothing was set');
    await assert.rejects(lane.tap(10, 10, CALL), (e: unknown) => notPerformed(e));
  });

  test('killing the server: before a call is "not performed", during a gesture is "outcome unknown"', async () => {
    let lane = await start();
    const pid = (): number => phone.processes.list().find((p) => p.name === 'app_process')?.pid ?? -1;
    await shell.run(['kill', String(pid())], CALL);
    await lane.ended;
    await assert.rejects(lane.tap(100, 100, CALL), (e: unknown) => notPerformed(e), 'nothing was sent');

    lane = await start();
    const swiping = lane.swipe(540, 1800, 540, 600, 400, CALL);
    // The finger is down (the first batch left); the server dies before the barrier.
    await new Promise<void>((resolve) => setImmediate(resolve));
    await shell.run(['kill', String(pid())], CALL);
    await assert.rejects(swiping, (e: unknown) => isBridgeError(e) && e.code === 'outcome_unknown');
    assert.equal(serverRunning(), false);
  });

  test('the app list names each launcher app as its icon does, and leaves the jar and no process behind', async () => {
    const jar = scrcpyJarLocalPath();
    assert.ok(jar, 'this build carries scrcpy-server');
    const labels = await readScrcpyAppList(shell, jar, CALL);
    assert.equal(labels.get('com.example.notes'), 'Notes');
    assert.equal(labels.get('com.example.wallet'), 'Wallet');
    assert.equal(labels.get('com.android.settings'), 'Settings');
    // Only apps with a launcher icon: the shell's own package has none.
    assert.equal(labels.has('com.android.shell'), false);
    const kept = await shell.run(['ls', SCRCPY_JAR_REMOTE], CALL);
    assert.equal(kept.exitCode, 0, 'cleanup=false: the list run did not delete its jar');
    assert.equal(serverRunning(), false);
  });
});

/**
 * The fast lane by default, through adb only (issue #35), through the real adb server and a
 * simulated phone: once a lease's first call started them, taps, swipes, keys, Chinese and
 * emoji text and the clipboard go through scrcpy-server and the tree through the snapshot
 * helper; nothing of the bridge listens on the phone meanwhile; a program that dies leaves the
 * call to the stock lane in the same call; the lease's end stops scrcpy-server and takes the
 * agent's pasted text off the clipboard; the person can turn the programs off per phone. The UI
 * reader (test/integration/ui-reader.test.ts) is left out here (`uiReader: false`, as a build
 * without its jar) so that the snapshot helper's lane is the one read.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { decideApproval } from '../helpers/approvals';
import type { XAgentClient } from '../helpers/xagent-client';
import type { SimulatedPhone } from '../../main/sim/phone';
import { SCRCPY_JAR_REMOTE, scrcpyJarLocalPath } from '../../main/core/scrcpy/scrcpy-input-session';
import { readFileSync } from 'node:fs';

const isStockInput = (a: string[]): boolean => a[0] === 'input';
const isStockDump = (a: string[]): boolean => a[0] === 'uiautomator';
const isSnapshotRead = (a: string[]): boolean => a[0] === 'am' && a[1] === 'instrument';
const never = new AbortController().signal;

/** Rows of /proc/net/tcp and /proc/net/tcp6 in state LISTEN (0A), as the phone's shell prints them. */
async function listeningRows(phone: SimulatedPhone): Promise<string[]> {
  const out = await phone.exec('cat /proc/net/tcp /proc/net/tcp6', { signal: never });
  return out.stdout
    .toString('utf8')
    .split('\n')
    .filter((row) => /^\s*\d+:/.test(row) && row.trim().split(/\s+/)[3] === '0A');
}

describe('port-less programs: the default fast lane', () => {
  let bound: BoundRig;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_programs_${name}_${process.pid}_${++n}`;

  const programs = async (): Promise<Record<string, Json>> => {
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    const device = (state.body.devices as Json[]).find((d) => d.device_id === rig.device(0).deviceId);
    return Object.fromEntries(((device?.programs ?? []) as Json[]).map((p) => [String(p.program), p]));
  };
  const waitForPrograms = async (state: string): Promise<Record<string, Json>> => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const now = await programs();
      if (now.scrcpy_input?.state === state && now.snapshot_tree?.state === state) return now;
      if (Date.now() > deadline) throw new Error(`programs never ${state}: ${JSON.stringify(now)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const scrcpyRunning = (): boolean => phone.processes.list().some((p) => p.name === 'app_process');

  before(async () => {
    bound = await startBoundRig(
      { fastLane: { portless: true, uiReader: false, programRetryMs: 50 } },
      { withAdbKeyboard: false },
    );
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('before a lease nothing runs; the first call starts both in the background', async () => {
    const before = await programs();
    assert.equal(before.scrcpy_input?.state, 'idle');
    assert.equal(before.snapshot_tree?.state, 'idle');
    assert.equal(before.scrcpy_input?.enabled, true, 'on by default');
    assert.equal(scrcpyRunning(), false);
    // The first call is served at once (the stock lane): it does not wait for a start.
    const info = await invoke(client, channel, 'android_device_status', {}, callId('info'));
    assert.equal(info.error, undefined, JSON.stringify(info));
    const ready = await waitForPrograms('ready');
    assert.equal(ready.scrcpy_input?.version, '3.3.1');
    assert.equal(scrcpyRunning(), true);
  });

  test('tree, taps, swipes, keys, Chinese and emoji text and the clipboard go through the programs', async () => {
    let from = phone.argvLog.length;
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree')));
    assert.equal(tree.lane, 'snapshot');
    assert.ok((tree.nodes as Json[]).length > 0);
    assert.ok(phone.argvLog.slice(from).some(isSnapshotRead));
    assert.ok(!phone.argvLog.slice(from).some(isStockDump), 'no stock dump');

    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', { signal: never });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    from = phone.argvLog.length;
    const text = 'Hello, 你好，世界 😀\nline two';
    const typed = result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text },
        callId('type'),
      ),
    );
    assert.equal(typed.lane, 'scrcpy');
    assert.equal(typed.method, 'scrcpy_paste');
    assert.equal(phone.screenState().fields.note_text, text);
    const sent = phone.argvLog.slice(from);
    assert.ok(!sent.some(isStockInput), `no stock input: ${JSON.stringify(sent)}`);
    assert.ok(!sent.some((a) => a[0] === 'am' && a[1] === 'broadcast'), 'no ADB Keyboard broadcast');

    from = phone.argvLog.length;
    const key = result(await invoke(client, channel, 'android_press_key', { key: 'back' }, callId('back')));
    assert.equal(key.lane, 'scrcpy');
    const swipe = result(
      await invoke(client, channel, 'android_swipe', { direction: 'up', duration_ms: 200 }, callId('swipe')),
    );
    assert.equal(swipe.lane, 'scrcpy');
    const tap = result(await invoke(client, channel, 'android_tap', { x: 540, y: 1200 }, callId('tap')));
    assert.equal(tap.lane, 'scrcpy');
    assert.ok(!phone.argvLog.slice(from).some(isStockInput), 'no stock input');

    const set = result(await invoke(client, channel, 'android_set_clipboard', { text: '剪贴板 ✓' }, callId('set')));
    assert.equal(set.lane, 'scrcpy');
    assert.equal(phone.clipboard.text(), '剪贴板 ✓');
    // Reading the clipboard asks the person by default; scrcpy-server reads it on any Android.
    const reading = invoke(client, channel, 'android_read_clipboard', {}, callId('read'));
    await decideApproval(rig.bridge, 'android_read_clipboard', 'approve');
    const read = result(await reading);
    assert.deepEqual([read.text, read.lane], ['剪贴板 ✓', 'scrcpy']);
    const counted = await programs();
    assert.ok(Number(counted.scrcpy_input?.served) >= 4, JSON.stringify(counted.scrcpy_input));
    assert.ok(Number(counted.snapshot_tree?.served) >= 1, JSON.stringify(counted.snapshot_tree));
  });

  test('while every program runs, nothing of the bridge listens on the phone', async () => {
    assert.equal(scrcpyRunning(), true, 'scrcpy-server runs');
    const release = phone.snapshotHelper.holdNextRead();
    const reading = invoke(client, channel, 'android_ui_tree', {}, callId('held-tree'));
    await waitUntil(() => phone.snapshotHelper.holdsUiAutomation(), 10_000, 'a snapshot read in progress');
    try {
      assert.deepEqual(await listeningRows(phone), [], 'no LISTEN socket in /proc/net/tcp or tcp6');
    } finally {
      release();
    }
    assert.equal(result(await reading).lane, 'snapshot');
  });

  test('scrcpy-server dies: the next tap goes the stock way in the same call, then it starts again', async () => {
    for (const p of phone.processes.list()) if (p.name === 'app_process') phone.processes.get(p.pid)?.signal(9);
    await waitUntil(() => !scrcpyRunning(), 5_000, 'scrcpy-server gone');
    const from = phone.argvLog.length;
    const tap = result(await invoke(client, channel, 'android_tap', { x: 540, y: 1200 }, callId('tap-after-kill')));
    assert.equal(tap.lane, 'adb');
    assert.ok(
      phone.argvLog.slice(from).some((a) => a[0] === 'input' && a[1] === 'tap'),
      'tapped the stock way',
    );
    const failed = await programs();
    assert.ok(['failed', 'starting', 'ready'].includes(String(failed.scrcpy_input?.state)));
    // A later call (after the retry wait) starts it again.
    const deadline = Date.now() + 15_000;
    while (!scrcpyRunning()) {
      assert.ok(Date.now() < deadline, 'scrcpy-server started again');
      await invoke(client, channel, 'android_device_status', {}, callId('warm'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitForPrograms('ready');
    const again = result(await invoke(client, channel, 'android_tap', { x: 540, y: 1200 }, callId('tap-again')));
    assert.equal(again.lane, 'scrcpy');
  });

  test('a tampered jar is replaced by the lifecycle’s verify step before scrcpy-server starts again', async () => {
    for (const p of phone.processes.list()) if (p.name === 'app_process') phone.processes.get(p.pid)?.signal(9);
    await waitUntil(() => !scrcpyRunning(), 5_000, 'scrcpy-server gone');
    phone.fs.write(SCRCPY_JAR_REMOTE, Buffer.from('PK tampered'), 0o644, Date.now());
    const from = phone.argvLog.length;
    const deadline = Date.now() + 15_000;
    while (!scrcpyRunning()) {
      assert.ok(Date.now() < deadline, 'scrcpy-server started again');
      await invoke(client, channel, 'android_device_status', {}, callId('warm-tampered'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(
      phone.fs.read(SCRCPY_JAR_REMOTE)?.equals(readFileSync(scrcpyJarLocalPath() ?? '')),
      'the phone holds the bridge’s bytes again',
    );
    // The hash was read before the server was started from the jar, never after.
    const sent = phone.argvLog.slice(from);
    const hashed = sent.findIndex((a) => a[0] === 'sha256sum' && a.includes(SCRCPY_JAR_REMOTE));
    const started = sent.findIndex((a) => a.includes('app_process'));
    assert.ok(hashed >= 0 && started > hashed, JSON.stringify(sent));
    await waitForPrograms('ready');
    const tap = result(await invoke(client, channel, 'android_tap', { x: 540, y: 1200 }, callId('tap-verified')));
    assert.equal(tap.lane, 'scrcpy');
  });

  test('a snapshot read that fails leaves the tree to the stock dump in the same call', async () => {
    phone.setQuirks(['snapshot-helper-crash']);
    try {
      const from = phone.argvLog.length;
      const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-crash')));
      assert.equal(tree.lane, 'adb');
      assert.ok((tree.nodes as Json[]).length > 0);
      const sent = phone.argvLog.slice(from);
      assert.ok(sent.some(isSnapshotRead) && sent.some(isStockDump), JSON.stringify(sent));
      const failed = (await programs()).snapshot_tree;
      assert.equal(failed?.last_error_code, 'helper_unavailable');
      assert.equal(failed?.last_error_reason, 'crashed');
      assert.ok(Number(failed?.fell_back) >= 1);
    } finally {
      phone.setQuirks([]);
    }
  });

  test('what the person typed during a take-over is pasted for them and leaves the clipboard at the hand-back', async () => {
    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', { signal: never });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    result(await invoke(client, channel, 'android_tap', { element: { resource_id: 'note_text' } }, callId('focus')));
    const id = rig.device(0).deviceId;
    const admin = async (path: string, body: Json): Promise<void> => {
      const res = await rig.bridge.admin('POST', `/admin/api/devices/${id}/${path}`, body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await admin('takeover', { action: 'take' });
    await admin('input', { kind: 'text', text: '我的地址' });
    assert.equal(phone.clipboard.text(), '我的地址', 'pasted through scrcpy-server');
    await admin('takeover', { action: 'hand_back' });
    await waitUntil(() => (phone.clipboard.text() ?? '') === '', 5_000, 'the clipboard emptied at the hand-back');
  });

  test('every program on the phone in one shape: UIA2 off until its own yes, minicap by the lab’s default, each with its state', async () => {
    const id = rig.device(0).deviceId;
    const all = await programs();
    assert.deepEqual(Object.keys(all).sort(), [
      'minicap_stream',
      'scrcpy_input',
      'snapshot_tree',
      'ui_reader',
      'uia2_server',
    ]);
    assert.deepEqual([all.ui_reader?.state, all.ui_reader?.version], ['unavailable', null], 'no jar in this rig');
    assert.deepEqual([all.uia2_server?.state, all.uia2_server?.enabled], ['off', false], 'UIA2: off by default');
    assert.ok(all.uia2_server?.exposure, 'UIA2 shows what it exposes');
    assert.deepEqual([all.minicap_stream?.state, all.minicap_stream?.enabled], ['off', false], 'the lab default: ask');
    // UIA2's yes must say what it accepts; no words, no install.
    const bare = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, {
      action: 'enable',
      program: 'uia2_server',
    });
    assert.equal(bare.status, 400);
    assert.match(String((bare.body.error as Json).message), /accept_open_ports/);
    // minicap turned on for this phone: it runs for the lease, and shows as ready in the same list.
    const on = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal((on.body.programs as Json[]).length, 5);
    result(await invoke(client, channel, 'android_screenshot', {}, callId('shot')));
    const minicapNow = (): string | undefined =>
      rig.bridge.core
        .adminState()
        .devices.find((d) => d.device_id === id)
        ?.programs?.find((p) => p.program === 'minicap_stream')?.state;
    await waitUntil(() => minicapNow() === 'ready', 15_000, 'minicap ready');
    const running = (await programs()).minicap_stream;
    assert.equal(running?.enabled, true);
    assert.ok(((running?.stream as Json | undefined)?.for as string[]).includes('lease'), JSON.stringify(running));
    const off = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, {
      action: 'disable',
      program: 'minicap_stream',
    });
    const stopped = (off.body.programs as Json[]).find((p) => p.program === 'minicap_stream');
    assert.deepEqual([stopped?.state, stopped?.enabled], ['off', false]);
    // The port-less two were not touched by either.
    assert.equal((await programs()).scrcpy_input?.enabled, true);
  });

  test('the lease ends: scrcpy-server stops and the text the agent pasted leaves the clipboard', async () => {
    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', { signal: never });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    const typed = result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text: '再见' },
        callId('bye'),
      ),
    );
    assert.equal(typed.lane, 'scrcpy');
    assert.equal(phone.clipboard.text(), '再见');
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(() => !scrcpyRunning(), 10_000, 'scrcpy-server stopped');
    assert.equal(phone.clipboard.text() ?? '', '', 'the pasted text was cleared');
    for (let state = ''; state !== 'idle'; await new Promise((resolve) => setTimeout(resolve, 20)))
      state = String((await programs()).scrcpy_input?.state);
  });

  test('turned off for the phone: its calls take the stock lane; remove takes them off the phone', async () => {
    const id = rig.device(0).deviceId;
    const off = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, { action: 'disable' });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.deepEqual(
      (off.body.programs as Json[]).map((p) => [p.program, p.state, p.enabled]),
      [
        ['scrcpy_input', 'off', false],
        ['snapshot_tree', 'off', false],
        ['ui_reader', 'off', false],
        ['uia2_server', 'off', false],
        ['minicap_stream', 'off', false],
      ],
    );
    const bad = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, { action: 'explode' });
    assert.equal(bad.status, 400);
    assert.equal((bad.body.error as Json).code, 'invalid_arguments');
    const removed = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, { action: 'remove' });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const listed = (await phone.exec('pm list packages', { signal: never })).stdout.toString('utf8');
    assert.ok(!listed.includes('com.callstack.agentdevice.snapshothelper'), 'the snapshot helper is uninstalled');
    const on = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, { action: 'enable' });
    assert.equal((on.body.programs as Json[])[0]?.state, 'idle');
  });
});

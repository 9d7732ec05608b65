/**
 * The xagent UI reader (ui_reader, issue #35) through the real adb server and a simulated
 * phone: a lease's first call starts it in the background; then the tree comes from lane
 * `ui_reader` with no stock dump and no snapshot read; nothing of the bridge listens on the
 * phone meanwhile; typing Chinese and emoji asks the reader for the focused node instead of the
 * whole screen; a reader killed mid-lease leaves the next call's tree to the next lane in the
 * same call; a tampered jar is pushed again before it runs; it never runs beside UIA2 (the one
 * UiAutomation connection); the lease's end stops it.
 */
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { invoke, startBoundRig, waitUntil, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import type { XAgentClient } from '../helpers/xagent-client';
import { setHelper, waitForHelper } from '../helpers/fast-lane';
import type { SimulatedPhone } from '../../main/sim/phone';
import { UI_READER_JAR_REMOTE, uiReaderJarLocalPath } from '../../main/core/ui-reader/ui-reader-jar';
import { UiReaderSession } from '../../main/core/ui-reader/ui-reader-session';

const JAR = uiReaderJarLocalPath();
const SKIP = JAR ? false : 'resources/device/xagent-ui-reader.jar is not in this checkout';
const never = new AbortController().signal;
const isStockDump = (a: string[]): boolean => a[0] === 'uiautomator';
const isSnapshotRead = (a: string[]): boolean => a[0] === 'am' && a[1] === 'instrument';
const isReaderStart = (a: string[]): boolean => a.some((w) => w.includes('com.xagent.bridge.UiReader'));

/** Rows of /proc/net/tcp and /proc/net/tcp6 in state LISTEN (0A), as the phone's shell prints them. */
async function listeningRows(phone: SimulatedPhone): Promise<string[]> {
  const out = await phone.exec('cat /proc/net/tcp /proc/net/tcp6', { signal: never });
  return out.stdout
    .toString('utf8')
    .split('\n')
    .filter((row) => /^\s*\d+:/.test(row) && row.trim().split(/\s+/)[3] === '0A');
}

describe('the xagent UI reader: the tree lane through adb only', { skip: SKIP }, () => {
  let bound: BoundRig;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_reader_${name}_${process.pid}_${++n}`;
  const id = (): string => rig.device(0).deviceId;

  const programs = async (): Promise<Record<string, Json>> => {
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    const device = (state.body.devices as Json[]).find((d) => d.device_id === id());
    return Object.fromEntries(((device?.programs ?? []) as Json[]).map((p) => [String(p.program), p]));
  };
  const readerState = async (): Promise<string> => String((await programs()).ui_reader?.state);
  /** Calls until the reader runs (each call of the lease warms it). */
  const readerRunning = async (what: string): Promise<void> => {
    const deadline = Date.now() + 20_000;
    while ((await readerState()) !== 'ready' || !phone.uiReader.holdsUiAutomation()) {
      assert.ok(Date.now() < deadline, `the UI reader never ready (${what}): ${JSON.stringify(await programs())}`);
      await invoke(client, channel, 'android_device_status', {}, callId('warm'));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  before(async () => {
    // The default retry wait (60 s): a reader that died stays failed for these tests' length.
    bound = await startBoundRig({ fastLane: { portless: true } }, { withAdbKeyboard: false });
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('the first call starts it in the background; the tree then comes from lane ui_reader; the admin lists it', async () => {
    assert.equal(await readerState(), 'idle');
    assert.equal(phone.uiReader.holdsUiAutomation(), false, 'nothing runs before a lease’s call');
    await readerRunning('first call');
    const from = phone.argvLog.length;
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree')));
    assert.equal(tree.lane, 'ui_reader');
    assert.ok((tree.nodes as Json[]).length > 0);
    const sent = phone.argvLog.slice(from);
    assert.ok(!sent.some(isStockDump), `no stock dump: ${JSON.stringify(sent)}`);
    assert.ok(!sent.some(isSnapshotRead), 'no snapshot read');
    const reader = (await programs()).ui_reader;
    assert.equal(reader?.name, 'xagent UI reader');
    assert.equal(reader?.version, '1');
    assert.equal(reader?.enabled, true, 'on by default');
    assert.ok(Number(reader?.served) >= 1, JSON.stringify(reader));
    assert.deepEqual(Object.keys(await programs()).sort(), [
      'minicap_stream',
      'scrcpy_input',
      'snapshot_tree',
      'ui_reader',
      'uia2_server',
    ]);
  });

  test('while it runs, nothing of the bridge listens on the phone', async () => {
    assert.equal(phone.uiReader.holdsUiAutomation(), true, 'the reader runs');
    assert.deepEqual(await listeningRows(phone), [], 'no LISTEN socket in /proc/net/tcp or tcp6');
  });

  test('typing Chinese and emoji asks the reader for the focused node, not the whole screen', async () => {
    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', { signal: never });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    result(await invoke(client, channel, 'android_tap', { element: { resource_id: 'note_text' } }, callId('focus')));
    await readerRunning('before typing');
    // The bridge runs in this process: its requests to the reader are counted where they are made.
    const trees = mock.method(UiReaderSession.prototype, 'tree');
    const focuses = mock.method(UiReaderSession.prototype, 'focus');
    try {
      const text = '你好，世界 😀';
      const from = phone.argvLog.length;
      const typed = result(await invoke(client, channel, 'android_type_text', { text }, callId('type')));
      assert.equal(typed.status, 'typed');
      assert.equal(typed.focus_checked, undefined, 'the focus was checked');
      assert.equal(phone.screenState().fields.note_text, text);
      assert.ok(focuses.mock.callCount() >= 1, `the focus query was used (${trees.mock.callCount()} tree reads)`);
      const sent = phone.argvLog.slice(from);
      assert.ok(!sent.some(isStockDump) && !sent.some(isSnapshotRead), JSON.stringify(sent));
    } finally {
      trees.mock.restore();
      focuses.mock.restore();
    }
  });

  test('killed mid-lease: the next call’s tree falls back in the same call and succeeds', async () => {
    const pid = phone.uiReader.pid();
    assert.ok(pid !== undefined, 'the reader runs');
    phone.processes.get(pid)?.signal(9);
    await waitUntil(() => !phone.uiReader.holdsUiAutomation(), 5_000, 'the reader gone');
    for (let state = ''; state !== 'failed'; await new Promise((resolve) => setTimeout(resolve, 20)))
      state = await readerState();
    const from = phone.argvLog.length;
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-after-kill')));
    assert.ok(['snapshot', 'adb'].includes(String(tree.lane)), String(tree.lane));
    assert.ok((tree.nodes as Json[]).length > 0);
    const sent = phone.argvLog.slice(from);
    assert.ok(sent.some(isSnapshotRead) || sent.some(isStockDump), JSON.stringify(sent));
    const failed = (await programs()).ui_reader;
    assert.equal(failed?.state, 'failed');
    // Seen as its stream's end, or by a read it left unanswered: the same reason either way.
    assert.equal(failed?.last_error_reason, 'reader_ended', JSON.stringify(failed));
  });

  test('a tampered jar is pushed again before the reader runs again', async () => {
    phone.fs.write(UI_READER_JAR_REMOTE, Buffer.from('PK tampered'), 0o644, Date.now());
    // Turned on again, its failures are forgotten: the next call starts it.
    const on = await rig.bridge.admin('POST', `/admin/api/devices/${id()}/programs`, { action: 'enable' });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const from = phone.argvLog.length;
    await readerRunning('after the tamper');
    assert.ok(
      phone.fs.read(UI_READER_JAR_REMOTE)?.equals(readFileSync(JAR ?? '')),
      'the phone holds the bridge’s bytes',
    );
    const sent = phone.argvLog.slice(from);
    const hashed = sent.findIndex((a) => a[0] === 'sha256sum' && a.includes(UI_READER_JAR_REMOTE));
    const started = sent.findIndex(isReaderStart);
    assert.ok(hashed >= 0 && started > hashed, JSON.stringify(sent));
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-verified')));
    assert.equal(tree.lane, 'ui_reader');
  });

  test('UIA2 turned on mid-lease: the reader lets go of UiAutomation before UIA2 serves; off again, the reader comes back', async () => {
    assert.equal(phone.uiReader.holdsUiAutomation(), true, 'the reader runs');
    await setHelper(rig, 'enable');
    const deadline = Date.now() + 30_000;
    for (;;) {
      const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-uia2')));
      assert.ok((tree.nodes as Json[]).length > 0, 'every read on the way succeeds');
      if (tree.lane === 'helper') break;
      assert.ok(Date.now() < deadline, `UIA2 never served: ${JSON.stringify(await programs())}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(phone.uiReader.holdsUiAutomation(), false, 'the reader is not running beside UIA2');
    assert.equal(phone.helper.state(), 'running');
    assert.ok(['idle', 'off'].includes(await readerState()), await readerState());
    await setHelper(rig, 'disable');
    await waitForHelper(rig, 'off');
    await readerRunning('UIA2 off again');
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-after-uia2')));
    assert.equal(tree.lane, 'ui_reader');
  });

  test('the lease ends: the reader stops and lets go of the phone’s UiAutomation', async () => {
    assert.equal(phone.uiReader.holdsUiAutomation(), true);
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(() => !phone.uiReader.holdsUiAutomation(), 10_000, 'the reader stopped');
    for (let state = ''; state !== 'idle'; await new Promise((resolve) => setTimeout(resolve, 20)))
      state = await readerState();
  });
});

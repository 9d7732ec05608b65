/**
 * Quirks foldable and cast-second-display (main/sim/QUIRKS.md) through the real adb server
 * and the data plane: the bridge finds the display in use (a folded foldable's outer panel,
 * the phone's own screen while it casts), aims every screencap (`-d <physical id>`) and every
 * input (`-d <display id>`) at it, says so in results and in the phone check, follows an
 * unfold between two calls, and never lets screencap's multiple-display warning break a
 * screenshot.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import Adb from '@devicefarmer/adbkit';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { TEST_ADMIN_TOKEN } from '../helpers/bridge';
import { AdbDeviceShell } from '../../main/core/devices/adb-device-shell';
import { captureRaw, capturePng } from '../../main/core/android/screencap';
import type { SimulatedPhone } from '../../main/sim/phone';
import { FOLD_INNER, FOLD_OUTER } from '../../main/sim/phone-displays';

/** How far the tree's elements reach: the screen's width and height (bars span it edge to edge). */
function extent(tree: Json): [number, number] {
  const bounds = (tree.nodes as Json[]).map((node) => node.bounds as [number, number, number, number]);
  for (const [l, t] of bounds) assert.ok(l >= 0 && t >= 0);
  return [Math.max(...bounds.map((b) => b[2])), Math.max(...bounds.map((b) => b[3]))];
}

const isScreencap = (a: string[]): boolean => a[0] === 'screencap';
const isInput = (a: string[]): boolean => a[0] === 'input';

async function check(bound: BoundRig): Promise<Json> {
  const res = await bound.rig.bridge.admin('GET', `/admin/api/devices/${bound.rig.device(0).deviceId}/check`);
  assert.equal(res.status, 200);
  return (res.body.checks as Json[]).find((c) => c.id === 'display') as Json;
}

describe('foldable: the display in use, end to end', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_fold_${name}_${process.pid}_${++n}`;
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<Json> =>
    result(await invoke(bound.client, bound.channel, tool, args, callId(tool)));

  before(async () => {
    bound = await startBoundRig({}, { quirks: ['foldable'] });
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('the phone check names the display in use and how many there are', async () => {
    const row = await check(bound);
    assert.equal(row.status, 'ok');
    assert.equal(
      row.detail,
      `display 0 "Built-in Screen" (1080×2092, panel ${FOLD_OUTER.physicalId}) is in use, of 2 displays; screenshots and taps go to it`,
    );
  });

  test('folded: screenshot, tree and tap go to the outer panel; every screencap and input names its display; results say which', async () => {
    await call('android_press_key', { key: 'home' });
    phone.clearArgvLog();
    const shot = await call('android_screenshot', { format: 'png', max_side: 4096 });
    assert.deepEqual([shot.width, shot.height], [FOLD_OUTER.width, FOLD_OUTER.height]);
    assert.deepEqual(shot.display, { id: 0, name: 'Built-in Screen', physical_id: FOLD_OUTER.physicalId, of: 2 });
    const tree = await call('android_ui_tree', { interactive_only: false });
    assert.deepEqual(tree.display, shot.display);
    assert.deepEqual(extent(tree), [FOLD_OUTER.width, FOLD_OUTER.height], 'the tree and the screenshot agree');
    const settings = (tree.nodes as Json[]).find((node) => node.text === 'Settings')!;
    const tapped = await call('android_tap', { element: { text: 'Settings' } });
    assert.equal(tapped.display.id, 0);
    await waitUntil(() => phone.foregroundPackage() === 'com.android.settings', 5_000, 'Settings in front');
    const log = phone.argvLog;
    const caps = log.filter(isScreencap);
    assert.ok(caps.length >= 1);
    for (const argv of caps)
      assert.deepEqual(argv.slice(0, 3), ['screencap', '-d', FOLD_OUTER.physicalId], argv.join(' '));
    const inputs = log.filter(isInput);
    assert.deepEqual(inputs, [['input', '-d', '0', 'tap', String(settings.center[0]), String(settings.center[1])]]);
    // A phone with several displays is read once per call that touches the screen.
    assert.equal(log.filter((a) => a.join(' ') === 'dumpsys display').length, 2);
  });

  test('a screen recording names the panel in use too (screenrecord --display-id), and says which display', async () => {
    phone.clearArgvLog();
    const recorded = await call('android_screen_record', { seconds: 1 });
    assert.equal(recorded.display.physical_id, FOLD_OUTER.physicalId);
    const records = phone.argvLog.filter((a) => a[0] === 'screenrecord');
    assert.equal(records.length, 1);
    assert.deepEqual(records[0]!.slice(0, 3), ['screenrecord', '--display-id', FOLD_OUTER.physicalId]);
  });

  test('the phone view’s live frame shows the panel in use (screencap -d), at its size', async () => {
    phone.clearArgvLog();
    const res = await fetch(`${bound.rig.bridge.url}/admin/api/devices/${bound.rig.device(0).deviceId}/frame`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.deepEqual(
      [res.headers.get('x-screen-width'), res.headers.get('x-screen-height')],
      [String(FOLD_OUTER.width), String(FOLD_OUTER.height)],
    );
    for (const argv of phone.argvLog.filter(isScreencap))
      assert.deepEqual(argv.slice(0, 3), ['screencap', '-d', FOLD_OUTER.physicalId], argv.join(' '));
  });

  test('unfolding mid-lease: the next call captures the inner panel, at its size; the tree agrees', async () => {
    phone.setFolded(false);
    phone.clearArgvLog();
    const shot = await call('android_screenshot', { format: 'png', max_side: 4096 });
    assert.deepEqual([shot.width, shot.height], [FOLD_INNER.width, FOLD_INNER.height]);
    assert.equal(shot.display.physical_id, FOLD_INNER.physicalId);
    // The phone view may still be capturing after the previous test (for 1.5 s after its last
    // ask); a capture it aimed before the bridge read the displays again may name the outer
    // panel. From the first capture of the inner panel on, none names the outer one again.
    const caps = phone.argvLog.filter(isScreencap).map((argv) => argv.slice(0, 3));
    const firstInner = caps.findIndex((argv) => argv[2] === FOLD_INNER.physicalId);
    assert.ok(firstInner >= 0, JSON.stringify(caps));
    for (const argv of caps.slice(firstInner))
      assert.deepEqual(argv, ['screencap', '-d', FOLD_INNER.physicalId], argv.join(' '));
    for (const argv of caps.slice(0, firstInner))
      assert.deepEqual(argv, ['screencap', '-d', FOLD_OUTER.physicalId], 'only the panel in use before the unfold');
    const tree = await call('android_ui_tree', { interactive_only: false });
    assert.deepEqual(extent(tree), [FOLD_INNER.width, FOLD_INNER.height]);
    const swiped = await call('android_swipe', { direction: 'up' });
    const [fx, fy] = swiped.from as [number, number];
    const [tx, ty] = swiped.to as [number, number];
    assert.equal(fx, FOLD_INNER.width / 2);
    assert.ok(fy > ty && fy < FOLD_INNER.height, JSON.stringify(swiped));
    assert.deepEqual(
      phone.argvLog.filter(isInput).map((a) => a.slice(0, 4)),
      [['input', '-d', '0', 'swipe']],
    );
    assert.equal(tx, fx);
    phone.setFolded(true);
  });

  test('the warning screencap prints without -d never breaks a screenshot: it is stripped, never decoded as pixels', async () => {
    // The bare adb path (no display aiming): the bytes really start with the warning.
    const client = Adb.createClient({ host: '127.0.0.1', port: bound.rig.adb.port, bin: '/bin/false' });
    const shell = new AdbDeviceShell(client, bound.rig.device(0).serial);
    try {
      const bytes = await shell.execOut(['screencap', '-p'], { timeoutMs: 15_000 });
      assert.equal(bytes.subarray(0, 9).toString('latin1'), '[Warning]');
      const png = await capturePng(shell, { timeoutMs: 15_000 });
      assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
      const raw = await captureRaw(shell, { timeoutMs: 15_000 });
      // Without -d screencap took the first panel (the inner one, off while folded): the
      // decode works; only aiming at the display in use gets the phone's screen.
      assert.deepEqual([raw.width, raw.height], [FOLD_INNER.width, FOLD_INNER.height]);
    } finally {
      shell.close();
    }
  });
});

describe('cast-second-display: the phone keeps acting on its own screen', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;
  let n = 0;
  const call = async (tool: string, args: Record<string, unknown> = {}): Promise<Json> =>
    result(await invoke(bound.client, bound.channel, tool, args, `call_cast_${process.pid}_${++n}`));

  before(async () => {
    bound = await startBoundRig({}, { quirks: ['cast-second-display'] });
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('check, screenshot and tap: display 0 of 2; input names display 0; screencap needs no -d (one panel)', async () => {
    const row = await check(bound);
    assert.match(row.detail, /^display 0 "Built-in Screen" \(1080×2400, panel \d+\) is in use, of 2 displays/);
    await call('android_press_key', { key: 'home' });
    phone.clearArgvLog();
    const shot = await call('android_screenshot', { format: 'png', max_side: 4096 });
    assert.deepEqual([shot.width, shot.height], [1080, 2400]);
    assert.equal(shot.display.id, 0);
    assert.equal(shot.display.of, 2);
    await call('android_tap', { element: { text: 'Settings' } });
    await waitUntil(() => phone.foregroundPackage() === 'com.android.settings', 5_000, 'Settings in front');
    for (const argv of phone.argvLog.filter(isScreencap)) assert.ok(!argv.includes('-d'), argv.join(' '));
    const inputs = phone.argvLog.filter(isInput);
    assert.equal(inputs.length, 1);
    assert.deepEqual(inputs[0]!.slice(0, 4), ['input', '-d', '0', 'tap']);
  });
});

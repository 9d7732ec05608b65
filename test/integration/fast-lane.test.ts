/**
 * The fast lane (#17) against simulated phones through the real adb server: consent, install
 * (with the version check), on-demand start, tree / tap / Chinese text through the helper with
 * no ADB Keyboard (`lane: "helper"`), the helper holding UiAutomation until the lease ends,
 * a crash falling back in the same call and the restart, a tap whose answer never came
 * reported and not sent again, sparse and stale trees falling back, remove, a refused install
 * and a phone without instrumentation falling back cleanly. The phone's argv log is the proof
 * of what ran where.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startBoundRig, waitUntil, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval } from '../helpers/approvals';
import { helperOf, setHelper, waitForHelper, withInstalledHelper } from '../helpers/fast-lane';
import { untilAnnounced } from '../helpers/until-announced';
import type { XAgentClient } from '../helpers/xagent-client';
import type { SimulatedPhone } from '../../main/sim/phone';
import { TEST_ADMIN_TOKEN } from '../helpers/bridge';
import sharp from 'sharp';

const isInputTap = (a: string[]): boolean => a[0] === 'input' && a[1] === 'tap';
const isHelperAction = (a: string[]): boolean => a[0] === 'helper' && a[1] === 'POST' && a[2] === '/actions';
const isPmInstall = (a: string[]): boolean => a[0] === 'pm' && a[1] === 'install';

async function stockDumpWorks(phone: SimulatedPhone): Promise<boolean> {
  const out = await phone.exec('uiautomator dump /dev/tty', { signal: new AbortController().signal });
  return out.stdout.toString('utf8').includes('<hierarchy');
}

describe('fast lane: consent, install, start, use, lease end, crash, remove', () => {
  let bound: BoundRig;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_fast_${name}_${process.pid}_${++n}`;

  before(async () => {
    bound = await startBoundRig({ fastLane: { pauseMs: 50 } }, { withAdbKeyboard: false });
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('without consent nothing is installed and calls go the stock way', async () => {
    const from = phone.argvLog.length;
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree0')));
    assert.equal(tree.lane, 'adb');
    assert.ok(!phone.argvLog.slice(from).some(isPmInstall));
    const helper = await helperOf(rig);
    assert.equal(helper.enabled, false);
    assert.equal(helper.state, 'off', 'off by default');
    const lane = await rig.bridge.admin('GET', '/admin/api/fast-lane');
    assert.deepEqual(lane.body, { available: true, version: lane.body.version });
    assert.match(String(lane.body.version), /^\d+\.\d+\.\d+$/);
  });

  test('enable installs both APKs once; enabling again checks the version and skips the install', async () => {
    const from = phone.argvLog.length;
    // Turning it on says yes to its open ports, in so many words; without them nothing happens.
    const unsaid = await rig.bridge.admin('POST', `/admin/api/devices/${rig.device(0).deviceId}/programs`, {
      action: 'enable',
      program: 'uia2_server',
    });
    assert.equal(unsaid.status, 400);
    assert.match(
      String((unsaid.body.error as Json).message),
      /accept_open_ports: true .*any app on this phone and any computer on its network can control the phone.*no password/,
    );
    assert.equal((await helperOf(rig)).enabled, false);
    const enabled = await setHelper(rig, 'enable');
    assert.equal(enabled.status, 'enabled');
    const helper = await waitForHelper(rig, 'idle');
    assert.equal(helper.enabled, true);
    assert.match(String(helper.version), /^\d+\.\d+\.\d+$/);
    assert.equal(phone.argvLog.slice(from).filter(isPmInstall).length, 2);
    await setHelper(rig, 'disable');
    const again = phone.argvLog.length;
    await setHelper(rig, 'enable');
    await waitForHelper(rig, 'idle');
    assert.equal(phone.argvLog.slice(again).filter(isPmInstall).length, 0, 'same version: no install');
    assert.ok(phone.argvLog.slice(again).some((a) => a[0] === 'dumpsys' && a[1] === 'package'));
  });

  test('the first call starts the helper; tree, tap and Chinese text go through it (no ADB Keyboard)', async () => {
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree1')));
    assert.equal(tree.lane, 'helper');
    assert.equal((await helperOf(rig)).state, 'ready');
    assert.ok((tree.nodes as Json[]).length > 0);
    // While the helper runs it holds UiAutomation: the stock dump cannot read.
    assert.equal(await stockDumpWorks(phone), false);

    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', {
      signal: new AbortController().signal,
    });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    const from = phone.argvLog.length;
    const text = '你好，世界 😀 こんにちは';
    const typed = result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text },
        callId('type'),
      ),
    );
    assert.equal(typed.lane, 'helper');
    assert.equal(phone.screenState().fields.note_text, text);
    const sent = phone.argvLog.slice(from);
    assert.equal(sent.filter(isHelperAction).length, 1, 'the field was tapped once, through the helper');
    assert.ok(!sent.some(isInputTap), JSON.stringify(sent));
    assert.ok(!sent.some((a) => a[0] === 'input' || a[0] === 'am'), 'no input or ADB Keyboard broadcast');
    assert.ok(!sent.some((a) => a[0] === 'uiautomator'), 'the tree came from the helper');
    const helper = await helperOf(rig);
    assert.ok(Number(helper.served) >= 3, JSON.stringify(helper));
  });

  test('a crash falls back in the same call, and the next call starts the helper again', async () => {
    phone.helper.crashOnNextRequest({ match: 'GET /source', when: 'before' });
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('crash-tree')));
    assert.equal(tree.lane, 'adb');
    const crashed = await helperOf(rig);
    assert.equal(crashed.state, 'idle');
    assert.equal(crashed.last_error_reason, 'uia2_crashed');
    const next = result(await invoke(client, channel, 'android_ui_tree', {}, callId('restart-tree')));
    assert.equal(next.lane, 'helper');
  });

  test('a tap whose answer never came is reported (outcome_unknown) and not sent again', async () => {
    phone.helper.crashOnNextRequest({ match: 'POST /actions', when: 'after' });
    const from = phone.argvLog.length;
    const ack = await invoke(client, channel, 'android_tap', { x: 10, y: 10 }, callId('lost-tap'));
    assert.equal(ack.error?.code, 'outcome_unknown', JSON.stringify(ack));
    const sent = phone.argvLog.slice(from);
    assert.equal(sent.filter(isHelperAction).length, 1, JSON.stringify(sent));
    assert.ok(!sent.some(isInputTap), 'never tapped again the stock way');
    // That was its second crash: the stock lane serves until a person enables it again.
    const failed = await helperOf(rig);
    assert.equal(failed.state, 'failed');
    assert.equal(failed.last_error_reason, 'uia2_crashed');
    const stock = result(await invoke(client, channel, 'android_tap', { x: 10, y: 10 }, callId('stock-tap')));
    assert.equal(stock.lane, 'adb');
    await setHelper(rig, 'enable');
    await waitForHelper(rig, 'idle');
  });

  test('the lease ends: the helper is force-stopped and the stock dump works again', async () => {
    result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-before-end')));
    assert.equal((await helperOf(rig)).state, 'ready');
    const from = phone.argvLog.length;
    const res = await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await waitForHelper(rig, 'idle');
    await waitUntil(
      () => phone.argvLog.slice(from).some((a) => a.join(' ') === 'am force-stop io.appium.uiautomator2.server'),
      5_000,
      'force-stop',
    );
    assert.equal(await stockDumpWorks(phone), true);
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
  });

  test('the system kills the helper: the card shows it stopped, the next call starts it again', async () => {
    assert.equal(result(await invoke(client, channel, 'android_ui_tree', {}, callId('before-kill'))).lane, 'helper');
    phone.helper.kill();
    const killed = await waitForHelper(rig, 'idle');
    assert.equal(killed.last_error_reason, 'uia2_crashed');
    assert.equal(result(await invoke(client, channel, 'android_ui_tree', {}, callId('after-kill'))).lane, 'helper');
    assert.equal((await helperOf(rig)).state, 'ready');
  });

  test('a sparse tree falls back to the stock dump in the same call', async () => {
    result(await invoke(client, channel, 'android_ui_tree', {}, callId('dense')));
    phone.setQuirks(['helper-sparse-tree']);
    try {
      const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('sparse')));
      assert.equal(tree.lane, 'adb');
      assert.ok((tree.nodes as Json[]).some((node) => typeof node.text === 'string' && node.text.length > 0));
      assert.equal((await helperOf(rig)).last_error_reason, 'uia2_paused');
    } finally {
      phone.setQuirks([]);
    }
  });

  test('a stale tree after a navigation falls back to the stock dump', async () => {
    await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home'));
    await waitUntil(() => phone.foregroundPackage() === 'com.google.android.apps.nexuslauncher', 5_000, 'home');
    // The cool-down after the sparse tree (pauseMs) is over before the helper is used again.
    for (let helper = await helperOf(rig); helper.retry_at !== null; helper = await helperOf(rig))
      await new Promise((r) => setImmediate(r));
    phone.setQuirks(['helper-stale-tree']);
    try {
      const home = result(await invoke(client, channel, 'android_ui_tree', {}, callId('home-tree')));
      assert.equal(home.lane, 'helper');
      const icon = (home.nodes as Json[]).find((node) => node.text === 'Settings' || node.content_desc === 'Settings');
      assert.ok(icon, JSON.stringify(home.nodes));
      const tapped = result(
        await invoke(client, channel, 'android_tap', { x: icon.center[0], y: icon.center[1] }, callId('open-settings')),
      );
      assert.equal(tapped.lane, 'helper');
      await waitUntil(() => phone.foregroundPackage() === 'com.android.settings', 5_000, 'settings in front');
      const after = result(await invoke(client, channel, 'android_ui_tree', {}, callId('after-nav')));
      assert.equal(after.lane, 'adb', 'the stale helper tree was not used');
      assert.notEqual(after.signature, home.signature);
    } finally {
      phone.setQuirks([]);
    }
  });

  test('a password field is typed the stock way; the field next to it through the helper', async () => {
    const policy = await rig.bridge.admin('PUT', '/admin/api/policies', { defaults: { password_field: 'allow' } });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    try {
      result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.login' }, callId('login')));
      await waitUntil(() => phone.foregroundPackage() === 'com.example.login', 5_000, 'login in front');
      // A tree read mid-launch may have been judged stale (the helper then pauses for pauseMs).
      for (let helper = await helperOf(rig); helper.retry_at !== null; helper = await helperOf(rig))
        await new Promise((r) => setImmediate(r));
      const user = result(
        await invoke(
          client,
          channel,
          'android_type_text',
          { element: { resource_id: 'username' }, text: 'alice' },
          callId('user'),
        ),
      );
      assert.equal(user.lane, 'helper');
      const from = phone.argvLog.length;
      const secret = 'Sesame-4242';
      const typed = result(
        await invoke(
          client,
          channel,
          'android_type_text',
          { element: { resource_id: 'password' }, text: secret },
          callId('password'),
        ),
      );
      assert.equal(typed.lane, 'adb');
      assert.equal(phone.typedText('password'), secret);
      assert.equal(phone.typedText('username'), 'alice');
      const sent = phone.argvLog.slice(from);
      assert.ok(
        sent.some((a) => a[0] === 'input' && a[1] === 'text'),
        JSON.stringify(sent),
      );
      assert.ok(!sent.some((a) => a[0] === 'helper' && a[2] === '/keys'), 'the helper never saw the password');
    } finally {
      await rig.bridge.admin('PUT', '/admin/api/policies', { defaults: {} });
    }
  });

  test('remove stops the helper and uninstalls both APKs', async () => {
    const from = phone.argvLog.length;
    const removed = await setHelper(rig, 'remove');
    const uia2 = (removed.programs as Json[]).find((p) => p.program === 'uia2_server');
    assert.deepEqual([uia2?.state, uia2?.enabled], ['off', false]);
    const uninstalls = phone.argvLog.slice(from).filter((a) => a[0] === 'pm' && a[1] === 'uninstall');
    assert.deepEqual(
      uninstalls.map((a) => a[2]),
      ['io.appium.uiautomator2.server.test', 'io.appium.uiautomator2.server'],
    );
    assert.equal(await stockDumpWorks(phone), true);
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('after-remove')));
    assert.equal(tree.lane, 'adb');
  });
});

describe('fast lane: the screen read after an action', () => {
  let bound: BoundRig;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_after_${name}_${process.pid}_${++n}`;
  const isSource = (a: string[]): boolean => a[0] === 'helper' && a[1] === 'GET' && a[2] === '/source';
  const lastIndex = (from: number, match: (a: string[]) => boolean): number => {
    for (let i = phone.argvLog.length - 1; i >= from; i--) if (match(phone.argvLog[i]!)) return i;
    return -1;
  };

  before(async () => {
    bound = await startBoundRig({ fastLane: { pauseMs: 50 } }, { withAdbKeyboard: false });
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
    await setHelper(rig, 'enable');
    await waitForHelper(rig, 'idle');
    await phone.exec('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1', {
      signal: new AbortController().signal,
    });
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    assert.equal(result(await invoke(client, channel, 'android_ui_tree', {}, callId('start'))).lane, 'helper');
  });
  after(() => bound?.stop());

  test("the helper reads the screen once a tap has ended; the next tap's check uses that read and reads only the window", async () => {
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree')));
    const field = (tree.nodes as Json[]).find((node) => String(node.resource_id).endsWith('note_text'));
    assert.ok(field, JSON.stringify(tree.nodes));
    const at = { x: field.center[0] as number, y: field.center[1] as number };
    const first = phone.argvLog.length;
    assert.equal(result(await invoke(client, channel, 'android_tap', at, callId('tap1'))).lane, 'helper');
    const tap1 = lastIndex(first, isHelperAction);
    assert.ok(tap1 >= first);
    // With no call from the agent, the helper reads the screen after the action.
    await waitUntil(() => phone.argvLog.slice(tap1 + 1).some(isSource), 10_000, 'the read after the tap');

    const second = phone.argvLog.length;
    assert.equal(result(await invoke(client, channel, 'android_tap', at, callId('tap2'))).lane, 'helper');
    const tap2 = lastIndex(second, isHelperAction);
    assert.ok(tap2 >= second, 'the second tap went through the helper');
    const beforeAction = phone.argvLog.slice(second, tap2);
    assert.ok(!beforeAction.some(isSource), `no tree read before the second tap: ${JSON.stringify(beforeAction)}`);
    assert.ok(!beforeAction.some((a) => a[0] === 'uiautomator'), 'nor a stock dump');
    assert.ok(
      beforeAction.some((a) => a.join(' ') === 'dumpsys window displays'),
      'the window was read',
    );
    assert.equal(phone.argvLog.slice(first).filter(isHelperAction).length, 2, 'each tap sent once');
  });

  test('a tap sent while that read runs waits for it: one tree read between the taps, not a second one alongside', async () => {
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-b')));
    const field = (tree.nodes as Json[]).find((node) => String(node.resource_id).endsWith('note_text'));
    assert.ok(field);
    const at = { x: field.center[0] as number, y: field.center[1] as number };
    const first = phone.argvLog.length;
    result(await invoke(client, channel, 'android_tap', at, callId('tap-b1')));
    result(await invoke(client, channel, 'android_tap', at, callId('tap-b2')));
    const taps = phone.argvLog.map((a, i) => (i >= first && isHelperAction(a) ? i : -1)).filter((i) => i >= 0);
    assert.equal(taps.length, 2);
    const between = phone.argvLog.slice(taps[0]! + 1, taps[1]);
    assert.equal(
      between.filter(isSource).length,
      1,
      `one tree read between the taps (the read after the first): ${JSON.stringify(between)}`,
    );
  });

  test('a window that changed after that read is read afresh: a permission prompt that came up is seen, and the tap on it is held', async () => {
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree-c')));
    const field = (tree.nodes as Json[]).find((node) => String(node.resource_id).endsWith('note_text'));
    assert.ok(field);
    const at = { x: field.center[0] as number, y: field.center[1] as number };
    const first = phone.argvLog.length;
    result(await invoke(client, channel, 'android_tap', at, callId('tap-c1')));
    const tap1 = lastIndex(first, isHelperAction);
    await waitUntil(() => phone.argvLog.slice(tap1 + 1).some(isSource), 10_000, 'the read after the tap');
    phone.setQuirks(['permission-dialog']);
    try {
      const second = phone.argvLog.length;
      const held = invoke(client, channel, 'android_tap', at, callId('tap-c2'));
      const approval = await waitForApproval(rig.bridge, 'android_tap');
      assert.ok(phone.argvLog.slice(second).some(isSource), 'the screen was read again');
      await answerApproval(rig.bridge, approval, 'deny');
      const ack = await held;
      assert.equal(ack.error?.code, 'approval_denied');
      assert.equal(phone.argvLog.slice(second).filter(isHelperAction).length, 0, 'nothing tapped');
    } finally {
      phone.setQuirks([]);
    }
  });

  test("the phone view's live frames come from the helper's screen stream while it runs, from screencap once it stops", async () => {
    const url = `${rig.bridge.url}/admin/api/devices/${rig.device(0).deviceId}/frame`;
    const get = async (after: string | null): Promise<{ headers: Headers; body: Buffer }> => {
      const res = await fetch(after ? `${url}?after=${after}` : url, {
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      assert.equal(res.status, 200);
      return { headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
    };
    // Nothing of the agent's runs now, so the view's frames are captured (a frame left from before may come first).
    const from = phone.argvLog.length;
    let frame = await get(null);
    for (let i = 0; i < 5 && frame.headers.get('x-frame-lane') !== 'helper'; i++)
      frame = await get(frame.headers.get('x-frame-seq'));
    assert.equal(frame.headers.get('x-frame-lane'), 'helper');
    assert.equal(frame.headers.get('content-type'), 'image/jpeg');
    // The stream's pictures are half the screen (540×1200); the frame still says the screen's size, the space of taps.
    assert.equal(frame.headers.get('x-screen-width'), '1080');
    assert.equal(frame.headers.get('x-screen-height'), '2400');
    const meta = await sharp(frame.body).metadata();
    assert.equal(Math.max(meta.width ?? 0, meta.height ?? 0), 720);
    const next = await get(frame.headers.get('x-frame-seq'));
    assert.equal(next.headers.get('x-frame-lane'), 'helper');
    assert.ok(Number(next.headers.get('x-frame-seq')) > Number(frame.headers.get('x-frame-seq')));
    const sent = phone.argvLog.slice(from);
    assert.equal(sent.filter((a) => a.join(' ') === 'helper MJPEG /').length, 1, 'one stream for both frames');
    assert.ok(!sent.some((a) => a[0] === 'screencap'), `no screencap while the stream serves: ${JSON.stringify(sent)}`);

    // The helper stops (turned off): the next frames are screencap's.
    await setHelper(rig, 'disable');
    let after = await get(next.headers.get('x-frame-seq'));
    for (let i = 0; i < 5 && after.headers.get('x-frame-lane') !== 'adb'; i++)
      after = await get(after.headers.get('x-frame-seq'));
    assert.equal(after.headers.get('x-frame-lane'), 'adb');
    await setHelper(rig, 'enable');
  });

  test("with the screen stream on, the view's frames come from minicap; once minicap fails for good, from the helper's stream in the same view", async () => {
    const deviceId = rig.device(0).deviceId;
    const url = `${rig.bridge.url}/admin/api/devices/${deviceId}/frame`;
    const get = async (after: string | null): Promise<Headers> => {
      const res = await fetch(after ? `${url}?after=${after}` : url, {
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      assert.equal(res.status, 200);
      await res.arrayBuffer();
      return res.headers;
    };
    // The helper runs again (the last test turned it off and on: the next call starts it), and the phone's stream is allowed.
    await waitForHelper(rig, 'idle');
    result(await invoke(client, channel, 'android_ui_tree', {}, callId('restart')));
    await waitForHelper(rig, 'ready');
    const on = await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    assert.equal(on.status, 200);
    const until = async (lane: string, change: () => Promise<unknown>): Promise<Headers> => {
      let frame = await get(null);
      for (let i = 0; i < 40 && frame.get('x-frame-lane') !== lane; i++) {
        await change();
        frame = await get(frame.get('x-frame-seq'));
      }
      assert.equal(frame.get('x-frame-lane'), lane);
      return frame;
    };
    const flip = (() => {
      let i = 0;
      return () =>
        phone.exec(`input keyevent ${i++ % 2 === 0 ? 'KEYCODE_APP_SWITCH' : 'KEYCODE_HOME'}`, {
          signal: AbortSignal.timeout(10_000),
        });
    })();
    const minicap = await until('minicap', flip);
    assert.deepEqual([minicap.get('x-screen-width'), minicap.get('x-screen-height')], ['1080', '2400']);

    // minicap dies twice (the first time it is restarted): the stream is left failed, the view goes on with the helper's.
    const killMinicap = async (): Promise<void> => {
      await waitUntil(() => phone.processes.list().some((p) => p.name === 'app_process'), 15_000, 'minicap running');
      const pid = phone.processes.list().find((p) => p.name === 'app_process')!.pid;
      await phone.exec(`kill -9 ${pid}`, { signal: AbortSignal.timeout(10_000) });
    };
    await killMinicap();
    await killMinicap();
    await waitUntil(
      () =>
        rig.bridge.core
          .adminState()
          .devices.find((d) => d.device_id === deviceId)
          ?.programs?.find((p) => p.program === 'minicap_stream')?.state === 'failed',
      15_000,
      'the stream failed for now',
    );
    await until('helper', flip);
    await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'disable',
      program: 'minicap_stream',
    });
  });

  test("the phone check's Unicode row follows the helper: ok while it may type, a problem again once turned off (no ADB Keyboard here)", async () => {
    const row = async (): Promise<Json | undefined> => {
      const state = await rig.bridge.admin('GET', '/admin/api/state');
      const device = (state.body.devices as Json[]).find((d) => d.device_id === rig.device(0).deviceId);
      return (device?.check?.checks as Json[] | undefined)?.find((c) => c.id === 'unicode_typing');
    };
    // The check's rows change with its results and the helper's state, each announced as 'state'.
    let unicode = await untilAnnounced(
      rig.bridge,
      'state',
      row,
      (r) => r?.status === 'ok',
      'the Unicode row to be ok',
      15_000,
    );
    assert.equal(unicode?.status, 'ok', JSON.stringify(unicode));
    assert.match(String(unicode?.detail), /fast lane types any text/);
    await setHelper(rig, 'disable');
    unicode = await row();
    assert.equal(unicode?.status, 'problem', JSON.stringify(unicode));
    assert.match(String(unicode?.fix), /Install ADB Keyboard/);
  });
});

describe('appium-uiautomator2-server: off on every phone, with no lab-wide switch', () => {
  test('the old lab-wide settings are gone: PUT /admin/api/fast-lane is no route, and a phone stays off until its own yes', async () => {
    const bound = await startBoundRig();
    try {
      const put = await bound.rig.bridge.admin('PUT', '/admin/api/fast-lane', { default: 'on' });
      assert.equal(put.status, 404, JSON.stringify(put.body));
      assert.equal((await helperOf(bound.rig)).enabled, false);
      const phone = bound.rig.phones[0];
      assert.ok(phone);
      const from = phone.argvLog.length;
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'adb');
      assert.ok(
        !phone.argvLog.slice(from).some((a) => (a[0] === 'pm' && a[1] === 'install') || a[0] === 'am'),
        'nothing installed or started',
      );
    } finally {
      await bound.stop();
    }
  });
});

describe('fast lane: idle stop and bridge shutdown', () => {
  test('the helper stops after the idle time, and when the bridge stops; the stock dump works again each time', async () => {
    await withInstalledHelper({ fastLane: { idleStopMs: 300 } }, async (bound, phone) => {
      const before = phone.argvLog.length;
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      await waitForHelper(bound.rig, 'idle');
      await waitUntil(
        () => phone.argvLog.slice(before).some((a) => a.join(' ') === 'am force-stop io.appium.uiautomator2.server'),
        5_000,
        'force-stop after the idle time',
      );
      assert.equal(await stockDumpWorks(phone), true);
      assert.equal(
        result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane,
        'helper',
        'started again on demand',
      );
      const from = phone.argvLog.length;
      await bound.rig.bridge.stop();
      assert.ok(phone.argvLog.slice(from).some((a) => a.join(' ') === 'am force-stop io.appium.uiautomator2.server'));
      assert.equal(await stockDumpWorks(phone), true);
    });
  });
});

describe('fast lane: the idle stop is a limit people set (Settings → Limits)', () => {
  test('shortening it applies to the running helper at once, counted from its last call', async () => {
    await withInstalledHelper({}, async (bound, phone) => {
      const settings = await bound.rig.bridge.admin('GET', '/admin/api/settings');
      assert.equal((settings.body.limits as Json).fast_lane_idle_stop_ms, 5 * 60_000, 'default 5 min');
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      const lastCall = Date.now();
      const from = phone.argvLog.length;
      const patched = await bound.rig.bridge.admin('PATCH', '/admin/api/settings', {
        limits: { fast_lane_idle_stop_ms: 10_000 },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
      assert.deepEqual((state.body.limits as Json).fast_lane, { idle_stop_ms: 10_000 });
      assert.equal((await helperOf(bound.rig)).state, 'ready', 'not stopped before its new idle time');
      await waitForHelper(bound.rig, 'idle', 30_000);
      const stoppedAfter = Date.now() - lastCall;
      assert.ok(stoppedAfter >= 9_900 && stoppedAfter < 25_000, `stopped ${stoppedAfter} ms after the last call`);
      await waitUntil(
        () => phone.argvLog.slice(from).some((a) => a.join(' ') === 'am force-stop io.appium.uiautomator2.server'),
        5_000,
        'force-stop after the idle time',
      );
      const refused = await bound.rig.bridge.admin('PATCH', '/admin/api/settings', {
        limits: { fast_lane_idle_stop_ms: 500 },
      });
      assert.equal(refused.status, 400);
      assert.match(JSON.stringify(refused.body), /fast_lane_idle_stop_ms is below its minimum/);
    });
  });
});

describe('fast lane: a helper that ran well since its last crash', () => {
  test('has that crash forgiven: a later crash restarts it again instead of leaving it failed', async () => {
    // Forgiven after 0 ms here (10 minutes by default; the two quick crashes above fail it).
    await withInstalledHelper({ fastLane: { crashForgivenMs: 0 } }, async (bound, phone) => {
      for (const round of [1, 2, 3]) {
        assert.equal(
          result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane,
          'helper',
          `round ${round}: running`,
        );
        phone.helper.crashOnNextRequest({ match: 'GET /source', when: 'before' });
        assert.equal(
          result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane,
          'adb',
          `round ${round}: fell back`,
        );
        const crashed = await helperOf(bound.rig);
        assert.equal(crashed.state, 'idle', `round ${round}: stopped, not failed`);
        assert.equal(crashed.last_error_reason, 'uia2_crashed');
      }
    });
  });
});

describe('fast lane: phones that refuse it fall back cleanly', () => {
  test('a refused install leaves the helper failed with the reason; the stock lane works', async () => {
    const bound = await startBoundRig({}, { quirks: ['helper-install-refused'] });
    try {
      await setHelper(bound.rig, 'enable');
      const helper = await waitForHelper(bound.rig, 'failed');
      assert.equal(helper.last_error_code, 'install_blocked');
      assert.match(String(helper.last_error), /INSTALL_FAILED_USER_RESTRICTED|USB/);
      const tree = result(await invoke(bound.client, bound.channel, 'android_ui_tree', {}));
      assert.equal(tree.lane, 'adb');
    } finally {
      await bound.stop();
    }
  });

  test('a phone that cannot run the instrumentation: the call falls back, the helper shows failed', async () => {
    const bound = await startBoundRig({}, { quirks: ['helper-no-instrumentation'] });
    try {
      await setHelper(bound.rig, 'enable');
      await waitForHelper(bound.rig, 'idle');
      const tree = result(await invoke(bound.client, bound.channel, 'android_ui_tree', {}));
      assert.equal(tree.lane, 'adb');
      const helper = await helperOf(bound.rig);
      assert.equal(helper.state, 'failed');
      assert.equal(helper.last_error_reason, 'uia2_no_instrumentation', JSON.stringify(helper));
      assert.equal(await stockDumpWorks(bound.rig.phones[0]!), true);
    } finally {
      await bound.stop();
    }
  });
});

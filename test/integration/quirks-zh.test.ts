/**
 * Quirk zh-cn (main/sim/QUIRKS.md): a Chinese-language phone behind the real adb server.
 * The agent reads the Chinese labels intact (UTF-8 end to end), taps by a Chinese text
 * selector at the element's centre, the safety gate holds a Chinese payment button
 * (sensitive_screen) and the 钱包 icon on the home screen (sensitive_app) under the default
 * policy, and Chinese text is typed through ADB Keyboard — or refused with the existing
 * clear error on a phone without it.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval, reasonWords } from '../helpers/approvals';
import type { XAgentClient } from '../helpers/xagent-client';
import type { SimulatedPhone } from '../../main/sim/phone';

const isInputTap = (a: string[]): boolean => a[0] === 'input' && a[1] === 'tap';

describe('zh-cn: a Chinese-language phone, end to end', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;
  let n = 0;
  const callId = (name: string): string => `call_zh_${name}_${process.pid}_${++n}`;

  async function shell(line: string): Promise<string> {
    const out = await phone.exec(line, { signal: new AbortController().signal });
    assert.equal(out.exitCode, 0, out.stderr.toString('utf8'));
    return out.stdout.toString('utf8');
  }

  async function home(): Promise<void> {
    result(await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home')));
    await waitUntil(() => phone.foregroundPackage() === 'com.google.android.apps.nexuslauncher', 5_000, 'home screen');
  }

  let bound: BoundRig | undefined;
  before(async () => {
    // Default policy: sensitive_app and sensitive_screen are `ask`.
    bound = await startBoundRig();
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
    phone.setQuirks(['zh-cn']);
  });
  after(() => bound?.stop());

  test('the phone says zh-CN; android_ui_tree returns the Chinese home-screen labels intact', async () => {
    assert.equal(await shell('getprop persist.sys.locale'), 'zh-CN\n');
    assert.equal(await shell('getprop ro.product.locale'), 'zh-CN\n');
    await home();
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree')));
    const texts = (tree.nodes as Json[]).map((node) => node.text as string);
    for (const label of ['设置', '钱包', '笔记', '登录', '长列表'])
      assert.ok(texts.includes(label), `${label} in ${JSON.stringify(texts)}`);
    assert.ok(!texts.includes('Settings') && !texts.includes('Wallet'), JSON.stringify(texts));
  });

  test('a tap by the Chinese text 设置 lands at its centre and opens Settings, whose page is in Chinese', async () => {
    await home();
    const tree = result(await invoke(client, channel, 'android_ui_tree', {}, callId('tree2')));
    const settings = (tree.nodes as Json[]).find((node) => node.text === '设置');
    assert.ok(settings, JSON.stringify(tree.nodes));
    const [cx, cy] = settings.center as [number, number];
    const from = phone.argvLog.length;
    const tapped = result(
      await invoke(client, channel, 'android_tap', { element: { text: '设置' } }, callId('settings')),
    );
    assert.equal(tapped.status, 'tapped');
    assert.deepEqual(phone.argvLog.slice(from).filter(isInputTap), [['input', 'tap', String(cx), String(cy)]]);
    await waitUntil(() => phone.foregroundPackage() === 'com.android.settings', 5_000, 'Settings in front');
    const page = result(await invoke(client, channel, 'android_ui_tree', { interactive_only: false }, callId('tree3')));
    const pageTexts = (page.nodes as Json[]).map((node) => node.text as string);
    assert.ok(pageTexts.includes('网络和互联网') && pageTexts.includes('关于手机'), JSON.stringify(pageTexts));
  });

  test('tapping the 钱包 icon on the home screen is held as sensitive_app; denied, nothing is tapped', async () => {
    await home();
    const from = phone.argvLog.length;
    const call = invoke(client, channel, 'android_tap', { element: { text: '钱包' } }, callId('wallet-icon'));
    const approval = await waitForApproval(rig.bridge, 'android_tap');
    await answerApproval(rig.bridge, approval, 'deny');
    assert.ok((approval.risk_classes as string[]).includes('sensitive_app'), JSON.stringify(approval));
    assert.ok(
      reasonWords(approval).some((r) => /^It opens “钱包( · 钱包)?” from the home screen$/.test(r)),
      JSON.stringify(approval.reasons),
    );
    assert.equal((await call).error?.code, 'approval_denied');
    assert.ok(!phone.argvLog.slice(from).some(isInputTap));
    assert.notEqual(phone.foregroundPackage(), 'com.example.wallet');
  });

  test('tapping 立即支付 in the wallet is held as sensitive_screen; approved, it taps once at the button centre', async () => {
    // The person opens the wallet on the phone (not through the bridge).
    await shell('am start -n com.example.wallet/.WalletActivity');
    await waitUntil(() => phone.foregroundPackage() === 'com.example.wallet', 5_000, 'wallet in front');
    // Where the phone itself draws the button (its own dump, read on the phone).
    const bounds = /text="立即支付 \$25\.00"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(
      await shell('uiautomator dump /dev/tty'),
    );
    assert.ok(bounds, 'the pay button is dumped in Chinese');
    const [l, t, r, b] = bounds.slice(1).map(Number) as [number, number, number, number];
    const from = phone.argvLog.length;
    const call = invoke(client, channel, 'android_tap', { element: { text: '立即支付 $25.00' } }, callId('pay'));
    const approval = await waitForApproval(rig.bridge, 'android_tap');
    assert.ok((approval.risk_classes as string[]).includes('sensitive_screen'), JSON.stringify(approval));
    assert.ok(
      reasonWords(approval).some((r) => r.includes('支付')),
      JSON.stringify(approval.reasons),
    );
    assert.ok(!phone.argvLog.slice(from).some(isInputTap), 'held: nothing tapped yet');
    await answerApproval(rig.bridge, approval, 'approve');
    const tapped = result(await call);
    assert.ok((tapped.safety.risk_classes as string[]).includes('sensitive_screen'), JSON.stringify(tapped.safety));
    const taps = phone.argvLog.slice(from).filter(isInputTap);
    assert.deepEqual(taps, [['input', 'tap', String(Math.floor((l + r) / 2)), String(Math.floor((t + b) / 2))]]);
    await waitUntil(() => phone.screenState().screen === 'confirm', 5_000, 'payment confirmation');
    // Back out of the confirmation on the phone itself; nothing was paid.
    await shell('input keyevent 4');
    await waitUntil(() => phone.screenState().screen === 'home', 5_000, 'wallet home');
  });

  test('android_type_text types Chinese through ADB Keyboard, exactly', async () => {
    await shell('monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
    const text = '你好，世界 立即支付';
    const from = phone.argvLog.length;
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'note_text' }, text },
        callId('type'),
      ),
    );
    assert.equal(phone.screenState().fields.note_text, text);
    const sent = phone.argvLog.slice(from);
    assert.ok(
      sent.some((a) => a[0] === 'am' && a.includes('ADB_INPUT_B64')),
      JSON.stringify(sent),
    );
    assert.ok(!sent.some((a) => a[0] === 'input' && a[1] === 'text'), 'no `input text` for CJK');
  });
});

describe('zh-cn without ADB Keyboard', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;

  let bound: BoundRig | undefined;
  before(async () => {
    bound = await startBoundRig({}, { withAdbKeyboard: false });
    ({ rig, client, channel } = bound);
    rig.phones[0]!.setQuirks(['zh-cn']);
  });
  after(() => bound?.stop());

  test('typing Chinese is unicode_input_unavailable with the ADB Keyboard fix; nothing is typed', async () => {
    const phone = rig.phones[0]!;
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
    result(await invoke(client, channel, 'android_tap', { element: { resource_id: 'note_text' } }));
    const from = phone.argvLog.length;
    const ack = await invoke(client, channel, 'android_type_text', { text: '你好' });
    assert.equal(ack.error?.code, 'unicode_input_unavailable', JSON.stringify(ack.error ?? ack.payload));
    assert.match(String(ack.error?.message), /Install the ADB Keyboard IME on the phone/);
    assert.ok(!phone.argvLog.slice(from).some((a) => a[0] === 'input' && a[1] === 'text'));
  });
});

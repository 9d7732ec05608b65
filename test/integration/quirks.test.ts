/**
 * Phones people own, failing the way they do (main/sim/QUIRKS.md): one simulated phone
 * behind the real adb server carries one quirk at a time; an agent makes its calls through
 * the data plane and gets the stable code with the fix in words, never a stack trace or a
 * silent success, and the phone's argv log shows nothing ran twice.
 */
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Ack } from '../helpers/acks';
import type { XAgentClient } from '../helpers/xagent-client';
import type { SimulatedPhone } from '../../main/sim/phone';
import { HUGE_TREE_NODES } from '../../main/sim/phone-quirks';

function refused(ack: Ack, code: string, fix: RegExp): string {
  assert.equal(ack.error?.code, code, JSON.stringify(ack.error ?? ack.payload));
  const message = String(ack.error?.message);
  assert.match(message, fix);
  assert.doesNotMatch(message, /\bat (com|android)\.|Exception occurred/, 'no stack trace reaches the agent');
  return message;
}

describe('quirks of real phones, end to end', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  let phone: SimulatedPhone;

  const argvs = (name: string): string[][] => phone.argvLog.filter((argv) => argv[0] === name);

  let bound: BoundRig | undefined;
  before(async () => {
    bound = await startBoundRig();
    ({ rig, client, channel } = bound);
    phone = rig.phones[0]!;
    const res = await rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: { install_app: 'allow', push_file: 'allow' },
      per_device: {},
      sensitive_apps: [],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
  });
  // Each test counts the commands it caused: none of the setup's, none of an earlier test's.
  beforeEach(() => {
    phone.clearArgvLog();
  });
  afterEach(() => {
    phone.setQuirks([]);
  });
  after(() => bound?.stop());

  test('inject-events-denied: tap, swipe, typing and keys are input_blocked with the fix, one input call each, nothing on screen', async () => {
    // The note field has focus before input is refused, so typing gets as far as `input text`.
    result(await invoke(client, channel, 'android_tap', { element: { resource_id: 'note_text' } }));
    phone.setQuirks(['inject-events-denied']);
    const calls: Array<[string, Record<string, unknown>, string]> = [
      ['android_tap', { x: 540, y: 1200 }, 'tap'],
      ['android_swipe', { direction: 'up' }, 'swipe'],
      ['android_type_text', { text: 'hello' }, 'text'],
      ['android_press_key', { key: 'enter' }, 'keyevent'],
    ];
    for (const [tool, args, verb] of calls) {
      const before = phone.screenState();
      phone.clearArgvLog();
      const ack = await invoke(client, channel, tool, args);
      refused(
        ack,
        'input_blocked',
        /INJECT_EVENTS.*Fix: turn on USB debugging \(Security settings\) in Developer options \(Xiaomi\/Redmi\/POCO\), then try again$/,
      );
      // The fix travels as its own field too: the Descriptor's marks and the UI read it there.
      assert.equal(
        (ack.error as { fix?: string } | undefined)?.fix,
        'turn on USB debugging (Security settings) in Developer options (Xiaomi/Redmi/POCO), then try again',
      );
      const inputs = argvs('input');
      assert.equal(inputs.length, 1, `${tool}: ${JSON.stringify(inputs)}`);
      assert.equal(inputs[0]![1], verb);
      assert.equal(phone.screenState().version, before.version, `${tool} changed nothing on the phone`);
      assert.equal(phone.screenState().fields.note_text ?? '', before.fields.note_text ?? '');
    }
    // The same call again (same tool_call_id) is answered from the journal: no second input.
    phone.clearArgvLog();
    const first = await invoke(client, channel, 'android_tap', { x: 10, y: 10 }, 'call-inject-1');
    const again = await invoke(client, channel, 'android_tap', { x: 10, y: 10 }, 'call-inject-1');
    assert.equal(first.error?.code, 'input_blocked');
    assert.deepEqual(again.error, first.error);
    assert.equal(argvs('input').length, 1);
  });

  describe('installs the phone refuses', () => {
    const upload = async (): Promise<string> => {
      const apk = Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        Buffer.from('AndroidManifest.xml package=com.quirk.sample '),
        Buffer.alloc(1024, 7),
      ]);
      const form = new FormData();
      form.append(
        'file',
        new Blob([new Uint8Array(apk)], { type: 'application/vnd.android.package-archive' }),
        'sample.apk',
      );
      const res = await fetch(`${rig.bridge.url}/files/uploads`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rig.bridge.apiKey}`, 'X-XAgent-Connector-Channel-ID': channel },
        body: form,
      });
      assert.equal(res.status, 200, await res.clone().text());
      return String(((await res.json()) as { file_ref: string }).file_ref);
    };

    const cases: Array<[string, RegExp]> = [
      [
        'install-user-restricted',
        /INSTALL_FAILED_USER_RESTRICTED: Install canceled by user.*Fix: turn on Install via USB in Developer options/,
      ],
      ['install-version-downgrade', /INSTALL_FAILED_VERSION_DOWNGRADE.*Fix: uninstall the newer version first/],
      ['install-insufficient-storage', /INSTALL_FAILED_INSUFFICIENT_STORAGE.*Fix: free storage on the phone/],
      ['install-verifier-timeout', /INSTALL_FAILED_VERIFICATION_FAILURE.*Fix: accept the prompt on the phone/],
    ];
    for (const [quirk, fix] of cases) {
      test(`${quirk}: android_install_apk is install_blocked with the fix after one pm install; nothing installed, the staged APK removed`, async () => {
        const ref = await upload();
        phone.setQuirks([quirk]);
        phone.clearArgvLog();
        refused(await invoke(client, channel, 'android_install_apk', { file_ref: ref }), 'install_blocked', fix);
        const pm = argvs('pm').filter((a) => a[1] === 'install');
        assert.equal(pm.length, 1, JSON.stringify(pm));
        assert.deepEqual(pm[0]!.slice(0, 3), ['pm', 'install', '-r']);
        assert.equal(phone.fs.stat(pm[0]![3]!), undefined, 'the staged APK is deleted');
        phone.setQuirks([]);
        const apps = result(await invoke(client, channel, 'android_list_apps'));
        assert.ok(!(apps.packages as string[]).includes('com.quirk.sample'));
      });
    }
  });

  const dumps = (): string[][] => argvs('uiautomator');

  test('ui-dump-idle-timeout: android_ui_tree is screen_unreadable with the fix after exactly two dumps', async () => {
    phone.setQuirks(['ui-dump-idle-timeout']);
    refused(
      await invoke(client, channel, 'android_ui_tree'),
      'screen_unreadable',
      /could not get idle state.*Fix: stop the animation or video on the screen/,
    );
    assert.deepEqual(dumps(), [
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/dev/tty'],
    ]);
  });

  test('ui-dump-null-root: screen_unreadable with the fix; a tap still runs once, marked unreadable_screen by the safety gate', async () => {
    phone.setQuirks(['ui-dump-null-root']);
    refused(
      await invoke(client, channel, 'android_ui_tree'),
      'screen_unreadable',
      /null root node.*Fix: wake and unlock the phone/,
    );
    assert.equal(dumps().length, 2);
    phone.clearArgvLog();
    const tapped = result(await invoke(client, channel, 'android_tap', { x: 540, y: 1200 }));
    assert.equal(tapped.status, 'tapped');
    assert.ok((tapped.safety?.risk_classes as string[]).includes('unreadable_screen'), JSON.stringify(tapped.safety));
    assert.deepEqual(argvs('input'), [['input', 'tap', '540', '1200']]);
    // A tap on an element needs the tree: it is refused before any input.
    phone.clearArgvLog();
    refused(
      await invoke(client, channel, 'android_tap', { element: { text: 'Notes' } }),
      'screen_unreadable',
      /Fix: wake and unlock the phone/,
    );
    assert.equal(argvs('input').length, 0);
  });

  test('ui-dump-empty: an empty hierarchy is screen_unreadable with the fix after two dumps', async () => {
    phone.setQuirks(['ui-dump-empty']);
    refused(
      await invoke(client, channel, 'android_ui_tree'),
      'screen_unreadable',
      /empty hierarchy.*Fix: try again once the app has drawn/,
    );
    assert.equal(dumps().length, 2);
  });

  test('ui-dump-unreadable: a dump reported written but unreadable is screen_unreadable; the file path is tried once and cleaned', async () => {
    phone.setQuirks(['ui-dump-unreadable']);
    refused(
      await invoke(client, channel, 'android_ui_tree'),
      'screen_unreadable',
      /could not be read back.*Fix: try again; if it keeps failing, restart the phone/,
    );
    assert.deepEqual(dumps(), [
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/dev/tty'],
      ['uiautomator', 'dump', '/sdcard/window_dump.xml'],
    ]);
    assert.deepEqual(argvs('cat'), [['cat', '/sdcard/window_dump.xml']]);
    assert.deepEqual(argvs('rm'), [['rm', '-f', '/sdcard/window_dump.xml']]);
    // The bridge still reads /dev/tty first next time (the fallback did not work).
    phone.setQuirks([]);
    phone.clearArgvLog();
    result(await invoke(client, channel, 'android_ui_tree'));
    assert.deepEqual(dumps(), [['uiautomator', 'dump', '/dev/tty']]);
  });

  test('ui-huge-tree: thousands of nodes come back in bounded time, truncated with a note; elements can still be tapped', async () => {
    phone.setQuirks(['ui-huge-tree']);
    const started = Date.now();
    const tree = result(await invoke(client, channel, 'android_ui_tree'));
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal((tree.nodes as unknown[]).length, 400);
    assert.equal(tree.truncated, true);
    assert.ok(Number(tree.count) > 400 && Number(tree.count) <= 3000, String(tree.count));
    assert.match(
      String(tree.note),
      /^the screen has more than 3000 elements; the first 400 are listed\. Select by text or resource_id/,
    );
    assert.ok(HUGE_TREE_NODES > 3000);
    assert.equal(dumps().length, 1);
    // The largest answer an agent can ask for still fits a frame.
    const all = result(await invoke(client, channel, 'android_ui_tree', { interactive_only: false, max_nodes: 3000 }));
    assert.equal((all.nodes as unknown[]).length, 3000);
    assert.equal(all.truncated, true);
    phone.clearArgvLog();
    const tapped = result(await invoke(client, channel, 'android_tap', { element: { text: 'Cell 25' } }));
    assert.equal(tapped.status, 'tapped');
    assert.equal(argvs('input').length, 1);
  });
});

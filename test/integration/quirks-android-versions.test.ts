/**
 * Quirk group "Android 8–9 and 13+" and `no-shell-v2` (main/sim/QUIRKS.md), behind the real
 * adb server: the same agent calls on an Android 8.0 (API 26) phone, an Android 9 (API 28)
 * phone — whose `dumpsys window` keeps the focus in the windows section, wraps it in an
 * AppWindowToken and prints the keyguard as mShowingLockscreen — and an Android 14 phone whose
 * adbd has no shell protocol v2 (no exit status, stderr inside stdout). Each still reports the
 * app in front, reads the screen, holds a tap in a wallet app for approval (the safety gate
 * found the app in front), refuses a tap on a locked phone with device_locked and a refused
 * injection with input_blocked, each after one `input` at most.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval, reasonCodes } from '../helpers/approvals';
import type { SimulatedPhone } from '../../main/sim/phone';

const cases: Array<{ name: string; sdk: number; androidVersion: string; quirks: string[] }> = [
  { name: 'Android 8.0 (API 26)', sdk: 26, androidVersion: '8.0.0', quirks: [] },
  { name: 'Android 9 (API 28)', sdk: 28, androidVersion: '9', quirks: [] },
  {
    name: 'Android 14 without shell protocol v2 (no-shell-v2)',
    sdk: 34,
    androidVersion: '14',
    quirks: ['no-shell-v2'],
  },
];

for (const c of cases) {
  describe(`${c.name}: every tool still works`, () => {
    let bound: BoundRig | undefined;
    let phone: SimulatedPhone;
    let n = 0;
    const call = (tool: string, args: Record<string, unknown> = {}): ReturnType<typeof invoke> =>
      invoke(bound!.client, bound!.channel, tool, args, `call_v${c.sdk}_${c.quirks.join('_')}_${process.pid}_${++n}`);
    const inputs = (from: number): string[][] => phone.argvLog.slice(from).filter((a) => a[0] === 'input');

    before(async () => {
      bound = await startBoundRig({}, { sdk: c.sdk, androidVersion: c.androidVersion, quirks: c.quirks });
      phone = bound.rig.phones[0]!;
    });
    after(() => bound?.stop());

    test('android_device_status: version, screen and the app in front', async () => {
      const status = result(await call('android_device_status'));
      assert.equal(status.sdk, c.sdk);
      assert.equal(status.android_version, c.androidVersion);
      assert.equal(status.screen_on, true);
      assert.equal(status.foreground?.package, 'com.google.android.apps.nexuslauncher', JSON.stringify(status));
      assert.deepEqual([status.screen?.width, status.screen?.height], [1080, 2400], JSON.stringify(status.screen));
      const check = (await bound!.rig.bridge.admin('GET', `/admin/api/devices/${bound!.rig.device(0).deviceId}/check`))
        .body as Json;
      const row = (id: string): Json => (check.checks as Json[]).find((i) => i.id === id)!;
      assert.equal(row('android_version').status, 'ok', JSON.stringify(row('android_version')));
      // Both ways of running commands work; the check says which one this phone uses.
      assert.equal(row('shell_protocol').status, 'ok');
      assert.match(
        String(row('shell_protocol').detail),
        c.quirks.includes('no-shell-v2') ? /has no shell protocol v2/ : /^adb shell protocol v2/,
      );
    });

    test('android_ui_tree reads the home screen; a tap by text runs one input tap', async () => {
      const tree = result(await call('android_ui_tree'));
      assert.ok(
        (tree.nodes as Json[]).some((node) => node.text === 'Notes'),
        JSON.stringify(tree.nodes),
      );
      const from = phone.argvLog.length;
      const tapped = result(await call('android_tap', { element: { text: 'Notes' } }));
      assert.equal(tapped.status, 'tapped');
      assert.equal(inputs(from).length, 1);
      await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'Notes in front');
      const status = result(await call('android_device_status'));
      assert.equal(status.foreground?.package, 'com.example.notes');
      result(await call('android_press_key', { key: 'home' }));
    });

    test('a failing command keeps its stable code (the exit status is known without the v2 protocol)', async () => {
      const launch = await call('android_launch_app', { package: 'com.example.absent' });
      assert.equal(launch.error?.code, 'app_not_found', JSON.stringify(launch.error));
      const apps = result(await call('android_list_apps'));
      assert.ok(JSON.stringify(apps).includes('com.example.wallet'), JSON.stringify(apps).slice(0, 400));
    });

    test('a tap while the wallet is in front is held for approval (sensitive_app: the app in front was found); denied, nothing is tapped', async () => {
      const started = await phone.exec('am start -n com.example.wallet/.WalletActivity', {
        signal: new AbortController().signal,
      });
      assert.equal(started.exitCode, 0, started.stderr.toString());
      const from = phone.argvLog.length;
      const pending = call('android_tap', { x: 540, y: 1200 });
      const approval = await waitForApproval(bound!.rig.bridge, 'android_tap');
      assert.ok((approval.risk_classes as string[]).includes('sensitive_app'), JSON.stringify(approval));
      assert.ok(
        reasonCodes(approval).includes('app_wallet') && (approval.app as Json).package === 'com.example.wallet',
        JSON.stringify(approval.reasons),
      );
      await answerApproval(bound!.rig.bridge, approval, 'deny');
      assert.equal((await pending).error?.code, 'approval_denied');
      assert.equal(inputs(from).length, 0);
      result(await call('android_press_key', { key: 'home' }));
    });

    test('the other tools: launch, type (ASCII and Unicode), long press, swipe, keys, batch, wait, screenshot, screen record, open URL, stop', async () => {
      result(await call('android_launch_app', { package: 'com.example.notes' }));
      await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'Notes in front');
      result(await call('android_tap', { element: { resource_id: 'com.example.notes:id/note_text' } }));
      result(await call('android_type_text', { text: 'hello 8 · 你好' }));
      assert.equal(phone.typedText('note_text'), 'hello 8 · 你好');
      result(await call('android_long_press', { element: { resource_id: 'com.example.notes:id/note_text' } }));
      result(await call('android_press_key', { key: 'back' }));
      result(
        await call('android_batch', {
          steps: [
            { tool: 'android_press_key', arguments: { key: 'home' } },
            { tool: 'android_swipe', arguments: { direction: 'up' } },
          ],
        }),
      );
      result(await call('android_wait_for', { element: { text: 'Notes' }, timeout_ms: 5_000 }));
      const shot = result(await call('android_screenshot', { format: 'png' }));
      assert.ok(JSON.stringify(shot).length > 10, JSON.stringify(shot).slice(0, 200));
      result(await call('android_screen_record', { seconds: 1 }));
      result(await call('android_open_url', { url: 'https://example.com/' }));
      await waitUntil(() => phone.foregroundPackage() === 'com.android.chrome', 5_000, 'Chrome in front');
      result(await call('android_stop_app', { package: 'com.android.chrome' }));
      result(await call('android_press_key', { key: 'home' }));
    });

    test('a refused injection is input_blocked after one input call; a lock screen is device_locked before any', async () => {
      phone.setQuirks([...c.quirks, 'inject-events-denied']);
      let from = phone.argvLog.length;
      const blocked = await call('android_tap', { x: 540, y: 1500 });
      assert.equal(blocked.error?.code, 'input_blocked', JSON.stringify(blocked.error));
      assert.equal(inputs(from).length, 1);
      phone.setQuirks([...c.quirks, 'locked-swipe']);
      from = phone.argvLog.length;
      const locked = await call('android_tap', { x: 540, y: 1500 });
      assert.equal(locked.error?.code, 'device_locked', JSON.stringify(locked.error));
      assert.match(String(locked.error?.message), /lock screen/);
      assert.equal(inputs(from).length, 0);
      phone.setQuirks(c.quirks);
    });
  });
}

/**
 * Quirks permission-dialog, anr-dialog and low-battery (main/sim/QUIRKS.md): a system dialog over the app,
 * behind the real adb server. The agent sees it (android_device_status and android_ui_tree
 * name it in `system_dialog` and a note), the phone check shows it with the fix, a tap on the
 * permission prompt is held for approval (it can grant access) and runs once when approved,
 * and nothing answers a dialog by itself: observation calls leave it where it is.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval, reasonCodes } from '../helpers/approvals';
import type { SimulatedPhone } from '../../main/sim/phone';

describe('system dialogs over the app', () => {
  let bound: BoundRig | undefined;
  let phone: SimulatedPhone;
  const taps = (from: number): string[][] =>
    phone.argvLog.slice(from).filter((a) => a[0] === 'input' && a[1] === 'tap');

  async function openNotes(): Promise<void> {
    phone.setQuirks([]);
    const out = await phone.exec('am start -n com.example.notes/.MainActivity', {
      signal: new AbortController().signal,
    });
    assert.equal(out.exitCode, 0, out.stderr.toString());
    await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'Notes in front');
  }

  async function checkRow(id: string): Promise<Json> {
    const deviceId = bound!.rig.device(0).deviceId;
    const res = await bound!.rig.bridge.admin('GET', `/admin/api/devices/${deviceId}/check`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.checks as Json[]).find((row) => row.id === id)!;
  }

  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('permission prompt: seen by status, tree and check; a tap on it needs approval; denied nothing, approved one tap; never answered by itself', async () => {
    const { client, channel } = bound!;
    await openNotes();
    phone.setQuirks(['permission-dialog']);

    const status = result(await invoke(client, channel, 'android_device_status'));
    assert.equal(
      status.foreground?.package,
      'com.google.android.permissioncontroller',
      JSON.stringify(status.foreground),
    );
    assert.match(String(status.system_dialog), /permission prompt/);
    assert.match(String(status.note), /^a system dialog is over the app: /);

    const tree = result(await invoke(client, channel, 'android_ui_tree'));
    const texts = (tree.nodes as Json[]).map((n) => n.text);
    for (const label of ['While using the app', 'Only this time', "Don't allow"])
      assert.ok(texts.includes(label), JSON.stringify(texts));
    assert.equal(tree.system_dialog, 'a permission prompt: "Allow Notes to take pictures and record video?"');
    assert.match(String(tree.note), /answering a permission prompt asks for approval first/);

    const row = await checkRow('system_dialog');
    assert.equal(row.status, 'problem', JSON.stringify(row));
    assert.match(String(row.fix), /Answer the permission prompt on the phone/);
    assert.equal(phone.screenState().screen, 'permission-dialog', 'reading the phone answered nothing');

    let from = phone.argvLog.length;
    const held = invoke(client, channel, 'android_tap', { element: { text: 'While using the app' } });
    let approval = await waitForApproval(bound!.rig.bridge, 'android_tap');
    assert.ok((approval.risk_classes as string[]).includes('sensitive_app'), JSON.stringify(approval));
    assert.ok(reasonCodes(approval).includes('permission_prompt'), JSON.stringify(approval.reasons));
    await answerApproval(bound!.rig.bridge, approval, 'deny');
    assert.equal((await held).error?.code, 'approval_denied');
    assert.deepEqual(taps(from), []);
    assert.equal(phone.screenState().screen, 'permission-dialog');

    from = phone.argvLog.length;
    const approved = invoke(client, channel, 'android_tap', { element: { text: 'While using the app' } });
    approval = await waitForApproval(bound!.rig.bridge, 'android_tap');
    await answerApproval(bound!.rig.bridge, approval, 'approve');
    assert.equal(result(await approved).status, 'tapped');
    assert.equal(taps(from).length, 1);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    assert.ok(!phone.quirks().includes('permission-dialog'), 'answered');
    assert.equal((await checkRow('system_dialog')).status, 'ok');
  });

  test('"App isn\'t responding": the app stays the foreground, the dialog is named; Wait is an ordinary tap that runs once', async () => {
    const { client, channel } = bound!;
    await openNotes();
    phone.setQuirks(['anr-dialog']);

    const status = result(await invoke(client, channel, 'android_device_status'));
    assert.equal(status.foreground?.package, 'com.example.notes', 'mFocusedApp, since the ANR window is no activity');
    assert.equal(status.system_dialog, '"App isn\'t responding" for com.example.notes (Close app / Wait)');
    const tree = result(await invoke(client, channel, 'android_ui_tree'));
    assert.ok(
      (tree.nodes as Json[]).some((n) => n.resource_id === 'android:id/aerr_wait' && n.text === 'Wait'),
      JSON.stringify(tree.nodes),
    );
    assert.match(String(tree.system_dialog), /isn't responding" for Notes/);
    const row = await checkRow('system_dialog');
    assert.equal(row.status, 'problem');
    assert.match(String(row.fix), /tap Close app or Wait/);

    const from = phone.argvLog.length;
    const tapped = result(await invoke(client, channel, 'android_tap', { element: { text: 'Wait' } }));
    assert.equal(tapped.status, 'tapped');
    assert.equal(taps(from).length, 1);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    assert.equal(phone.screenState().screen === 'anr-dialog', false);
    assert.ok(!phone.quirks().includes('anr-dialog'));
  });

  test('low battery: status says 5 % and not charging, the check shows it with the fix; plugged in again, the check is ok; nothing is sent to the phone but reads', async () => {
    const { client, channel } = bound!;
    await openNotes();
    phone.setQuirks(['low-battery']);
    const from = phone.argvLog.length;

    const status = result(await invoke(client, channel, 'android_device_status'));
    assert.equal(status.battery?.level, 5);
    assert.equal(status.battery?.charging, false);
    assert.equal(status.battery?.status, 'discharging');
    const row = await checkRow('battery');
    assert.equal(row.status, 'problem');
    assert.match(String(row.detail), /^5%, not charging: Android warns about a low battery/);
    assert.match(String(row.fix), /^Plug the phone into a charger/);
    assert.equal(row.fix_key, 'phone-check.fix.batteryLow');
    const sent = phone.argvLog.slice(from).map((a) => a.join(' '));
    assert.equal(
      sent.filter((line) => line === 'dumpsys battery').length,
      2,
      'one read for the status, one for the check',
    );
    assert.ok(
      !sent.some((line) => line.startsWith('input ') || line.startsWith('svc ') || line.startsWith('cmd battery')),
      sent.join(' | '),
    );
    // The app in front is untouched: the warning is the person's to act on.
    assert.equal(phone.foregroundPackage(), 'com.example.notes');

    phone.setQuirks([]);
    const charging = await checkRow('battery');
    assert.equal(charging.status, 'ok');
    assert.equal(charging.detail, '87%, charging');
  });
});

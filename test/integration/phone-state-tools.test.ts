/**
 * The clipboard, runtime permissions and app data (#28) through the whole path: xAgent client →
 * bridge → real adb server → simulated phones. Under the default policy reading the clipboard,
 * changing a permission and clearing data are held for approval and nothing reaches the phone
 * before the person approves; then the phone's own state (`dumpsys package`, the clipboard,
 * the app's saved note) shows the change. The clipboard goes through the fast lane's helper
 * only: a round trip on Android 9, Android 10+'s refused read reported as such (and its fix
 * working), and the refusal with its fix when the fast lane is off. The phone's argv log is the
 * proof of what ran.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { result, type Ack, type Json } from '../helpers/acks';
import {
  answerApproval,
  pendingApprovals,
  waitForApproval,
  type ApprovalDecision,
  reasonWords,
} from '../helpers/approvals';
import { withInstalledHelper } from '../helpers/fast-lane';
import type { SimulatedPhone } from '../../main/sim/phone';

const NOTES = 'com.example.notes';
const CAMERA = 'android.permission.CAMERA';
const isPm =
  (verb: string) =>
  (a: string[]): boolean =>
    a[0] === 'pm' && a[1] === verb;
const isClipboardRequest =
  (route: string) =>
  (a: string[]): boolean =>
    a[0] === 'helper' && a[1] === 'POST' && a[2] === `/appium/device/${route}`;

/** The runtime permission's `granted=` in the phone's own `dumpsys package` (user 0). */
async function grantedOnPhone(phone: SimulatedPhone, pkg: string, permission: string): Promise<boolean | undefined> {
  const out = (await phone.exec(`dumpsys package ${pkg}`, { signal: new AbortController().signal })).stdout.toString(
    'utf8',
  );
  const line = out.split('\n').find((l) => l.startsWith(`        ${permission}: granted=`));
  return line === undefined ? undefined : line.includes('granted=true');
}

/**
 * Sends a call the default policy holds: nothing of it reaches the phone before the person
 * answers (`ranEarly` finds it in the argv log), then the answer is given and its ack returned
 * with what the person was shown.
 */
async function heldThenAnswered(
  bound: BoundRig,
  toolId: string,
  args: Record<string, unknown>,
  decision: ApprovalDecision,
  ranEarly: (argv: string[]) => boolean,
): Promise<{ ack: Ack; approval: Json }> {
  const phone = bound.rig.phones[0]!;
  const from = phone.argvLog.length;
  const call = invoke(bound.client, bound.channel, toolId, args);
  const approval = await waitForApproval(bound.rig.bridge, toolId);
  assert.deepEqual(phone.argvLog.slice(from).filter(ranEarly), [], 'nothing reached the phone while the call was held');
  await answerApproval(bound.rig.bridge, approval, decision);
  return { ack: await call, approval };
}

describe('runtime permissions and app data, held for approval under the default policy', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;

  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());
  beforeEach(async () => assert.deepEqual(await pendingApprovals(bound.rig.bridge), [], 'no call left held'));

  test('grant: held with its reason; approved, one pm grant runs and dumpsys package shows it granted', async () => {
    assert.equal(await grantedOnPhone(phone, NOTES, CAMERA), false);
    const from = phone.argvLog.length;
    const { ack, approval } = await heldThenAnswered(
      bound,
      'android_grant_permission',
      { package: NOTES, permission: CAMERA },
      'approve',
      isPm('grant'),
    );
    assert.deepEqual(approval.risk_classes, ['permission_change']);
    assert.equal(approval.risk, 'high');
    assert.deepEqual(approval.reasons, [
      { code: 'grants_permission', params: { permission: CAMERA, app: NOTES, package: NOTES } },
    ]);
    assert.deepEqual(approval.app, { package: NOTES, label: NOTES });
    assert.deepEqual(approval.arguments, { package: NOTES, permission: CAMERA });
    const granted = result(ack);
    assert.deepEqual(
      [granted.status, granted.package, granted.permission, granted.granted, granted.changed],
      ['granted', NOTES, CAMERA, true, true],
    );
    assert.equal(granted.safety.decided_by, 'admin');
    assert.deepEqual(phone.argvLog.slice(from).filter(isPm('grant')), [['pm', 'grant', NOTES, CAMERA]]);
    assert.equal(await grantedOnPhone(phone, NOTES, CAMERA), true);
  });

  test('revoke: approved, dumpsys package shows it revoked; denied, nothing runs', async () => {
    // Granted by hand first, so the test runs alone too.
    await phone.exec(`pm grant ${NOTES} ${CAMERA}`, { signal: new AbortController().signal });
    assert.equal(await grantedOnPhone(phone, NOTES, CAMERA), true);
    const revoked = result(
      (
        await heldThenAnswered(
          bound,
          'android_revoke_permission',
          { package: NOTES, permission: CAMERA },
          'approve',
          isPm('revoke'),
        )
      ).ack,
    );
    assert.deepEqual([revoked.status, revoked.granted, revoked.changed], ['revoked', false, true]);
    assert.equal(await grantedOnPhone(phone, NOTES, CAMERA), false);
    const from = phone.argvLog.length;
    const { ack, approval } = await heldThenAnswered(
      bound,
      'android_grant_permission',
      { package: NOTES, permission: 'android.permission.RECORD_AUDIO' },
      'deny',
      isPm('grant'),
    );
    assert.deepEqual(approval.risk_classes, ['permission_change']);
    assert.equal(ack.error?.code, 'approval_denied');
    assert.deepEqual(
      phone.argvLog.slice(from).filter((a) => a[0] === 'pm' || (a[0] === 'dumpsys' && a[1] === 'package')),
      [],
      'a denied call touches nothing',
    );
    assert.equal(await grantedOnPhone(phone, NOTES, 'android.permission.RECORD_AUDIO'), false);
  });

  test('what pm would not say: a permission the app does not request, one granted at install, an app that is not there', async () => {
    const from = phone.argvLog.length;
    const notRequested = (
      await heldThenAnswered(
        bound,
        'android_grant_permission',
        { package: NOTES, permission: 'android.permission.READ_CONTACTS' },
        'approve',
        isPm('grant'),
      )
    ).ack;
    assert.equal(notRequested.error?.code, 'invalid_arguments');
    assert.match(
      String(notRequested.error?.message),
      /com\.example\.notes does not request android\.permission\.READ_CONTACTS/,
    );
    const install = (
      await heldThenAnswered(
        bound,
        'android_revoke_permission',
        { package: NOTES, permission: 'android.permission.INTERNET' },
        'approve',
        isPm('revoke'),
      )
    ).ack;
    assert.match(String(install.error?.message), /install-time permission/);
    // Android 14's pm grant says nothing about an unknown package and exits 0.
    const missing = (
      await heldThenAnswered(
        bound,
        'android_grant_permission',
        { package: 'com.example.nothere', permission: CAMERA },
        'approve',
        isPm('grant'),
      )
    ).ack;
    assert.equal(missing.error?.code, 'app_not_found');
    assert.deepEqual(
      phone.argvLog.slice(from).filter((a) => a[0] === 'pm'),
      [],
      'pm never ran for any of them',
    );
  });

  test('names are checked at the edge: nothing is held, nothing runs', async () => {
    const from = phone.argvLog.length;
    for (const args of [
      { package: NOTES, permission: `${CAMERA}; reboot` },
      { package: `${NOTES} ${CAMERA}`, permission: CAMERA },
      { package: NOTES, permission: 'CAMERA' },
      { package: NOTES },
      { package: NOTES, permission: CAMERA, user: '10' },
    ]) {
      const ack = await invoke(bound.client, bound.channel, 'android_grant_permission', args);
      assert.equal(ack.error?.code, 'invalid_arguments', JSON.stringify(args));
    }
    assert.equal(
      (await invoke(bound.client, bound.channel, 'android_clear_app_data', { package: '-k com.example.notes' })).error
        ?.code,
      'invalid_arguments',
    );
    assert.deepEqual(await pendingApprovals(bound.rig.bridge), []);
    assert.deepEqual(phone.argvLog.slice(from), []);
  });

  test('clear data: held; approved, one pm clear, the saved note and the app’s grants are gone', async () => {
    const signal = new AbortController().signal;
    await phone.exec(`monkey -p ${NOTES} -c android.intent.category.LAUNCHER 1`, { signal });
    result(
      await invoke(bound.client, bound.channel, 'android_type_text', {
        element: { resource_id: 'note_text' },
        text: 'remember the milk',
        clear: true,
      }),
    );
    result(await invoke(bound.client, bound.channel, 'android_tap', { element: { resource_id: 'save_button' } }));
    result(
      (
        await heldThenAnswered(
          bound,
          'android_grant_permission',
          { package: NOTES, permission: CAMERA },
          'approve',
          isPm('grant'),
        )
      ).ack,
    );
    await phone.exec(`am force-stop ${NOTES}; monkey -p ${NOTES} -c android.intent.category.LAUNCHER 1`, { signal });
    assert.equal(phone.typedText('note_text'), 'remember the milk', 'saved before the clear');

    const from = phone.argvLog.length;
    const { ack, approval } = await heldThenAnswered(
      bound,
      'android_clear_app_data',
      { package: NOTES },
      'approve',
      isPm('clear'),
    );
    assert.deepEqual(approval.risk_classes, ['clear_app_data']);
    assert.match(reasonWords(approval).join(' '), /erases all data of com\.example\.notes/);
    assert.deepEqual(result(ack).status, 'cleared');
    assert.deepEqual(phone.argvLog.slice(from).filter(isPm('clear')), [['pm', 'clear', NOTES]]);
    assert.notEqual(phone.foregroundPackage(), NOTES, 'the app was stopped');
    result(await invoke(bound.client, bound.channel, 'android_launch_app', { package: NOTES }));
    assert.equal(phone.typedText('note_text') ?? '', '', 'no saved note comes back');
    assert.equal(await grantedOnPhone(phone, NOTES, CAMERA), false, 'its grants were reset');
  });

  test('a sensitive app adds its own class: clearing the wallet asks for both', async () => {
    const { ack, approval } = await heldThenAnswered(
      bound,
      'android_clear_app_data',
      { package: 'com.example.wallet' },
      'deny',
      isPm('clear'),
    );
    assert.deepEqual([...(approval.risk_classes as string[])].sort(), ['clear_app_data', 'sensitive_app']);
    assert.equal(ack.error?.code, 'approval_denied');
  });

  test('without the fast lane the clipboard is refused with the fix; setting it asks no one, reading it asks first', async () => {
    const from = phone.argvLog.length;
    const set = await invoke(bound.client, bound.channel, 'android_set_clipboard', { text: 'hello' });
    assert.equal(set.error?.code, 'fast_lane_required');
    assert.match(String(set.error?.fix), /Programs on this phone/);
    assert.match(String(set.error?.message), /no stock command reads or sets the clipboard/);
    const { ack: read, approval } = await heldThenAnswered(bound, 'android_read_clipboard', {}, 'approve', () => false);
    assert.deepEqual(approval.risk_classes, ['clipboard_read']);
    assert.equal(read.error?.code, 'fast_lane_required');
    assert.equal(phone.clipboard.text(), undefined);
    assert.deepEqual(
      phone.argvLog.slice(from).filter((a) => a[0] === 'helper' || a[0] === 'pm'),
      [],
      'nothing was installed or asked of a helper',
    );
  });
});

describe('the clipboard through the fast lane', () => {
  test('Android 9: set, then a read held for approval returns the same text; a denied read asks the helper nothing', async () => {
    await withInstalledHelper(
      {},
      async (bound, phone) => {
        const text = '验证码 482913 — paste me ✓';
        const from = phone.argvLog.length;
        const set = result(await invoke(bound.client, bound.channel, 'android_set_clipboard', { text }));
        assert.deepEqual([set.status, set.characters, set.lane], ['set', [...text].length, 'helper']);
        assert.equal(set.safety.decided_by, 'policy', 'setting the clipboard is ordinary control');
        assert.equal(phone.clipboard.text(), text);
        assert.equal(phone.clipboard.label(), 'xAgent', 'the text is not copied into the clip’s label');
        assert.equal(phone.argvLog.slice(from).filter(isClipboardRequest('set_clipboard')).length, 1);
        assert.ok(!JSON.stringify(phone.argvLog).includes('paste me'), 'the text is not in the argv log');

        const { ack, approval } = await heldThenAnswered(
          bound,
          'android_read_clipboard',
          {},
          'approve',
          isClipboardRequest('get_clipboard'),
        );
        assert.deepEqual(approval.risk_classes, ['clipboard_read']);
        assert.match(reasonWords(approval).join(' '), /password or a one-time code/);
        const read = result(ack);
        assert.deepEqual([read.status, read.text, read.lane], ['read', text, 'helper']);

        const before = phone.argvLog.length;
        const denied = (
          await heldThenAnswered(bound, 'android_read_clipboard', {}, 'deny', isClipboardRequest('get_clipboard'))
        ).ack;
        assert.equal(denied.error?.code, 'approval_denied');
        assert.deepEqual(phone.argvLog.slice(before).filter(isClipboardRequest('get_clipboard')), []);
      },
      { sdk: 28, androidVersion: '9' },
    );
  });

  test('Android 14: the helper may not read it, so the read is clipboard_unreadable with the fix, and the fix works', async () => {
    await withInstalledHelper({}, async (bound, phone) => {
      const text = 'one-time code 604217';
      result(await invoke(bound.client, bound.channel, 'android_set_clipboard', { text }));
      assert.equal(phone.clipboard.text(), text);
      const read = (
        await heldThenAnswered(bound, 'android_read_clipboard', {}, 'approve', isClipboardRequest('get_clipboard'))
      ).ack;
      assert.equal(read.error?.code, 'clipboard_unreadable');
      assert.match(String(read.error?.message), /Android 10 and later/);
      assert.match(String(read.error?.fix), /paste/);
      // The fix: the app in front pastes it into its field, and the tree shows it.
      result(await invoke(bound.client, bound.channel, 'android_launch_app', { package: NOTES }));
      result(await invoke(bound.client, bound.channel, 'android_tap', { element: { resource_id: 'note_text' } }));
      result(await invoke(bound.client, bound.channel, 'android_press_key', { key: 'paste' }));
      const tree = result(await invoke(bound.client, bound.channel, 'android_ui_tree', {}));
      assert.ok(
        (tree.nodes as Json[]).some((n) => n.text === text),
        JSON.stringify(tree.nodes),
      );
    });
  });
});

/**
 * Human approval and the safety policy, end to end: xAgent client → bridge → real adb server
 * → simulated phones. The phone's argv log proves what ran and what did not.
 *
 * One bridge for the file; each test gets a fresh channel (so a fresh lease: no grant of an
 * earlier test), the default policies and the phone on its home screen, and sets up the rest
 * itself, so any test passes run alone.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../main/core/logging/logger';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { TEST_ADMIN_TOKEN, TEST_API_KEY } from '../helpers/bridge';
import { XAgentClient } from '../helpers/xagent-client';
import {
  answerApproval,
  pendingApprovals as pendingOf,
  waitForApproval as approvalOf,
  reasonCodes,
  reasonWords,
} from '../helpers/approvals';

const APPROVAL_TIMEOUT_MS = 6_000;
const PASSWORD = 'Zebra!Quartz-7781';
const ACCESS_CODE = 'lab-7Q4Z-0912';

describe('approvals, policy and audit over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  /** Bound afresh before each test. */
  let channel = '';
  let deviceId: string;
  let defaultPolicies: Json;
  const logs: string[] = [];
  /** Signed-URL sigs the tests saw; the last test looks for every one of them. */
  const plantedSigs: string[] = [];
  let callN = 0;
  const callId = (name: string): string => `call_${name}_${process.pid}_${++callN}`;

  const argv = (): string[][] => rig.phones[0]!.argvLog;
  const ran = (from: number, match: (a: string[]) => boolean): boolean => argv().slice(from).some(match);
  const isInputTap = (a: string[]): boolean => a[0] === 'input' && a[1] === 'tap';
  const launchedWallet = (a: string[]): boolean =>
    a.includes('com.example.wallet') && (a[0] === 'monkey' || a[0] === 'am');

  const pendingApprovals = (): Promise<Json[]> => pendingOf(rig.bridge);
  const waitForApproval = (toolId: string): Promise<Json> => approvalOf(rig.bridge, toolId);
  const answer = (approvalId: string, decision: 'approve' | 'approve_for_lease' | 'deny'): Promise<void> =>
    answerApproval(rig.bridge, approvalId, decision);

  /** Runs a command line on the phone itself, past the bridge: test setup, not a call under test. */
  async function phoneShell(line: string): Promise<void> {
    const out = await rig.phones[0]!.exec(line, { signal: AbortSignal.timeout(10_000) });
    assert.equal(out.exitCode, 0, out.stderr.toString());
  }

  /** The wallet in front on its home screen (balance and Pay), started afresh. */
  async function walletHome(): Promise<void> {
    await phoneShell('am force-stop com.example.wallet');
    await phoneShell('am start -n com.example.wallet/com.example.wallet.WalletActivity');
    await waitUntil(
      () =>
        rig.phones[0]!.screenState().screen === 'home' && rig.phones[0]!.foregroundPackage() === 'com.example.wallet',
      5_000,
      'wallet home',
    );
  }

  /** The wallet's FLAG_SECURE payment confirmation in front: Pay tapped, the person approving it. */
  async function walletConfirm(): Promise<void> {
    await walletHome();
    const pay = invoke(client, channel, 'android_tap', { element: { resource_id: 'pay_button' } }, callId('setup-pay'));
    await answer(String((await waitForApproval('android_tap')).approval_id), 'approve');
    result(await pay);
    await waitUntil(() => rig.phones[0]!.screenState().screen === 'confirm', 5_000, 'payment confirmation');
  }

  /** This channel's audit entries, newest first. */
  async function channelAudit(): Promise<Json[]> {
    const res = await rig.bridge.admin(
      'GET',
      `/admin/api/audit?connector_channel_id=${encodeURIComponent(channel)}&limit=500`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.entries as Json[];
  }

  before(async () => {
    rig = await startDeviceRig(2, {
      approvalTimeoutMs: APPROVAL_TIMEOUT_MS,
      lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
      logger: createLogger({
        level: 'debug',
        write: (line) => logs.push(line),
        secrets: () => [TEST_API_KEY, TEST_ADMIN_TOKEN],
      }),
    });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    deviceId = rig.device(0).deviceId;
    const policies = await rig.bridge.admin('GET', '/admin/api/policies');
    assert.equal(policies.status, 200);
    defaultPolicies = policies.body;
  });
  beforeEach(async () => {
    // Revoking ends the previous test's lease, and with it any approval granted for the lease.
    if (channel !== '')
      assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    channel = await bindChannel(rig, client, deviceId);
    assert.equal((await rig.bridge.admin('PUT', '/admin/api/policies', defaultPolicies)).status, 200);
    await phoneShell('input keyevent KEYCODE_HOME');
    await waitUntil(
      () => rig.phones[0]!.screenState().package === 'com.google.android.apps.nexuslauncher',
      5_000,
      'home screen',
    );
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('launching the wallet is held with a screenshot, redacted arguments, reasons and a countdown; deny runs nothing', async () => {
    const from = argv().length;
    const mark = client.received.length;
    const denyId = callId('deny');
    const call = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' }, denyId);
    const approval = await waitForApproval('android_launch_app');
    assert.equal(approval.connector_channel_id, channel);
    assert.equal(approval.device_id, deviceId);
    assert.deepEqual(approval.arguments, { package: 'com.example.wallet' });
    assert.equal(approval.risk, 'high');
    assert.deepEqual(reasonCodes(approval), ['app_wallet'], JSON.stringify(approval.reasons));
    assert.deepEqual(reasonWords(approval), ['Wallet is a wallet app: it holds money and can pay']);
    // What the card's sentence is made of: the app opened, by its name.
    assert.deepEqual(approval.app, { package: 'com.example.wallet', label: 'Wallet' });
    assert.ok(
      approval.expires_at > approval.created_at && approval.expires_at - approval.created_at === APPROVAL_TIMEOUT_MS,
    );
    assert.match(String(approval.screenshot_url), /^\/console\/files\/refs\/file_[A-Za-z0-9_-]{32}\?exp=\d+&sig=/);
    const shot = await fetch(`${rig.bridge.url}${String(approval.screenshot_url)}`);
    assert.equal(shot.status, 200);
    assert.equal(shot.headers.get('content-type'), 'image/jpeg');
    const sig = new URL(String(approval.screenshot_url), rig.bridge.url).searchParams.get('sig') ?? '';
    assert.ok(sig.length > 20);
    plantedSigs.push(sig);
    const progress = await client.waitFor(
      (p) => p.type === 'tool.progress.push' && p.payload?.status === 'waiting_approval',
      5_000,
      mark,
    );
    assert.equal(progress.payload?.tool_id, 'android_launch_app');
    assert.equal(progress.connector_channel_id, channel);
    assert.ok(!ran(from, launchedWallet), 'nothing ran while held');

    await answer(String(approval.approval_id), 'deny');
    const ack = await call;
    assert.equal(ack.error?.code, 'approval_denied', JSON.stringify(ack));
    // A retry of the same tool_call_id gets the same answer without asking twice.
    const retried = await invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' }, denyId);
    assert.deepEqual(retried.error, ack.error);
    assert.ok(!ran(from, launchedWallet), 'a denied call never reaches the phone');
    assert.notEqual(rig.phones[0]!.foregroundPackage(), 'com.example.wallet');
    assert.deepEqual(await pendingApprovals(), []);
    const again = await rig.bridge.admin('POST', `/admin/api/approvals/${String(approval.approval_id)}`, {
      decision: 'approve',
    });
    assert.equal(again.status, 404);
    assert.equal((again.body.error as Json).code, 'approval_not_found');
    const bad = await rig.bridge.admin('POST', `/admin/api/approvals/${String(approval.approval_id)}`, {
      decision: 'yes',
    });
    assert.equal(bad.status, 400);
  });

  test('no answer before the deadline: approval_timeout, nothing ran', async () => {
    const from = argv().length;
    const started = Date.now();
    const ack = await invoke(
      client,
      channel,
      'android_launch_app',
      { package: 'com.example.wallet' },
      callId('timeout'),
    );
    const elapsed = Date.now() - started;
    assert.equal(ack.error?.code, 'approval_timeout', JSON.stringify(ack));
    assert.ok(elapsed >= APPROVAL_TIMEOUT_MS - 50, `ended after ${elapsed} ms`);
    assert.ok(elapsed < APPROVAL_TIMEOUT_MS + 5_000, `ended after ${elapsed} ms`);
    assert.ok(!ran(from, launchedWallet));
    assert.deepEqual(await pendingApprovals(), []);
    const audited = await channelAudit();
    assert.deepEqual(
      audited.map((e) => [e.error_code, e.decided_by]),
      [['approval_timeout', 'timeout']],
    );
  });

  test('approve runs it once; tapping Pay is held too; a retry of the same tool_call_id neither asks nor runs again', async () => {
    let from = argv().length;
    const launch = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' }, callId('approve'));
    await answer(String((await waitForApproval('android_launch_app')).approval_id), 'approve');
    const launched = result(await launch);
    assert.equal(launched.safety.decided_by, 'admin');
    assert.equal(launched.safety.risk, 'high');
    assert.ok((launched.safety.risk_classes as string[]).includes('sensitive_app'));
    assert.ok(ran(from, launchedWallet), 'the approved launch ran');
    await waitUntil(() => rig.phones[0]!.foregroundPackage() === 'com.example.wallet', 5_000, 'wallet in front');

    from = argv().length;
    const payId = callId('pay');
    const first = invoke(client, channel, 'android_tap', { element: { resource_id: 'pay_button' } }, payId);
    const approval = await waitForApproval('android_tap');
    assert.ok(reasonCodes(approval).includes('taps_money'), JSON.stringify(approval.reasons));
    assert.ok(
      reasonWords(approval).some((r) => /pay/i.test(r)),
      JSON.stringify(approval.reasons),
    );
    // The card's sentence and marker: the button's words and where it is, the wallet in front, the screen's size.
    const action = approval.action as Json;
    const target = action.target as Json;
    assert.equal(target.label, 'Pay $25.00');
    assert.equal((target.bounds as number[]).length, 4);
    assert.deepEqual(action.screen_size, { width: 1080, height: 2400 });
    assert.deepEqual(approval.app, { package: 'com.example.wallet', label: 'Wallet' });
    // A network retry while the call is held joins it: still one approval, nothing ran.
    const retry = invoke(client, channel, 'android_tap', { element: { resource_id: 'pay_button' } }, payId);
    // A changed call under the same id, sent after the retry on the same connection, is refused
    // at once; its answer is the signal that the retry has been taken in (no sleep).
    const changed = await invoke(client, channel, 'android_tap', { element: { resource_id: 'balance_label' } }, payId);
    assert.equal(changed.error?.code, 'idempotency_conflict', JSON.stringify(changed));
    assert.equal((await pendingApprovals()).length, 1);
    assert.ok(!ran(from, isInputTap));
    await answer(String(approval.approval_id), 'approve');
    const [a, b] = await Promise.all([first, retry]);
    assert.deepEqual(result(a), result(b));
    assert.equal(argv().slice(from).filter(isInputTap).length, 1, 'the pay tap ran exactly once');
    await waitUntil(() => rig.phones[0]!.screenState().screen === 'confirm', 5_000, 'payment confirmation');
    // A retry after it finished returns the stored ack without asking.
    const late = await invoke(client, channel, 'android_tap', { element: { resource_id: 'pay_button' } }, payId);
    assert.deepEqual(result(late), result(a));
    assert.deepEqual(await pendingApprovals(), []);
    assert.equal(argv().slice(from).filter(isInputTap).length, 1);
  });

  test('approve for the lease lets later calls of the same risk classes through; a new class still asks', async () => {
    // On the FLAG_SECURE confirmation screen of the wallet: sensitive_app + secure_screen.
    await walletConfirm();
    let from = argv().length;
    const cancel = invoke(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'cancel_button' } },
      callId('cancel'),
    );
    const approval = await waitForApproval('android_tap');
    assert.ok(reasonCodes(approval).includes('secure_screen'), JSON.stringify(approval.reasons));
    assert.ok(!ran(from, isInputTap), 'held');
    await answer(String(approval.approval_id), 'approve_for_lease');
    assert.equal(result(await cancel).safety.decided_by, 'admin_for_lease');
    await waitUntil(() => rig.phones[0]!.screenState().screen === 'home', 5_000, 'wallet home');

    // Same classes (sensitive_app) on this lease: runs without asking.
    from = argv().length;
    const balance = await invoke(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'balance_label' } },
      callId('balance'),
    );
    assert.equal(result(balance).safety.decided_by, 'lease_approval');
    assert.ok(ran(from, isInputTap));

    // Pay adds sensitive_screen, which this lease never approved: asked again. Deny.
    from = argv().length;
    const pay = invoke(client, channel, 'android_tap', { element: { resource_id: 'pay_button' } }, callId('pay2'));
    await answer(String((await waitForApproval('android_tap')).approval_id), 'deny');
    assert.equal((await pay).error?.code, 'approval_denied');
    assert.ok(!ran(from, isInputTap));
    assert.equal(rig.phones[0]!.screenState().screen, 'home');

    // The grant ends with the lease: revoke, authenticate the same channel again, and the
    // same kind of call asks again.
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channel);
    const sessionId = String(started.payload?.auth_session_id);
    const approved = await rig.bridge.admin('POST', `/admin/api/pairings/${sessionId}`, {
      action: 'approve',
      device_id: deviceId,
      code: started.payload?.qr_code_text,
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(
      (await client.request('auth.status', { flow_id: 'desktop_approval', auth_session_id: sessionId }, channel))
        .payload?.status,
      'authenticated',
    );
    await waitUntil(() => rig.bridge.core.bindings.activeBinding(channel) !== undefined, 5_000, 'bound again');
    from = argv().length;
    const again = invoke(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'balance_label' } },
      callId('balance2'),
    );
    await answer(String((await waitForApproval('android_tap')).approval_id), 'deny');
    assert.equal((await again).error?.code, 'approval_denied');
    assert.ok(!ran(from, isInputTap));
  });

  test('policy deny refuses without asking; allow runs without asking; PUT is validated strictly', async () => {
    const initial = await rig.bridge.admin('GET', '/admin/api/policies');
    assert.equal(initial.status, 200);
    assert.equal((initial.body.defaults as Json).sensitive_app, 'ask');
    assert.equal((initial.body.defaults as Json).install_app, 'ask');

    const invalid = await rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: { sensitive_app: 'sometimes' },
      per_device: {},
      sensitive_apps: [],
    });
    assert.equal(invalid.status, 400);
    assert.equal((invalid.body.error as Json).code, 'invalid_arguments');
    const unknownClass = await rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: { payments: 'ask' },
      per_device: {},
      sensitive_apps: [],
    });
    assert.equal(unknownClass.status, 400);
    const badApp = await rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: {},
      per_device: {},
      sensitive_apps: ['rm -rf /'],
    });
    assert.equal(badApp.status, 400);

    await walletHome();
    const deny = await rig.bridge.admin('PUT', '/admin/api/policies', {
      ...initial.body,
      per_device: { [deviceId]: { sensitive_app: 'deny' } },
    });
    assert.equal(deny.status, 200, JSON.stringify(deny.body));
    let from = argv().length;
    const refused = await invoke(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'pay_button' } },
      callId('policy-deny'),
    );
    assert.equal(refused.error?.code, 'policy_denied', JSON.stringify(refused));
    assert.match(String(refused.error?.message), /wallet/i);
    assert.ok(!ran(from, isInputTap));
    assert.deepEqual(await pendingApprovals(), []);

    const allow = await rig.bridge.admin('PUT', '/admin/api/policies', {
      ...initial.body,
      per_device: { [deviceId]: { sensitive_app: 'allow', sensitive_screen: 'allow' } },
    });
    assert.equal(allow.status, 200);
    assert.deepEqual((allow.body.per_device as Json)[deviceId], { sensitive_app: 'allow', sensitive_screen: 'allow' });
    from = argv().length;
    const mark = client.received.length;
    const paid = await invoke(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'pay_button' } },
      callId('policy-allow'),
    );
    const safety = result(paid).safety;
    assert.equal(safety.decision, 'allow');
    assert.equal(safety.decided_by, 'policy');
    assert.ok((safety.reasons as string[]).length > 0, 'reasons are explicit even when allowed');
    assert.ok(ran(from, isInputTap));
    assert.ok(
      !client.received
        .slice(mark)
        .some((p) => p.type === 'tool.progress.push' && p.payload?.status === 'waiting_approval'),
      'not asked',
    );
    // Back out of the confirmation screen: escape keys never ask.
    const back = await invoke(client, channel, 'android_press_key', { key: 'back' }, callId('back'));
    assert.equal(result(back).safety.decided_by, 'policy');
    const reset = await rig.bridge.admin('PUT', '/admin/api/policies', initial.body);
    assert.equal(reset.status, 200);
    assert.deepEqual(reset.body.per_device, {});
  });

  test('a password field’s text is held, never shown, typed after approval; access codes and keys are redacted', async () => {
    const set = await rig.bridge.admin('POST', '/admin/api/access-codes', {
      scope: '*',
      code: ACCESS_CODE,
      require_approval: false,
    });
    assert.equal(set.status, 200);
    await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home'));
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.login' }, callId('login')));
    // The username field is not a password field: no approval; the access code typed there is redacted in the audit.
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'username' }, text: ACCESS_CODE },
        callId('user'),
      ),
    );
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'username' }, text: `alice ${TEST_API_KEY}`, clear: true },
        callId('user2'),
      ),
    );
    assert.equal(rig.phones[0]!.typedText('username'), `alice ${TEST_API_KEY}`);

    const from = argv().length;
    const typing = invoke(
      client,
      channel,
      'android_type_text',
      { element: { resource_id: 'password' }, text: PASSWORD },
      callId('password'),
    );
    const approval = await waitForApproval('android_type_text');
    assert.equal((approval.arguments as Json).text, '[redacted]');
    assert.ok(
      reasonWords(approval).some((r) => /password field/.test(r)),
      JSON.stringify(approval.reasons),
    );
    assert.ok(!JSON.stringify(await pendingApprovals()).includes(PASSWORD));
    assert.ok(!ran(from, (a) => a.join(' ').includes(PASSWORD)));
    await answer(String(approval.approval_id), 'approve');
    const typed = result(await typing);
    assert.ok(!JSON.stringify(typed).includes(PASSWORD), 'the result does not echo the text');
    assert.equal(rig.phones[0]!.typedText('password'), PASSWORD);

    // A batch judged on the home screen opens the login page, then types into its password
    // field: the field was not on the screen the batch was judged on, so the batch stops
    // before typing, and nothing asks or types behind the person's back.
    const SECOND = 'Other!Secret-4242';
    await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home2'));
    const beforeBatch = argv().length;
    const batch = result(
      await invoke(
        client,
        channel,
        'android_batch',
        {
          steps: [
            { tool: 'android_launch_app', arguments: { package: 'com.example.login' } },
            {
              tool: 'android_type_text',
              arguments: { element: { resource_id: 'password' }, text: SECOND, clear: true },
            },
          ],
        },
        callId('batch-password'),
      ),
    );
    assert.equal(batch.status, 'stopped_on_error', JSON.stringify(batch));
    assert.equal(batch.completed, 1);
    assert.equal(batch.steps[1].error.code, 'approval_required');
    assert.match(String(batch.steps[1].error.message), /password field/);
    assert.ok(!ran(beforeBatch, (a) => a.join(' ').includes(SECOND)), 'the password was never sent to the phone');
    assert.equal(rig.phones[0]!.typedText('password'), PASSWORD, 'the field still holds what was approved before');
    assert.ok(!JSON.stringify(await pendingApprovals()).includes('android_batch'));

    // A signed URL (its sig is a credential) opened on the phone: the audit keeps the URL without sig.
    const shot = result(await invoke(client, channel, 'android_screenshot', {}, callId('shot')));
    const signed = `${rig.bridge.url}${String(shot.download_url)}`;
    const shotSig = new URL(signed).searchParams.get('sig') ?? '';
    plantedSigs.push(shotSig);
    assert.ok(shotSig.length > 20);
    result(await invoke(client, channel, 'android_open_url', { url: signed }, callId('url')));
    const audit = await rig.bridge.admin('GET', `/admin/api/audit?device_id=${encodeURIComponent(deviceId)}&limit=5`);
    const opened = (audit.body.entries as Json[]).find((e) => e.tool_id === 'android_open_url');
    assert.ok(opened, 'open_url audited');
    assert.match(String(opened.arguments.url), /sig=\[redacted\]/);
    assert.ok(!JSON.stringify(audit.body).includes(shotSig));
  });

  test('the stop button cancels a held call and three queued ones; none of them runs', async () => {
    result(await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home2')));
    const from = argv().length;
    // A non-web link: its class (non_web_url) was never approved for this lease.
    const link = 'market://details?id=com.example.stop';
    const held = invoke(client, channel, 'android_open_url', { url: link }, callId('stop-held'));
    const approval = await waitForApproval('android_open_url');
    assert.ok(reasonCodes(approval).includes('non_web_url'), JSON.stringify(approval.reasons));
    const queued = [1, 2, 3].map((i) =>
      invoke(client, channel, 'android_tap', { x: 100 + i, y: 500 }, callId(`stop-queued-${i}`)),
    );
    await waitUntil(
      () => rig.bridge.core.tools.queue.stats(deviceId).queued === 3,
      5_000,
      'three calls queued behind the held one',
    );
    const stop = await rig.bridge.admin('POST', `/admin/api/devices/${encodeURIComponent(deviceId)}/stop`);
    assert.equal(stop.status, 200);
    assert.equal(stop.body.canceled, 4);
    const acks = await Promise.all([held, ...queued]);
    assert.deepEqual(
      acks.map((a) => a.error?.code),
      ['canceled', 'canceled', 'canceled', 'canceled'],
    );
    assert.ok(!ran(from, (a) => a.includes(link)) && !ran(from, isInputTap), JSON.stringify(argv().slice(from)));
    await waitUntil(() => rig.bridge.core.tools.queue.stats(deviceId).running === 0, 5_000, 'queue idle');
    assert.deepEqual(await pendingApprovals(), []);
    assert.equal(
      (await channelAudit()).filter((e) => e.error_code === 'canceled').length,
      4,
      'each canceled call is audited',
    );
    const gone = await rig.bridge.admin('POST', `/admin/api/approvals/${String(approval.approval_id)}`, {
      decision: 'approve',
    });
    assert.equal(gone.status, 404);
    // The phone still works afterwards.
    result(await invoke(client, channel, 'android_tap', { x: 50, y: 600 }, callId('after-stop')));
  });

  test('tapping the Wallet icon on the home screen is held like launching it', async () => {
    result(await invoke(client, channel, 'android_press_key', { key: 'home' }, callId('home3')));
    const from = argv().length;
    const call = invoke(client, channel, 'android_tap', { element: { content_desc: 'Wallet' } }, callId('icon'));
    const approval = await waitForApproval('android_tap');
    assert.ok(reasonCodes(approval).includes('opens_from_home'), JSON.stringify(approval.reasons));
    await answer(String(approval.approval_id), 'deny');
    assert.equal((await call).error?.code, 'approval_denied');
    assert.ok(!ran(from, isInputTap));
    assert.notEqual(rig.phones[0]!.foregroundPackage(), 'com.example.wallet');
  });

  test('a non-web link is held; approved, it opens the app store', async () => {
    const link = 'market://details?id=com.example.approved';
    const from = argv().length;
    const call = invoke(client, channel, 'android_open_url', { url: link }, callId('market'));
    const approval = await waitForApproval('android_open_url');
    assert.deepEqual(approval.risk_classes, ['non_web_url']);
    assert.ok(!ran(from, (a) => a.includes(link)));
    await answer(String(approval.approval_id), 'approve');
    assert.equal(result(await call).safety.decided_by, 'admin');
    assert.ok(ran(from, (a) => a[0] === 'am' && a.includes(link)));
    assert.equal(rig.phones[0]!.foregroundPackage(), 'com.android.vending');
    const refused = await invoke(
      client,
      channel,
      'android_open_url',
      { url: 'file:///sdcard/secret.txt' },
      callId('file'),
    );
    assert.equal(refused.error?.code, 'invalid_arguments');
  });

  test('the audit trail: every call with decision, who decided, outcome; the approver’s screenshot kept; JSON-lines export', async () => {
    // On this test's channel: one call the person refuses, one they approve, one the policy refuses.
    const denied = invoke(
      client,
      channel,
      'android_launch_app',
      { package: 'com.example.wallet' },
      callId('audit-deny'),
    );
    await answer(String((await waitForApproval('android_launch_app')).approval_id), 'deny');
    assert.equal((await denied).error?.code, 'approval_denied');
    const allowed = invoke(
      client,
      channel,
      'android_launch_app',
      { package: 'com.example.wallet' },
      callId('audit-approve'),
    );
    await answer(String((await waitForApproval('android_launch_app')).approval_id), 'approve');
    result(await allowed);
    const deny = await rig.bridge.admin('PUT', '/admin/api/policies', {
      ...defaultPolicies,
      per_device: { [deviceId]: { sensitive_app: 'deny' } },
    });
    assert.equal(deny.status, 200, JSON.stringify(deny.body));
    const refused = await invoke(
      client,
      channel,
      'android_launch_app',
      { package: 'com.example.wallet' },
      callId('audit-policy'),
    );
    assert.equal(refused.error?.code, 'policy_denied');

    const entries = await channelAudit();
    const byCall = (pred: (e: Json) => boolean): Json[] => entries.filter(pred);
    assert.equal(entries.length, 3, JSON.stringify(entries));
    assert.ok(
      entries.every((e) => e.device_id === deviceId && typeof e.id === 'string' && typeof e.duration_ms === 'number'),
    );
    assert.ok(entries[0]!.time >= entries[entries.length - 1]!.time, 'newest first');
    assert.equal(byCall((e) => e.error_code === 'approval_denied' && e.decided_by === 'admin').length, 1);
    assert.equal(byCall((e) => e.error_code === 'policy_denied' && e.decided_by === 'policy').length, 1);
    const approved = byCall((e) => e.decided_by === 'admin' && e.decision === 'allow' && e.outcome === 'ok');
    assert.equal(approved.length, 1);
    assert.equal(approved[0]!.risk, 'high');
    assert.match(String(approved[0]!.screenshot_ref), /^shot_appr_[A-Za-z0-9_-]+\.jpg$/);
    const screen = await fetch(`${rig.bridge.url}/admin/api/audit/screens/${String(approved[0]!.screenshot_ref)}`, {
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    assert.equal(screen.status, 200);
    assert.equal(screen.headers.get('content-type'), 'image/jpeg');
    assert.ok((await screen.arrayBuffer()).byteLength > 100);
    const unauth = await fetch(`${rig.bridge.url}/admin/api/audit/screens/${String(approved[0]!.screenshot_ref)}`);
    assert.equal(unauth.status, 401);

    const limited = await rig.bridge.admin(
      'GET',
      `/admin/api/audit?connector_channel_id=${encodeURIComponent(channel)}&limit=2`,
    );
    assert.deepEqual(
      (limited.body.entries as Json[]).map((e) => e.id),
      entries.slice(0, 2).map((e) => e.id),
      'the newest two',
    );
    const badLimit = await rig.bridge.admin('GET', '/admin/api/audit?limit=0');
    assert.equal(badLimit.status, 400);

    const byDevice = await rig.bridge.admin(
      'GET',
      `/admin/api/audit?device_id=${encodeURIComponent(deviceId)}&limit=500`,
    );
    const deviceEntries = byDevice.body.entries as Json[];
    const exported = await fetch(
      `${rig.bridge.url}/admin/api/audit?format=jsonl&device_id=${encodeURIComponent(deviceId)}`,
      { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
    );
    assert.equal(exported.status, 200);
    assert.match(String(exported.headers.get('content-type')), /^application\/x-ndjson/);
    const lines = (await exported.text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Json);
    assert.equal(lines.length, deviceEntries.length);
    assert.deepEqual(
      lines.map((l) => l.id),
      deviceEntries.map((e) => e.id).reverse(),
      'oldest first, the same entries',
    );
  });

  test('the screen read reuses the tree an action observed, while the same window stays in front', async () => {
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }, callId('notes')));
    const dumps = (from: number): number =>
      argv()
        .slice(from)
        .filter((a) => a[0] === 'uiautomator').length;
    let from = argv().length;
    const tapped = result(
      await invoke(
        client,
        channel,
        'android_tap',
        { element: { resource_id: 'note_text' }, observe: true },
        callId('note-tap'),
      ),
    );
    assert.equal(tapped.safety.decision, 'allow');
    assert.ok(dumps(from) >= 2, 'first action: the gate dumps, the tool resolves and observes');
    // The observed tree is the screen after the tap and the window is unchanged: no new dump.
    from = argv().length;
    const typed = result(
      await invoke(client, channel, 'android_type_text', { text: 'groceries' }, callId('note-type')),
    );
    assert.equal(typed.safety.decision, 'allow');
    assert.equal(dumps(from), 0, JSON.stringify(argv().slice(from)));
    assert.ok(
      argv()
        .slice(from)
        .some((a) => a[0] === 'dumpsys'),
      'the window in front is still read',
    );
    // That call did not observe: the cached tree may be stale, so the next call dumps again.
    from = argv().length;
    result(await invoke(client, channel, 'android_swipe', { direction: 'up' }, callId('note-swipe')));
    assert.equal(dumps(from), 1);
  });

  test('no planted secret anywhere in the data dir or the logs', async () => {
    // Every kind of secret goes through the bridge once more here, so this test stands alone;
    // the sigs earlier tests saw are looked for too.
    assert.equal(
      (
        await rig.bridge.admin('POST', '/admin/api/access-codes', {
          scope: '*',
          code: ACCESS_CODE,
          require_approval: false,
        })
      ).status,
      200,
    );
    result(
      await invoke(client, channel, 'android_launch_app', { package: 'com.example.login' }, callId('plant-login')),
    );
    result(
      await invoke(
        client,
        channel,
        'android_type_text',
        { element: { resource_id: 'username' }, text: `${ACCESS_CODE} ${TEST_API_KEY}`, clear: true },
        callId('plant-user'),
      ),
    );
    const typing = invoke(
      client,
      channel,
      'android_type_text',
      { element: { resource_id: 'password' }, text: PASSWORD, clear: true },
      callId('plant-password'),
    );
    const approval = await waitForApproval('android_type_text');
    await answer(String(approval.approval_id), 'approve');
    result(await typing);
    const shot = result(await invoke(client, channel, 'android_screenshot', {}, callId('plant-shot')));
    result(
      await invoke(
        client,
        channel,
        'android_open_url',
        { url: `${rig.bridge.url}${String(shot.download_url)}` },
        callId('plant-url'),
      ),
    );
    const sigOf = (path: unknown): string => new URL(String(path), rig.bridge.url).searchParams.get('sig') ?? '';
    const sigs = [sigOf(approval.screenshot_url), sigOf(shot.download_url), ...plantedSigs];
    assert.ok(
      sigs.every((sig) => sig.length > 20),
      JSON.stringify(sigs),
    );

    // The audit flushes before it answers.
    await rig.bridge.admin('GET', '/admin/api/audit?limit=1');
    const secrets: Array<[string, string]> = [
      ['API key', TEST_API_KEY],
      ['admin token', TEST_ADMIN_TOKEN],
      ['access code', ACCESS_CODE],
      ['password text', PASSWORD],
      ...sigs.map((sig, i): [string, string] => [`signed URL sig ${i}`, sig]),
    ];
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else files.push(path);
      }
    };
    walk(rig.bridge.dataDir);
    assert.ok(
      files.some((f) => f.endsWith('audit.jsonl')),
      'the audit trail is in the data dir',
    );
    assert.ok(
      logs.some((l) => /held for approval/.test(l)),
      'logs were captured',
    );
    assert.deepEqual(client.invalid, [], 'every packet (waiting_approval progress included) follows the packet schema');
    for (const [what, secret] of secrets) {
      for (const file of files) assert.ok(!readFileSync(file).includes(secret), `${what} found in ${file}`);
      assert.ok(!logs.some((l) => l.includes(secret)), `${what} found in the logs`);
    }
  });
});

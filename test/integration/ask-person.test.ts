/**
 * The agent asks the person to take the phone over (issue #26, docs/REFERENCE.md "Ask the
 * person"), through the real adb server: the ask waits and pushes progress, the admin state
 * shows it, the person takes the phone (the agent's tap answers human_in_control; a screenshot
 * works only when the person let the agent watch) and hands it back with a note the agent's call returns. Declined, timed out, stopped,
 * a second ask, and a take-over that approves nothing: a wallet launch after the hand-back is
 * still held for approval.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { answerApproval, waitForApproval } from '../helpers/approvals';
import { untilAnnounced } from '../helpers/until-announced';

type Json = Record<string, any>;

const APPROVAL_TIMEOUT_MS = 20_000;

describe('the agent asks the person to take the phone over', () => {
  let bound: BoundRig | undefined;

  before(async () => {
    bound = await startBoundRig({ approvalTimeoutMs: APPROVAL_TIMEOUT_MS });
  });
  after(() => bound?.stop());

  const deviceId = (): string => bound!.rig.device(0).deviceId;
  const admin = async (method: 'GET' | 'POST', path: string, body?: Json): Promise<{ status: number; body: Json }> => {
    const res = await bound!.rig.bridge.admin(method, path, body);
    return { status: res.status, body: res.body };
  };
  const takeover = (body: Json): Promise<{ status: number; body: Json }> =>
    admin('POST', `/admin/api/devices/${deviceId()}/takeover`, body);
  const decline = (body: Json): Promise<{ status: number; body: Json }> =>
    admin('POST', `/admin/api/devices/${deviceId()}/ask/decline`, body);
  const adminDevice = async (): Promise<Json> =>
    ((await admin('GET', '/admin/api/state')).body.devices as Json[]).find((d) => d.device_id === deviceId())!;
  /** The phone's ask once the admin state shows it, read again on each state announcement as the console does. */
  const askShown = async (): Promise<Json> =>
    (
      await untilAnnounced(
        bound!.rig.bridge,
        'state',
        adminDevice,
        (d) => d.ask !== null && d.ask !== undefined,
        'the ask in the admin state',
      )
    ).ask as Json;
  const progress = (status: string, from: number): Promise<Json> =>
    bound!.client.waitFor(
      (p) =>
        p.type === 'tool.progress.push' && p.connector_channel_id === bound!.channel && p.payload?.status === status,
      10_000,
      from,
    );
  const taps = (): number => bound!.rig.phones[0]!.argvLog.filter((a) => a.join(' ').includes('input tap')).length;
  const ask = (args: Json): ReturnType<typeof invoke> =>
    invoke(bound!.client, bound!.channel, 'android_ask_person', args);

  test('round trip: progress while waiting, the person takes over, the agent’s tap is refused, the hand-back note comes back', async () => {
    const { client, channel } = bound!;
    const from = client.received.length;
    const asked = ask({ reason: 'log in to the test account' });

    const waiting = await progress('waiting_person', from);
    assert.equal(waiting.payload?.tool_id, 'android_ask_person');
    assert.match(
      String(waiting.payload?.message),
      /waiting for the person to take the phone over: \d+ s so far, \d+ s left/,
    );
    const shown = await askShown();
    assert.equal(shown.reason, 'log in to the test account');
    assert.equal(shown.connector_channel_id, channel);
    assert.equal(shown.taken_at, null);
    assert.ok(shown.expires_at - shown.asked_at === APPROVAL_TIMEOUT_MS, JSON.stringify(shown));

    // One ask per phone: a second one is refused at once.
    const second = await ask({ reason: 'type the PIN' });
    assert.equal(second.error?.code, 'ask_pending', JSON.stringify(second));

    // The person lets the agent watch: its screen reads still work, its taps do not.
    const taken = await takeover({ action: 'take', agent_may_watch: true });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const holding = await progress('person_in_control', from);
    assert.match(String(holding.payload?.message), /the person holds the phone \(\d+ s\); waiting for the hand-back/);
    assert.notEqual((await adminDevice()).ask?.taken_at, null);

    const tapsBefore = taps();
    const tap = await invoke(client, channel, 'android_tap', { x: 100, y: 200 });
    assert.equal(tap.error?.code, 'human_in_control');
    const shot = await invoke(client, channel, 'android_screenshot');
    assert.equal(shot.error, undefined, JSON.stringify(shot.error));
    assert.equal(taps(), tapsBefore, 'no agent tap reached the phone');

    const back = await takeover({ action: 'hand_back', note: 'logged in as test@example.com' });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const answer = await asked;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const result = answer.payload?.result as Json;
    assert.equal(result.status, 'handed_back');
    assert.equal(result.note, 'logged in as test@example.com');
    assert.ok(Number.isInteger(result.held_ms) && result.held_ms >= 0, JSON.stringify(result));
    assert.ok(Number.isInteger(result.waited_ms) && result.waited_ms >= 0, JSON.stringify(result));
    assert.equal((await adminDevice()).ask, null);

    // Handed back, the agent's taps work again.
    assert.equal((await invoke(client, channel, 'android_tap', { x: 100, y: 200 })).error, undefined);
    assert.equal(taps(), tapsBefore + 1);
  });

  test('declined: the agent gets person_declined with the person’s reason; nothing is held', async () => {
    const asked = ask({ reason: 'solve the captcha' });
    await askShown();
    const res = await decline({ reason: 'not now, in a meeting' });
    assert.deepEqual(res.body, { status: 'declined' });
    const answer = await asked;
    assert.equal(answer.error?.code, 'person_declined');
    assert.match(String(answer.error?.message), /not now, in a meeting/);
    assert.equal((await adminDevice()).ask, null);
    assert.equal((await adminDevice()).taken_over, null);
    // Nothing to decline any more.
    const late = await decline({});
    assert.equal(late.status, 404, JSON.stringify(late.body));
    assert.equal(late.body.error?.code, 'approval_not_found');
  });

  test('timeout: nobody answers within timeout_s, the call ends with approval_timeout; a longer timeout than the bridge’s is refused', async () => {
    const started = Date.now();
    const answer = await ask({ reason: 'accept the consent screen', timeout_s: 1 });
    const elapsed = Date.now() - started;
    assert.equal(answer.error?.code, 'approval_timeout', JSON.stringify(answer));
    assert.ok(elapsed >= 950 && elapsed < 8000, `ended after ${elapsed} ms`);
    assert.equal((await adminDevice()).ask, null);

    const tooLong = await ask({ reason: 'type the PIN', timeout_s: APPROVAL_TIMEOUT_MS / 1000 + 1 });
    assert.equal(tooLong.error?.code, 'invalid_arguments', JSON.stringify(tooLong));
    const tooWordy = await ask({ reason: 'x'.repeat(201) });
    assert.equal(tooWordy.error?.code, 'invalid_arguments', JSON.stringify(tooWordy));
  });

  test('canceled: Stop at the computer ends the waiting ask with canceled', async () => {
    const asked = ask({ reason: 'enter the PIN' });
    await askShown();
    const stop = await admin('POST', `/admin/api/devices/${deviceId()}/stop`);
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    const answer = await asked;
    assert.equal(answer.error?.code, 'canceled', JSON.stringify(answer));
    assert.equal((await adminDevice()).ask, null);
  });

  test('a take-over approves nothing: after the hand-back, launching the wallet still waits for its approval', async () => {
    const { client, channel } = bound!;
    const phone = bound!.rig.phones[0]!;
    const asked = ask({ reason: 'log in to the wallet' });
    await askShown();
    assert.equal((await takeover({ action: 'take' })).status, 200);
    // Not let to watch: the agent sees nothing of the wallet login while the person holds the phone.
    const shot = await invoke(client, channel, 'android_screenshot');
    assert.equal(shot.error?.code, 'human_in_control', JSON.stringify(shot));
    assert.match(String(shot.error?.message), /wait for the hand-back/);
    assert.equal((await takeover({ action: 'hand_back' })).status, 200);
    const answer = await asked;
    assert.equal((answer.payload?.result as Json).note, null);

    const launch = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' });
    const approval = await waitForApproval(bound!.rig.bridge, 'android_launch_app');
    assert.equal(phone.foregroundPackage() === 'com.example.wallet', false, 'not launched before the approval');
    await answerApproval(bound!.rig.bridge, approval, 'deny');
    assert.equal((await launch).error?.code, 'approval_denied');
    assert.notEqual(phone.foregroundPackage(), 'com.example.wallet');
  });

  test('the audit has the ask, the take-over, the decline and the hand-back', async () => {
    const entries = (await admin('GET', '/admin/api/audit?limit=200')).body.entries as Json[];
    const asks = entries.filter((e) => e.tool_id === 'ask_person');
    assert.ok(asks.length >= 4, JSON.stringify(asks));
    assert.ok(asks.some((e) => e.arguments.reason === 'log in to the test account' && e.decided_by === 'bridge'));
    const declined = entries.find((e) => e.tool_id === 'ask_declined');
    assert.equal(declined?.decided_by, 'person');
    assert.equal(declined?.error_code, 'person_declined');
    assert.equal(declined?.arguments.reason, 'not now, in a meeting');
    assert.equal(entries.find((e) => e.tool_id === 'ask_timed_out')?.error_code, 'approval_timeout');
    assert.equal(entries.find((e) => e.tool_id === 'ask_canceled')?.error_code, 'canceled');
    assert.ok(entries.some((e) => e.tool_id === 'take_over' && e.decided_by === 'person'));
    assert.ok(entries.some((e) => e.tool_id === 'hand_back' && e.arguments.note === 'logged in as test@example.com'));
  });

  // Last: it ends the lease the other tests use.
  test('the lease ends: the waiting ask ends with canceled and leaves the admin state', async () => {
    const asked = ask({ reason: 'scan the QR code' });
    await askShown();
    const revoke = await admin('POST', `/admin/api/channels/${bound!.channel}/revoke`);
    assert.equal(revoke.status, 200, JSON.stringify(revoke.body));
    await untilAnnounced(bound!.rig.bridge, 'state', adminDevice, (d) => d.ask === null, 'the ask gone');
    const answer = await asked;
    assert.equal(answer.error?.code, 'canceled', JSON.stringify(answer));
  });
});

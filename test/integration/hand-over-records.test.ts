/**
 * The hand-over and its records (#36 point 6), through a real adb server and simulated phones:
 * a tool_call_id replayed after the channel was bound to another phone runs there; a pushed
 * file never replaces one the lease did not create (so the reset cannot delete the person's);
 * whether a reset runs is the phone's policy, not the flow an agent chose; launches inside
 * android_batch are recorded for the reset; an app the lease installed is uninstalled for the
 * user it was installed for, so a work profile's own copy stays; an app that came another way
 * during the lease (the store) is new at its end and removed too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { result, type Json } from '../helpers/acks';

const NOTES = 'com.example.notes';
const ALL_PHONES_CODE = 'lab-every-phone-1';
const LAB_CODE = 'lab-own-phone-1';

describe('the hand-over and its records', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  /** Phone 0 is a lab phone (a code of its own); phone 1 is the person's own (only the code for every phone covers it). */
  let lab: string;
  let own: string;

  async function upload(channel: string, filename: string, data: string): Promise<string> {
    const form = new FormData();
    form.append('file', new Blob([data], { type: 'text/plain' }), filename);
    const res = await fetch(`${rig.bridge.url}/files/uploads`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rig.bridge.apiKey}`, 'X-XAgent-Connector-Channel-ID': channel },
      body: form,
    });
    assert.equal(res.status, 200, await res.clone().text());
    return String(((await res.json()) as { file_ref: string }).file_ref);
  }
  async function claim(deviceId: string, code: string): Promise<string> {
    const opened = await client.openChannel('');
    const channel = String(opened.payload?.connector_channel_id);
    const name = String(
      ((await rig.bridge.admin('GET', '/admin/api/state')).body.devices as Json[]).find(
        (d) => d.device_id === deviceId,
      )!.display_name,
    );
    const ack = await client.request(
      'auth.start',
      { flow_id: 'device_claim', input: { device: name, access_code: code } },
      channel,
    );
    assert.equal((ack.payload as Json).status, 'authenticated', JSON.stringify(ack.payload));
    return channel;
  }
  async function logout(channel: string, deviceId: string): Promise<void> {
    assert.equal((await client.request('auth.logout', {}, channel)).payload?.status, 'ok');
    await waitUntil(
      () =>
        !rig.bridge.core.bindings.leaseHolder(deviceId) && rig.bridge.core.bindings.binding(channel)?.ended !== null,
      10_000,
      'lease ended',
    );
  }

  const turnoverOf = async (deviceId: string): Promise<Json | null> =>
    (((await rig.bridge.admin('GET', '/admin/api/state')).body.devices as Json[]).find((d) => d.device_id === deviceId)!
      .turnover as Json | null) ?? null;
  /** The phone's last reset once it finished. */
  async function finishedTurnover(deviceId: string): Promise<Json> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const report = await turnoverOf(deviceId);
      if (report && report.state !== 'running' && report.state !== 'waiting') return report;
      if (Date.now() > deadline) throw new Error(`no finished reset: ${JSON.stringify(report)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  before(async () => {
    rig = await startDeviceRig(2);
    lab = rig.device(0).deviceId;
    own = rig.device(1).deviceId;
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    for (const [scope, code] of [
      ['*', ALL_PHONES_CODE],
      [lab, LAB_CODE],
    ] as const) {
      const made = await rig.bridge.admin('POST', '/admin/api/access-codes', { scope, code, require_approval: false });
      assert.equal(made.status, 200, JSON.stringify(made.body));
    }
    const policy = await rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: { install_app: 'allow', push_file: 'allow', permission_change: 'allow' },
      per_device: {},
      sensitive_apps: [],
    });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
  });
  after(async () => {
    await client?.close().catch(() => undefined);
    await rig?.stop();
  });

  test('a tool_call_id replayed after the channel was bound to another phone runs on that phone', async () => {
    const channel = await bindChannel(rig, client, lab);
    rig.phones[0]!.clearArgvLog();
    rig.phones[1]!.clearArgvLog();
    result(await invoke(client, channel, 'android_press_key', { key: 'back' }, 'call_replayed_1'));
    await logout(channel, lab);
    await waitUntil(() => rig.bridge.core.bindings.leaseHolder(lab) === undefined, 10_000, 'lab phone free');
    // The same channel, authenticated again, now on the person's phone.
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channel);
    const approved = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: own,
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    const keys = (i: number): string[][] =>
      rig.phones[i]!.argvLog.filter((a) => a[0] === 'input' && a.includes('keyevent'));
    const before1 = keys(1).length;
    result(await invoke(client, channel, 'android_press_key', { key: 'back' }, 'call_replayed_1'));
    assert.equal(keys(1).length, before1 + 1, 'the key was pressed on the phone the channel holds now');
    await logout(channel, own);
  });

  test('a pushed file never replaces one already there: it gets a new name, and the reset leaves the person’s file', async () => {
    const phone = rig.phones[0]!;
    await waitUntil(() => rig.bridge.core.bindings.leaseHolder(lab) === undefined, 10_000, 'lab phone free');
    phone.fs.write('/sdcard/Download/report.txt', Buffer.from('the person’s own report'), 0o660, 0);
    const channel = await claim(lab, LAB_CODE);
    const pushed = result(
      await invoke(client, channel, 'android_push_file', {
        file_ref: await upload(channel, 'report.txt', 'the agent’s'),
      }),
    );
    assert.equal(pushed.path, '/sdcard/Download/report (1).txt');
    assert.equal(phone.fs.read('/sdcard/Download/report.txt')?.toString(), 'the person’s own report', 'untouched');
    await logout(channel, lab);
    await waitUntil(() => phone.fs.stat('/sdcard/Download/report (1).txt') === undefined, 10_000, 'the reset');
    assert.equal(phone.fs.read('/sdcard/Download/report.txt')?.toString(), 'the person’s own report', 'kept');
  });

  test('whether a reset runs is the phone’s: a code for every phone does not reset the person’s, a desktop approval of a lab phone does', async () => {
    const mine = rig.phones[1]!;
    const labPhone = rig.phones[0]!;
    await waitUntil(() => rig.bridge.core.bindings.leaseHolder(own) === undefined, 10_000, 'own phone free');
    const claimed = await claim(own, ALL_PHONES_CODE);
    result(await invoke(client, claimed, 'android_push_file', { file_ref: await upload(claimed, 'kept.txt', 'kept') }));
    await logout(claimed, own);
    assert.ok(mine.fs.stat('/sdcard/Download/kept.txt'), 'the person’s own phone is not reset, whatever the flow');
    assert.equal(await turnoverOf(own), null, 'no reset ran');

    await waitUntil(() => rig.bridge.core.bindings.leaseHolder(lab) === undefined, 10_000, 'lab phone free');
    const approved = await bindChannel(rig, client, lab);
    result(
      await invoke(client, approved, 'android_push_file', { file_ref: await upload(approved, 'gone.txt', 'gone') }),
    );
    await logout(approved, lab);
    await waitUntil(() => labPhone.fs.stat('/sdcard/Download/gone.txt') === undefined, 10_000, 'the lab phone reset');
  });

  test('a launch inside android_batch is recorded: the reset stops the app', async () => {
    await finishedTurnover(lab);
    const channel = await claim(lab, LAB_CODE);
    result(
      await invoke(client, channel, 'android_batch', {
        steps: [{ tool: 'android_launch_app', arguments: { package: NOTES } }],
      }),
    );
    await logout(channel, lab);
    assert.deepEqual((await finishedTurnover(lab)).stopped_apps, [NOTES]);
  });

  test('an app the lease installed is uninstalled for its user only: the work profile keeps its own copy', async () => {
    const WORK_APP = 'com.example.workmail';
    const phone = rig.phones[0]!;
    // The person's work profile (user 10) has the app; their own user (0) does not.
    phone.packages.addUser(10, [WORK_APP]);
    await finishedTurnover(lab);
    const channel = await claim(lab, LAB_CODE);
    const apk = `PK\u0003\u0004AndroidManifest.xml package=${WORK_APP} ${'x'.repeat(512)}`;
    const installed = result(
      await invoke(client, channel, 'android_install_apk', { file_ref: await upload(channel, 'work.apk', apk) }),
    );
    assert.deepEqual([installed.package, installed.user], [WORK_APP, 0], JSON.stringify(installed));
    const from = phone.argvLog.length;
    await logout(channel, lab);
    assert.deepEqual((await finishedTurnover(lab)).removed_apps, [WORK_APP]);
    const uninstalls = phone.argvLog.slice(from).filter((argv) => argv[0] === 'pm' && argv[1] === 'uninstall');
    assert.deepEqual(uninstalls, [['pm', 'uninstall', '--user', '0', WORK_APP]]);
    assert.equal(phone.packages.has(WORK_APP), false, 'gone from the user it was installed for');
    assert.deepEqual(phone.packages.packagesOfUser(10), [WORK_APP], 'the work profile keeps its own');
  });

  test('an app installed another way during the lease (the store) is removed by the reset; the person’s apps stay', async () => {
    const STORE_APP = 'com.example.fromstore';
    const phone = rig.phones[0]!;
    await finishedTurnover(lab);
    const channel = await claim(lab, LAB_CODE);
    // The reset reads the user's apps before the agent's first action.
    await waitUntil(
      () => phone.argvLog.some((argv) => argv.join(' ') === 'pm list packages -3 --user 0'),
      10_000,
      'the apps read at the lease start',
    );
    result(await invoke(client, channel, 'android_device_status'));
    // The agent got the app from the store: no android_install_apk names it.
    phone.packages.installFromStore(STORE_APP);
    await logout(channel, lab);
    const report = await finishedTurnover(lab);
    assert.deepEqual(report.removed_apps, [STORE_APP], JSON.stringify(report));
    assert.equal(phone.packages.has(STORE_APP), false);
    assert.equal(phone.packages.has(NOTES), true, 'apps that were there before the lease stay');
  });
});

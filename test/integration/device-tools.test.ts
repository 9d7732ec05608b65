/**
 * The whole path: xAgent client → bridge → adbkit → real adb server → simulated phones.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import { XAgentClient } from '../helpers/xagent-client';

function inputArgvs(rig: DeviceRig, i: number): string[][] {
  return rig.phones[i]!.argvLog.filter((argv) => argv[0] === 'input');
}

describe('binding, leases and device tools over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channelA: string;
  let channelB: string;

  before(async () => {
    rig = await startDeviceRig(2, { lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 } });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });
  // Each test starts with both phones free (a revoke ends any lease an earlier test left).
  beforeEach(async () => {
    for (const i of [0, 1]) {
      const holder = rig.bridge.core.bindings.leaseHolder(rig.device(i).deviceId);
      if (holder !== undefined)
        assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${holder}/revoke`)).status, 200);
    }
  });

  test('desktop approval: the code shown to xAgent is the one the person approves', async () => {
    const opened = await client.openChannel('');
    channelA = String(opened.payload?.connector_channel_id);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelA);
    assert.equal(started.type, 'auth.start.ack');
    assert.equal(started.payload?.status, 'pending');
    assert.match(String(started.payload?.qr_code_text), /^[A-Z2-9]{3}-[A-Z2-9]{3}$/);
    assert.ok(Number(started.payload?.expires_at) > Date.now());
    assert.ok(Number(started.payload?.poll_interval_millis) > 0);
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    const pairing = (state.body.pairings as Array<Record<string, unknown>>).find(
      (p) => p.auth_session_id === started.payload?.auth_session_id,
    );
    assert.equal(pairing?.code, started.payload?.qr_code_text);
    const pending = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: started.payload?.auth_session_id },
      channelA,
    );
    assert.equal(pending.payload?.status, 'pending');
    const approve = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: rig.device(0).deviceId,
    });
    assert.equal(approve.status, 200);
    const done = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: started.payload?.auth_session_id },
      channelA,
    );
    assert.equal(done.payload?.status, 'authenticated');
    const descriptor = done.payload?.connection_descriptor as Record<string, any>;
    assert.deepEqual(validateDescriptor(descriptor), []);
    assert.equal(descriptor.connection.status, 'connected');
    assert.match(descriptor.target.display_name, /^Pixel 7 ···[0-9A-F]{4}$/);
    assert.ok(!JSON.stringify(descriptor).includes(rig.device(0).serial), 'the serial stays inside the bridge');
    assert.ok((descriptor.tools as Array<{ status: string }>).every((t) => t.status === 'available'));
  });

  test('denied pairing fails; a second channel cannot take a leased phone', async () => {
    channelA = await bindChannel(rig, client, rig.device(0).deviceId);
    const other = await client.openChannel('');
    const otherId = String(other.payload?.connector_channel_id);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, otherId);
    const conflict = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'approve',
      device_id: rig.device(0).deviceId,
    });
    assert.equal(conflict.status, 409);
    assert.equal((conflict.body.error as { code: string }).code, 'lease_conflict');
    const deny = await rig.bridge.admin('POST', `/admin/api/pairings/${String(started.payload?.auth_session_id)}`, {
      action: 'deny',
    });
    assert.equal(deny.status, 200);
    const status = await client.request(
      'auth.status',
      { flow_id: 'desktop_approval', auth_session_id: started.payload?.auth_session_id },
      otherId,
    );
    assert.equal(status.payload?.status, 'failed');
    const cancel = await client.request('auth.cancel', { auth_session_id: 'auth_unknown' }, otherId);
    assert.equal(cancel.payload?.status, 'not_found');
    const tool = await invoke(client, otherId, 'android_device_status');
    assert.equal(tool.error?.code, 'not_bound');
    channelB = await bindChannel(rig, client, rig.device(1).deviceId);
  });

  describe('on two bound phones', () => {
    beforeEach(async () => {
      channelA = await bindChannel(rig, client, rig.device(0).deviceId);
      channelB = await bindChannel(rig, client, rig.device(1).deviceId);
    });

    test('status, UI tree and apps come from the bound phone', async () => {
      const status = await invoke(client, channelA, 'android_device_status');
      assert.equal(status.type, 'tool.invoke.ack');
      const result = status.payload?.result as Record<string, any>;
      assert.equal(result.model, 'Pixel 7');
      assert.equal(result.screen.width, 1080);
      assert.equal(result.transport, 'tcp');
      const statusB = await invoke(client, channelB, 'android_device_status');
      assert.equal((statusB.payload?.result as Record<string, any>).model, 'Galaxy S23');
      const apps = await invoke(client, channelA, 'android_list_apps');
      assert.ok(((apps.payload?.result as Record<string, any>).packages as string[]).includes('com.example.notes'));
      const tree = await invoke(client, channelA, 'android_ui_tree');
      assert.ok(((tree.payload?.result as Record<string, any>).nodes as unknown[]).length > 0);
    });

    test('hostile text reaches the phone as exactly one command with the literal text', async () => {
      await invoke(client, channelA, 'android_launch_app', { package: 'com.example.notes' });
      assert.equal(
        (await invoke(client, channelA, 'android_tap', { element: { resource_id: 'note_text' } })).error,
        undefined,
      );
      rig.phones[0]!.clearArgvLog();
      const hostile = `a'b;c&&d|e$(reboot)\`id\`"q"\\z>out`;
      const typed = await invoke(client, channelA, 'android_type_text', { text: hostile });
      assert.equal(typed.error, undefined, JSON.stringify(typed.error));
      const commands = rig.phones[0]!.argvLog;
      assert.deepEqual(inputArgvs(rig, 0), [['input', 'text', hostile]]);
      assert.ok(!commands.some((argv) => ['reboot', 'id', 'z'].includes(argv[0] ?? '')), JSON.stringify(commands));
      assert.equal(rig.phones[0]!.typedText('note_text'), hostile, 'the field holds it, literally');
      const unicode = await invoke(client, channelA, 'android_type_text', { text: '你好 😀' });
      assert.equal((unicode.payload?.result as Record<string, any>).method, 'unicode_ime');
    });

    test('20 concurrent taps run strictly in order while another phone runs in parallel', async () => {
      rig.phones[0]!.clearArgvLog();
      rig.phones[1]!.clearArgvLog();
      const taps = Array.from({ length: 20 }, (_v, i) =>
        invoke(client, channelA, 'android_tap', { x: 10 + i, y: 100 }),
      );
      const others = Array.from({ length: 5 }, (_v, i) =>
        invoke(client, channelB, 'android_tap', { x: 500 + i, y: 100 }),
      );
      const acks = await Promise.all([...taps, ...others]);
      for (const ack of acks) assert.equal(ack.error, undefined, JSON.stringify(ack.error));
      assert.deepEqual(
        inputArgvs(rig, 0).map((argv) => argv.slice(0, 4)),
        Array.from({ length: 20 }, (_v, i) => ['input', 'tap', String(10 + i), '100']),
      );
      assert.equal(inputArgvs(rig, 1).length, 5);
      const out = await invoke(client, channelA, 'android_tap', { x: 5000, y: 10 });
      assert.equal(out.error?.code, 'out_of_bounds');
      const bad = await invoke(client, channelA, 'android_tap', { x: -1, y: 10 });
      assert.equal(bad.error?.code, 'invalid_arguments');
      const extra = await invoke(client, channelA, 'android_tap', { x: 1, y: 10, shell: 'reboot' });
      assert.equal(extra.error?.code, 'invalid_arguments');
      const unknown = await invoke(client, channelA, 'android_shell', { cmd: 'id' });
      assert.equal(unknown.error?.code, 'unknown_tool');
    });

    test('a duplicated tool_call_id touches the phone once and both acks are equal', async () => {
      rig.phones[0]!.clearArgvLog();
      const [first, second] = await Promise.all([
        invoke(client, channelA, 'android_tap', { x: 42, y: 420 }, 'call_dup_1'),
        invoke(client, channelA, 'android_tap', { x: 42, y: 420 }, 'call_dup_1'),
      ]);
      const third = await invoke(client, channelA, 'android_tap', { x: 42, y: 420 }, 'call_dup_1');
      assert.deepEqual(first.payload, second.payload);
      assert.deepEqual(first.payload, third.payload);
      assert.equal(inputArgvs(rig, 0).length, 1);
      const changed = await invoke(client, channelA, 'android_tap', { x: 43, y: 420 }, 'call_dup_1');
      assert.equal(changed.error?.code, 'idempotency_conflict');
      assert.equal(inputArgvs(rig, 0).length, 1);
    });

    test('screenshots come through the transfer plane, are the phone’s pixels and say unchanged when idle', async () => {
      let minuteBefore = Math.floor(Date.now() / 60_000);
      const shot = await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400 });
      assert.equal(shot.error, undefined, JSON.stringify(shot.error));
      const result = shot.payload?.result as Record<string, any>;
      assert.match(result.file_ref, /^file_/);
      assert.ok(!JSON.stringify(shot).includes('base64'));
      const res = await fetch(`${rig.bridge.url}${result.download_url}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'image/png');
      const bytes = Buffer.from(await res.arrayBuffer());
      const meta = await sharp(bytes).metadata();
      assert.equal(meta.width, 1080);
      assert.equal(meta.height, 2400);
      // The status bar clock is drawn from the wall clock, as on a phone: when a minute turns
      // between the two captures the screen really changed, so that pair is taken once more.
      let baseline = result;
      let second: Record<string, any> = {};
      for (let attempt = 0; attempt < 2; attempt++) {
        if (attempt > 0) minuteBefore = Math.floor(Date.now() / 60_000);
        if (attempt > 0)
          baseline = (await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400 })).payload
            ?.result as Record<string, any>;
        const again = await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400 });
        second = again.payload?.result as Record<string, any>;
        if (Math.floor(Date.now() / 60_000) === minuteBefore || attempt > 0) break;
      }
      assert.equal(second.unchanged, true);
      assert.equal(second.file_ref, baseline.file_ref);
      const small = await invoke(client, channelA, 'android_screenshot', {});
      const smallResult = small.payload?.result as Record<string, any>;
      assert.equal(smallResult.mime_type, 'image/webp');
      assert.equal(Math.max(smallResult.width, smallResult.height), 1280);
      // Against what the phone itself would send for `adb exec-out screencap -p`.
      const phonePng = (await rig.phones[0]!.exec('screencap -p', { signal: new AbortController().signal })).stdout;
      assert.ok(
        smallResult.byte_size * 5 <= phonePng.length,
        `default ${smallResult.byte_size} B vs phone png ${phonePng.length} B`,
      );
      // The signature's first character changed (to a different one: a signature may start with "A").
      const tamperedUrl = String(result.download_url).replace(
        /sig=(.)/,
        (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`,
      );
      const tampered = await fetch(`${rig.bridge.url}${tamperedUrl}`);
      assert.equal(tampered.status, 403);
    });

    test('phone unplugged → offline pushed; back → connected; revoke → revoked; logout → created', async () => {
      const start = client.received.length;
      await rig.farm.phones[0]!.server.goOffline();
      const offline = await client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channelA &&
          (p.payload?.connection_descriptor as any)?.connection?.status === 'offline',
        15_000,
        start,
      );
      assert.deepEqual(validateDescriptor(offline.payload?.connection_descriptor), []);
      const whileOffline = await invoke(client, channelA, 'android_device_status');
      assert.equal(whileOffline.error?.code, 'device_offline');
      await rig.farm.bringOnline(0);
      await client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channelA &&
          (p.payload?.connection_descriptor as any)?.connection?.status === 'connected',
        20_000,
        start,
      );
      const revokeStart = client.received.length;
      const revoke = await rig.bridge.admin('POST', `/admin/api/channels/${channelB}/revoke`);
      assert.equal(revoke.status, 200);
      await client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channelB &&
          (p.payload?.connection_descriptor as any)?.connection?.status === 'revoked',
        5000,
        revokeStart,
      );
      const afterRevoke = await invoke(client, channelB, 'android_device_status');
      assert.equal(afterRevoke.error?.code, 'not_bound');
      const logout = await client.request('auth.logout', {}, channelA);
      assert.equal((logout.payload?.connection_descriptor as any).connection.status, 'created');
      await waitUntil(
        () => rig.bridge.core.bindings.leaseHolder(rig.device(0).deviceId) === undefined,
        5000,
        'lease released',
      );
      assert.deepEqual(client.invalid, []);
    });
  });
});

/**
 * Descriptor marks (docs/REFERENCE.md "Phone check"): tools that cannot work on the bound phone are
 * marked in the Descriptor's tools[] with a reason, pushed when the marks change, and the
 * channel says `degraded` while any tool is taken away (spec §9). Through the real adb server:
 * input refused → the input tools `denied_by_target`; install refused → android_install_apk;
 * screen unreadable at the phone check → android_ui_tree and android_wait_for `unavailable`;
 * no Unicode keyboard → android_type_text available with a note. Each mark goes once the
 * tool works again. Every Descriptor matches the project's schema and names no serial.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import type { SimulatedPhone } from '../../main/sim/phone';

type Json = Record<string, any>;

describe('Descriptor marks for tools the phone refuses', () => {
  let bound: BoundRig | undefined;
  let phone: SimulatedPhone;

  before(async () => {
    // No ADB Keyboard: type_text carries its ASCII-only note from the first check on.
    bound = await startBoundRig({}, { withAdbKeyboard: false });
    phone = bound.rig.phones[0]!;
    const res = await bound.rig.bridge.admin('PUT', '/admin/api/policies', {
      defaults: { install_app: 'allow' },
      per_device: {},
      sensitive_apps: [],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
  after(() => bound?.stop());

  const describeNow = async (): Promise<Json> => {
    const ack = await bound!.client.request('connection.descriptor.get', {}, bound!.channel);
    return ack.payload?.connection_descriptor as Json;
  };
  const tool = (descriptor: Json, id: string): Json => (descriptor.tools as Json[]).find((t) => t.tool_id === id)!;
  const pushedWhere = (check: (d: Json) => boolean, from: number): Promise<Json> =>
    bound!.client
      .waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === bound!.channel &&
          check(p.payload?.connection_descriptor as Json),
        10_000,
        from,
      )
      .then((p) => p.payload?.connection_descriptor as Json);
  const clean = (descriptor: Json): void => {
    assert.deepEqual(validateDescriptor(descriptor), [], JSON.stringify(descriptor));
    const text = JSON.stringify(descriptor);
    for (const secret of [phone.serial, bound!.rig.farm.phones[0]!.serial, '127.0.0.1'])
      assert.ok(!text.includes(secret), `no ${secret} in ${text}`);
  };

  test('no Unicode keyboard: android_type_text stays available with an ASCII-only note; the channel is connected', async () => {
    const descriptor = await describeNow();
    clean(descriptor);
    assert.equal(descriptor.connection.status, 'connected');
    const typeText = tool(descriptor, 'android_type_text');
    assert.equal(typeText.status, 'available');
    assert.match(String(typeText.reason), /^plain ASCII text only .*Fix: Install ADB Keyboard/);
    assert.equal(tool(descriptor, 'android_tap').reason, undefined);
  });

  test('input refused: degraded, the input tools denied by the target with the fix; a working tap clears it', async () => {
    const { client, channel } = bound!;
    phone.setQuirks(['inject-events-denied']);
    let from = client.received.length;
    assert.equal((await invoke(client, channel, 'android_tap', { x: 500, y: 900 })).error?.code, 'input_blocked');
    const degraded = await pushedWhere((d) => d.connection.status === 'degraded', from);
    clean(degraded);
    for (const id of [
      'android_tap',
      'android_long_press',
      'android_swipe',
      'android_type_text',
      'android_press_key',
      'android_batch',
    ]) {
      const t = tool(degraded, id);
      assert.equal(t.status, 'denied_by_target', id);
      assert.equal(t.target_permission_state, 'denied', id);
      assert.match(
        String(t.reason),
        /refuses injected input .*Fix: turn on USB debugging \(Security settings\) in Developer options/,
        id,
      );
    }
    assert.equal(tool(degraded, 'android_screenshot').status, 'available');
    assert.equal(tool(degraded, 'android_launch_app').status, 'available');

    // The person turns the setting on and presses Check again: the tools are offered again.
    phone.setQuirks([]);
    from = client.received.length;
    await bound!.rig.bridge.admin('GET', `/admin/api/devices/${bound!.rig.device(0).deviceId}/check`);
    const offered = await pushedWhere((d) => d.connection.status === 'connected', from);
    assert.equal(tool(offered, 'android_tap').status, 'available');

    // Refused again, then a tap works (an agent that called it anyway): the marks go too.
    phone.setQuirks(['inject-events-denied']);
    from = client.received.length;
    assert.equal((await invoke(client, channel, 'android_tap', { x: 500, y: 900 })).error?.code, 'input_blocked');
    await pushedWhere((d) => d.connection.status === 'degraded', from);
    phone.setQuirks([]);
    from = client.received.length;
    assert.equal((await invoke(client, channel, 'android_tap', { x: 500, y: 900 })).error, undefined);
    const back = await pushedWhere((d) => d.connection.status === 'connected', from);
    clean(back);
    assert.equal(tool(back, 'android_tap').status, 'available');
  });

  test('install refused: android_install_apk denied by the target with the fix, until an install works', async () => {
    const { client, channel, rig } = bound!;
    const upload = async (): Promise<string> => {
      const apk = Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        Buffer.from('AndroidManifest.xml package=com.marks.sample '),
        Buffer.alloc(512, 3),
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
    phone.setQuirks(['install-user-restricted']);
    let from = client.received.length;
    assert.equal(
      (await invoke(client, channel, 'android_install_apk', { file_ref: await upload() })).error?.code,
      'install_blocked',
    );
    const degraded = await pushedWhere((d) => tool(d, 'android_install_apk').status === 'denied_by_target', from);
    clean(degraded);
    assert.equal(degraded.connection.status, 'degraded');
    assert.match(
      String(tool(degraded, 'android_install_apk').reason),
      /Fix: turn on Install via USB in Developer options/,
    );
    phone.setQuirks([]);
    from = client.received.length;
    assert.equal((await invoke(client, channel, 'android_install_apk', { file_ref: await upload() })).error, undefined);
    const back = await pushedWhere((d) => tool(d, 'android_install_apk').status === 'available', from);
    assert.equal(back.connection.status, 'connected');
  });

  test('screen unreadable at the phone check: the tree tools unavailable with the fix; a tree read again clears it', async () => {
    const { client, channel, rig } = bound!;
    phone.setQuirks(['ui-dump-null-root']);
    let from = client.received.length;
    const check = await rig.bridge.admin('GET', `/admin/api/devices/${rig.device(0).deviceId}/check`);
    assert.equal((check.body.checks as Json[]).find((c) => c.id === 'ui_tree_readable')?.status, 'problem');
    const degraded = await pushedWhere((d) => d.connection.status === 'degraded', from);
    clean(degraded);
    for (const id of ['android_ui_tree', 'android_wait_for']) {
      assert.equal(tool(degraded, id).status, 'unavailable', id);
      assert.match(
        String(tool(degraded, id).reason),
        /screen could not be read .*android_screenshot still works\. Fix: wake and unlock the phone/,
        id,
      );
    }
    // A Descriptor mark is advice: newer xAgent offers tools by the Card alone and may call one
    // anyway; the call is checked when it arrives and refused with the same stable code.
    const anyway = await invoke(client, channel, 'android_ui_tree');
    assert.equal(anyway.error?.code, 'screen_unreadable', JSON.stringify(anyway.error));
    phone.setQuirks([]);
    from = client.received.length;
    assert.equal((await invoke(client, channel, 'android_ui_tree')).error, undefined);
    const back = await pushedWhere((d) => d.connection.status === 'connected', from);
    assert.equal(tool(back, 'android_ui_tree').status, 'available');
  });
});

/**
 * While a person holds a phone the agent sees nothing of its screen unless they let it watch
 * (issue #36 point 1), over the real adb server: screen reads answer human_in_control with the
 * fix, other observation calls still work, and a take-over that lets the agent watch serves them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';

describe('a person holding the phone is not watched', () => {
  let bound: BoundRig;
  let deviceId: string;
  const call = (toolId: string, args: Record<string, unknown> = {}) =>
    invoke(bound.client, bound.channel, toolId, args);
  const takeover = (body: Record<string, unknown>) =>
    bound.rig.bridge.admin('POST', `/admin/api/devices/${encodeURIComponent(deviceId)}/takeover`, body);

  before(async () => {
    bound = await startBoundRig();
    deviceId = bound.rig.device(0).deviceId;
  });
  after(async () => {
    await bound?.stop();
  });

  test('screen reads are refused with the fix while the person holds it; device status still answers', async () => {
    const from = bound.client.received.length;
    const taken = await takeover({ action: 'take' });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    assert.equal((taken.body.taken_over as { agent_may_watch?: boolean }).agent_may_watch, false);
    // The Descriptor tells the agent before it tries: the screen reads carry the note, status does not.
    type Tool = { tool_id: string; reason?: string };
    const pushed = await bound.client.waitFor(
      (p) =>
        p.type === 'connection.descriptor.push' &&
        p.connector_channel_id === bound.channel &&
        (
          (p.payload?.connection_descriptor as { tools: Tool[] }).tools.find((t) => t.tool_id === 'android_screenshot')
            ?.reason ?? ''
        ).startsWith('human_in_control'),
      10_000,
      from,
    );
    const tools = (pushed.payload?.connection_descriptor as { tools: Tool[] }).tools;
    assert.match(String(tools.find((t) => t.tool_id === 'android_ui_tree')?.reason), /did not let the agent watch/);
    assert.equal(tools.find((t) => t.tool_id === 'android_device_status')?.reason, undefined);
    for (const toolId of ['android_screenshot', 'android_ui_tree', 'android_logcat']) {
      const ack = await call(toolId);
      assert.equal(ack.error?.code, 'human_in_control', `${toolId}: ${JSON.stringify(ack.payload ?? ack.error)}`);
      assert.match(String(ack.error?.message), /Fix: wait for the hand-back/);
    }
    result(await call('android_device_status'));
    // The person's own live view still shows the screen: the stream serves them only.
    const frame = await fetch(
      `${bound.rig.bridge.url}/admin/api/devices/${encodeURIComponent(deviceId)}/frame?max_side=720`,
      {
        headers: { Authorization: `Bearer ${bound.rig.bridge.adminToken}` },
      },
    );
    assert.equal(frame.status, 200);
    assert.equal(frame.headers.get('content-type'), 'image/jpeg');
    await frame.arrayBuffer();
    assert.equal((await takeover({ action: 'hand_back' })).status, 200);
    result(await call('android_ui_tree'));
  });

  test('a person who lets the agent watch: the state and the reads say so', async () => {
    const taken = await takeover({ action: 'take', agent_may_watch: true });
    assert.equal((taken.body.taken_over as { agent_may_watch?: boolean }).agent_may_watch, true);
    const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
    const phone = (state.body.devices as Array<Record<string, any>>).find((d) => d.device_id === deviceId);
    assert.equal(phone?.taken_over?.agent_may_watch, true);
    result(await call('android_ui_tree'));
    assert.equal((await call('android_tap', { x: 5, y: 5 })).error?.code, 'human_in_control', 'still no control');
    assert.equal((await takeover({ action: 'take', agent_may_watch: 'yes' })).status, 400);
    assert.equal((await takeover({ action: 'hand_back' })).status, 200);
  });
});

describe('a recording running when a person takes the phone unwatched stops there', () => {
  let bound: BoundRig;
  // A phone that records in real time (usb-phone), so the take-over lands mid-recording.
  before(async () => {
    bound = await startBoundRig({}, { profile: 'usb-phone' });
  });
  after(async () => {
    await bound?.stop();
  });

  test('the recording answers human_in_control at the take-over, not at its end; its file leaves the phone', async () => {
    const phone = bound.rig.phones[0]!;
    const deviceId = bound.rig.device(0).deviceId;
    const recording = invoke(bound.client, bound.channel, 'android_screen_record', { seconds: 60 });
    await waitUntil(() => phone.argvLog.some((argv) => argv[0] === 'screenrecord'), 15_000, 'screenrecord running');
    const path = phone.argvLog.find((argv) => argv[0] === 'screenrecord')!.at(-1)!;
    const takenAt = Date.now();
    const taken = await bound.rig.bridge.admin('POST', `/admin/api/devices/${encodeURIComponent(deviceId)}/takeover`, {
      action: 'take',
    });
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const ack = await recording;
    assert.equal(ack.error?.code, 'human_in_control', JSON.stringify(ack.payload ?? ack.error));
    assert.ok(Date.now() - takenAt < 15_000, `answered ${Date.now() - takenAt} ms after the take-over`);
    // The stream closed: the phone stopped recording, and the clip is removed from it.
    await waitUntil(() => phone.fs.stat(path) === undefined, 15_000, 'the clip removed from the phone');
    assert.equal(
      (
        await bound.rig.bridge.admin('POST', `/admin/api/devices/${encodeURIComponent(deviceId)}/takeover`, {
          action: 'hand_back',
        })
      ).status,
      200,
    );
  });
});

/**
 * The phone view's timeline and live frames, end to end: xAgent client → bridge → real adb
 * server → simulated phone. Taps by selector land where the element is, typed text is shown
 * as the audit trail keeps it, the ring stays bounded, and each change is announced live.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import sharp from 'sharp';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { TEST_ADMIN_TOKEN } from '../helpers/bridge';
import { untilAnnounced } from '../helpers/until-announced';
import { SseParser } from '../../renderer/src/api/sse-parser';
import type { AdminPhoneAction, AdminPhoneActions, AuditEntry } from '../../main/contract/admin-api';
import { TIMELINE_CAPACITY } from '../../main/core/phone-view/action-timeline';

type Json = Record<string, any>;

async function getBytes(url: string): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('phone view: timeline and live frames', () => {
  let bound: BoundRig;
  let deviceId: string;
  let n = 0;
  const call = (tool: string, args: Record<string, unknown> = {}) =>
    invoke(bound.client, bound.channel, tool, args, `call_pv_${process.pid}_${++n}`);
  const actions = async (): Promise<AdminPhoneActions> => {
    const res = await bound.rig.bridge.admin('GET', `/admin/api/devices/${deviceId}/actions`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as unknown as AdminPhoneActions;
  };
  const newest = async (toolId: string): Promise<AdminPhoneAction> => {
    const found = (await actions()).actions.find((a) => a.tool_id === toolId);
    assert.ok(found, `no ${toolId} in the timeline`);
    return found;
  };

  /** Notes in front (its text field and Save button), as a test that types or taps needs. */
  const notesInFront = async (): Promise<void> => {
    assert.equal((await call('android_launch_app', { package: 'com.example.notes' })).error, undefined);
    await waitUntil(() => bound.rig.phones[0]!.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
  };

  before(async () => {
    bound = await startBoundRig();
    deviceId = bound.rig.device(0).deviceId;
  });
  after(async () => {
    await bound?.stop();
  });

  test('a live frame carries the phone’s size and a sequence number; `after` gets the next', async () => {
    const url = `${bound.rig.bridge.url}/admin/api/devices/${deviceId}/frame`;
    const from = bound.rig.phones[0]!.argvLog.length;
    const [a, b] = await Promise.all([getBytes(url), getBytes(url)]);
    for (const r of [a, b]) {
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'image/jpeg');
    }
    // Both get a frame from the captures the bridge takes for every viewer of the phone (that two
    // viewers asking in the same tick get the very same frame is test/unit/live-frames.test.ts's:
    // here the second request may arrive after the next capture, which the instant profile makes quick).
    assert.ok(Number(a.headers.get('x-frame-seq')) > 0 && Number(b.headers.get('x-frame-seq')) > 0);
    assert.ok(bound.rig.phones[0]!.argvLog.slice(from).some((argv) => argv[0] === 'screencap'));
    // A viewer that shows that frame is answered with the next one.
    const next = await getBytes(`${url}?after=${a.headers.get('x-frame-seq')}`);
    assert.ok(Number(next.headers.get('x-frame-seq')) > Number(a.headers.get('x-frame-seq')));
    const meta = await sharp(a.body).metadata();
    assert.equal(Math.max(meta.width ?? 0, meta.height ?? 0), 720);
    const screenW = Number(a.headers.get('x-screen-width'));
    const screenH = Number(a.headers.get('x-screen-height'));
    assert.ok(screenW > 0 && screenH > 0);
    assert.ok(
      Math.abs((meta.width ?? 0) / (meta.height ?? 1) - screenW / screenH) < 0.01,
      'the frame keeps the screen’s shape',
    );
    const small = await getBytes(`${url}?max_side=200`);
    assert.equal(
      Math.max((await sharp(small.body).metadata()).height ?? 0, (await sharp(small.body).metadata()).width ?? 0),
      200,
    );
    assert.equal((await getBytes(`${url}?max_side=5`)).status, 400);
    assert.equal((await getBytes(`${bound.rig.bridge.url}/admin/api/devices/nope/frame`)).status, 404);
  });

  test('a tap by selector shows where it landed, with the screen it was made on; a swipe shows both ends', async () => {
    await notesInFront();
    // Someone is watching: the timeline takes pictures.
    assert.equal((await getBytes(`${bound.rig.bridge.url}/admin/api/devices/${deviceId}/frame`)).status, 200);
    const tree = (await call('android_ui_tree')).payload?.result as Json;
    const save = (tree.nodes ?? tree.ui ?? []).find((node: Json) => node.resource_id?.endsWith('save_button'));
    assert.ok(save, JSON.stringify(tree).slice(0, 400));
    const tapped = (await call('android_tap', { element: { resource_id: 'save_button' } })).payload?.result as Json;
    assert.deepEqual([tapped.x, tapped.y], save.center);

    const done = await newest('android_tap');
    assert.equal(done.state, 'done');
    assert.equal(done.outcome, 'ok');
    assert.deepEqual(done.points, [{ kind: 'tap', x: save.center[0], y: save.center[1], to_x: null, to_y: null }]);
    assert.ok(done.duration_ms !== null && done.duration_ms >= 0);
    assert.deepEqual(done.arguments, { element: { resource_id: 'save_button' } });
    // The picture is shrunk after the call; the timeline announces it as an 'action'.
    const tap = await untilAnnounced(
      bound.rig.bridge,
      'action',
      () => newest('android_tap'),
      (a) => a.screen !== null,
      'the tap’s picture',
      5_000,
    );
    assert.ok(tap.screen, 'the tap has a picture');
    const pic = await getBytes(`${bound.rig.bridge.url}/admin/api/devices/${deviceId}/actions/${tap.action_id}/screen`);
    assert.equal(pic.status, 200);
    const meta = await sharp(pic.body).metadata();
    assert.deepEqual([meta.width, meta.height], [tap.screen.thumb_width, tap.screen.thumb_height]);
    assert.equal(Math.max(meta.width ?? 0, meta.height ?? 0), 240);
    assert.ok(tap.screen.width > save.center[0] && tap.screen.height > save.center[1]);

    const swiped = (await call('android_swipe', { direction: 'up' })).payload?.result as Json;
    const swipe = await newest('android_swipe');
    assert.deepEqual(swipe.points, [
      { kind: 'swipe', x: swiped.from[0], y: swiped.from[1], to_x: swiped.to[0], to_y: swiped.to[1] },
    ]);
  });

  test('typed text: the arguments as the audit trail keeps them; the text itself only in `typing`, for this computer', async () => {
    const secret = 'meet me at pier 7 at noon';
    await notesInFront();
    assert.equal(
      (await call('android_type_text', { element: { resource_id: 'note_text' }, text: secret })).error,
      undefined,
    );
    const typed = await newest('android_type_text');
    assert.ok(!JSON.stringify(typed.arguments).includes(secret), JSON.stringify(typed));
    // The test asks over loopback: the person at this computer sees what was typed (held in memory only).
    assert.deepEqual(typed.typing, [secret]);
    // The audit line is queued as the ack leaves, and the audit read waits for queued lines.
    const res = await bound.rig.bridge.admin('GET', `/admin/api/audit?device_id=${deviceId}&limit=20`);
    const audit = (res.body.entries as AuditEntry[]).find((e) => e.tool_id === 'android_type_text');
    assert.ok(audit, 'the audit trail has the call once its answer is back');
    assert.deepEqual(typed.arguments, audit.arguments);
    // The tap inside type_text (element) is a tap but not a pointing tool: no points shown for typing.
    assert.deepEqual(typed.points, []);
  });

  test('every change is announced on the events stream, and the ring keeps the newest calls only', async () => {
    const events: Json[] = [];
    const parser = new SseParser();
    const req = http.get(
      `${bound.rig.bridge.url}/admin/api/events`,
      { headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (const m of parser.push(chunk)) events.push(JSON.parse(m.data) as Json);
        });
      },
    );
    try {
      await waitUntil(() => events.length > 0, 5_000, 'first event');
      // The newest call so far (none when this test runs alone).
      const before = (await actions()).actions[0]?.seq ?? 0;
      assert.equal((await call('android_press_key', { key: 'volume_up' })).error, undefined);
      await waitUntil(
        () => events.some((e) => e.type === 'action' && e.device_id === deviceId),
        5_000,
        'an action event',
      );

      for (let i = 0; i < TIMELINE_CAPACITY + 5; i++)
        assert.equal((await call('android_device_status')).error, undefined);
      const list = await actions();
      assert.equal(list.capacity, TIMELINE_CAPACITY);
      assert.equal(list.actions.length, TIMELINE_CAPACITY);
      assert.ok(
        list.actions.every((a) => a.seq > before + 1),
        'the older calls left the ring',
      );
      assert.ok(
        list.actions.every((a, i) => i === 0 || a.seq < list.actions[i - 1]!.seq),
        'newest first',
      );
    } finally {
      req.destroy();
    }
  });
});

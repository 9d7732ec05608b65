/**
 * The person drives a taken-over phone (issue #26, docs/REFERENCE.md "Take over"), through the
 * real adb server and simulated phones: a press and hold lands as a still `input swipe` of its
 * duration, a wheel scroll as a swipe of a sensible length the right way round, the keyboard's
 * keys as key events, and typed text in the field — ASCII with `input text`, Chinese through ADB
 * Keyboard or the fast lane's helper, and, where neither can type it, unicode_input_unavailable
 * with nothing typed. Each action is in the timeline and the audit as the person's, typed text
 * as its length only. A landscape phone takes the person's points in its own turned pixels.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { setHelper, waitForHelper } from '../helpers/fast-lane';
import { NOTES_PKG } from '../../main/sim/screen/app-notes';
import type { SimulatedPhone } from '../../main/sim/phone';
import type { AdminPhoneAction } from '../../main/contract/admin-api';

type Setup = { name: string; adbKeyboard: boolean; fastLane: boolean };
const SETUPS: Setup[] = [
  { name: 'stock, no ADB Keyboard', adbKeyboard: false, fastLane: false },
  { name: 'stock, ADB Keyboard', adbKeyboard: true, fastLane: false },
  { name: 'fast lane, no ADB Keyboard', adbKeyboard: false, fastLane: true },
];

for (const setup of SETUPS) {
  describe(`the person drives a taken-over phone (${setup.name})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let phone: SimulatedPhone;
    let fieldCenter: [number, number] = [0, 0];
    const deviceId = (): string => bound.rig.device(0).deviceId;
    const call = async (tool: string, args: Json = {}): Promise<Json> =>
      result(await invoke(bound.client, bound.channel, tool, args));
    const input = async (body: Json): Promise<{ status: number; body: Json }> => {
      const res = await bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId()}/input`, body);
      return { status: res.status, body: res.body };
    };
    const sentSince = (from: number): string[] => phone.argvLog.slice(from).map((argv) => argv.join(' '));
    const timeline = async (): Promise<AdminPhoneAction[]> => {
      const res = await bound.rig.bridge.admin('GET', `/admin/api/devices/${deviceId()}/actions`);
      return res.body.actions as AdminPhoneAction[];
    };

    before(async () => {
      bound = await startBoundRig(setup.fastLane ? { fastLane: { pauseMs: 50 } } : {}, {
        withAdbKeyboard: setup.adbKeyboard,
      });
      phone = bound.rig.phones[0]!;
      if (setup.fastLane) {
        await setHelper(bound.rig, 'enable');
        await waitForHelper(bound.rig, 'idle');
      }
      await call('android_launch_app', { package: NOTES_PKG });
      await waitUntil(() => phone.foregroundPackage() === NOTES_PKG, 5_000, 'notes in front');
      // The agent looks before the person takes the phone (while they hold it, it sees nothing of
      // the screen): it finds the field, the person taps it.
      const tree = await call('android_ui_tree');
      const field = (tree.nodes as Json[]).find((n) => String(n.resource_id).endsWith('/note_text'));
      assert.ok(field, JSON.stringify(tree.nodes));
      fieldCenter = field.center as [number, number];
      const res = await bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId()}/takeover`, { action: 'take' });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });
    after(() => bound?.stop());

    test('typed text lands in the field: ASCII always, Chinese where the phone or the lane can type it', async () => {
      const [fx, fy] = fieldCenter;
      assert.equal((await input({ kind: 'tap', x: fx, y: fy })).status, 200);

      const from = phone.argvLog.length;
      assert.deepEqual((await input({ kind: 'text', text: 'hi there' })).body, { status: 'ok' });
      assert.equal(phone.typedText('note_text'), 'hi there');
      if (!setup.fastLane) assert.ok(sentSince(from).includes('input text hi%sthere'), sentSince(from).join('\n'));
      else
        assert.ok(
          sentSince(from).some((l) => l.startsWith('helper POST /keys')),
          sentSince(from).join('\n'),
        );

      const chinese = await input({ kind: 'text', text: '你好' });
      if (setup.adbKeyboard || setup.fastLane) {
        assert.deepEqual(chinese.body, { status: 'ok' });
        assert.equal(phone.typedText('note_text'), 'hi there你好');
      } else {
        assert.equal(chinese.body.error?.code, 'unicode_input_unavailable', JSON.stringify(chinese.body));
        assert.equal(chinese.status, 422, 'the phone cannot type it: not a fault of the bridge');
        assert.match(String(chinese.body.error?.message), /ADB Keyboard.*fast lane/s);
        assert.equal(phone.typedText('note_text'), 'hi there', 'nothing of the Chinese text was typed');
      }
    });

    test('press and hold, wheel scroll and keys land as the right commands', async () => {
      const from = phone.argvLog.length;
      assert.deepEqual((await input({ kind: 'long_press', x: 300, y: 700, duration_ms: 1200 })).body, { status: 'ok' });
      assert.equal((await input({ kind: 'long_press', x: 310, y: 710 })).status, 200);
      // Two wheel notches down in the middle of a 1080 × 2400 screen: the finger moves up by 30 % of the height.
      assert.equal((await input({ kind: 'scroll', x: 540, y: 1200, direction: 'down', notches: 2 })).status, 200);
      // Near the bottom edge, scrolling up: the swipe stays on the screen, finger moving down.
      assert.equal((await input({ kind: 'scroll', x: 540, y: 2390, direction: 'up' })).status, 200);
      assert.equal((await input({ kind: 'scroll', x: 1000, y: 500, direction: 'right', notches: 10 })).status, 200);
      for (const key of ['enter', 'backspace', 'forward_delete', 'tab', 'dpad_left', 'back'])
        assert.equal((await input({ kind: 'key', key })).status, 200, key);
      const sent = sentSince(from).filter((line) => line.startsWith('input'));
      assert.deepEqual(sent, [
        'input swipe 300 700 300 700 1200',
        'input swipe 310 710 310 710 800',
        'input swipe 540 1560 540 840 250',
        'input swipe 540 2038 540 2398 250',
        // 60 % of the width at most, however many notches.
        'input swipe 1078 500 430 500 250',
        'input keyevent 66',
        'input keyevent 67',
        'input keyevent 112',
        'input keyevent 61',
        'input keyevent 21',
        'input keyevent 4',
      ]);
    });

    test('refused shapes never reach the phone: off-screen points, unknown keys, shell words, too long a text', async () => {
      const from = phone.argvLog.length;
      for (const [body, code] of [
        [{ kind: 'long_press', x: 1080, y: 10 }, 'out_of_bounds'],
        [{ kind: 'scroll', x: 10, y: 2400, direction: 'down' }, 'out_of_bounds'],
        [{ kind: 'long_press', x: 10, y: 10, duration_ms: 60_000 }, 'invalid_arguments'],
        [{ kind: 'scroll', x: 10, y: 10, direction: 'sideways' }, 'invalid_arguments'],
        [{ kind: 'key', key: 'power' }, 'invalid_arguments'],
        [{ kind: 'text', text: '' }, 'invalid_arguments'],
        [{ kind: 'text', text: 'x'.repeat(1001) }, 'invalid_arguments'],
        [{ kind: 'text', text: 'a', shell: 'reboot' }, 'invalid_arguments'],
      ] as const) {
        const res = await input(body);
        assert.equal(res.body.error?.code, code, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`);
        assert.equal(res.status, 400, `${JSON.stringify(body)} is the caller's mistake`);
      }
      assert.deepEqual(
        sentSince(from).filter((line) => line.startsWith('input') || line.startsWith('am')),
        [],
      );
    });

    test('the timeline and the audit have each action as the person’s, typed text as its length only', async () => {
      const actions = await timeline();
      const people = actions.filter((a) => a.by === 'person');
      assert.ok(people.length >= 14, JSON.stringify(actions.map((a) => a.tool_id)));
      assert.ok(
        actions.filter((a) => a.tool_id.startsWith('person_')).every((a) => a.by === 'person'),
        'every person_ entry is the person’s',
      );
      // The take over and the hand-back are the person's own steps on the phone (#37 point 7).
      const personSteps = new Set(['take_over', 'hand_back']);
      assert.ok(
        actions.filter((a) => personSteps.has(a.tool_id)).every((a) => a.by === 'person'),
        'the take over is the person’s',
      );
      assert.ok(
        actions.filter((a) => a.tool_id === 'take_over').length >= 1,
        JSON.stringify(actions.map((a) => a.tool_id)),
      );
      assert.ok(
        actions
          .filter((a) => !a.tool_id.startsWith('person_') && !personSteps.has(a.tool_id))
          .every((a) => a.by === 'agent'),
        'the agent’s calls stay the agent’s',
      );
      const hold = people.find((a) => a.tool_id === 'person_long_press' && a.arguments.duration_ms === 1200);
      assert.deepEqual(hold?.points, [{ kind: 'long_press', x: 300, y: 700, to_x: null, to_y: null }]);
      const scroll = people.find((a) => a.tool_id === 'person_scroll' && a.outcome === 'ok');
      assert.equal(scroll?.points[0]?.kind, 'swipe');
      const typed = people.filter((a) => a.tool_id === 'person_text' && a.outcome === 'ok').map((a) => a.arguments);
      // "hi there", then "你好" where it could be typed: lengths only.
      assert.deepEqual(typed.reverse(), [
        { kind: 'text', characters: 8 },
        ...(setup.adbKeyboard || setup.fastLane ? [{ kind: 'text', characters: 2 }] : []),
      ]);
      if (!setup.adbKeyboard && !setup.fastLane) {
        const refused = people.find((a) => a.tool_id === 'person_text' && a.outcome === 'error');
        assert.equal(refused?.error_code, 'unicode_input_unavailable');
        assert.deepEqual(refused?.arguments, { kind: 'text', characters: 2 });
      }
      const shown = JSON.stringify(actions);
      assert.ok(!shown.includes('hi there') && !shown.includes('你好'), 'no typed text in the timeline');

      const audit = await bound.rig.bridge.admin('GET', '/admin/api/audit?limit=200');
      const entries = (audit.body.entries as Json[]).filter((e) => String(e.tool_id).startsWith('person_'));
      assert.ok(entries.length >= 14, JSON.stringify(entries.map((e) => e.tool_id)));
      assert.ok(entries.every((e) => e.decided_by === 'person'));
      const texts = entries.filter((e) => e.tool_id === 'person_text').map((e) => e.arguments as Json);
      assert.ok(texts.length >= 2, JSON.stringify(texts));
      assert.ok(
        texts.every((a) => Object.keys(a).join() === 'kind,characters'),
        JSON.stringify(texts),
      );
      const auditText = JSON.stringify(audit.body);
      assert.ok(!auditText.includes('hi there') && !auditText.includes('hi%sthere'), 'no typed text in the audit');
      assert.ok(!auditText.includes('你好'), 'no typed Chinese in the audit');
    });
  });
}

describe('a landscape phone: the person’s points are its own turned pixels', () => {
  let bound: BoundRig;
  let phone: SimulatedPhone;
  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('a tap and a scroll at landscape points land; a portrait-only point is off the screen', async () => {
    const deviceId = bound.rig.device(0).deviceId;
    const input = (body: Json): Promise<{ status: number; body: Json }> =>
      bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/input`, body);
    // Seen in portrait first: the size the bridge knows must follow the turn.
    result(await invoke(bound.client, bound.channel, 'android_screenshot'));
    phone.setQuirks(['landscape']);
    // The view shows the turned screen; a frame of it is what the person clicks on.
    const frame = await fetch(`${bound.rig.bridge.url}/admin/api/devices/${deviceId}/frame?max_side=720`, {
      headers: { Authorization: `Bearer ${bound.rig.bridge.adminToken}` },
    });
    assert.equal(frame.status, 200);
    assert.deepEqual([frame.headers.get('x-screen-width'), frame.headers.get('x-screen-height')], ['2400', '1080']);
    await frame.arrayBuffer();
    assert.equal(
      (await bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/takeover`, { action: 'take' })).status,
      200,
    );
    const from = phone.argvLog.length;
    assert.equal((await input({ kind: 'tap', x: 2300, y: 1000 })).status, 200);
    assert.equal((await input({ kind: 'scroll', x: 1200, y: 540, direction: 'down' })).status, 200);
    const offScreen = await input({ kind: 'tap', x: 500, y: 2000 });
    assert.equal(offScreen.body.error?.code, 'out_of_bounds', JSON.stringify(offScreen.body));
    assert.deepEqual(
      phone.argvLog
        .slice(from)
        .map((a) => a.join(' '))
        .filter((l) => l.startsWith('input')),
      // One notch: 15 % of the 1080-pixel height, centred on the point.
      ['input tap 2300 1000', 'input swipe 1200 621 1200 459 250'],
    );
  });
});

/**
 * Take over and hand back (issue #26, docs/REFERENCE.md "Take over"), through the real adb
 * server: while a person holds the phone the agent's control calls answer human_in_control at
 * once and nothing reaches the phone, screen reads work when the person let the agent watch
 * (takeover-hides-screen.test.ts: they are refused when not), a control call queued
 * before the take-over is refused when its turn comes, the Descriptor push says so, the lease's
 * idle timer stands still, and the audit names the person. Handed back, taps work again.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import type { SimulatedPhone } from '../../main/sim/phone';

type Json = Record<string, any>;

describe('take over and hand back', () => {
  let bound: BoundRig | undefined;
  let phone: SimulatedPhone;
  // The bridge's clock runs ahead of the wall clock by `skew`, moved by hand to pass the idle timeout.
  let skew = 0;

  before(async () => {
    bound = await startBoundRig({
      lease: { maxDurationMs: null, idleTimeoutMs: 3000, disconnectGraceMs: 60_000 },
      clock: () => Date.now() + skew,
    });
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  const deviceId = (): string => bound!.rig.device(0).deviceId;
  const takeover = async (body: Json): Promise<{ status: number; body: Json }> => {
    const res = await bound!.rig.bridge.admin('POST', `/admin/api/devices/${deviceId()}/takeover`, body);
    return { status: res.status, body: res.body };
  };
  const taps = (): number => phone.argvLog.filter((argv) => argv.join(' ').includes('input tap')).length;
  const adminDevice = async (): Promise<Json> => {
    const state = await bound!.rig.bridge.admin('GET', '/admin/api/state');
    return (state.body.devices as Json[]).find((d) => d.device_id === deviceId())!;
  };
  const pushed = (check: (d: Json) => boolean, from: number): Promise<Json> =>
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
  const tool = (descriptor: Json, id: string): Json => (descriptor.tools as Json[]).find((t) => t.tool_id === id)!;

  test('taken over, the agent may watch: a queued tap and a new tap are refused with human_in_control, nothing sent; reads work; the Descriptor says so', async () => {
    const { client, channel } = bound!;
    assert.equal((await invoke(client, channel, 'android_tap', { x: 100, y: 200 })).error, undefined);
    const tapsBefore = taps();
    // A slow phone: a swipe holds the control slot, a tap waits in the queue behind it.
    phone.setLatency(1500);
    const swipe = invoke(client, channel, 'android_swipe', { direction: 'up' });
    await waitUntil(
      () => bound!.rig.bridge.core.tools.agentQueueStats(deviceId()).running === 1,
      10_000,
      'the swipe running',
    );
    const queued = invoke(client, channel, 'android_tap', { x: 300, y: 300 });
    await waitUntil(() => bound!.rig.bridge.core.tools.agentQueueStats(deviceId()).queued === 1, 10_000, 'queued tap');

    const from = client.received.length;
    const res = await takeover({ action: 'take', agent_may_watch: true });
    phone.setLatency(0);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'taken');
    assert.equal(res.body.taken_over.by, 'person at the computer');
    assert.equal(res.body.taken_over.agent_may_watch, true);
    assert.deepEqual((await adminDevice()).taken_over, res.body.taken_over);

    const descriptor = await pushed((d) => /^human_in_control/.test(String(tool(d, 'android_tap').reason ?? '')), from);
    assert.deepEqual(validateDescriptor(descriptor), [], JSON.stringify(descriptor));
    assert.equal(descriptor.connection.status, 'connected');
    assert.equal(tool(descriptor, 'android_tap').status, 'available');
    assert.equal(tool(descriptor, 'android_screenshot').reason, undefined, 'observation tools carry no note');

    // Refused at once, while the swipe still holds the phone's control slot.
    const started = Date.now();
    const now = await invoke(client, channel, 'android_tap', { x: 400, y: 400 });
    assert.equal(now.error?.code, 'human_in_control');
    assert.match(String(now.error?.message), /person .*hand it back/);
    assert.match(String(now.error?.message), /let the agent watch/);
    assert.ok(Date.now() - started < 1500, 'answered without waiting for the queue');

    // The person let the agent watch: its screen reads are served while they hold the phone.
    const shot = await invoke(client, channel, 'android_screenshot');
    assert.equal(shot.error, undefined, JSON.stringify(shot.error));
    const tree = await invoke(client, channel, 'android_ui_tree');
    assert.equal(tree.error, undefined, JSON.stringify(tree.error));

    assert.equal((await swipe).error, undefined, 'the call running at the take-over ends as it would');
    assert.equal((await queued).error?.code, 'human_in_control');
    assert.equal(taps(), tapsBefore, 'no tap reached the phone while a person held it');

    // Taking a phone already taken is refused.
    const again = await takeover({ action: 'take' });
    assert.equal(again.body.error?.code, 'human_in_control', JSON.stringify(again.body));
  });

  test('while taken: the person taps, swipes and presses Home from the console; nothing else reaches the phone', async () => {
    const input = async (body: Json): Promise<{ status: number; body: Json }> => {
      const res = await bound!.rig.bridge.admin('POST', `/admin/api/devices/${deviceId()}/input`, body);
      return { status: res.status, body: res.body };
    };
    const lines = (): string[] => phone.argvLog.map((argv) => argv.join(' '));
    const from = phone.argvLog.length;
    assert.deepEqual((await input({ kind: 'tap', x: 123, y: 456 })).body, { status: 'ok' });
    assert.equal((await input({ kind: 'swipe', x1: 500, y1: 1500, x2: 500, y2: 500 })).status, 200);
    assert.equal((await input({ kind: 'key', key: 'home' })).status, 200);
    const sent = lines().slice(from);
    assert.ok(sent.includes('input tap 123 456'), sent.join('\n'));
    assert.ok(sent.includes('input swipe 500 1500 500 500 300'), sent.join('\n'));
    assert.ok(sent.includes('input keyevent 3'), sent.join('\n'));

    const before = phone.argvLog.length;
    const outside = await input({ kind: 'tap', x: 99_999, y: 10 });
    assert.equal(outside.body.error?.code, 'out_of_bounds', JSON.stringify(outside.body));
    for (const bad of [
      { kind: 'shell', command: 'rm -rf /sdcard' },
      { kind: 'key', key: 'power' },
      { kind: 'tap', x: '1; reboot', y: 2 },
    ]) {
      const res = await input(bad);
      assert.equal(res.body.error?.code, 'invalid_arguments', JSON.stringify(bad));
    }
    assert.ok(
      !lines()
        .slice(before)
        .some((l) => l.startsWith('input')),
      'no refused input reached the phone',
    );
  });

  test('the lease idle timer stands still while taken over; handed back, taps work and the Descriptor note goes', async () => {
    const { client, channel } = bound!;
    // Well past the idle timeout on the bridge's clock: the sweep (every 250 ms) leaves the lease alone.
    skew += 10_000;
    const sweptAt = Date.now();
    await waitUntil(() => Date.now() - sweptAt > 1000, 5000, 'a few lease sweeps');
    assert.equal(bound!.rig.bridge.core.bindings.leaseHolder(deviceId()), channel);

    const from = client.received.length;
    const res = await takeover({ action: 'hand_back', note: 'logged in to the test account' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, { status: 'handed_back', taken_over: null });
    assert.equal((await adminDevice()).taken_over, null);
    const descriptor = await pushed((d) => tool(d, 'android_tap').reason === undefined, from);
    assert.equal(descriptor.connection.status, 'connected');

    const tapsBefore = taps();
    assert.equal((await invoke(client, channel, 'android_tap', { x: 500, y: 600 })).error, undefined);
    assert.equal(taps(), tapsBefore + 1);
    assert.equal(bound!.rig.bridge.core.bindings.leaseHolder(deviceId()), channel);

    // Handing back a phone nobody holds is refused, and so is the person's input.
    assert.equal((await takeover({ action: 'hand_back' })).status, 400);
    const late = await bound!.rig.bridge.admin('POST', `/admin/api/devices/${deviceId()}/input`, {
      kind: 'tap',
      x: 1,
      y: 1,
    });
    assert.equal(late.status, 400);
    assert.equal(taps(), tapsBefore + 1, 'the refused input never reached the phone');
  });

  test('the audit has the take-over and the hand-back as the person’s', async () => {
    const res = await bound!.rig.bridge.admin('GET', '/admin/api/audit?limit=50');
    const entries = res.body.entries as Json[];
    const take = entries.find((e) => e.tool_id === 'take_over');
    const back = entries.find((e) => e.tool_id === 'hand_back');
    assert.equal(take?.decided_by, 'person');
    assert.equal(back?.decided_by, 'person');
    assert.equal(back?.arguments.note, 'logged in to the test account');
    assert.ok(back?.arguments.held_ms >= 10_000, JSON.stringify(back));
    const personTap = entries.find((e) => e.tool_id === 'person_tap' && e.outcome === 'ok');
    assert.equal(personTap?.decided_by, 'person');
    assert.deepEqual(personTap?.arguments, { kind: 'tap', x: 123, y: 456 });
    assert.equal(entries.find((e) => e.tool_id === 'person_key')?.decided_by, 'person');
  });
});

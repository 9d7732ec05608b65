/**
 * Every control and observation tool of the Card, once, against a simulated phone through
 * the real adb server: what the agent gets back and what the phone actually ran.
 * (Screenshots, recordings, installs and file pushes have their own files.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import type { XAgentClient } from '../helpers/xagent-client';

type Result = Record<string, any>;

describe('the android_* tool set on a simulated phone', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;

  const argvs = (first: string): string[][] => rig.phones[0]!.argvLog.filter((argv) => argv[0] === first);
  const ok = async (toolId: string, args: Record<string, unknown> = {}): Promise<Result> => {
    const ack = await invoke(client, channel, toolId, args);
    assert.equal(ack.type, 'tool.invoke.ack');
    assert.equal(ack.error, undefined, `${toolId}: ${JSON.stringify(ack.error)}`);
    assert.equal(ack.payload?.tool_id, toolId);
    return ack.payload?.result as Result;
  };

  let bound: BoundRig | undefined;
  before(async () => {
    bound = await startBoundRig({ lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 } });
    ({ rig, client, channel } = bound);
  });
  after(() => bound?.stop());

  test('the Descriptor lists every Card tool, each available on a bound, online phone', async () => {
    const card = (await (await fetch(`${rig.bridge.url}/connector-card.json`)).json()) as {
      tools: Array<{ tool_id: string }>;
    };
    const described = await client.request('connection.descriptor.get', {}, channel);
    const descriptor = described.payload?.connection_descriptor as Result;
    assert.deepEqual(validateDescriptor(descriptor), []);
    const listed = (descriptor.tools as Array<{ tool_id: string; status: string }>).map((t) => t.tool_id).sort();
    assert.deepEqual(listed, card.tools.map((t) => t.tool_id).sort());
    assert.ok((descriptor.tools as Array<{ status: string }>).every((t) => t.status === 'available'));
  });

  test('launch, stop and list apps', async () => {
    rig.phones[0]!.clearArgvLog();
    const launched = await ok('android_launch_app', { package: 'com.example.notes' });
    assert.equal(launched.package, 'com.example.notes');
    assert.equal(rig.phones[0]!.foregroundPackage(), 'com.example.notes');
    const stopped = await ok('android_stop_app', { package: 'com.example.notes' });
    assert.equal(stopped.status, 'stopped');
    assert.deepEqual(argvs('am').at(-1), ['am', 'force-stop', 'com.example.notes']);
    assert.notEqual(rig.phones[0]!.foregroundPackage(), 'com.example.notes');
    const missing = await invoke(client, channel, 'android_launch_app', { package: 'com.example.nothere' });
    assert.equal(missing.error?.code, 'app_not_found');
    const thirdParty = await ok('android_list_apps');
    const all = await ok('android_list_apps', { include_system: true });
    assert.ok((thirdParty.packages as string[]).includes('com.example.notes'));
    assert.ok(
      (all.packages as string[]).length > (thirdParty.packages as string[]).length,
      'system apps only on request',
    );
  });

  test('tap by element selector, then type with clear and submit; observe returns the new tree', async () => {
    await ok('android_launch_app', { package: 'com.example.notes' });
    rig.phones[0]!.clearArgvLog();
    const tapped = await ok('android_tap', { element: { resource_id: 'note_text' }, observe: true });
    assert.equal(tapped.status, 'tapped');
    assert.equal(typeof tapped.screen_changed, 'boolean');
    assert.ok(
      (tapped.ui as Result[]).some((n) => n.text === 'Save'),
      'observe returns the interactive tree after the tap',
    );
    const [tap] = argvs('input');
    assert.deepEqual(tap, ['input', 'tap', String(tapped.x), String(tapped.y)]);
    await ok('android_type_text', { text: 'first draft' });
    const typed = await ok('android_type_text', { text: 'final', clear: true, submit: true });
    assert.equal(typed.submitted, true);
    assert.equal(rig.phones[0]!.typedText('note_text')?.replace(/\n$/, ''), 'final');
    assert.deepEqual(argvs('input').at(-1), ['input', 'keyevent', '66'], 'Enter pressed after typing');
    const notFound = await invoke(client, channel, 'android_tap', { element: { text: 'No such button anywhere' } });
    assert.equal(notFound.error?.code, 'element_not_found');
  });

  test('long press, swipe by coordinates and by direction, press keys', async () => {
    rig.phones[0]!.clearArgvLog();
    await ok('android_long_press', { x: 300, y: 600, duration_ms: 900 });
    await ok('android_swipe', { from_x: 540, from_y: 2000, to_x: 540, to_y: 600, duration_ms: 250 });
    const up = await ok('android_swipe', { direction: 'up', distance: 0.5 });
    assert.deepEqual(up.from, [540, 1800]);
    assert.deepEqual(up.to, [540, 600]);
    await ok('android_press_key', { key: 'back' });
    await ok('android_press_key', { key: 'home' });
    assert.deepEqual(argvs('input'), [
      ['input', 'swipe', '300', '600', '300', '600', '900'],
      ['input', 'swipe', '540', '2000', '540', '600', '250'],
      ['input', 'swipe', '540', '1800', '540', '600', '300'],
      ['input', 'keyevent', '4'],
      ['input', 'keyevent', '3'],
    ]);
    const badKey = await invoke(client, channel, 'android_press_key', { key: 'self_destruct' });
    assert.equal(badKey.error?.code, 'invalid_arguments');
    const halfSwipe = await invoke(client, channel, 'android_swipe', { from_x: 1 });
    assert.equal(halfSwipe.error?.code, 'invalid_arguments');
  });

  test('ordinary taps are not held by the default safety policy: home-screen wallpaper, a Notes field', async () => {
    await ok('android_press_key', { key: 'home' });
    rig.phones[0]!.clearArgvLog();
    const wallpaper = await ok('android_tap', { x: 540, y: 1900 });
    assert.equal(wallpaper.safety?.decision, 'allow', JSON.stringify(wallpaper.safety));
    await ok('android_launch_app', { package: 'com.example.notes' });
    const field = await ok('android_tap', { element: { resource_id: 'note_text' } });
    assert.equal(field.safety?.decision, 'allow', JSON.stringify(field.safety));
    assert.equal(argvs('input').filter((argv) => argv[1] === 'tap').length, 2);
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    assert.deepEqual(state.body.approvals, [], 'nothing waited for a person');
  });

  test('open an https URL with one VIEW intent; other schemes are refused by the tool schema', async () => {
    rig.phones[0]!.clearArgvLog();
    const url = 'https://example.com/a?b=1&c=$(reboot)';
    await ok('android_open_url', { url });
    assert.deepEqual(argvs('am'), [['am', 'start', '-a', 'android.intent.action.VIEW', '-d', url]]);
    assert.ok(!rig.phones[0]!.argvLog.some((argv) => argv[0] === 'reboot'));
    const file = await invoke(client, channel, 'android_open_url', { url: 'file:///sdcard/secret.txt' });
    assert.equal(file.error?.code, 'invalid_arguments');
  });

  test('batch runs steps back to back, reports each, and stops at the first error', async () => {
    await ok('android_launch_app', { package: 'com.example.notes' });
    rig.phones[0]!.clearArgvLog();
    const batch = await ok('android_batch', {
      steps: [
        { tool: 'android_tap', arguments: { x: 100, y: 700 } },
        { tool: 'android_press_key', arguments: { key: 'back' } },
      ],
    });
    assert.equal((batch.steps as unknown[]).length, 2);
    assert.deepEqual(argvs('input'), [
      ['input', 'tap', '100', '700'],
      ['input', 'keyevent', '4'],
    ]);

    rig.phones[0]!.clearArgvLog();
    const failing = await invoke(client, channel, 'android_batch', {
      steps: [
        { tool: 'android_tap', arguments: { x: 100, y: 700 } },
        { tool: 'android_tap', arguments: { element: { text: 'No such button anywhere' } } },
        { tool: 'android_press_key', arguments: { key: 'home' } },
      ],
    });
    const failed = failing.payload?.result as Result;
    assert.equal(failed.status, 'stopped_on_error');
    assert.equal(failed.completed, 1);
    assert.deepEqual(
      (failed.steps as Result[]).map((step) => [step.tool, step.ok, step.error?.code]),
      [
        ['android_tap', true, undefined],
        ['android_tap', false, 'element_not_found'],
      ],
    );
    assert.deepEqual(argvs('input'), [['input', 'tap', '100', '700']], 'the step after the failing one never ran');

    rig.phones[0]!.clearArgvLog();
    const invalid = await invoke(client, channel, 'android_batch', {
      steps: [
        { tool: 'android_tap', arguments: { x: 100, y: 700 } },
        { tool: 'android_press_key', arguments: { key: 'nope' } },
      ],
    });
    assert.equal(invalid.error?.code, 'invalid_arguments');
    assert.deepEqual(argvs('input'), [], 'a batch with an invalid step runs nothing');
  });

  test('wait_for: an element that is there, one that never comes (with progress), a settled screen', async () => {
    await ok('android_launch_app', { package: 'com.example.notes' });
    const present = await ok('android_wait_for', { element: { text: 'Save' }, timeout_ms: 2000 });
    assert.equal(present.met, true);
    const mark = client.received.length;
    const absent = await ok('android_wait_for', { element: { text: 'Never shown' }, timeout_ms: 800 });
    assert.equal(absent.met, false);
    assert.ok(absent.elapsed_ms >= 800);
    const progress = client.received
      .slice(mark)
      .filter((p) => p.type === 'tool.progress.push')
      .map((p) => p.payload ?? {});
    assert.ok(
      progress.some((p) => p.status === 'waiting' && p.tool_id === 'android_wait_for'),
      'progress pushed while waiting',
    );
    const settled = await ok('android_wait_for', { condition: 'settled', timeout_ms: 3000 });
    assert.equal(settled.met, true);
  });

  test('device status and the UI tree describe the phone as it is', async () => {
    const status = await ok('android_device_status');
    assert.equal(status.model, 'Pixel 7');
    assert.equal(status.screen.width, 1080);
    assert.equal(status.screen.height, 2400);
    assert.equal(status.foreground?.package ?? status.foreground_package, 'com.example.notes');
    assert.equal(typeof status.battery?.level, 'number');
    const tree = await ok('android_ui_tree', { interactive_only: true });
    const save = (tree.nodes as Result[]).find((n) => n.text === 'Save');
    assert.ok(save, 'the Save button is in the interactive tree');
    assert.equal(save.clickable, true);
    assert.equal(save.center.length, 2);
    rig.phones[0]!.failNextUiDump();
    const retried = await ok('android_ui_tree');
    assert.ok((retried.nodes as unknown[]).length > 0, 'one failed dump is retried');
  });
});

/**
 * Hardening — tool arguments at every bound, over the real adb server and a simulated
 * phone: negative and huge coordinates, edges of the screen, 100 kB text, NUL bytes, unknown
 * keys, wrong types, unknown packages and tools. Each gets its stable code, and nothing that
 * acts reaches the phone (its argv log shows at most read-only look-ups).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { invokeWith, openHarmlessApp } from './helpers';

// Commands that only read (screen size, UI dump, package look-ups); everything else acts.
const READ_ONLY = (argv: string[]): boolean =>
  ['wm', 'getprop', 'dumpsys', 'uiautomator', 'cat', 'ime', 'echo'].includes(argv[0] ?? '') ||
  (argv[0] === 'pm' && (argv[1] === 'path' || argv[1] === 'list')) ||
  (argv[0] === 'settings' && argv[1] === 'get');

interface Case {
  name: string;
  tool: string;
  args: unknown;
  code: string;
}

const W = 1080;
const H = 2400;

const CASES: Case[] = [
  // Coordinates
  { name: 'negative x', tool: 'android_tap', args: { x: -1, y: 10 }, code: 'invalid_arguments' },
  { name: 'very negative y', tool: 'android_tap', args: { x: 1, y: -2147483648 }, code: 'invalid_arguments' },
  { name: 'huge x', tool: 'android_tap', args: { x: 1e12, y: 10 }, code: 'invalid_arguments' },
  {
    name: 'unsafe integer',
    tool: 'android_tap',
    args: { x: Number.MAX_SAFE_INTEGER + 2, y: 10 },
    code: 'invalid_arguments',
  },
  { name: 'fractional x', tool: 'android_tap', args: { x: 1.5, y: 10 }, code: 'invalid_arguments' },
  { name: 'exponent x', tool: 'android_tap', args: { x: 1e-300, y: 10 }, code: 'invalid_arguments' },
  { name: 'x as string', tool: 'android_tap', args: { x: '10', y: 10 }, code: 'invalid_arguments' },
  { name: 'x as null', tool: 'android_tap', args: { x: null, y: 10 }, code: 'invalid_arguments' },
  { name: 'x as array', tool: 'android_tap', args: { x: [10], y: 10 }, code: 'invalid_arguments' },
  { name: 'x without y', tool: 'android_tap', args: { x: 10 }, code: 'invalid_arguments' },
  { name: 'x at the screen width', tool: 'android_tap', args: { x: W, y: 10 }, code: 'out_of_bounds' },
  { name: 'y at the screen height', tool: 'android_tap', args: { x: 10, y: H }, code: 'out_of_bounds' },
  {
    name: 'in schema, far outside the screen',
    tool: 'android_tap',
    args: { x: 100_000, y: 100_000 },
    code: 'out_of_bounds',
  },
  {
    name: 'long press too short',
    tool: 'android_long_press',
    args: { x: 1, y: 1, duration_ms: 299 },
    code: 'invalid_arguments',
  },
  {
    name: 'long press too long',
    tool: 'android_long_press',
    args: { x: 1, y: 1, duration_ms: 10_001 },
    code: 'invalid_arguments',
  },
  {
    name: 'swipe off screen',
    tool: 'android_swipe',
    args: { from_x: 10, from_y: 10, to_x: W + 5, to_y: 10 },
    code: 'out_of_bounds',
  },
  {
    name: 'swipe negative',
    tool: 'android_swipe',
    args: { from_x: -10, from_y: 10, to_x: 5, to_y: 10 },
    code: 'invalid_arguments',
  },
  {
    name: 'swipe zero duration',
    tool: 'android_swipe',
    args: { direction: 'up', duration_ms: 0 },
    code: 'invalid_arguments',
  },
  {
    name: 'swipe distance > 0.95',
    tool: 'android_swipe',
    args: { direction: 'up', distance: 1.5 },
    code: 'invalid_arguments',
  },
  { name: 'swipe half a gesture', tool: 'android_swipe', args: { from_x: 10, from_y: 10 }, code: 'invalid_arguments' },
  // Text
  { name: '100 kB text', tool: 'android_type_text', args: { text: 'a'.repeat(100_000) }, code: 'invalid_arguments' },
  {
    name: '100 kB of emoji',
    tool: 'android_type_text',
    args: { text: '😀'.repeat(25_000) },
    code: 'invalid_arguments',
  },
  { name: 'empty text', tool: 'android_type_text', args: { text: '' }, code: 'invalid_arguments' },
  { name: 'text as number', tool: 'android_type_text', args: { text: 42 }, code: 'invalid_arguments' },
  {
    name: 'selector with no field',
    tool: 'android_type_text',
    args: { text: 'x', element: {} },
    code: 'invalid_arguments',
  },
  {
    name: '100 kB selector text',
    tool: 'android_tap',
    args: { element: { text: 'x'.repeat(100_000) } },
    code: 'invalid_arguments',
  },
  // Keys, apps, URLs
  { name: 'unknown key', tool: 'android_press_key', args: { key: 'reboot' }, code: 'invalid_arguments' },
  { name: 'key as number', tool: 'android_press_key', args: { key: 3 }, code: 'invalid_arguments' },
  {
    name: 'package with shell syntax',
    tool: 'android_launch_app',
    args: { package: 'com.x; reboot' },
    code: 'invalid_arguments',
  },
  { name: 'package as an option', tool: 'android_launch_app', args: { package: '--user' }, code: 'invalid_arguments' },
  {
    name: 'overlong package',
    tool: 'android_launch_app',
    args: { package: `com.${'a'.repeat(300)}` },
    code: 'invalid_arguments',
  },
  {
    name: 'activity with traversal',
    tool: 'android_launch_app',
    args: { package: 'com.example.notes', activity: '../../x' },
    code: 'invalid_arguments',
  },
  {
    name: 'stop with shell syntax',
    tool: 'android_stop_app',
    args: { package: '$(reboot)' },
    code: 'invalid_arguments',
  },
  { name: 'file URL', tool: 'android_open_url', args: { url: 'file:///data/data' }, code: 'invalid_arguments' },
  { name: 'javascript URL', tool: 'android_open_url', args: { url: 'javascript:alert(1)' }, code: 'invalid_arguments' },
  { name: 'intent URL', tool: 'android_open_url', args: { url: 'intent://x#Intent;end' }, code: 'invalid_arguments' },
  { name: 'URL as an option', tool: 'android_open_url', args: { url: '-n com.x/.Y' }, code: 'invalid_arguments' },
  {
    name: '100 kB URL',
    tool: 'android_open_url',
    args: { url: `https://example.com/${'a'.repeat(100_000)}` },
    code: 'invalid_arguments',
  },
  // Shapes
  {
    name: 'unknown key in arguments',
    tool: 'android_tap',
    args: { x: 1, y: 1, shell: 'reboot' },
    code: 'invalid_arguments',
  },
  {
    name: 'prototype key',
    tool: 'android_tap',
    args: JSON.parse('{"x":1,"y":1,"__proto__":{"polluted":true}}') as unknown,
    code: 'invalid_arguments',
  },
  { name: 'arguments as array', tool: 'android_tap', args: [1, 2], code: 'invalid_arguments' },
  { name: 'arguments as string', tool: 'android_tap', args: 'x=1', code: 'invalid_arguments' },
  { name: 'arguments null', tool: 'android_tap', args: null, code: 'invalid_arguments' },
  {
    name: 'batch of 21 steps',
    tool: 'android_batch',
    args: { steps: Array.from({ length: 21 }, () => ({ tool: 'android_tap', arguments: { x: 1, y: 1 } })) },
    code: 'invalid_arguments',
  },
  {
    name: 'batch with a bad third step',
    tool: 'android_batch',
    args: {
      steps: [
        { tool: 'android_tap', arguments: { x: 1, y: 1 } },
        { tool: 'android_press_key', arguments: { key: 'home' } },
        { tool: 'android_tap', arguments: { x: -1, y: 1 } },
      ],
    },
    code: 'invalid_arguments',
  },
  {
    name: 'batch smuggling another tool',
    tool: 'android_batch',
    args: { steps: [{ tool: 'android_install_apk', arguments: {} }] },
    code: 'invalid_arguments',
  },
  { name: 'screenshot bad format', tool: 'android_screenshot', args: { format: 'bmp' }, code: 'invalid_arguments' },
  { name: 'screenshot negative size', tool: 'android_screenshot', args: { max_side: -1 }, code: 'invalid_arguments' },
  {
    name: 'install a made-up file_ref',
    tool: 'android_install_apk',
    args: { file_ref: '../../etc/passwd' },
    code: 'invalid_arguments',
  },
  {
    name: 'push with a path as name',
    tool: 'android_push_file',
    args: { file_ref: `file_${'A'.repeat(32)}`, filename: '../../system/x' },
    code: 'invalid_arguments',
  },
  // Tools
  { name: 'unknown tool', tool: 'android_shell', args: { cmd: 'id' }, code: 'unknown_tool' },
  { name: '100 kB tool id', tool: 'x'.repeat(100_000), args: {}, code: 'unknown_tool' },
  { name: 'prototype tool id', tool: '__proto__', args: {}, code: 'unknown_tool' },
  { name: 'constructor tool id', tool: 'constructor', args: {}, code: 'unknown_tool' },
];

describe('hardening: tool arguments at every bound', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;

  before(async () => {
    rig = await startDeviceRig(1);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
    await openHarmlessApp(client, channel);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('tool arguments at every bound: stable codes, nothing that acts reaches the phone', async () => {
    const phone = rig.phones[0]!;
    const screenBefore = phone.screenState();
    const mismatches: string[] = [];
    let n = 0;
    for (const c of CASES) {
      phone.clearArgvLog();
      const ack = await client.request(
        'tool.invoke',
        { tool_id: c.tool, arguments: c.args, context: { tool_call_id: `call_args_${process.pid}_${++n}` } },
        channel,
      );
      assert.equal(ack.type, 'tool.invoke.ack', c.name);
      if (ack.error?.code !== c.code)
        mismatches.push(
          `${c.name}: expected ${c.code}, got ${ack.error?.code ?? 'success'} (${ack.error?.message ?? ''})`,
        );
      assert.ok((ack.error?.message ?? '').length <= 600, `${c.name}: a bounded message`);
      const acted = phone.argvLog.filter((argv) => !READ_ONLY(argv));
      assert.deepEqual(acted, [], `${c.name}: reached the phone`);
    }
    assert.deepEqual(mismatches, []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype pollution');
    assert.equal(phone.screenState().version, screenBefore.version, 'the screen never changed');
    assert.deepEqual(client.invalid, []);
  });

  test('the edges that are allowed work: last pixel, 10 000 characters, a real package; an unknown package is app_not_found', async () => {
    const phone = rig.phones[0]!;
    phone.clearArgvLog();
    const corner = await invokeWith(
      client,
      channel,
      'android_tap',
      { x: W - 1, y: H - 1 },
      `call_edge_${process.pid}_1`,
    );
    assert.equal(corner.error, undefined, JSON.stringify(corner.error));
    assert.deepEqual(
      phone.argvLog.filter((a) => a[0] === 'input'),
      [['input', 'tap', String(W - 1), String(H - 1)]],
    );
    const launched = await invokeWith(
      client,
      channel,
      'android_launch_app',
      { package: 'com.example.notes' },
      `call_edge_${process.pid}_2`,
    );
    assert.equal(launched.error, undefined, JSON.stringify(launched.error));
    // Typing needs a focused field (else no_focused_field): the note's.
    const focused = await invokeWith(
      client,
      channel,
      'android_tap',
      { element: { resource_id: 'note_text' } },
      `call_edge_${process.pid}_focus`,
    );
    assert.equal(focused.error, undefined, JSON.stringify(focused.error));
    phone.clearArgvLog();
    const long = 'b'.repeat(10_000);
    const typed = await invokeWith(client, channel, 'android_type_text', { text: long }, `call_edge_${process.pid}_3`);
    assert.equal(typed.error, undefined, JSON.stringify(typed.error));
    assert.equal(
      phone.argvLog
        .filter((a) => a[0] === 'input' && a[1] === 'text')
        .map((a) => a[2])
        .join(''),
      long,
    );
    const before = phone.foregroundPackage();
    phone.clearArgvLog();
    const unknown = await invokeWith(
      client,
      channel,
      'android_launch_app',
      { package: 'com.nobody.installed' },
      `call_edge_${process.pid}_4`,
    );
    assert.equal(unknown.error?.code, 'app_not_found', JSON.stringify(unknown.error));
    assert.equal(phone.foregroundPackage(), before);
    assert.ok(!phone.argvLog.some((a) => a[0] === 'am' || a[0] === 'input'), JSON.stringify(phone.argvLog));
  });
});

/**
 * The lanes' fallback rules (main/core/helper/fast-lane.ts) with a scripted helper session and
 * a scripted shell: an input goes the stock way only when the helper provably did nothing; an
 * ambiguous failure is reported and nothing is sent again; typing that fails midway sends only
 * the rest of the text the stock way; a password field never reaches the helper; a failed or
 * sparse helper tree is replaced by the stock dump after the helper stepped aside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import { FastLanes } from '../../main/core/helper/fast-lane';
import type { HelperManager, HelperSession } from '../../main/core/helper/helper-manager';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

type Answer = unknown | BridgeError;

function rig(answers: Answer[]) {
  const sent: Array<{ method: string; path: string; body: unknown }> = [];
  const events: string[] = [];
  const session: HelperSession = {
    version: '10.6.6',
    call: async (method, path, body) => {
      sent.push({ method, path, body });
      const answer = answers.length > 1 ? answers.shift() : answers[0];
      if (answer instanceof BridgeError) throw answer;
      return answer;
    },
  };
  let running = true;
  const manager = {
    acquire: async () => (running ? session : null),
    noteLane: (_id: string, lane: string) => events.push(`lane:${lane}`),
    helperFailed: async (_id: string, error: unknown) => {
      events.push(`failed:${(error as BridgeError).code}`);
    },
    isRunning: () => running,
    pause: async () => {
      events.push('pause');
      running = false;
    },
  } as unknown as HelperManager;
  const shell = new FakeDeviceShell().on(['input'], { stdout: '', exitCode: 0 });
  const lanes = new FastLanes(manager).forCall('dev_1', shell);
  return { lanes, sent, events, shell };
}

const refused = new BridgeError('helper_unavailable', 'the helper on the phone is not answering (closed)');
const answeredError = new BridgeError(
  'helper_unavailable',
  'the helper refused POST /session/…/actions: invalid argument',
  { status: 400, helperError: 'invalid argument' },
);
const lost = new BridgeError(
  'outcome_unknown',
  'the helper took POST /session/…/actions but the connection closed before any answer; whether it acted is unknown',
);

test('a tap the helper did: lane helper, no input', async () => {
  const { lanes, sent, shell } = rig([null]);
  assert.equal(await lanes.tap(10, 20), 'helper');
  assert.equal(sent[0]?.path, '/actions');
  assert.deepEqual(shell.argvs(), []);
});

test('a tap the helper provably did not do goes the stock way in the same call, once', async () => {
  for (const error of [refused, answeredError]) {
    const { lanes, shell, events } = rig([error]);
    assert.equal(await lanes.tap(10, 20), 'adb');
    assert.deepEqual(shell.argvs(), [['input', 'tap', '10', '20']]);
    assert.ok(events.includes('failed:helper_unavailable'));
  }
});

test('a tap whose answer never came is outcome_unknown and is not sent again', async () => {
  const { lanes, shell } = rig([lost]);
  await assert.rejects(lanes.tap(10, 20), (e: unknown) => e instanceof BridgeError && e.code === 'outcome_unknown');
  assert.deepEqual(shell.argvs(), []);
});

test('typing that fails midway sends only the rest of the text the stock way', async () => {
  // 'ab' through the helper, then ENTER refused: the rest ("\ncd") goes through input.
  const { lanes, sent, shell } = rig([null, refused]);
  const typed = await lanes.typeText('ab\ncd', { hasUnicodeIme: false });
  assert.equal(typed.lane, 'adb');
  assert.deepEqual(
    sent.map((s) => s.path),
    ['/keys', '/appium/device/press_keycode'],
  );
  assert.deepEqual(shell.argvs(), [
    ['input', 'keyevent', '66'],
    ['input', 'text', 'cd'],
  ]);
});

test('a password field never reaches the helper', async () => {
  const { lanes, sent, shell } = rig([null]);
  const typed = await lanes.typeText('Sesame-42', { hasUnicodeIme: false, password: true });
  assert.equal(typed.lane, 'adb');
  assert.deepEqual(sent, []);
  assert.deepEqual(shell.argvs(), [['input', 'text', 'Sesame-42']]);
});

test('a sparse helper tree: the helper steps aside and the stock dump answers', async () => {
  const sparse =
    '<hierarchy rotation="0"><android.widget.FrameLayout package="com.example.chat" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" /></hierarchy>';
  const { lanes, events, shell } = rig([sparse]);
  shell.on(
    ['uiautomator', 'dump'],
    '<?xml version="1.0"?><hierarchy rotation="0"><node text="Hello" package="com.example.chat" class="android.widget.TextView" bounds="[0,0][100,100]" /></hierarchy>\nUI hierchary dumped to: /dev/tty',
  );
  const tree = await lanes.tree({ timeoutMs: 5_000, signal: new AbortController().signal });
  assert.equal(tree.lane, 'adb');
  assert.equal(tree.nodes[0]?.text, 'Hello');
  assert.deepEqual(events.slice(0, 2), ['pause', 'lane:adb']);
});

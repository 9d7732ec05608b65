import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertInsideScreen,
  dragAndDrop,
  longPress,
  pressKey,
  pressKeys,
  swipe,
  tap,
} from '../../main/core/android/input';
import { KEY_NAMES, keyCode } from '../../main/core/android/keys';
import { BridgeError } from '../../main/core/errors';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

const screen = { width: 1080, height: 2400 };

void describe('keys', () => {
  void test('named keys map to Android keycodes', () => {
    const expected: Record<string, number> = {
      home: 3,
      back: 4,
      enter: 66,
      delete: 67,
      backspace: 67,
      forward_delete: 112,
      tab: 61,
      escape: 111,
      app_switch: 187,
      recents: 187,
      menu: 82,
      search: 84,
      power: 26,
      volume_up: 24,
      volume_down: 25,
      volume_mute: 164,
      dpad_up: 19,
      dpad_down: 20,
      dpad_left: 21,
      dpad_right: 22,
      dpad_center: 23,
      space: 62,
      move_home: 122,
      move_end: 123,
      page_up: 92,
      page_down: 93,
      wakeup: 224,
      sleep: 223,
      camera: 27,
      notifications: 83,
    };
    for (const [name, code] of Object.entries(expected)) {
      assert.equal(keyCode(name), code, name);
      assert.ok(KEY_NAMES.includes(name as (typeof KEY_NAMES)[number]), `${name} in KEY_NAMES`);
    }
    assert.equal(new Set(KEY_NAMES).size, KEY_NAMES.length);
  });

  void test('unknown or inherited names are invalid_arguments listing the known keys', () => {
    assert.throws(() => keyCode('reboot'), isCode('invalid_arguments', /known keys: .*home/));
    assert.throws(() => keyCode('toString'), isCode('invalid_arguments'));
    assert.throws(() => keyCode('__proto__'), isCode('invalid_arguments'));
  });
});

void describe('input gestures', () => {
  void test('tap sends input tap x y', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await tap(shell, 540, 1200, { screen });
    assert.deepEqual(shell.argvs(), [['input', 'tap', '540', '1200']]);
  });

  void test('tap outside the screen is out_of_bounds naming the screen size, and sends nothing', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await assert.rejects(tap(shell, 1080, 10, { screen }), isCode('out_of_bounds', /1080x2400/));
    await assert.rejects(tap(shell, 10, 2400, { screen }), isCode('out_of_bounds', /1080x2400/));
    await assert.rejects(tap(shell, -1, 10), isCode('out_of_bounds'));
    await assert.rejects(tap(shell, 10.5, 10), isCode('invalid_arguments', /integer/));
    await assert.rejects(tap(shell, Number.NaN, 10), isCode('invalid_arguments'));
    assert.equal(shell.calls.length, 0);
  });

  void test('assertInsideScreen accepts the last pixel', () => {
    assertInsideScreen({ x: 1079, y: 2399 }, screen);
    assert.throws(() => assertInsideScreen({ x: 1079, y: 2400 }, screen), isCode('out_of_bounds'));
  });

  void test('longPress is a swipe that does not move', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await longPress(shell, 100, 200, 1500);
    assert.deepEqual(shell.argvs(), [['input', 'swipe', '100', '200', '100', '200', '1500']]);
  });

  void test('swipe and dragAndDrop carry both points and the duration', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await swipe(shell, { x: 540, y: 2000 }, { x: 540, y: 400 }, 250, { screen });
    await dragAndDrop(shell, { x: 10, y: 20 }, { x: 30, y: 40 }, 2000);
    assert.deepEqual(shell.argvs(), [
      ['input', 'swipe', '540', '2000', '540', '400', '250'],
      ['input', 'draganddrop', '10', '20', '30', '40', '2000'],
    ]);
  });

  void test('durations must be integers in 1..10000 ms', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    for (const bad of [0, 10_001, 1.5, -3]) {
      await assert.rejects(
        swipe(shell, { x: 1, y: 1 }, { x: 2, y: 2 }, bad),
        isCode('invalid_arguments', /1 to 10000/),
      );
    }
    await swipe(shell, { x: 1, y: 1 }, { x: 2, y: 2 }, 10_000);
    await longPress(shell, 1, 1, 1);
    assert.equal(shell.calls.length, 2);
  });

  void test('pressKey sends the keycode, with --longpress when asked', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await pressKey(shell, 'home');
    await pressKey(shell, 'power', { longPress: true });
    await pressKeys(shell, ['dpad_down', 'dpad_down', 'enter']);
    assert.deepEqual(shell.argvs(), [
      ['input', 'keyevent', '3'],
      ['input', 'keyevent', '--longpress', '26'],
      ['input', 'keyevent', '20', '20', '66'],
    ]);
  });

  void test('an input failure (exit status or printed error) is command_failed', async () => {
    const failing = new FakeDeviceShell().on(['input'], {
      stdout: 'Error: Unknown command: draganddrop\n',
      exitCode: 0,
    });
    await assert.rejects(dragAndDrop(failing, { x: 1, y: 1 }, { x: 2, y: 2 }), isCode('command_failed', /draganddrop/));
    const exit = new FakeDeviceShell().on(['input'], { stdout: '', exitCode: 255 });
    await assert.rejects(tap(exit, 1, 1), isCode('command_failed', /input tap/));
  });

  void test('the deadline and signal reach the shell; a hung call times out', async () => {
    const shell = new FakeDeviceShell().on(['input'], { hang: true });
    const controller = new AbortController();
    const pending = tap(shell, 1, 1, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, isCode('canceled'));
    const call = shell.calls[0];
    assert.ok(call && call.options.timeoutMs <= 60_000 && call.options.timeoutMs > 59_000);
    assert.equal(call.options.signal, controller.signal);
    await assert.rejects(tap(shell, 1, 1, { timeoutMs: 20 }), isCode('command_timeout'));
  });
});

void describe('input refused by the phone', () => {
  const denied = (message: string): { stdout: string; exitCode: number } => ({
    stdout: `\nException occurred while executing 'tap':\njava.lang.SecurityException: ${message}\n\tat com.android.server.input.InputManagerService.injectInputEventToTarget(InputManagerService.java:912)\n`,
    exitCode: 255,
  });

  void test('the INJECT_EVENTS SecurityException (both wordings) is input_blocked with its fix, after one call', async () => {
    for (const message of [
      'Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.',
      'Injecting to another application requires INJECT_EVENTS permission',
    ]) {
      const shell = new FakeDeviceShell().on(['input'], denied(message));
      await assert.rejects(
        tap(shell, 10, 20),
        isCode(
          'input_blocked',
          /INJECT_EVENTS.*Fix: turn on USB debugging \(Security settings\) in Developer options \(Xiaomi\/Redmi\/POCO\), then try again/,
        ),
      );
      assert.deepEqual(shell.argvs(), [['input', 'tap', '10', '20']]);
    }
  });
});

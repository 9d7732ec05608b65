import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  devicePropsFrom,
  orientedSize,
  parseBattery,
  parseForegroundApp,
  parseGetprop,
  parseInputRotation,
  parseScreenOn,
  parseWmDensity,
  parseWmSize,
  readDeviceStatus,
  readOrientedScreenSize,
  readRotation,
  readScreenSize,
} from '../../main/core/android/device-info';
import { BridgeError } from '../../main/core/errors';
import { androidFixture, FakeDeviceShell } from '../helpers/fake-device-shell';

void describe('device-info parsers', () => {
  void test('getprop: one call, [k]: [v] lines', () => {
    const props = parseGetprop(androidFixture('getprop-pixel7-android14.txt'));
    assert.equal(props.get('ro.product.model'), 'Pixel 7');
    assert.equal(props.get('gsm.sim.state'), 'LOADED,ABSENT');
    assert.deepEqual(devicePropsFrom(props), {
      model: 'Pixel 7',
      manufacturer: 'Google',
      androidVersion: '14',
      sdk: 34,
    });
    assert.deepEqual(devicePropsFrom(parseGetprop('garbage\n[ro.build.version.sdk]: []\n')), {
      model: null,
      manufacturer: null,
      androidVersion: null,
      sdk: null,
    });
  });

  void test('wm size prefers the override; wm density too', () => {
    assert.deepEqual(parseWmSize(androidFixture('wm-size-physical.txt')), { width: 1080, height: 2400 });
    assert.deepEqual(parseWmSize(androidFixture('wm-size-override.txt')), { width: 720, height: 1600 });
    assert.equal(parseWmSize(''), null);
    assert.equal(parseWmSize('Physical size: 0x0'), null);
    assert.equal(parseWmDensity(androidFixture('wm-density.txt')), 360);
    assert.equal(parseWmDensity('Physical density: 420\n'), 420);
    assert.equal(parseWmDensity('nothing'), null);
  });

  void test('battery: level, charging, status, temperature', () => {
    assert.deepEqual(parseBattery(androidFixture('dumpsys-battery-charging.txt')), {
      level: 87,
      charging: true,
      status: 'charging',
      temperatureC: 29.1,
    });
    assert.deepEqual(parseBattery(androidFixture('dumpsys-battery-discharging.txt')), {
      level: 31,
      charging: false,
      status: 'discharging',
      temperatureC: 33.4,
    });
    assert.deepEqual(parseBattery('  status: 5\n  AC powered: true\n  level: 50\n  scale: 50\n'), {
      level: 100,
      charging: true,
      status: 'full',
      temperatureC: null,
    });
    assert.deepEqual(parseBattery(''), { level: null, charging: null, status: null, temperatureC: null });
  });

  void test('screen on from mWakefulness, falling back to Display Power', () => {
    assert.equal(parseScreenOn(androidFixture('dumpsys-power-awake.txt')), true);
    assert.equal(parseScreenOn(androidFixture('dumpsys-power-asleep.txt')), false);
    assert.equal(parseScreenOn('  Display Power: state=ON\n'), true);
    assert.equal(parseScreenOn(''), null);
  });

  void test('foreground app from mCurrentFocus, else mFocusedApp (relative names expanded)', () => {
    assert.deepEqual(parseForegroundApp(androidFixture('dumpsys-window-chrome.txt')), {
      package: 'com.android.chrome',
      activity: 'org.chromium.chrome.browser.ChromeTabbedActivity',
    });
    assert.deepEqual(parseForegroundApp(androidFixture('dumpsys-window-notification-shade.txt')), {
      package: 'com.google.android.apps.nexuslauncher',
      activity: 'com.google.android.apps.nexuslauncher.NexusLauncherActivity',
    });
    assert.equal(parseForegroundApp('  mCurrentFocus=null\n  mFocusedApp=null\n'), null);
    assert.equal(parseForegroundApp(''), null);
  });

  void test('rotation from the internal viewport, SurfaceOrientation or InputDeviceOrientation', () => {
    assert.equal(parseInputRotation(androidFixture('dumpsys-input-android14.txt')), 1);
    assert.equal(parseInputRotation(androidFixture('dumpsys-input-android12.txt')), 3);
    assert.equal(parseInputRotation('      InputDeviceOrientation: Rotation270\n'), 3);
    assert.equal(parseInputRotation('      InputDeviceOrientation: 2\n'), 2);
    assert.equal(parseInputRotation('nothing here'), null);
  });

  void test('orientedSize swaps for quarter turns', () => {
    assert.deepEqual(orientedSize({ width: 1080, height: 2400 }, 1), { width: 2400, height: 1080 });
    assert.deepEqual(orientedSize({ width: 1080, height: 2400 }, 2), { width: 1080, height: 2400 });
    assert.deepEqual(orientedSize({ width: 1080, height: 2400 }, null), { width: 1080, height: 2400 });
  });
});

void describe('readDeviceStatus', () => {
  function fullShell(): FakeDeviceShell {
    return new FakeDeviceShell()
      .on(['getprop'], androidFixture('getprop-pixel7-android14.txt'))
      .on(['wm', 'size'], androidFixture('wm-size-physical.txt'))
      .on(['wm', 'density'], 'Physical density: 420\n')
      .on(['dumpsys', 'battery'], androidFixture('dumpsys-battery-charging.txt'))
      .on(['dumpsys', 'power'], androidFixture('dumpsys-power-awake.txt'))
      .on(['dumpsys', 'window'], androidFixture('dumpsys-window-chrome.txt'))
      .on(['dumpsys', 'input'], androidFixture('dumpsys-input-android14.txt'));
  }

  void test('combines all parsers; the screen is reported in the current orientation', async () => {
    const shell = fullShell();
    const status = await readDeviceStatus(shell, { timeoutMs: 9_000 });
    assert.deepEqual(status, {
      model: 'Pixel 7',
      manufacturer: 'Google',
      androidVersion: '14',
      sdk: 34,
      screen: { width: 2400, height: 1080, naturalWidth: 1080, naturalHeight: 2400, density: 420, rotation: 1 },
      battery: { level: 87, charging: true, status: 'charging', temperatureC: 29.1 },
      screenOn: true,
      foreground: { package: 'com.android.chrome', activity: 'org.chromium.chrome.browser.ChromeTabbedActivity' },
      systemDialog: null,
    });
    assert.equal(shell.argvs().filter((a) => a[0] === 'getprop').length, 1, 'one getprop call for all props');
    assert.equal(shell.calls.length, 7);
    for (const call of shell.calls) assert.ok(call.options.timeoutMs <= 9_000);
  });

  void test('build properties already read on this connection are not read again', async () => {
    const shell = fullShell();
    const props = { model: 'Pixel 7', manufacturer: 'Google', androidVersion: '14', sdk: 34 };
    const status = await readDeviceStatus(shell, { timeoutMs: 9_000 }, props);
    assert.deepEqual(
      {
        model: status.model,
        manufacturer: status.manufacturer,
        androidVersion: status.androidVersion,
        sdk: status.sdk,
      },
      props,
    );
    assert.equal(status.battery.level, 87);
    assert.equal(shell.argvs().filter((a) => a[0] === 'getprop').length, 0);
    assert.equal(shell.calls.length, 6);
  });

  void test('runs its calls concurrently', async () => {
    const shell = fullShell().on(['dumpsys', 'input'], { hang: true });
    const controller = new AbortController();
    const pending = readDeviceStatus(shell, { signal: controller.signal });
    // All seven calls are issued before the hung one is released.
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(shell.calls.length, 7);
    controller.abort();
    await assert.rejects(pending, (e: unknown) => e instanceof BridgeError && e.code === 'canceled');
  });

  void test('empty answers give null fields, not a crash', async () => {
    const shell = new FakeDeviceShell().on([], '');
    const status = await readDeviceStatus(shell);
    assert.deepEqual(status, {
      model: null,
      manufacturer: null,
      androidVersion: null,
      sdk: null,
      screen: { width: null, height: null, naturalWidth: null, naturalHeight: null, density: null, rotation: null },
      battery: { level: null, charging: null, status: null, temperatureC: null },
      screenOn: null,
      foreground: null,
      systemDialog: null,
    });
  });

  void test('readScreenSize is one wm size call', async () => {
    const shell = new FakeDeviceShell().on(['wm', 'size'], androidFixture('wm-size-override.txt'));
    assert.deepEqual(await readScreenSize(shell), { width: 720, height: 1600 });
    assert.deepEqual(shell.argvs(), [['wm', 'size']]);
  });

  void test('readOrientedScreenSize swaps width and height in landscape', async () => {
    const shell = new FakeDeviceShell()
      .on(['wm', 'size'], androidFixture('wm-size-physical.txt'))
      .on(['dumpsys', 'input'], androidFixture('dumpsys-input-android14.txt'));
    assert.deepEqual(await readOrientedScreenSize(shell), { width: 2400, height: 1080, rotation: 1 });
    assert.equal(await readRotation(shell), 1);
    assert.equal(await readOrientedScreenSize(new FakeDeviceShell().on([], '')), null);
  });
});

/**
 * Quirks permission-dialog and anr-dialog (main/sim/QUIRKS.md): the window names, focus lines
 * and views a real phone shows, how BACK and the buttons answer them, and the bridge's parsers
 * on that output.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { parseBattery, parseForegroundApp } from '../../main/core/android/device-info';
import { parseSystemDialog, systemDialogFromTree } from '../../main/core/android/system-dialogs';
import { parseUiXml } from '../../main/core/android/ui-tree';

async function text(phone: SimulatedPhone, line: string): Promise<string> {
  const out = await phone.exec(line, { signal: new AbortController().signal });
  assert.equal(out.exitCode, 0, out.stderr.toString());
  return out.stdout.toString('utf8');
}

async function notesWith(quirk: string): Promise<SimulatedPhone> {
  const phone = createSimulatedPhone({ serial: `DLG${quirk.length}` });
  await text(phone, 'am start -n com.example.notes/.MainActivity');
  phone.setQuirks([quirk]);
  return phone;
}

describe('system dialogs on the simulated phone', () => {
  test('permission-dialog: GrantPermissionsActivity of the permission controller in focus, its views, answered by a button', async () => {
    const phone = await notesWith('permission-dialog');
    const window = await text(phone, 'dumpsys window');
    assert.match(
      window,
      /\n {2}mCurrentFocus=Window\{[0-9a-f]{7} u0 com\.google\.android\.permissioncontroller\/com\.android\.permissioncontroller\.permission\.ui\.GrantPermissionsActivity\}\n/,
    );
    assert.deepEqual(parseSystemDialog(window), {
      kind: 'permission_prompt',
      package: null,
      description: 'a permission prompt (GrantPermissionsActivity)',
    });
    assert.equal(parseForegroundApp(window)?.package, 'com.google.android.permissioncontroller');
    const dump = await text(phone, 'uiautomator dump /dev/tty');
    for (const id of [
      'permission_message',
      'permission_allow_foreground_only_button',
      'permission_allow_one_time_button',
      'permission_deny_button',
    ]) {
      assert.ok(dump.includes(`resource-id="com.android.permissioncontroller:id/${id}"`), id);
    }
    assert.ok(dump.includes('text="Allow Notes to take pictures and record video?"'));
    assert.ok(dump.includes('package="com.google.android.permissioncontroller"'));
    const nodes = parseUiXml(dump.slice(0, dump.lastIndexOf('</hierarchy>') + '</hierarchy>'.length));
    assert.equal(
      systemDialogFromTree(nodes)?.description,
      'a permission prompt: "Allow Notes to take pictures and record video?"',
    );
    const deny =
      /resource-id="com\.android\.permissioncontroller:id\/permission_deny_button"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(
        dump,
      );
    assert.ok(deny);
    const [l, t, r, b] = deny.slice(1).map(Number) as [number, number, number, number];
    await text(phone, `input tap ${Math.round((l + r) / 2)} ${Math.round((t + b) / 2)}`);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    assert.deepEqual(phone.quirks(), []);
    assert.equal(parseSystemDialog(await text(phone, 'dumpsys window')), null);
  });

  test('anr-dialog: a window titled "Application Not Responding: <pkg>" in focus, the app keeps mFocusedApp; BACK waits', async () => {
    const phone = await notesWith('anr-dialog');
    const displays = await text(phone, 'dumpsys window displays');
    assert.match(
      displays,
      /\n {2}mCurrentFocus=Window\{[0-9a-f]{7} u0 Application Not Responding: com\.example\.notes\}\n/,
    );
    assert.match(
      displays,
      /\n {2}mFocusedApp=ActivityRecord\{[0-9a-f]{7} u0 com\.example\.notes\/\.MainActivity t\d+\}\n/,
    );
    assert.deepEqual(parseForegroundApp(displays), {
      package: 'com.example.notes',
      activity: 'com.example.notes.MainActivity',
    });
    assert.equal(
      parseSystemDialog(displays)?.description,
      '"App isn\'t responding" for com.example.notes (Close app / Wait)',
    );
    const dump = await text(phone, 'uiautomator dump /dev/tty');
    assert.ok(
      dump.includes('resource-id="android:id/aerr_close"') && dump.includes('resource-id="android:id/aerr_wait"'),
    );
    assert.ok(dump.includes(`text="Notes isn't responding"`) || dump.includes('text="Notes isn&apos;t responding"'));
    await text(phone, 'input keyevent 4');
    assert.deepEqual(phone.quirks(), []);
    assert.equal(phone.screenState().screen === 'anr-dialog', false);
    assert.equal(phone.foregroundPackage(), 'com.example.notes', 'Wait keeps the app');
  });

  test('anr-dialog: Close app stops the app', async () => {
    const phone = await notesWith('anr-dialog');
    const dump = await text(phone, 'uiautomator dump /dev/tty');
    const close = /resource-id="android:id\/aerr_close"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(dump);
    assert.ok(close);
    const [l, t, r, b] = close.slice(1).map(Number) as [number, number, number, number];
    await text(phone, `input tap ${Math.round((l + r) / 2)} ${Math.round((t + b) / 2)}`);
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
  });

  test('low-battery: dumpsys battery says 5 %, discharging, nothing plugged; without the quirk the battery is back as it was', async () => {
    const phone = createSimulatedPhone({ serial: 'LOWBAT1' });
    phone.setBatteryLevel(64);
    phone.setQuirks(['low-battery']);
    const low = await text(phone, 'dumpsys battery');
    assert.match(low, /\n {2}USB powered: false\n/);
    assert.match(low, /\n {2}status: 3\n/);
    assert.match(low, /\n {2}level: 5\n/);
    assert.deepEqual(
      { ...parseBattery(low), temperatureC: null },
      { level: 5, charging: false, status: 'discharging', temperatureC: null },
    );
    phone.setQuirks([]);
    const back = parseBattery(await text(phone, 'dumpsys battery'));
    assert.equal(back.level, 64);
    assert.equal(back.charging, true);
  });
});

/**
 * A dark or locked screen (docs/REFERENCE.md "Phone check"; main/core/tools/screen-lock-guard.ts): a
 * control call is refused with `device_locked` and the fix in words before anything runs;
 * waking the screen is the agent's explicit control action (android_press_key wakeup); the
 * phone check shows the same state; the argv log proves nothing ran twice.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, type BoundRig, type DeviceRig } from '../helpers/device-rig';
import type { XAgentClient } from '../helpers/xagent-client';
import type { AdminPhoneCheck } from '../../main/contract/admin-api';

describe('screen off: device_locked, then an explicit wake', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel = '';
  let bound: BoundRig | undefined;
  before(async () => {
    bound = await startBoundRig();
    ({ rig, client, channel } = bound);
  });
  after(() => bound?.stop());

  test('a tap on a sleeping phone is refused; wakeup runs once; the tap then runs once', async () => {
    const phone = rig.phones[0];
    assert.ok(phone);
    await phone.exec('input keyevent 223', { signal: new AbortController().signal });
    phone.clearArgvLog();
    const refused = await invoke(client, channel, 'android_tap', { x: 100, y: 200 });
    assert.equal(refused.error?.code, 'device_locked', JSON.stringify(refused.error ?? refused.payload));
    assert.match(
      String(refused.error?.message),
      /screen is off \(mWakefulness=Asleep\).*Fix: wake the screen \(android_press_key with key wakeup/,
    );
    const inputs = (): string[] => phone.argvLog.filter((a) => a[0] === 'input').map((a) => a.join(' '));
    assert.deepEqual(inputs(), [], 'nothing was injected');

    const check = (await rig.bridge.admin('GET', `/admin/api/devices/${rig.device(0).deviceId}/check`))
      .body as unknown as AdminPhoneCheck;
    assert.equal(check.checks.find((c) => c.id === 'screen_awake')?.status, 'problem');

    const woke = await invoke(client, channel, 'android_press_key', { key: 'wakeup' });
    assert.equal(woke.error, undefined, JSON.stringify(woke.error));
    assert.equal(phone.screenState().awake, true);
    const tapped = await invoke(client, channel, 'android_tap', { x: 100, y: 200 });
    assert.equal(tapped.error, undefined, JSON.stringify(tapped.error));
    assert.deepEqual(inputs(), ['input keyevent 224', 'input tap 100 200'], 'each ran once, in order');
    // The state read after the wake is believed for a while: a second tap reads nothing more.
    const lockReads = (): number =>
      phone.argvLog.filter((a) => a[0] === 'dumpsys' && (a[1] === 'power' || (a[1] === 'window' && a[2] === 'policy')))
        .length;
    const reads = lockReads();
    await invoke(client, channel, 'android_tap', { x: 110, y: 210 });
    assert.equal(lockReads(), reads, JSON.stringify(phone.argvLog.slice(-6)));
  });
});

describe('quirks: screen-off, dozing, locked-swipe, locked-pin (main/sim/QUIRKS.md)', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel = '';
  let bound: BoundRig | undefined;
  before(async () => {
    bound = await startBoundRig();
    ({ rig, client, channel } = bound);
  });
  after(() => bound?.stop());

  const phone = () => {
    const p = rig.phones[0];
    assert.ok(p);
    return p;
  };
  const inputs = (): string[] =>
    phone()
      .argvLog.filter((a) => a[0] === 'input')
      .map((a) => a.join(' '));
  const check = async (): Promise<AdminPhoneCheck> =>
    (await rig.bridge.admin('GET', `/admin/api/devices/${rig.device(0).deviceId}/check`))
      .body as unknown as AdminPhoneCheck;
  const row = (c: AdminPhoneCheck, id: string) => c.checks.find((x) => x.id === id);

  for (const [quirk, wakefulness] of [
    ['screen-off', 'Asleep'],
    ['dozing', 'Dozing'],
  ] as const) {
    test(`${quirk}: refused with device_locked; the check says ${wakefulness}; wakeup, then the tap, each once`, async () => {
      phone().setQuirks([quirk]);
      const c = await check();
      assert.equal(row(c, 'screen_awake')?.status, 'problem');
      assert.match(row(c, 'screen_awake')?.detail ?? '', new RegExp(`mWakefulness=${wakefulness}`));
      assert.match(row(c, 'screen_awake')?.fix ?? '', /android_press_key wakeup/);
      phone().clearArgvLog();
      const refused = await invoke(client, channel, 'android_tap', { x: 300, y: 400 });
      assert.equal(refused.error?.code, 'device_locked', JSON.stringify(refused.error ?? refused.payload));
      assert.match(String(refused.error?.message), new RegExp(`mWakefulness=${wakefulness}.*Fix: wake the screen`));
      assert.deepEqual(inputs(), []);
      const woke = await invoke(client, channel, 'android_press_key', { key: 'wakeup' });
      assert.equal(woke.error, undefined, JSON.stringify(woke.error));
      const tapped = await invoke(client, channel, 'android_tap', { x: 300, y: 400 });
      assert.equal(tapped.error, undefined, JSON.stringify(tapped.error));
      assert.deepEqual(inputs(), ['input keyevent 224', 'input tap 300 400']);
      phone().setQuirks([]);
    });
  }

  for (const [quirk, kind] of [
    ['locked-swipe', /a lock screen without a secret \(swipe\)/],
    ['locked-pin', /a lock screen that asks for a PIN, pattern or password/],
  ] as const) {
    test(`${quirk}: taps, swipes and typing refused with device_locked, never a PIN; the check says so; unlocked by the person, the tap runs once`, async () => {
      phone().setQuirks([quirk]);
      const c = await check();
      assert.equal(row(c, 'unlocked')?.status, 'problem');
      assert.match(row(c, 'unlocked')?.detail ?? '', kind);
      assert.match(row(c, 'unlocked')?.fix ?? '', /never types a PIN/);
      phone().clearArgvLog();
      for (const [tool, args] of [
        ['android_tap', { x: 300, y: 400 }],
        ['android_swipe', { direction: 'up' }],
        ['android_type_text', { text: '1234' }],
      ] as const) {
        const refused = await invoke(client, channel, tool, args);
        assert.equal(
          refused.error?.code,
          'device_locked',
          `${tool}: ${JSON.stringify(refused.error ?? refused.payload)}`,
        );
        assert.match(String(refused.error?.message), /Fix: unlock the phone; the bridge never types a PIN/);
      }
      assert.deepEqual(inputs(), [], 'nothing reached the lock screen');
      // The person unlocks the phone, then checks again.
      phone().setQuirks([]);
      assert.equal(row(await check(), 'unlocked')?.status, 'ok');
      const tapped = await invoke(client, channel, 'android_tap', { x: 300, y: 400 });
      assert.equal(tapped.error, undefined, JSON.stringify(tapped.error));
      assert.deepEqual(inputs(), ['input tap 300 400']);
    });
  }
});

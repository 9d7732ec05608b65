/**
 * A dark or locked screen (README "Phone check"; main/core/tools/screen-lock-guard.ts): a
 * control call is refused with `device_locked` and the fix in words before anything runs;
 * waking the screen is the agent's explicit control action (android_press_key wakeup); the
 * phone check shows the same state; the argv log proves nothing ran twice.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import type { AdminPhoneCheck } from '../../main/contract/admin-api';

describe('screen off: device_locked, then an explicit wake', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel = '';
  before(async () => {
    rig = await startDeviceRig(1);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('a tap on a sleeping phone is refused; wakeup runs once; the tap then runs once', async () => {
    const phone = rig.phones[0];
    assert.ok(phone);
    await phone.exec('input keyevent 223', { signal: new AbortController().signal });
    phone.clearArgvLog();
    const refused = await invoke(client, channel, 'android_tap', { x: 100, y: 200 });
    assert.equal(refused.error?.code, 'device_locked', JSON.stringify(refused.error ?? refused.payload));
    assert.match(String(refused.error?.message), /screen is off \(mWakefulness=Asleep\).*Fix: wake the screen \(android_press_key with key wakeup/);
    const inputs = (): string[] => phone.argvLog.filter((a) => a[0] === 'input').map((a) => a.join(' '));
    assert.deepEqual(inputs(), [], 'nothing was injected');

    const check = (await rig.bridge.admin('GET', `/admin/api/devices/${rig.device(0).deviceId}/check`)).body as unknown as AdminPhoneCheck;
    assert.equal(check.checks.find((c) => c.id === 'screen_awake')?.status, 'problem');

    const woke = await invoke(client, channel, 'android_press_key', { key: 'wakeup' });
    assert.equal(woke.error, undefined, JSON.stringify(woke.error));
    assert.equal(phone.screenState().awake, true);
    const tapped = await invoke(client, channel, 'android_tap', { x: 100, y: 200 });
    assert.equal(tapped.error, undefined, JSON.stringify(tapped.error));
    assert.deepEqual(inputs(), ['input keyevent 224', 'input tap 100 200'], 'each ran once, in order');
    // The state read after the wake is believed for a while: a second tap reads nothing more.
    const lockReads = (): number => phone.argvLog.filter((a) => a[0] === 'dumpsys' && (a[1] === 'power' || (a[1] === 'window' && a[2] === 'policy'))).length;
    const reads = lockReads();
    await invoke(client, channel, 'android_tap', { x: 110, y: 210 });
    assert.equal(lockReads(), reads, JSON.stringify(phone.argvLog.slice(-6)));
  });
});

// Timing profiles and faults: delays honour abort, hangs end only when aborted, close()
// releases everything.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { USB_PHONE_TIMINGS } from '../../main/sim/timing-profiles';
import { newPhone, sh } from './phone-test-kit';

describe('usb-phone profile', () => {
  test('a command aborted during its delay ends at once and has no effect', async () => {
    const phone = newPhone({ profile: 'usb-phone' });
    const controller = new AbortController();
    // Abort as soon as the command starts its (300 ms) JVM-start delay.
    phone.events.once('command', () => controller.abort());
    const started = performance.now();
    const r = await sh(phone, 'input tap 540 600', controller.signal);
    const elapsed = performance.now() - started;
    assert.equal(r.exitCode, 130);
    assert.ok(elapsed < USB_PHONE_TIMINGS.input, `took ${elapsed} ms`);
    assert.equal(phone.screenState().lastGesture, undefined);
  });

  test('commands take at least their table time', async () => {
    const phone = newPhone({ profile: 'usb-phone' });
    const started = performance.now();
    assert.equal((await sh(phone, 'getprop ro.product.model')).stdout, 'Pixel 7\n');
    assert.ok(performance.now() - started >= USB_PHONE_TIMINGS.getprop - 1);
  });

  test('the instant profile adds no delay', async () => {
    const phone = newPhone();
    const started = performance.now();
    await sh(phone, 'input tap 1 1; input swipe 1 2 3 4 2000; uiautomator dump /dev/null');
    assert.ok(performance.now() - started < 1000);
  });
});

describe('faults', () => {
  test('a hung command finishes only when aborted; the next one works', async () => {
    const phone = newPhone();
    phone.hangNextCommand('dumpsys');
    const controller = new AbortController();
    const execStarted = once(phone.events, 'exec');
    let settled = false;
    const pending = sh(phone, 'dumpsys window', controller.signal).then((r) => {
      settled = true;
      return r;
    });
    await execStarted;
    await sh(phone, 'getprop ro.serialno');
    assert.equal(settled, false, 'still hanging after another command completed');
    controller.abort();
    assert.equal((await pending).exitCode, 130);
    assert.equal((await sh(phone, 'dumpsys window | grep -c mCurrentFocus')).stdout, '1\n');
  });

  test('setHang holds every matching command until turned off', async () => {
    const phone = newPhone();
    phone.setHang('screencap', true);
    const controller = new AbortController();
    const pending = sh(phone, 'screencap -p', controller.signal);
    controller.abort();
    assert.equal((await pending).exitCode, 130);
    phone.setHang('screencap', false);
    assert.equal((await sh(phone, 'screencap -p')).raw.subarray(1, 4).toString(), 'PNG');
  });

  test('setLatency delays every command line', async () => {
    const phone = newPhone();
    phone.setLatency(60);
    const started = performance.now();
    await sh(phone, 'true');
    assert.ok(performance.now() - started >= 59);
  });

  test('close() ends a sleeping command and is idempotent', async () => {
    const phone = newPhone();
    const pending = sh(phone, 'sleep 100; echo never');
    await once(phone.events, 'command');
    phone.close();
    phone.close();
    const r = await pending;
    assert.deepEqual([r.exitCode, r.stdout], [130, '']);
  });
});

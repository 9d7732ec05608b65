/**
 * The phone view's address (main/contract/phone-view-route.ts) and the tray's "Watch <phone>"
 * entries (main/electron/tray-state.ts trayPhoneEntries), in both languages.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { phoneFromHash, phoneHash } from '../../main/contract/phone-view-route';
import { TRAY_PHONES_MAX, trayPhoneEntries } from '../../main/electron/tray-state';
import type { AdminDevice } from '../../main/contract/admin-api';

function device(id: string, name: string, state: AdminDevice['state'] = 'device'): AdminDevice {
  return { device_id: id, display_name: name, state } as AdminDevice;
}

void describe('phone view route', () => {
  void test('a device id survives the round trip, odd characters included', () => {
    for (const id of ['dev_abc', 'dev 1/2#?', '设备-1']) assert.equal(phoneFromHash(phoneHash(id)), id);
    assert.equal(phoneHash('a/b'), '#/devices/a%2Fb');
  });

  void test('anything else opens no phone', () => {
    for (const hash of ['', '#', '#token=abc', '#/devices/', '#/devices/a/b', '#/settings', '#/devices/%E0%A4%A'])
      assert.equal(phoneFromHash(hash), null, hash);
  });
});

void describe('tray: Watch <phone>', () => {
  void test('connected phones by name, in the chosen language; offline ones left out', () => {
    const state = {
      devices: [device('d2', 'Pixel 7'), device('d1', 'Galaxy S23'), device('d3', 'Old phone', 'offline')],
    };
    assert.deepEqual(trayPhoneEntries(state, 'en'), [
      { deviceId: 'd1', label: 'Watch Galaxy S23' },
      { deviceId: 'd2', label: 'Watch Pixel 7' },
    ]);
    assert.deepEqual(
      trayPhoneEntries(state, 'zh-CN').map((e) => e.label),
      ['查看 Galaxy S23', '查看 Pixel 7'],
    );
  });

  void test(`at most ${TRAY_PHONES_MAX} phones`, () => {
    const devices = Array.from({ length: 30 }, (_, i) => device(`d${i}`, `Phone ${String(i).padStart(2, '0')}`));
    assert.equal(trayPhoneEntries({ devices }).length, TRAY_PHONES_MAX);
  });
});

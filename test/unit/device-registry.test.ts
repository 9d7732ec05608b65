import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deviceIdFor, displayName, redactedHint, transportOf } from '../../main/core/devices/device-registry';

void test('network phones are told apart from USB phones by their adb serial', () => {
  for (const serial of [
    '192.168.1.20:5555',
    'pixel-lab.local:5555',
    'phone7:40001',
    '[fe80::1]:5555',
    'adb-2A3B4C-xyz._adb-tls-connect._tcp',
  ]) {
    assert.equal(transportOf(serial), 'tcp', serial);
  }
  for (const serial of ['R58M12ABCDE', 'emulator-5554', '0123456789ABCDEF', 'HT7A1:', ':5555']) {
    assert.equal(transportOf(serial), 'usb', serial);
  }
});

void test('hints never show a network address, and device ids do not reveal the serial', () => {
  assert.equal(redactedHint('R58M12ab4f2a'), '···4F2A');
  const tcp = { serial: '192.168.1.20:5555', model: 'Pixel 7', hardwareSerial: null };
  const name = displayName(tcp);
  assert.match(name, /^Pixel 7 ···[0-9A-F]{4}$/);
  assert.ok(!name.includes('5555'));
  const id = deviceIdFor('127.0.0.1:5037', 'R58M12AB4F2A');
  assert.ok(!id.includes('R58M12AB4F2A'));
  assert.equal(id, deviceIdFor('127.0.0.1:5037', 'R58M12AB4F2A'), 'stable across restarts');
  assert.notEqual(id, deviceIdFor('10.0.0.2:5037', 'R58M12AB4F2A'), 'same serial on another adb host is another phone');
});

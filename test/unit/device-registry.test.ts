import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DeviceRegistry,
  deviceIdFor,
  displayName,
  redactedHint,
  transportOf,
} from '../../main/core/devices/device-registry';

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

void test('labels are unique within the bridge: a longer hint, else the host, else a number', () => {
  const registry = new DeviceRegistry(() => 1);
  const facts = (model: string, hardwareSerial: string | null = null) => ({
    model,
    hardwareSerial,
    manufacturer: null,
    androidVersion: null,
    sdk: null,
  });
  const a = registry.upsertState('127.0.0.1:5037', 'LAB0P04F2A', 'device');
  const b = registry.upsertState('127.0.0.1:5038', 'LAB1P04F2A', 'device');
  registry.setFacts(a.deviceId, facts('Pixel 7'));
  assert.equal(displayName(a), 'Pixel 7 ···4F2A', 'alone, the short label');
  const relabelled: string[] = [];
  registry.on('changed', (d) => relabelled.push(d.deviceId));
  registry.setFacts(b.deviceId, facts('Pixel 7'));
  assert.equal(displayName(a), 'Pixel 7 ···0P04F2A');
  assert.equal(displayName(b), 'Pixel 7 ···1P04F2A');
  assert.ok(relabelled.includes(a.deviceId), 'the phone whose label changed is announced');

  // The same serial on two hosts (simulated phones, or makers that give every phone one serial).
  const c = registry.upsertState('ssh://lab@rack-1:22', 'SIMTEST0A4F2A', 'device');
  const d = registry.upsertState('ssh://lab@rack-2:22', 'SIMTEST0A4F2A', 'device');
  registry.setFacts(c.deviceId, facts('Galaxy S23'));
  registry.setFacts(d.deviceId, facts('Galaxy S23'));
  assert.equal(displayName(c), 'Galaxy S23 ···4F2A @rack-1');
  assert.equal(displayName(d), 'Galaxy S23 ···4F2A @rack-2');

  // TCP phones on one host with the same own serial: numbered, in device id order.
  const e = registry.upsertState('127.0.0.1:5039', '127.0.0.1:40001', 'device');
  const f = registry.upsertState('127.0.0.1:5039', '127.0.0.1:40002', 'device');
  registry.setFacts(e.deviceId, facts('Pixel 8', 'SAME0001'));
  registry.setFacts(f.deviceId, facts('Pixel 8', 'SAME0001'));
  const numbered = [displayName(e), displayName(f)].sort();
  assert.deepEqual(numbered, ['Pixel 8 ···0001 @127.0.0.1:5039 #1', 'Pixel 8 ···0001 @127.0.0.1:5039 #2']);
  const all = registry.list().map((x) => displayName(x));
  assert.equal(new Set(all).size, all.length, all.join(', '));
});

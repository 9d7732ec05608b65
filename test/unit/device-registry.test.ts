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

/** A lab like bench part j's: 8 hosts × 32 phones whose own serials end alike ("…X4F2A"). */
function labRegistry(order: (host: number, phone: number) => number = (h, p) => h * 32 + p) {
  const registry = new DeviceRegistry(() => 1);
  const phones: Array<{ host: number; phone: number }> = [];
  for (let host = 0; host < 8; host++) for (let phone = 0; phone < 32; phone++) phones.push({ host, phone });
  phones.sort((a, b) => order(a.host, a.phone) - order(b.host, b.phone));
  const serial = (host: number, phone: number): string => `LS${host}P${String(phone).padStart(2, '0')}X4F2A`;
  // As the links do: every phone arrives first (no facts yet), then each one's facts are read.
  const ids = phones.map(
    ({ host, phone }) => registry.upsertState(`127.0.0.1:${5037 + host}`, serial(host, phone), 'device').deviceId,
  );
  phones.forEach(({ phone }, i) =>
    registry.setFacts(ids[i]!, {
      model: phone % 2 === 0 ? 'Pixel 7' : 'Galaxy S23',
      hardwareSerial: null,
      manufacturer: null,
      androidVersion: null,
      sdk: null,
    }),
  );
  return registry;
}

void test('256 phones on 8 hosts: labels unique, the same whatever order they arrived in, and a new phone relabels no other unless it clashes', () => {
  const registry = labRegistry();
  const labels = new Map(registry.list().map((d) => [d.deviceId, displayName(d)]));
  assert.equal(new Set(labels.values()).size, 256, [...labels.values()].slice(0, 4).join(', '));
  assert.ok(![...labels.values()].some((l) => l.includes('#')), 'a number only where own serials are the same');
  // Serials that agree to 8 characters across hosts: the host, then the hint that differs on it.
  const first = registry.findBySerial('127.0.0.1:5040', 'LS3P04X4F2A')!;
  assert.equal(displayName(first), 'Pixel 7 ···04X4F2A @127.0.0.1:5040');
  // Stable across restarts: the labels depend on which phones there are, not on their order.
  const shuffled = labRegistry((h, p) => ((h * 32 + p) * 97) % 256);
  for (const device of shuffled.list()) assert.equal(displayName(device), labels.get(device.deviceId));

  const announced: string[] = [];
  registry.on('changed', (d) => announced.push(d.deviceId));
  const facts = { manufacturer: null, androidVersion: null, sdk: null, hardwareSerial: null };
  // A phone with its own label: only it is announced, twice (arrival, facts), and no other label moves.
  const alone = registry.upsertState('127.0.0.1:5037', 'R58M12AB9C1D', 'device');
  registry.setFacts(alone.deviceId, { ...facts, model: 'Pixel 8' });
  assert.deepEqual(new Set(announced), new Set([alone.deviceId]));
  assert.equal(displayName(alone), 'Pixel 8 ···9C1D');
  for (const device of registry.list())
    if (device !== alone) assert.equal(displayName(device), labels.get(device.deviceId), 'no other phone relabelled');

  // A phone whose label clashes with one host's Pixels: only phones of that clash may move.
  announced.length = 0;
  const clash = registry.upsertState('127.0.0.1:5037', 'LS0P98X4F2A', 'device');
  registry.setFacts(clash.deviceId, { ...facts, model: 'Pixel 7' });
  const moved = registry.list().filter((d) => labels.has(d.deviceId) && displayName(d) !== labels.get(d.deviceId));
  for (const device of moved) {
    assert.equal(device.model, 'Pixel 7');
    assert.equal(device.adbServer, '127.0.0.1:5037', 'only phones on the clashing host');
  }
  assert.ok(
    moved.every((d) => announced.includes(d.deviceId)),
    'each phone relabelled is announced',
  );
  const all = registry.list().map((d) => displayName(d));
  assert.equal(new Set(all).size, all.length);
});

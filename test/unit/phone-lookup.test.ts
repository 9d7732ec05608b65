import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeviceRegistry, displayName } from '../../main/core/devices/device-registry';
import { lookUpPhone } from '../../main/core/devices/phone-lookup';
import { unresolvedClaim } from '../../main/core/bindings/device-claim';

/** A lab as a person sees it: two Pixel 7s on USB, a Galaxy over Wi-Fi, one phone unplugged for good. */
function lab(): DeviceRegistry {
  const registry = new DeviceRegistry(() => 1);
  const add = (serial: string, model: string, manufacturer: string, hardwareSerial: string | null = null): void => {
    const record = registry.upsertState('127.0.0.1:5037', serial, 'device');
    registry.setFacts(record.deviceId, { model, manufacturer, hardwareSerial, androidVersion: '14', sdk: 34 });
  };
  add('R58M12AB4F2A', 'Pixel 7', 'Google');
  add('R58M12AB77C1', 'Pixel 7', 'Google');
  add('192.168.1.20:5555', 'Galaxy S23', 'samsung', 'RF8N30XYZ9B1C');
  add('OLD0000DEAD', 'Nokia 3310', 'HMD');
  registry.upsertState('127.0.0.1:5037', 'OLD0000DEAD', 'gone');
  return registry;
}

function found(registry: DeviceRegistry, words: string): string {
  const result = lookUpPhone(registry.list(), words);
  assert.equal(result.kind, 'found', `${words}: ${JSON.stringify(result)}`);
  return result.kind === 'found' ? displayName(result.device) : '';
}

void test('a phone is found by the words a person types: label with or without its mark, serial, its last characters, id, a model only it has', () => {
  const registry = lab();
  const first = registry.list()[0]!;
  for (const words of [
    'Pixel 7 ···4F2A',
    'pixel 7 4f2a',
    '  PIXEL7 4F2A ',
    'Pixel 7 ...4F2A',
    '4F2A',
    '4f2a',
    'F2A',
    'R58M12AB4F2A',
    first.deviceId,
  ])
    assert.equal(found(registry, words), 'Pixel 7 ···4F2A', words);
  assert.equal(found(registry, 'galaxy s23'), 'Galaxy S23 ···9B1C');
  assert.equal(found(registry, 'Samsung Galaxy S23'), 'Galaxy S23 ···9B1C', 'maker and model');
  assert.equal(found(registry, '9B1C'), 'Galaxy S23 ···9B1C', 'a network phone by its own serial’s end');
  assert.equal(found(registry, '192.168.1.20:5555'), 'Galaxy S23 ···9B1C', 'a network phone by its whole address');
});

void test('words that fit several phones, or none, give the labels to choose from; a network address is never matched in part', () => {
  const registry = lab();
  const pixels = lookUpPhone(registry.list(), 'Pixel 7');
  assert.equal(pixels.kind, 'ambiguous');
  assert.deepEqual(pixels.kind === 'ambiguous' && pixels.candidates.map((d) => displayName(d)).sort(), [
    'Pixel 7 ···4F2A',
    'Pixel 7 ···77C1',
  ]);
  for (const words of ['Nokia 3310', '5555', '20:5555', '2A', '', '···']) {
    const result = lookUpPhone(registry.list(), words);
    assert.equal(result.kind, 'unknown', words);
    assert.equal(result.kind === 'unknown' && result.candidates.length, 3, 'gone phones are not offered');
  }
  const ambiguous = unresolvedClaim(
    'Pixel 7',
    pixels.kind === 'ambiguous' ? pixels : { kind: 'unknown', candidates: [] },
  );
  assert.equal(
    ambiguous.refused,
    '"Pixel 7" could be 2 phones here: Pixel 7 ···4F2A, Pixel 7 ···77C1. Claim again with one label, or with its last 4 characters (for example "4F2A").',
  );
  assert.deepEqual(ambiguous.candidates, ['Pixel 7 ···4F2A', 'Pixel 7 ···77C1']);
  const none = unresolvedClaim('Nokia', { kind: 'unknown', candidates: [] });
  assert.equal(none.refused, 'No phone is connected to this bridge right now ("Nokia" asked for).');
  assert.equal(none.candidates, undefined);
});

/**
 * The refused-key record (server/refused-keys.ts): a flood from one address or from many fills
 * neither the console's list nor the terminal, and what is kept still says who, why and how often.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LOG_EVERY_MS, LOG_LINES_PER_MIN, MAX_ADDRESSES, RefusedKeys } from '../../main/core/server/refused-keys';

function record(): { keys: RefusedKeys; lines: Array<Record<string, unknown>>; at: (ms: number) => void } {
  let now = 1_000_000;
  const lines: Array<Record<string, unknown>> = [];
  const keys = new RefusedKeys({
    clock: () => now,
    logger: { warn: (message, fields) => lines.push({ message, ...fields }) },
  });
  return { keys, lines, at: (ms) => (now = ms) };
}

test('one address: every refusal counted, one terminal line a minute saying how many more came', () => {
  const { keys, lines, at } = record();
  for (let i = 0; i < 1000; i++) keys.note('10.0.0.7', true);
  assert.equal(lines.length, 1);
  assert.match(String(lines[0]?.message), /wrong API key — copy the key again/);
  assert.deepEqual(
    keys.list().map((r) => [r.address, r.reason, r.count]),
    [['10.0.0.7', 'wrong_key', 1000]],
  );
  at(1_000_000 + LOG_EVERY_MS);
  keys.note('10.0.0.7', false);
  assert.equal(lines.length, 2);
  // The 999 after the first line went untold until now.
  assert.equal(lines[1]?.more_since_last_line, 999);
  assert.match(String(lines[1]?.message), /no API key/);
  assert.equal(keys.list()[0]?.reason, 'no_key');
  keys.dispose();
});

test('many addresses: the newest few kept, the latest first; the terminal gets a handful of lines a minute', () => {
  const { keys, lines } = record();
  for (let i = 0; i < 50; i++) keys.note(`10.0.1.${i}`, true);
  const list = keys.list();
  assert.equal(list.length, MAX_ADDRESSES);
  assert.equal(list[0]?.address, '10.0.1.49');
  assert.equal(list.at(-1)?.address, `10.0.1.${50 - MAX_ADDRESSES}`);
  assert.equal(lines.length, LOG_LINES_PER_MIN);
  keys.dispose();
});

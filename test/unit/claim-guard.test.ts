/**
 * Access-code guesses (main/core/bindings/access-codes.ts ClaimGuard): a caller is paused
 * after its own wrong codes; a stored code that took too many wrong guesses from anyone is
 * closed to callers who guessed wrong lately but stays open to a caller with a clean record,
 * so one guesser (or many) cannot lock the lab out of its own code; a wildcard code counts
 * its guesses once, whatever phone they named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClaimGuard, CLAIM_LIMITS } from '../../main/core/bindings/access-codes';

const pool = { salt: 'pool' };
const phoneCode = { salt: 'phone-0' };

function guard() {
  let now = 1_000_000;
  const g = new ClaimGuard(() => now, { perCaller: 3, perCode: 5, windowMs: 60_000 });
  return { g, advance: (ms: number) => (now += ms) };
}

test('the documented limits', () => {
  assert.deepEqual(CLAIM_LIMITS, { perCaller: 10, perCode: 20, windowMs: 300_000 });
});

test("a caller's own wrong codes pause it, and only it, until the window passes", () => {
  const { g, advance } = guard();
  for (let i = 0; i < 3; i++) g.wrong('10.0.0.5', [pool]);
  assert.ok(g.callerPausedFor('10.0.0.5') > 0);
  assert.equal(g.callerPausedFor('10.0.0.6'), 0, 'another caller is not paused');
  advance(60_001);
  assert.equal(g.callerPausedFor('10.0.0.5'), 0);
});

test('a code whose guess budget is spent is closed to guessers, open to a clean caller', () => {
  const { g } = guard();
  // Five callers guess wrong once each (none is paused): the pool code's budget is spent.
  for (let i = 0; i < 5; i++) g.wrong(`10.0.1.${i}`, [pool, phoneCode].slice(0, i % 2 === 0 ? 1 : 2));
  assert.deepEqual(g.open('10.0.1.0', [phoneCode, pool]), [phoneCode], 'a guesser may no longer try the pool code');
  assert.deepEqual(
    g.open('192.168.7.7', [phoneCode, pool]),
    [phoneCode, pool],
    'a caller with a clean record still may',
  );
  // The right code cleans a caller's record.
  g.right('10.0.1.0');
  assert.deepEqual(g.open('10.0.1.0', [pool]), [pool]);
});

test('a wildcard code counts each guess once, whichever phone it named', () => {
  const { g } = guard();
  for (let i = 0; i < 4; i++) g.wrong(`10.0.2.${i}`, [pool]);
  assert.deepEqual(g.open('10.0.2.0', [pool]), [pool], 'four guesses: still open');
  g.wrong('10.0.2.9', [pool]);
  assert.deepEqual(g.open('10.0.2.0', [pool]), []);
});

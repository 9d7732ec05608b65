/**
 * Access-code guesses (main/core/bindings/access-codes.ts ClaimGuard): a caller is paused
 * after its own wrong codes; a stored code that took too many wrong guesses from anyone is
 * closed to callers who guessed wrong lately but stays open to a caller with a clean record,
 * so one guesser (or many) cannot lock the lab out of its own code; a wildcard code counts
 * its guesses once, whatever phone they named; an IPv6 caller counts by its /64 (#36 point 6).
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

test('an IPv6 caller counts by its /64: a fresh address in the same /64 is no clean record', () => {
  const { g } = guard();
  // One host's /64: each guess from a new address of it.
  for (let i = 0; i < 3; i++) g.wrong(`2001:db8:1:2::${i + 1}`, [pool]);
  assert.ok(g.callerPausedFor('2001:db8:1:2:abcd::99') > 0, 'the whole /64 is paused');
  assert.ok(g.callerPausedFor('::ffff:10.0.0.1') === 0 && g.callerPausedFor('2001:db8:1:3::1') === 0, 'others are not');
  // The pool code's budget spent from the /64: another address of it may not try the code.
  g.wrong('2001:db8:1:2::7', [pool]);
  g.wrong('2001:db8:1:2::8', [pool]);
  assert.deepEqual(g.open('2001:db8:1:2:ffff::1', [pool]), [], 'no fresh guess for a new address of the /64');
  assert.deepEqual(g.open('2001:db8:9::1', [pool]), [pool], 'a clean /64 still may');
  // The right code from any of its addresses cleans the /64's record.
  g.right('2001:db8:1:2::1');
  assert.equal(g.callerPausedFor('2001:db8:1:2::5'), 0);
});

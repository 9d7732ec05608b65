/** The lease timer (main/core/bindings/lease-timer.ts): when a lease ends by itself, and why. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseEndsNow } from '../../main/core/bindings/lease-timer';

const lease = { startedAt: 0, maxUntil: 60_000, idleTimeoutMs: 10_000, lastActivityAt: 5_000 };
const GRACE = 30_000;

test('a lease holds while it is used, online and under its maximum', () => {
  assert.equal(leaseEndsNow(lease, 14_999, undefined, GRACE), null);
});

test('it ends after the idle timeout counted from the last tool call', () => {
  assert.equal(leaseEndsNow(lease, 15_000, undefined, GRACE), 'idle');
  assert.equal(
    leaseEndsNow({ ...lease, idleTimeoutMs: null }, 50_000, undefined, GRACE),
    null,
    'no idle timeout, no idle end',
  );
});

test('it ends at its maximum however busy it is', () => {
  assert.equal(leaseEndsNow({ ...lease, lastActivityAt: 59_999 }, 60_000, undefined, GRACE), 'max_duration');
  assert.equal(leaseEndsNow({ ...lease, maxUntil: null, idleTimeoutMs: null }, 10 ** 9, undefined, GRACE), null);
});

test('an offline phone ends its lease only past the disconnect grace', () => {
  const busy = { ...lease, maxUntil: null, idleTimeoutMs: null };
  assert.equal(leaseEndsNow(busy, 39_999, 10_000, GRACE), null);
  assert.equal(leaseEndsNow(busy, 40_000, 10_000, GRACE), 'offline');
});

test('while the phone is away only the grace and the maximum end the lease: the agent cannot be idle by choice', () => {
  // Idle since 5 s, timeout 10 s: it would end at 15 s, but the phone left at 12 s.
  assert.equal(leaseEndsNow({ ...lease, maxUntil: null }, 20_000, 12_000, GRACE), null);
  assert.equal(leaseEndsNow({ ...lease, maxUntil: null }, 42_000, 12_000, GRACE), 'offline');
  assert.equal(leaseEndsNow(lease, 60_000, 50_000, GRACE), 'max_duration');
});

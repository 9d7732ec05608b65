/** What the agent and the Descriptor are told while a leased phone is away (main/core/tools/away-lease.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AWAY_RETRY_MS, awayError, awayReason, minutesAndSeconds } from '../../main/core/tools/away-lease';

test('a tool call while the phone is away carries the fix, the time left and when to try again', () => {
  const error = awayError(1_000_000 + 581_000, 1_000_000);
  assert.deepEqual(error, {
    code: 'device_offline',
    message:
      'the bound phone was unplugged or lost its connection. Ask the person at the computer to plug the phone back in; the lease is kept 9 min 41 s more, then ends.',
    fix: 'Ask the person at the computer to plug the phone back in; the lease is kept 9 min 41 s more, then ends.',
    retry_after_ms: AWAY_RETRY_MS,
    lease_kept_ms: 581_000,
  });
  // Near the end, "try again" never points past the lease.
  assert.equal(awayError(2_000, 0).retry_after_ms, 2_000);
  assert.equal(awayError(0, 5_000).lease_kept_ms, 0);
  assert.equal(minutesAndSeconds(41_200), '42 s');
});

test('the Descriptor names the end as a time, so a Descriptor pushed once stays true', () => {
  assert.equal(
    awayReason(Date.UTC(2026, 11, 6, 18, 45, 12)),
    'the phone was unplugged or lost its connection; plug it back in: the lease is kept until 2026-12-06T18:45:12.000Z, then ends',
  );
});

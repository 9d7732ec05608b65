/**
 * PersonAsks (main/core/takeover/person-asks.ts) alone: the rules the integration test does not
 * reach — an ask made while the person already holds the phone waits for the hand-back only, the
 * timeout stops counting once the phone is taken, a held ask cannot be declined, and a hand-back
 * of another phone answers nothing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import { PersonAsks, type AskAuditAction } from '../../main/core/takeover/person-asks';

function setup(): { asks: PersonAsks; audit: AskAuditAction[]; now: { ms: number } } {
  const now = { ms: 1_000 };
  const audit: AskAuditAction[] = [];
  const asks = new PersonAsks({
    clock: () => now.ms,
    events: { changed: () => undefined, audit: (_ask, action) => audit.push(action) },
  });
  return { asks, audit, now };
}

const request = (over: Partial<Parameters<PersonAsks['ask']>[0]> = {}): Parameters<PersonAsks['ask']>[0] => ({
  deviceId: 'dev_1',
  channelId: 'cch_1',
  reason: 'log in',
  timeoutMs: 60_000,
  signal: new AbortController().signal,
  alreadyTakenSince: null,
  progress: () => undefined,
  ...over,
});

describe('person asks', () => {
  test('asked while the person already holds the phone: the hand-back answers it', async () => {
    const { asks, now } = setup();
    const answered = asks.ask(request({ alreadyTakenSince: 500 }));
    assert.equal(asks.pending('dev_1')?.taken_at, 500);
    now.ms = 4_000;
    asks.handedBack({ deviceId: 'dev_2', heldMs: 1, note: 'other phone' });
    assert.notEqual(asks.pending('dev_1'), null, 'another phone’s hand-back answers nothing');
    asks.handedBack({ deviceId: 'dev_1', heldMs: 3_500, note: 'done' });
    assert.deepEqual(await answered, { note: 'done', heldMs: 3_500, waitedMs: 0 });
    assert.equal(asks.pending('dev_1'), null);
  });

  test('once taken, the timeout no longer ends the ask; a held ask cannot be declined', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { asks, audit } = setup();
    const answered = asks.ask(request({ timeoutMs: 30 }));
    asks.taken('dev_1', 1_000);
    assert.throws(
      () => asks.decline('dev_1', 'no'),
      (e: unknown) => e instanceof BridgeError && e.code === 'human_in_control',
    );
    // Well past the timeout: still waiting for the hand-back.
    t.mock.timers.tick(80);
    await Promise.resolve();
    assert.notEqual(asks.pending('dev_1'), null);
    asks.handedBack({ deviceId: 'dev_1', heldMs: 80, note: undefined });
    assert.equal((await answered).note, undefined);
    assert.deepEqual(audit, ['ask_person']);
  });

  test('nobody answers: approval_timeout, audited; an aborted signal ends it with canceled', async () => {
    const { asks, audit } = setup();
    // The ask's own timers are unref'd (they must not keep a stopping bridge alive); here nothing
    // else holds the event loop while the timeout runs, so the test holds it.
    const holdLoop = setTimeout(() => undefined, 10_000);
    await assert.rejects(
      asks.ask(request({ timeoutMs: 20 })),
      (e: unknown) => e instanceof BridgeError && e.code === 'approval_timeout',
    );
    const stop = new AbortController();
    const waiting = asks.ask(request({ signal: stop.signal }));
    stop.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof BridgeError && e.code === 'canceled');
    clearTimeout(holdLoop);
    assert.deepEqual(audit, ['ask_person', 'ask_timed_out', 'ask_person', 'ask_canceled']);
    assert.deepEqual(asks.list(), []);
  });
});

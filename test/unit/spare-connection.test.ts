import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { SpareConnectionPool } from '../../main/core/devices/spare-connection';

class FakeConnection extends EventEmitter {
  ended = false;
  constructor(readonly id: number) {
    super();
  }
  end(): void {
    this.ended = true;
    this.emit('ended');
  }
}

/** By default each take() sees a clock 1 s later, so no two takes form a burst. */
function rig(idleMs = 60_000, clock?: () => number) {
  let tick = 0;
  const stepClock = () => (tick += 1_000);
  const opened: FakeConnection[] = [];
  let attempts = 0;
  const failing = new Set<number>();
  const slot = new SpareConnectionPool(
    async () => {
      attempts += 1;
      if (failing.has(attempts)) throw new Error('ECONNREFUSED');
      const c = new FakeConnection(opened.length + 1);
      opened.push(c);
      return c;
    },
    { idleMs, maxSpares: 6, clock: clock ?? stepClock },
  );
  return { slot, opened, failAttempt: (n: number) => failing.add(n) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

void test('the first command opens its own connection and one more is readied for the next', async () => {
  const { slot, opened } = rig();
  const first = await slot.take();
  assert.equal(first.spare, false);
  await settle();
  assert.equal(opened.length, 2, 'a spare was opened ahead');
  const second = await slot.take();
  assert.equal(second.spare, true);
  assert.equal(second.connection.id, 2);
  slot.close();
});

void test('a spare whose socket closed is never handed out', async () => {
  const { slot, opened } = rig();
  await slot.take();
  await settle();
  opened[1]!.emit('close', false);
  const next = await slot.take();
  assert.equal(next.spare, false);
  assert.notEqual(next.connection.id, 2);
  slot.close();
});

void test('a spare that could not connect (server down) is skipped for a new connection, whose error is the answer', async () => {
  let now = 1_000;
  const { slot, failAttempt } = rig(60_000, () => now);
  failAttempt(2); // the spare readied by the first take
  await slot.take();
  await settle();
  now += 100;
  const second = await slot.take(); // opens its own (3) and a spare (4)
  assert.equal(second.spare, false, 'the failed spare was skipped');
  slot.drop();
  now += 100;
  failAttempt(5); // the third take's own connection
  await assert.rejects(slot.take(), /ECONNREFUSED/);
  slot.close();
});

void test('drop() and close() end the spare; after close no spare is opened again', async () => {
  const { slot, opened } = rig();
  await slot.take();
  await settle();
  slot.drop();
  await settle();
  assert.equal(opened[1]!.ended, true);
  slot.close();
  await slot.take();
  await settle();
  assert.equal(opened.length, 3, 'no spare after close');
});

void test('an unused spare is closed after the idle time', async () => {
  const { slot, opened } = rig(20);
  await slot.take();
  await settle();
  const spare = opened[1]!;
  if (!spare.ended) {
    // The pool's idle timer is unref'd; this deadline (ref'd) keeps the test process waiting for it.
    const late = new AbortController();
    const deadline = setTimeout(() => late.abort(new Error('the unused spare was not closed within 5 s')), 5_000);
    try {
      await once(spare, 'ended', { signal: late.signal });
    } finally {
      clearTimeout(deadline);
    }
  }
  const next = await slot.take();
  assert.equal(next.spare, false, 'the expired spare was not handed out');
  slot.close();
});

void test('a burst of commands (one status call) is followed by as many spares, which the next burst finds ready', async () => {
  let now = 1_000;
  const { slot, opened } = rig(60_000, () => now);
  await Promise.all(Array.from({ length: 6 }, () => slot.take()));
  await settle();
  assert.equal(slot.size(), 6);
  now += 1_000;
  const second = await Promise.all(Array.from({ length: 6 }, () => slot.take()));
  assert.ok(
    second.every((t) => t.spare),
    'all six found a ready connection',
  );
  await settle();
  assert.equal(slot.size(), 6, 'the burst’s spares were replaced once its requests were on their way');
  const before = opened.length;
  // A single command later keeps the pool at its size (each take opens one replacement).
  now += 1_000;
  await slot.take();
  await settle();
  assert.equal(opened.length, before + 1);
  slot.close();
});

void test('the pool shrinks back once bursts stop: after the idle time only single commands count', async () => {
  let now = 1_000;
  const { slot } = rig(10_000, () => now);
  await Promise.all(Array.from({ length: 6 }, () => slot.take()));
  slot.drop();
  now += 11_000;
  await slot.take();
  assert.equal(slot.size(), 1);
  slot.close();
});

void test('never more spares than maxSpares', async () => {
  const { slot } = rig(60_000, () => 1_000);
  await Promise.all(Array.from({ length: 20 }, () => slot.take()));
  await settle();
  assert.equal(slot.size(), 6);
  slot.close();
});

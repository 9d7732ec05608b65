import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { SpareConnectionSlot } from '../../main/core/devices/spare-connection';

class FakeConnection extends EventEmitter {
  ended = false;
  constructor(readonly id: number) {
    super();
  }
  end(): void {
    this.ended = true;
  }
}

function rig(idleMs = 60_000) {
  const opened: FakeConnection[] = [];
  let attempts = 0;
  const failing = new Set<number>();
  const slot = new SpareConnectionSlot(async () => {
    attempts += 1;
    if (failing.has(attempts)) throw new Error('ECONNREFUSED');
    const c = new FakeConnection(opened.length + 1);
    opened.push(c);
    return c;
  }, idleMs);
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
  const { slot, failAttempt } = rig();
  failAttempt(2); // the spare readied by the first take
  await slot.take();
  await settle();
  const second = await slot.take();
  assert.equal(second.spare, false, 'the failed spare was skipped');
  slot.drop();
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
  await new Promise<void>((resolve) => {
    const poll = setInterval(() => {
      if (spare.ended) {
        clearInterval(poll);
        resolve();
      }
    }, 5);
  });
  const next = await slot.take();
  assert.equal(next.spare, false, 'the expired spare was not handed out');
  slot.close();
});

/**
 * DeviceQueue on its own, with work the test finishes by hand: control calls on a phone run
 * one at a time in the order they came (from any channel), observations share a few slots,
 * a full line refuses at once, and a canceled call is answered at once while the next one
 * waits until the canceled work has really stopped.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DeviceQueue } from '../../main/core/queue/device-queue';
import { BridgeError } from '../../main/core/errors';

/** Work the test finishes: records when it starts and the signal it was given. */
class ManualWork {
  readonly started: string[] = [];
  readonly signals = new Map<string, AbortSignal>();
  private readonly finishers = new Map<string, (value: string) => void>();
  private readonly failers = new Map<string, (error: Error) => void>();

  /** A job named `name`: resolves with its name when `finish(name)` is called. */
  job(name: string): (signal: AbortSignal) => Promise<string> {
    return (signal) => {
      this.started.push(name);
      this.signals.set(name, signal);
      return new Promise<string>((resolve, reject) => {
        this.finishers.set(name, resolve);
        this.failers.set(name, reject);
      });
    };
  }

  finish(name: string): void {
    const finish = this.finishers.get(name);
    assert.ok(finish, `${name} has not started`);
    finish(name);
  }

  fail(name: string, error: Error): void {
    const fail = this.failers.get(name);
    assert.ok(fail, `${name} has not started`);
    fail(error);
  }
}

/** Lets queued promise callbacks run (the queue starts work from a microtask). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const codeOf = (error: unknown): string => (error instanceof BridgeError ? error.code : String(error));

describe('DeviceQueue', () => {
  test('what a phone card counts: only the agents’ channels, not the bridge’s own reads of the phone', async () => {
    const queue = new DeviceQueue({ maxDepth: 32, observationConcurrency: 2 });
    const work = new ManualWork();
    const agent = (channelId: string): boolean => channelId.startsWith('cch_');
    // A person watches an idle phone: the view's frame reads run, no agent has a call.
    const frame = queue.submit('phone-a', 'observation', 'phone-view', work.job('frame'));
    const check = queue.submit('phone-a', 'observation', 'phone-check', work.job('check'));
    await settle();
    assert.deepEqual(queue.stats('phone-a'), { running: 2, queued: 0 }, 'everything, for the queue itself');
    assert.deepEqual(queue.stats('phone-a', agent), { running: 0, queued: 0 }, 'idle, for the card');
    const tap = queue.submit('phone-a', 'control', 'cch_1', work.job('tap'));
    const tree = queue.submit('phone-a', 'observation', 'cch_1', work.job('tree'));
    await settle();
    assert.deepEqual(queue.stats('phone-a', agent), { running: 1, queued: 1 });
    for (const name of ['frame', 'check', 'tap']) work.finish(name);
    await settle();
    work.finish('tree');
    await Promise.all([frame, check, tap, tree]);
    assert.deepEqual(queue.stats('phone-a', agent), { running: 0, queued: 0 });
  });

  test('control calls on one phone run one at a time in the order they came, from every channel; another phone is not held up', async () => {
    const queue = new DeviceQueue({ maxDepth: 32, observationConcurrency: 2 });
    const work = new ManualWork();
    const a1 = queue.submit('phone-a', 'control', 'ch1', work.job('a1'));
    const a2 = queue.submit('phone-a', 'control', 'ch2', work.job('a2'));
    const a3 = queue.submit('phone-a', 'control', 'ch1', work.job('a3'));
    const b1 = queue.submit('phone-b', 'control', 'ch3', work.job('b1'));
    await settle();
    assert.deepEqual(work.started, ['a1', 'b1'], 'one control call per phone at a time');
    assert.deepEqual(queue.stats('phone-a'), { running: 1, queued: 2 });

    work.finish('a1');
    assert.equal(await a1, 'a1');
    await settle();
    assert.deepEqual(work.started, ['a1', 'b1', 'a2']);
    work.fail('a2', new Error('the phone said no'));
    await assert.rejects(a2, /the phone said no/);
    await settle();
    assert.deepEqual(work.started, ['a1', 'b1', 'a2', 'a3'], 'a failed call does not stop the line');
    work.finish('a3');
    work.finish('b1');
    assert.deepEqual(await Promise.all([a3, b1]), ['a3', 'b1']);
    await settle();
    assert.deepEqual(queue.stats('phone-a'), { running: 0, queued: 0 });
  });

  test('observations run beside control calls, up to the concurrency limit; the next waits for a free slot', async () => {
    const queue = new DeviceQueue({ maxDepth: 32, observationConcurrency: 2 });
    const work = new ManualWork();
    const control = queue.submit('phone', 'control', 'ch', work.job('tap'));
    const reads = ['tree1', 'tree2', 'tree3'].map((name) => queue.submit('phone', 'observation', 'ch', work.job(name)));
    await settle();
    assert.deepEqual(work.started, ['tap', 'tree1', 'tree2']);
    assert.deepEqual(queue.stats('phone'), { running: 3, queued: 1 });
    work.finish('tree2');
    await settle();
    assert.deepEqual(
      work.started,
      ['tap', 'tree1', 'tree2', 'tree3'],
      'a slot freed, the waiting read starts; the tap is still running',
    );
    for (const name of ['tree1', 'tree3', 'tap']) work.finish(name);
    assert.deepEqual(await Promise.all([control, ...reads]), ['tap', 'tree1', 'tree2', 'tree3']);
  });

  test('a full line refuses at once with queue_full (the running call counts); a new depth applies from the next call', async () => {
    const queue = new DeviceQueue({ maxDepth: 2, observationConcurrency: 1 });
    const work = new ManualWork();
    const running = queue.submit('phone', 'control', 'ch', work.job('c1'));
    const waiting = queue.submit('phone', 'control', 'ch', work.job('c2'));
    await assert.rejects(queue.submit('phone', 'control', 'ch', work.job('c3')), (e) => codeOf(e) === 'queue_full');
    await settle();
    assert.deepEqual(work.started, ['c1'], 'the refused call never ran');

    queue.setMaxDepth(3);
    const third = queue.submit('phone', 'control', 'ch', work.job('c3'));
    assert.throws(() => queue.setMaxDepth(0), /queue depth must be a positive integer \(got 0\)/);
    for (const name of ['c1', 'c2', 'c3']) {
      await settle();
      work.finish(name);
    }
    assert.deepEqual(await Promise.all([running, waiting, third]), ['c1', 'c2', 'c3']);
  });

  test('cancel: queued calls are refused and never run; the running one is answered at once, and the next starts only when its work has stopped', async () => {
    const queue = new DeviceQueue({ maxDepth: 32, observationConcurrency: 2 });
    const work = new ManualWork();
    const held = queue.submit('phone', 'control', 'agent', work.job('held'));
    const mine = queue.submit('phone', 'control', 'agent', work.job('mine'));
    const other = queue.submit('phone', 'control', 'other', work.job('other'));
    await settle();

    // The lease of channel "agent" ended: its calls go, the other channel's stays queued.
    assert.equal(queue.cancelChannel('phone', 'agent', 'the lease ended'), 2);
    await assert.rejects(held, (e) => codeOf(e) === 'canceled' && /the lease ended/.test((e as Error).message));
    await assert.rejects(mine, (e) => codeOf(e) === 'canceled');
    assert.equal(work.signals.get('held')?.aborted, true, 'the running work is told to stop');
    await settle();
    assert.deepEqual(work.started, ['held'], 'the next call waits while the canceled work has not stopped');

    work.finish('held');
    await settle();
    assert.deepEqual(work.started, ['held', 'other'], 'neither canceled call ran; the other channel’s did');

    // The stop button cancels everything on the phone and counts only the agent's own calls.
    const agentsToo = queue.submit('phone', 'control', 'agent', work.job('again'));
    assert.equal(
      queue.cancelDevice('phone', 'stop button', (channelId) => channelId === 'agent'),
      1,
    );
    await assert.rejects(other, (e) => codeOf(e) === 'canceled');
    await assert.rejects(agentsToo, (e) => codeOf(e) === 'canceled');
    work.finish('other');
    await settle();
    assert.deepEqual(work.started, ['held', 'other']);
    assert.deepEqual(queue.stats('phone'), { running: 0, queued: 0 });
  });
});

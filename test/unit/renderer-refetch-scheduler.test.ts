import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { RefetchScheduler } from '../../renderer/src/api/refetch-scheduler';
import type { SchedulerClock } from '../../renderer/src/api/refetch-scheduler';

/** A manual clock: timers fire only when the test advances time. */
class ManualClock implements SchedulerClock {
  time = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  now(): number {
    return this.time;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  get pending(): number {
    return this.timers.length;
  }
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > until) break;
      this.timers.shift();
      this.time = next.at;
      next.fn();
      await flush();
    }
    this.time = until;
    await flush();
  }
}

/** Lets settled promise callbacks run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

void describe('RefetchScheduler (coalescing state refetches)', () => {
  void test('the first trigger fetches at once', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const s = new RefetchScheduler(async () => void runs++, 250, clock);
    s.trigger();
    await flush();
    assert.equal(runs, 1);
  });

  void test('a burst of 100 events costs at most 4 fetches a second and the last change is fetched', async () => {
    const clock = new ManualClock();
    const starts: number[] = [];
    const s = new RefetchScheduler(async () => void starts.push(clock.now()), 250, clock);
    for (let i = 0; i < 100; i++) {
      s.trigger();
      await clock.advance(10); // one event every 10 ms for a second
    }
    await clock.advance(1000);
    assert.ok(starts.length <= 5, `fetched ${starts.length} times`);
    for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 250, 'runs are ≥ 250 ms apart');
    // The final fetch starts after the last event, so its state includes that change.
    assert.ok(starts[starts.length - 1]! >= 990);
    assert.equal(s.busy, false);
  });

  void test('never two fetches in flight; a trigger during a fetch causes exactly one more', async () => {
    const clock = new ManualClock();
    const gates: Array<{ promise: Promise<void>; resolve: () => void }> = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const s = new RefetchScheduler(
      async () => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        const gate = deferred();
        gates.push(gate);
        await gate.promise;
        inFlight--;
      },
      250,
      clock,
    );
    s.trigger();
    await flush();
    assert.equal(gates.length, 1);
    s.trigger();
    s.trigger();
    s.trigger();
    await clock.advance(1000); // fetch still running: nothing new starts
    assert.equal(gates.length, 1);
    gates[0]!.resolve();
    await clock.advance(0);
    assert.equal(gates.length, 2, 'one follow-up fetch for the three triggers');
    gates[1]!.resolve();
    await clock.advance(1000);
    assert.equal(gates.length, 2);
    assert.equal(maxInFlight, 1);
  });

  void test('a failing fetch does not stop later triggers', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const s = new RefetchScheduler(
      async () => {
        runs++;
        throw new Error('bridge down');
      },
      250,
      clock,
    );
    s.trigger();
    await clock.advance(300);
    s.trigger();
    await clock.advance(0);
    assert.equal(runs, 2);
  });

  void test('dispose cancels a scheduled fetch and ignores later triggers', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const s = new RefetchScheduler(async () => void runs++, 250, clock);
    s.trigger();
    await flush();
    s.trigger();
    await flush();
    assert.equal(clock.pending, 1);
    s.dispose();
    s.dispose();
    assert.equal(clock.pending, 0);
    s.trigger();
    await clock.advance(1000);
    assert.equal(runs, 1);
  });
});

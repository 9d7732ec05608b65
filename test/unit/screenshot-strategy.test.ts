import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chooseStrategy, recordTiming, type CaptureTimings } from '../../main/core/screen/freshness';
import { preparer } from '../../main/core/screen/screen-source';

/** A stream frame as the screenshot's wait offers it. */
interface StreamPicture {
  jpeg: Buffer;
  screenWidth: number;
  screenHeight: number;
}

void test('a phone is measured both ways once, then the faster way is used', () => {
  let timings: CaptureTimings | undefined;
  assert.equal(chooseStrategy(timings), 'raw');
  timings = recordTiming(timings, 'raw', 300);
  assert.equal(chooseStrategy(timings), 'png');
  timings = recordTiming(timings, 'png', 90);
  const picks: string[] = [];
  for (let i = 0; i < 10; i++) {
    const pick = chooseStrategy(timings);
    picks.push(pick);
    timings = recordTiming(timings, pick, pick === 'png' ? 90 : 300);
  }
  assert.deepEqual(new Set(picks), new Set(['png']));
});

void test('the slower way is probed again now and then, and a change of speed moves the choice', () => {
  let timings: CaptureTimings = recordTiming(recordTiming(undefined, 'raw', 300), 'png', 90);
  const picks: string[] = [];
  // The phone's PNG encoder becomes slow (e.g. the phone is busy): png now costs 1200 ms.
  for (let i = 0; i < 60; i++) {
    const pick = chooseStrategy(timings);
    picks.push(pick);
    timings = recordTiming(timings, pick, pick === 'png' ? 1200 : 300);
  }
  assert.ok(picks.includes('raw'), 'raw was probed again');
  assert.equal(picks.at(-1), 'raw', 'and is now the choice');
  assert.ok(picks.filter((p) => p === 'png').length < 10, 'the slow way is not kept');
});

void test('timings are smoothed, not replaced by one outlier', () => {
  const timings = recordTiming(recordTiming(undefined, 'raw', 100), 'raw', 1100);
  assert.ok(timings.raw !== undefined && timings.raw > 100 && timings.raw < 1100);
  assert.equal(timings.captures, 2);
});

void test('pictures offered while a streamed screenshot waits are worked on one at a time, the newest next', async () => {
  const picture = (n: number): StreamPicture => ({ jpeg: Buffer.from([n]), screenWidth: 1080, screenHeight: 2400 });
  const started: number[] = [];
  const finish: Array<() => void> = [];
  const offer = preparer(async (p: StreamPicture) => {
    started.push(p.jpeg[0] ?? -1);
    await new Promise<void>((resolve) => finish.push(resolve));
  });
  offer(picture(1));
  offer(picture(2));
  offer(picture(3));
  // While 1 is worked on, 2 was superseded by 3: only 3 follows.
  assert.deepEqual(started, [1]);
  finish.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(started, [1, 3]);
  finish.shift()?.();
  await new Promise((resolve) => setImmediate(resolve));
  // Idle again: the next picture starts at once; a failed one does not stop the next.
  const failing = preparer(async (p: StreamPicture) => {
    started.push(p.jpeg[0] ?? -1);
    if (p.jpeg[0] === 4) throw new Error('decode failed');
  });
  failing(picture(4));
  await new Promise((resolve) => setImmediate(resolve));
  failing(picture(5));
  assert.deepEqual(started, [1, 3, 4, 5]);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScreenSizeCache } from '../../main/core/tools/screen-size-cache';
import type { ScreenSize } from '../../main/core/android/input';
import type { DeviceShell } from '../../main/core/devices/device-shell';

const PORTRAIT = { width: 1080, height: 2400 };
const LANDSCAPE = { width: 2400, height: 1080 };

/** A phone whose size reads are counted and answered when the test says so. */
function rig() {
  let now = 1_000_000;
  let current: ScreenSize = PORTRAIT;
  const pending: Array<() => void> = [];
  let reads = 0;
  let autoAnswer = true;
  const cache = new ScreenSizeCache({
    read: () => {
      reads += 1;
      const answer = current;
      if (autoAnswer) return Promise.resolve(answer);
      return new Promise((resolve) => pending.push(() => resolve(answer)));
    },
    clock: () => now,
    freshMs: 3_000,
    usableMs: 60_000,
    refreshTimeoutMs: 5_000,
  });
  const shell = {} as DeviceShell;
  const inside = (x: number, y: number) => (size: ScreenSize) => x < size.width && y < size.height;
  return {
    cache,
    get: (accepts?: (size: ScreenSize) => boolean, signal?: AbortSignal) =>
      cache.get('phone', shell, { timeoutMs: 5_000, ...(signal ? { signal } : {}) }, accepts),
    inside,
    advance: (ms: number) => (now += ms),
    rotate: (size: ScreenSize) => (current = size),
    reads: () => reads,
    hold: () => (autoAnswer = false),
    answerAll: () => pending.splice(0).forEach((answer) => answer()),
  };
}

void test('a fresh size is used without asking the phone', async () => {
  const r = rig();
  assert.deepEqual(await r.get(r.inside(540, 147)), PORTRAIT);
  r.advance(2_000);
  assert.deepEqual(await r.get(r.inside(540, 147)), PORTRAIT);
  assert.equal(r.reads(), 1);
});

void test('an older size that fits the point is used at once and refreshed in the background', async () => {
  const r = rig();
  await r.get(r.inside(540, 147));
  r.advance(10_000);
  r.hold();
  // Answered from the cache at once; the refresh starts after the caller's own command.
  assert.deepEqual(await r.get(r.inside(540, 147)), PORTRAIT);
  assert.equal(r.reads(), 1, 'the caller does not wait for a read');
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(r.reads(), 2, 'one background read');
  // A second call meanwhile shares that read instead of starting another.
  assert.deepEqual(await r.get(r.inside(600, 600)), PORTRAIT);
  assert.equal(r.reads(), 2);
  r.rotate(LANDSCAPE);
  r.answerAll();
  await new Promise((resolve) => setImmediate(resolve));
});

void test('a point outside the cached size is checked against the size read now (the phone rotated)', async () => {
  const r = rig();
  await r.get(r.inside(540, 147));
  r.advance(5_000);
  r.rotate(LANDSCAPE);
  // x 2000 does not fit the cached portrait size; the landscape size is read before deciding.
  assert.deepEqual(await r.get(r.inside(2000, 500)), LANDSCAPE);
  assert.equal(r.reads(), 2);
});

void test('without a caller check (a direction swipe) only a fresh size is used', async () => {
  const r = rig();
  await r.get();
  r.advance(4_000);
  r.rotate(LANDSCAPE);
  assert.deepEqual(await r.get(), LANDSCAPE);
  assert.equal(r.reads(), 2);
});

void test('a size older than the usable window is read again even when the point fits', async () => {
  const r = rig();
  await r.get(r.inside(540, 147));
  r.advance(61_000);
  r.rotate(LANDSCAPE);
  assert.deepEqual(await r.get(r.inside(540, 147)), LANDSCAPE);
  assert.equal(r.reads(), 2);
});

void test('a canceled caller stops waiting for a slow read; the read still fills the cache', async () => {
  const r = rig();
  r.hold();
  const stop = new AbortController();
  const waiting = r.get(r.inside(1, 1), stop.signal);
  stop.abort();
  await assert.rejects(waiting, (error: Error & { code?: string }) => error.code === 'canceled');
  r.answerAll();
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(await r.get(r.inside(1, 1)), PORTRAIT);
  assert.equal(r.reads(), 1);
});

/**
 * The one lifecycle of a program on a phone (program-lifecycle/program-lifecycle.ts): its state
 * moves only through its transitions (start, stop, fail, consent, the phone going away), a start
 * has a deadline and what it brings up late is stopped, a failure is retried after its time (or
 * at once while free retries remain), an unused program stops by itself, and turning consent off
 * stops what runs.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import { createLogger } from '../../main/core/logging/logger';
import {
  consentAllows,
  ProgramLifecycle,
  withChoice,
  type ProgramLifecycleOptions,
  type ProgramState,
  type RunningProgram,
} from '../../main/core/program-lifecycle/program-lifecycle';

/** A program whose stop and end the test sees. */
class FakeRun implements RunningProgram {
  stopped = 0;
  private endNow!: (output: string) => void;
  readonly ended = new Promise<string>((resolve) => (this.endNow = resolve));
  stop(): Promise<void> {
    this.stopped += 1;
    return Promise.resolve();
  }
  crash(output: string): void {
    this.endNow(output);
  }
}

interface Rig {
  life: ProgramLifecycle<FakeRun>;
  states: ProgramState[];
  now: { ms: number };
  consent: { allowed: boolean };
  /** Resolves at the next state the lifecycle enters that passes `pred`. */
  next(pred: (state: ProgramState) => boolean): Promise<ProgramState>;
}

function rig(options: Partial<ProgramLifecycleOptions<FakeRun>> = {}): Rig {
  const states: ProgramState[] = [];
  const now = { ms: 1_000_000 };
  const consent = { allowed: true };
  const waiters: Array<{ pred: (s: ProgramState) => boolean; resolve: (s: ProgramState) => void }> = [];
  const life: ProgramLifecycle<FakeRun> = new ProgramLifecycle<FakeRun>({
    deviceId: 'phone-1',
    name: 'the test program',
    allowed: () => consent.allowed,
    carried: () => true,
    startTimeoutMs: 2_000,
    freeRetries: 0,
    windowMs: 60_000,
    retryMs: 60_000,
    clock: () => now.ms,
    logger: createLogger({ level: 'error' }),
    onChange: () => {
      const state = life.state;
      states.push(state);
      for (const w of [...waiters])
        if (w.pred(state)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(state);
        }
    },
    ...options,
  });
  return {
    life,
    states,
    now,
    consent,
    next: (pred) => new Promise((resolve) => waiters.push({ pred, resolve })),
  };
}

describe('program lifecycle', () => {
  test('idle, starting, ready, idle: each step seen, and the stop reaches the program', async () => {
    const r = rig();
    assert.equal(r.life.state, 'idle');
    const run = new FakeRun();
    const started = await r.life.start({ run: () => Promise.resolve(run) });
    assert.equal(started, run);
    assert.equal(r.life.running, run);
    await r.life.stop();
    assert.deepEqual(r.states, ['starting', 'ready', 'idle']);
    assert.equal(run.stopped, 1);
    assert.equal(r.life.running, undefined);
  });

  test('the check of its files runs before every start; a failed check never runs it', async () => {
    const r = rig();
    let runs = 0;
    const order: string[] = [];
    const started = await r.life.start({
      verify: () => {
        order.push('verify');
        return Promise.reject(new BridgeError('command_failed', 'the jar on the phone differs'));
      },
      run: () => {
        runs += 1;
        return Promise.resolve(new FakeRun());
      },
    });
    assert.equal(started, null);
    assert.equal(runs, 0);
    assert.equal(r.life.state, 'failed');
    assert.equal(r.life.view().last_error_code, 'command_failed');
    assert.deepEqual(order, ['verify']);
  });

  test('a start past its deadline fails, and what it brings up late is stopped, not kept', async () => {
    const r = rig({ startTimeoutMs: 30 });
    const late = new FakeRun();
    let bringUp!: () => void;
    const started = await r.life.start({
      run: () =>
        new Promise<FakeRun>((resolve) => {
          bringUp = () => resolve(late);
        }),
    });
    assert.equal(started, null);
    assert.equal(r.life.state, 'failed');
    assert.equal(r.life.view().last_error_code, 'command_timeout');
    bringUp();
    // The late program is stopped once it arrives (its promise settles within this turn).
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(late.stopped, 1);
    assert.equal(r.life.running, undefined);
  });

  test('a failure a call saw on a run already let go changes nothing; on the current run it fails it', async () => {
    const r = rig();
    const first = new FakeRun();
    await r.life.start({ run: () => Promise.resolve(first) });
    // Let go (another reader's turn, the lease's end), then started again.
    await r.life.stop();
    const second = new FakeRun();
    await r.life.start({ run: () => Promise.resolve(second) });
    // A call still holding the first run finds it stopped: that is the stop, not a failure.
    await r.life.failRun(first, new BridgeError('helper_unavailable', 'not running; nothing was asked'));
    assert.equal(r.life.state, 'ready');
    assert.equal(r.life.running, second);
    assert.equal(r.life.view().last_error, null);
    assert.equal(second.stopped, 0);
    await r.life.failRun(second, new BridgeError('helper_unavailable', 'it ended'));
    assert.equal(r.life.state, 'failed');
    assert.equal(second.stopped, 1);
    assert.equal(r.life.view().last_error, 'it ended');
  });

  test('a failure waits out its retry time; then the next start tries again', async () => {
    const r = rig();
    await r.life.start({ run: () => Promise.reject(new BridgeError('command_failed', 'no luck')) });
    assert.equal(r.life.state, 'failed');
    const view = r.life.view();
    assert.equal(view.retry_at, r.now.ms + 60_000);
    assert.equal(view.last_error, 'no luck');
    assert.equal(r.life.mayStart(), false);
    assert.equal(await r.life.start({ run: () => Promise.resolve(new FakeRun()) }), null, 'not before its time');
    r.now.ms += 60_000;
    assert.equal(r.life.mayStart(), true);
    assert.ok(await r.life.start({ run: () => Promise.resolve(new FakeRun()) }));
    assert.equal(r.life.state, 'ready');
    assert.equal(r.life.view().last_error, null, 'a start that worked clears the error');
  });

  test('free retries: the first failure leaves it idle (started again at once), the second within the window fails it until enabled again', async () => {
    const r = rig({ freeRetries: 1, retryMs: Infinity });
    const first = new FakeRun();
    await r.life.start({ run: () => Promise.resolve(first) });
    first.crash('Segmentation fault');
    await r.next((s) => s === 'idle');
    assert.match(r.life.view().last_error ?? '', /ended on its own/);
    const second = new FakeRun();
    await r.life.start({ run: () => Promise.resolve(second) });
    await r.life.fail(new BridgeError('helper_unavailable', 'it stopped answering'));
    assert.equal(r.life.state, 'failed');
    assert.equal(second.stopped, 1);
    assert.equal(r.life.view().retry_at, null, 'no time: only the person enabling it again');
    r.now.ms += 24 * 3600_000;
    assert.equal(r.life.mayStart(), false);
    await r.life.consentChanged();
    assert.equal(r.life.state, 'idle');
    assert.equal(r.life.mayStart(), true);
  });

  test('a failure a phone or build cannot get past makes it unavailable until the phone comes back', async () => {
    const r = rig();
    await r.life.start({
      run: () => Promise.reject(new BridgeError('tool_unavailable', 'Android 4 has no app_process')),
    });
    assert.equal(r.life.state, 'unavailable');
    r.now.ms += 3600_000;
    assert.equal(r.life.mayStart(), false);
    r.life.phoneGone();
    assert.equal(r.life.state, 'idle');
    assert.equal(r.life.mayStart(), true);
  });

  test('unused, it stops by itself after the idle-stop time', async () => {
    const timed = rig({ idleStopMs: () => 20, clock: () => Date.now() });
    const run = new FakeRun();
    const idle = timed.next((s) => s === 'idle');
    await timed.life.start({ run: () => Promise.resolve(run) });
    assert.equal(timed.life.state, 'ready');
    // The idle timer is unref'd (it must not keep the bridge's process alive): this test's own
    // handle keeps the loop running until the stop it waits for.
    const keepAlive = setInterval(() => undefined, 60_000);
    try {
      await idle;
    } finally {
      clearInterval(keepAlive);
    }
    assert.equal(run.stopped, 1);
    assert.deepEqual(timed.states, ['starting', 'ready', 'idle']);
  });

  test('consent turned off stops what runs and a start under way; nothing starts while off', async () => {
    const r = rig();
    const run = new FakeRun();
    await r.life.start({ run: () => Promise.resolve(run) });
    r.consent.allowed = false;
    await r.life.consentChanged();
    assert.equal(r.life.state, 'off');
    assert.equal(run.stopped, 1);
    assert.equal(await r.life.start({ run: () => Promise.resolve(new FakeRun()) }), null);
    assert.equal(r.life.view().state, 'off');
    assert.equal(r.life.view().enabled, false);

    // A start under way when consent goes: overtaken, and its program stopped when it arrives.
    r.consent.allowed = true;
    await r.life.consentChanged();
    const late = new FakeRun();
    let bringUp!: () => void;
    let runCalled!: () => void;
    const running = new Promise<void>((resolve) => (runCalled = resolve));
    const starting = r.life.start({
      run: () =>
        new Promise<FakeRun>((resolve) => {
          bringUp = () => resolve(late);
          runCalled();
        }),
    });
    await running;
    assert.equal(r.life.state, 'starting');
    r.consent.allowed = false;
    await r.life.consentChanged();
    assert.equal(r.life.state, 'off');
    bringUp();
    assert.equal(await starting, null);
    await new Promise<void>((resolve) => setImmediate(resolve));
    assert.equal(late.stopped, 1);
    assert.equal(r.life.state, 'off');
  });

  test('one consent type: a default and each phone’s own word', () => {
    const uia2 = { default: 'off' as const, devices: {} };
    assert.equal(consentAllows(uia2, 'p1'), false, 'off by default');
    const yes = withChoice(uia2, 'p1', 'on');
    assert.equal(consentAllows(yes, 'p1'), true);
    assert.equal(consentAllows(yes, 'p2'), false);
    const stream = { default: 'on' as const, devices: { p1: 'off' as const } };
    assert.equal(consentAllows(stream, 'p1'), false);
    assert.equal(consentAllows(withChoice(stream, 'p1', 'default'), 'p1'), true);
  });
});

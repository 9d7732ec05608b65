/**
 * DisposableStore and Lifecycle on their own: releases run last added first, an async one
 * is awaited before the next begins, one that throws or rejects is reported and the rest
 * still run, releasing twice releases once; a lifecycle starts once, stops once, stops
 * before a start, after a failed start, and after a start it waited for.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DisposableStore } from '../../main/core/lifecycle/disposables';
import { Lifecycle } from '../../main/core/lifecycle/lifecycle';

/** A promise the test settles by hand. */
function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (error: Error) => void } {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A release that notes its name in `order`. */
function noting(order: string[], name: string): () => void {
  return () => {
    order.push(name);
  };
}

/** Lets every queued microtask and immediate run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

void describe('DisposableStore', () => {
  void test('releases in reverse order of adding, functions and { dispose } objects alike', async () => {
    const order: string[] = [];
    const store = new DisposableStore((error) => assert.fail(String(error)));
    store.add(noting(order, 'a'));
    store.add({ dispose: () => void order.push('b') });
    store.add(async () => {
      order.push('c');
    });
    await store.dispose();
    assert.deepEqual(order, ['c', 'b', 'a']);
  });

  void test('add returns what it was given', () => {
    const store = new DisposableStore(() => undefined);
    const off = (): void => undefined;
    const disposable = { dispose: (): void => undefined };
    assert.equal(store.add(off), off);
    assert.equal(store.add(disposable), disposable);
  });

  void test('an async release is awaited before the next one begins', async () => {
    const order: string[] = [];
    const slow = deferred();
    const store = new DisposableStore((error) => assert.fail(String(error)));
    store.add(noting(order, 'first added'));
    store.add(async () => {
      order.push('slow begins');
      await slow.promise;
      order.push('slow ends');
    });
    const done = store.dispose();
    await settle();
    assert.deepEqual(order, ['slow begins'], 'the next release waits for the slow one');
    slow.resolve();
    await done;
    assert.deepEqual(order, ['slow begins', 'slow ends', 'first added']);
  });

  void test('synchronous releases run in the same tick as dispose()', () => {
    const order: string[] = [];
    const store = new DisposableStore((error) => assert.fail(String(error)));
    store.add(noting(order, 'a'));
    store.add(noting(order, 'b'));
    void store.dispose();
    assert.deepEqual(order, ['b', 'a']);
  });

  void test('a release that throws or rejects is reported, and the others still run', async () => {
    const order: string[] = [];
    const errors: unknown[] = [];
    const store = new DisposableStore((error) => errors.push(error));
    const thrown = new Error('sync failure');
    const rejected = new Error('async failure');
    store.add(noting(order, 'a'));
    store.add(async () => {
      order.push('b');
      throw rejected;
    });
    store.add(() => {
      order.push('c');
      throw thrown;
    });
    await store.dispose();
    assert.deepEqual(order, ['c', 'b', 'a']);
    assert.deepEqual(errors, [thrown, rejected]);
  });

  void test('dispose is idempotent: each release runs once, and a second call waits for the first', async () => {
    let runs = 0;
    const slow = deferred();
    const store = new DisposableStore((error) => assert.fail(String(error)));
    store.add(async () => {
      runs += 1;
      await slow.promise;
    });
    const first = store.dispose();
    const second = store.dispose();
    assert.equal(second, first);
    assert.equal(store.isDisposed, true);
    let secondDone = false;
    void second.then(() => {
      secondDone = true;
    });
    await settle();
    assert.equal(secondDone, false, 'the second call resolves only when the release is done');
    slow.resolve();
    await second;
    await store.dispose();
    assert.equal(runs, 1);
  });

  void test('something added after dispose() began is released at once', async () => {
    const order: string[] = [];
    const store = new DisposableStore((error) => assert.fail(String(error)));
    await store.dispose();
    store.add(noting(order, 'late'));
    assert.deepEqual(order, ['late']);
  });
});

void describe('Lifecycle', () => {
  const quiet = (error: unknown): void => assert.fail(String(error));

  void test('new → starting → running → stopping → stopped; stop releases what start added, in reverse', async () => {
    const order: string[] = [];
    const life = new Lifecycle('thing', quiet);
    assert.equal(life.state, 'new');
    const gate = deferred();
    const started = life.start(async () => {
      life.owned.add(noting(order, 'stop a'));
      await gate.promise;
      life.owned.add(noting(order, 'stop b'));
      return 42;
    });
    assert.equal(life.state, 'starting');
    gate.resolve();
    assert.equal(await started, 42);
    assert.equal(life.state, 'running');
    const stopped = life.stop();
    assert.equal(life.state, 'stopping');
    await stopped;
    assert.equal(life.state, 'stopped');
    assert.deepEqual(order, ['stop b', 'stop a']);
  });

  void test('a second start throws, while starting, running or after stop', async () => {
    const life = new Lifecycle('core', quiet);
    const gate = deferred();
    const first = life.start(() => gate.promise);
    await assert.rejects(
      life.start(async () => undefined),
      { message: 'core already started' },
    );
    gate.resolve();
    await first;
    await assert.rejects(
      life.start(async () => undefined),
      { message: 'core already started' },
    );
    await life.stop();
    await assert.rejects(
      life.start(async () => undefined),
      { message: 'core already stopped' },
    );
  });

  void test('stop is idempotent: releases run once, every call resolves when they are done', async () => {
    let runs = 0;
    const life = new Lifecycle('thing', quiet);
    await life.start(async () => {
      life.owned.add(() => {
        runs += 1;
      });
    });
    const first = life.stop();
    const second = life.stop();
    await Promise.all([first, second]);
    await life.stop();
    assert.equal(runs, 1);
  });

  void test('stop before start releases what was added before start, and start is then refused', async () => {
    const order: string[] = [];
    const life = new Lifecycle('core', quiet);
    life.owned.add(noting(order, 'listener off'));
    await life.stop();
    assert.equal(life.state, 'stopped');
    assert.deepEqual(order, ['listener off']);
    await assert.rejects(
      life.start(async () => undefined),
      { message: 'core already stopped' },
    );
  });

  void test('after a failed start, stop releases what the start had added', async () => {
    const order: string[] = [];
    const life = new Lifecycle('thing', quiet);
    const failure = new Error('bad certificate');
    await assert.rejects(
      life.start(async () => {
        life.owned.add(noting(order, 'stop a'));
        throw failure;
      }),
      failure,
    );
    assert.equal(life.state, 'starting');
    await life.stop();
    assert.equal(life.state, 'stopped');
    assert.deepEqual(order, ['stop a']);
  });

  void test('a stop during start waits for the start to finish, then releases everything it started', async () => {
    const order: string[] = [];
    const life = new Lifecycle('thing', quiet);
    const gate = deferred();
    const started = life.start(async () => {
      life.owned.add(noting(order, 'stop a'));
      await gate.promise;
      life.owned.add(noting(order, 'stop b'));
    });
    const stopped = life.stop();
    await settle();
    assert.deepEqual(order, [], 'nothing is released while the start is under way');
    gate.resolve();
    await Promise.all([started, stopped]);
    assert.equal(life.state, 'stopped');
    assert.deepEqual(order, ['stop b', 'stop a']);
  });

  void test('a release that fails is reported and the stop still completes', async () => {
    const errors: unknown[] = [];
    const order: string[] = [];
    const life = new Lifecycle('thing', (error) => errors.push(error));
    const failure = new Error('close failed');
    await life.start(async () => {
      life.owned.add(noting(order, 'a'));
      life.owned.add(() => {
        throw failure;
      });
    });
    await life.stop();
    assert.deepEqual(errors, [failure]);
    assert.deepEqual(order, ['a']);
    assert.equal(life.state, 'stopped');
  });
});

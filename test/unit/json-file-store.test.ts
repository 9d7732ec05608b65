/**
 * The state file's two ways of writing: `flush()` (durable before it returns) and
 * `flushInBackground()` (durable when its promise settles, with the event loop free
 * meanwhile), used for a lease's last activity while calls are flowing. What a person relies
 * on: the newest value is the one on disk, whichever way wrote last; no temp file is left
 * behind; a failed background write is reported, not thrown into the process.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JsonFileStore } from '../../main/core/store/json-file-store';

interface Value {
  n: number;
}

function tempStore(t: TestContext): { store: JsonFileStore<Value>; path: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'json-store-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'state.json');
  const store = new JsonFileStore<Value>({ path, defaults: () => ({ n: 0 }), parse: (raw) => raw as Value });
  return { store, path, dir };
}

const onDisk = (path: string): Value => JSON.parse(readFileSync(path, 'utf8')) as Value;

test('a background write puts the value on disk, and leaves no temp file', async (t) => {
  const { store, path, dir } = tempStore(t);
  store.get().n = 7;
  await store.flushInBackground();
  assert.deepEqual(onDisk(path), { n: 7 });
  assert.deepEqual(readdirSync(dir), ['state.json']);
});

test('a synchronous write that begins while a background write is in flight is never overwritten by the older text', async (t) => {
  const { store, path, dir } = tempStore(t);
  store.get().n = 1;
  const background = store.flushInBackground();
  store.update((v) => {
    v.n = 2;
  });
  assert.deepEqual(onDisk(path), { n: 2 });
  await background;
  assert.deepEqual(
    onDisk(path),
    { n: 2 },
    'the background write of n=1 finished after the n=2 write and must not replace it',
  );
  assert.deepEqual(readdirSync(dir), ['state.json']);
});

test('background writes asked for while one is in flight coalesce into one more, which writes the newest value', async (t) => {
  const { store, path } = tempStore(t);
  store.get().n = 1;
  const first = store.flushInBackground();
  store.get().n = 2;
  const second = store.flushInBackground();
  store.get().n = 3;
  const third = store.flushInBackground();
  assert.equal(second, first, 'one write in flight: later calls join it');
  assert.equal(third, first);
  await first;
  assert.deepEqual(onDisk(path), { n: 3 });
  // Once settled, the next call starts a new write.
  store.get().n = 4;
  await store.flushInBackground();
  assert.deepEqual(onDisk(path), { n: 4 });
});

test('a background write that cannot be made rejects (the caller retries later) and the process goes on', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'json-store-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const blocker = join(dir, 'not-a-folder');
  writeFileSync(blocker, 'a file where the state folder should be');
  const store = new JsonFileStore<Value>({
    path: join(blocker, 'state.json'),
    defaults: () => ({ n: 0 }),
    parse: (raw) => raw as Value,
  });
  await assert.rejects(store.flushInBackground());
  await store.settled();
});

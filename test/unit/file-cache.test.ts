/**
 * FileCache against a real temporary directory: caps on disk under bursts, LRU and TTL
 * eviction, streaming without buffering, leftovers and option checks.
 */
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { BridgeError } from '../../main/core/errors';
import { untilFolder } from '../helpers/folder-watch';
import {
  DEFAULT_FILE_CACHE_LIMITS,
  FILE_REF_PATTERN,
  FileCache,
  safeFilename,
  type CachedFile,
  type EvictReason,
  type FileCacheOptions,
} from '../../main/core/files/file-cache';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'file-cache-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function startedCache(
  t: TestContext,
  options: Partial<FileCacheOptions> = {},
): Promise<{ cache: FileCache; dir: string }> {
  const dir = options.dir ?? join(tempDir(t), 'cache');
  const cache = new FileCache({ ...options, dir });
  await cache.start();
  t.after(() => cache.stop());
  return { cache, dir };
}

/** Synchronous snapshot of the directory: nothing else runs in JS while we look. */
function diskUsage(dir: string): { files: number; bytes: number; names: string[] } {
  const names = readdirSync(dir);
  let bytes = 0;
  for (const name of names) {
    try {
      bytes += statSync(join(dir, name)).size;
    } catch {
      // Unlinked by a worker thread between readdir and stat: it no longer counts.
    }
  }
  return { files: names.length, bytes, names };
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

const base = { mimeType: 'image/png', filename: 'shot.png', channelId: 'ch-1', kind: 'screenshot' as const };

function expectCode(code: string, message?: string | RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof BridgeError, `expected BridgeError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (typeof message === 'string') assert.equal(error.message, message);
    else if (message) assert.match(error.message, message);
    return true;
  };
}

void describe('FileCache options', () => {
  const cases: Array<[string, unknown, string]> = [
    ['missing dir', {}, 'dir must be a non-empty string'],
    ['blank dir', { dir: '  ' }, 'dir must be a non-empty string'],
    ['zero maxBytes', { dir: 'x', limits: { maxBytes: 0 } }, 'limits.maxBytes must be a positive integer'],
    ['negative maxFiles', { dir: 'x', limits: { maxFiles: -1 } }, 'limits.maxFiles must be a positive integer'],
    ['fractional ttlMs', { dir: 'x', limits: { ttlMs: 1.5 } }, 'limits.ttlMs must be a positive integer'],
    [
      'string cleanupIntervalMs',
      { dir: 'x', limits: { cleanupIntervalMs: '30' } },
      'limits.cleanupIntervalMs must be a positive integer',
    ],
    ['NaN maxBytes', { dir: 'x', limits: { maxBytes: Number.NaN } }, 'limits.maxBytes must be a positive integer'],
    ['unknown limit', { dir: 'x', limits: { maxSize: 1 } }, 'limits.maxSize is not a known limit'],
    ['limits not an object', { dir: 'x', limits: 5 }, 'limits must be an object'],
    ['clock not a function', { dir: 'x', clock: 5 }, 'clock must be a function'],
    ['onEvict not a function', { dir: 'x', onEvict: 'no' }, 'onEvict must be a function'],
  ];
  for (const [name, options, message] of cases) {
    void test(`rejects ${name}`, () => {
      assert.throws(() => new FileCache(options as FileCacheOptions), expectCode('invalid_arguments', message));
    });
  }

  void test('defaults are the documented ones and partial limits merge', () => {
    assert.deepEqual(DEFAULT_FILE_CACHE_LIMITS, {
      ttlMs: 600_000,
      maxBytes: 268_435_456,
      maxFiles: 500,
      cleanupIntervalMs: 30_000,
    });
    const cache = new FileCache({ dir: 'unused', limits: { maxFiles: 7 } });
    assert.deepEqual(cache.stats(), { files: 0, bytes: 0, limits: { ...DEFAULT_FILE_CACHE_LIMITS, maxFiles: 7 } });
  });
});

void describe('FileCache lifecycle', () => {
  void test('start creates a private directory and removes only its own leftovers', async (t) => {
    const root = tempDir(t);
    const dir = join(root, 'cache');
    mkdirSync(dir, { mode: 0o755 });
    const leftoverBin = join(dir, `${'a'.repeat(48)}.bin`);
    const leftoverPart = join(dir, `${'b'.repeat(48)}.part`);
    const foreign = join(dir, 'README.txt');
    writeFileSync(leftoverBin, 'old');
    writeFileSync(leftoverPart, 'half');
    writeFileSync(foreign, 'not ours');
    await startedCache(t, { dir });
    assert.deepEqual(readdirSync(dir), ['README.txt']);
    if (process.platform !== 'win32') assert.equal(statSync(dir).mode & 0o777, 0o700);
  });

  void test('stop is idempotent, refuses new writes, and the next start forgets the old files', async (t) => {
    const { cache, dir } = await startedCache(t);
    const file = await cache.put({ ...base, data: Buffer.from('hello') });
    await cache.stop();
    await cache.stop();
    await assert.rejects(
      cache.put({ ...base, data: Buffer.from('x') }),
      expectCode('internal_error', 'file cache is not running'),
    );
    await cache.start();
    assert.equal(cache.get(file.fileRef), undefined);
    assert.deepEqual(readdirSync(dir), []);
    assert.equal(cache.stats().files, 0);
  });

  void test('stop cancels a stream that is still being written and deletes its partial file', async (t) => {
    const { cache, dir } = await startedCache(t);
    const source = new PassThrough();
    const pending = cache.putStream({ ...base, stream: source, maxBytes: 1024 * 1024 });
    source.write(Buffer.alloc(1000, 1));
    const stopped = cache.stop();
    await assert.rejects(pending, expectCode('canceled'));
    await stopped;
    assert.deepEqual(readdirSync(dir), []);
  });
});

void describe('FileCache put/get', () => {
  void test('stores atomically under a random ref with the content hash and TTL', async (t) => {
    let now = 1_000_000;
    const { cache, dir } = await startedCache(t, { clock: () => now, limits: { ttlMs: 5000 } });
    const data = randomBytes(4096);
    const file = await cache.put({ ...base, data });
    assert.match(file.fileRef, FILE_REF_PATTERN);
    assert.equal(file.byteSize, 4096);
    assert.equal(file.sha256, sha256(data));
    assert.equal(file.createdAt, 1_000_000);
    assert.equal(file.expiresAt, 1_005_000);
    assert.equal(file.kind, 'screenshot');
    assert.deepEqual(cache.get(file.fileRef), file);
    const path = cache.path(file.fileRef);
    assert.ok(path !== undefined && path.startsWith(dir));
    assert.deepEqual(readFileSync(path), data);
    // Nothing but the stored file: no temporary left behind, and the name does not contain the ref.
    const names = readdirSync(dir);
    assert.equal(names.length, 1);
    assert.ok(!names[0]!.includes(file.fileRef.slice(5)));
    const other = await cache.put({ ...base, data });
    assert.notEqual(other.fileRef, file.fileRef);
    now += 1;
    assert.deepEqual(cache.stats(), { files: 2, bytes: 8192, limits: { ...DEFAULT_FILE_CACHE_LIMITS, ttlMs: 5000 } });
  });

  void test('sanitises filenames and MIME types supplied by callers', async (t) => {
    const { cache } = await startedCache(t);
    const file = await cache.put({
      ...base,
      filename: '../../etc/pass\u0000wd\u202e.png',
      mimeType: 'Image/PNG; charset=x',
      data: Buffer.from('x'),
    });
    assert.equal(file.filename, 'pass' + 'wd.png');
    assert.equal(file.mimeType, 'image/png');
    const weird = await cache.put({
      ...base,
      filename: '..',
      mimeType: 'text/html\r\nX-Evil: 1',
      data: Buffer.from('x'),
    });
    assert.equal(weird.filename, 'file');
    assert.equal(weird.mimeType, 'application/octet-stream');
    assert.equal(safeFilename(`${'a'.repeat(300)}.jpeg`).length, 200);
    assert.ok(safeFilename(`${'a'.repeat(300)}.jpeg`).endsWith('.jpeg'));
  });

  void test('a buffer larger than the cache is refused and nothing is written', async (t) => {
    const { cache, dir } = await startedCache(t, { limits: { maxBytes: 1000 } });
    await assert.rejects(cache.put({ ...base, data: Buffer.alloc(1001) }), expectCode('file_too_large'));
    assert.deepEqual(readdirSync(dir), []);
    await cache.put({ ...base, data: Buffer.alloc(1000) });
    assert.equal(cache.stats().files, 1);
  });

  void test('evicts the least recently used file; get refreshes recency', async (t) => {
    const evicted: Array<[string, EvictReason]> = [];
    const { cache, dir } = await startedCache(t, {
      limits: { maxFiles: 3 },
      onEvict: (file, reason) => evicted.push([file.fileRef, reason]),
    });
    const a = await cache.put({ ...base, data: Buffer.from('a') });
    const b = await cache.put({ ...base, data: Buffer.from('b') });
    const c = await cache.put({ ...base, data: Buffer.from('c') });
    assert.ok(cache.get(a.fileRef));
    const d = await cache.put({ ...base, data: Buffer.from('d') });
    assert.deepEqual(evicted, [[b.fileRef, 'count']]);
    assert.equal(cache.get(b.fileRef), undefined);
    assert.equal(cache.path(b.fileRef), undefined);
    for (const kept of [a, c, d]) assert.ok(cache.get(kept.fileRef));
    assert.equal(readdirSync(dir).length, 3);
  });

  void test('evicts by bytes with reason "bytes"', async (t) => {
    const evicted: EvictReason[] = [];
    const { cache } = await startedCache(t, {
      limits: { maxBytes: 300 },
      onEvict: (_f, reason) => evicted.push(reason),
    });
    const first = await cache.put({ ...base, data: Buffer.alloc(200) });
    await cache.put({ ...base, data: Buffer.alloc(200) });
    assert.deepEqual(evicted, ['bytes']);
    assert.equal(cache.get(first.fileRef), undefined);
    assert.equal(cache.stats().bytes, 200);
  });

  void test('expired files disappear from lookups at once and from disk on the cleanup timer', async (t) => {
    let now = 0;
    const evictions: Array<{ file: CachedFile; reason: EvictReason }> = [];
    let notify: (() => void) | undefined;
    const { cache, dir } = await startedCache(t, {
      clock: () => now,
      limits: { ttlMs: 1000, cleanupIntervalMs: 5 },
      onEvict: (file, reason) => {
        evictions.push({ file, reason });
        notify?.();
      },
    });
    const lazy = await cache.put({ ...base, data: Buffer.from('lazy') });
    const swept = await cache.put({ ...base, data: Buffer.from('swept'), channelId: 'other' });
    now = 999;
    assert.ok(cache.get(lazy.fileRef));
    now = 1000;
    assert.equal(cache.get(lazy.fileRef), undefined);
    assert.equal(cache.findByHash('other', swept.sha256), undefined);
    // The sweep runs on its own timer; wait for its eviction event (safety net only).
    await new Promise<void>((resolve, reject) => {
      const safety = setTimeout(() => reject(new Error('sweep never evicted')), 5000);
      notify = () => {
        if (evictions.some((e) => e.file.fileRef === swept.fileRef)) {
          clearTimeout(safety);
          resolve();
        }
      };
      notify();
    });
    assert.deepEqual(
      evictions.map((e) => e.reason),
      ['ttl', 'ttl'],
    );
    await cache.remove(swept.fileRef);
    await cache.stop();
    assert.deepEqual(readdirSync(dir), []);
  });

  void test('findByHash answers per channel and remove deletes the file', async (t) => {
    const { cache, dir } = await startedCache(t);
    const data = Buffer.from('same pixels');
    const file = await cache.put({ ...base, data });
    assert.deepEqual(cache.findByHash('ch-1', sha256(data)), file);
    assert.equal(cache.findByHash('ch-2', sha256(data)), undefined);
    assert.equal(cache.findByHash('ch-1', sha256(Buffer.from('other'))), undefined);
    await cache.remove(file.fileRef);
    assert.equal(cache.get(file.fileRef), undefined);
    assert.equal(cache.findByHash('ch-1', sha256(data)), undefined);
    assert.deepEqual(readdirSync(dir), []);
    await cache.remove(file.fileRef);
  });

  void test('caps hold on disk after every put of a 500-put burst', async (t) => {
    const maxFiles = 50;
    const maxBytes = 600 * 1024;
    const { cache, dir } = await startedCache(t, { limits: { maxFiles, maxBytes } });
    let checks = 0;
    const puts = Array.from({ length: 500 }, (_, i) =>
      cache.put({ ...base, data: Buffer.alloc(20 * 1024 + (i % 7) * 100, i % 256) }).then((file) => {
        const stats = cache.stats();
        assert.ok(stats.files <= maxFiles, `stats files ${stats.files}`);
        assert.ok(stats.bytes <= maxBytes, `stats bytes ${stats.bytes}`);
        const disk = diskUsage(dir);
        assert.ok(disk.files <= maxFiles, `disk files ${disk.files}`);
        assert.ok(disk.bytes <= maxBytes, `disk bytes ${disk.bytes}`);
        checks += 1;
        return file;
      }),
    );
    const files = await Promise.all(puts);
    assert.equal(checks, 500);
    assert.equal(new Set(files.map((f) => f.fileRef)).size, 500);
    await cache.stop();
    const disk = diskUsage(dir);
    const stats = cache.stats();
    assert.equal(disk.files, stats.files);
    assert.equal(disk.bytes, stats.bytes);
    assert.ok(stats.bytes > maxBytes - 21 * 1024, 'the cache is used up to its cap, not emptied');
    // The survivors are the most recent puts.
    assert.ok(cache.get(files[499]!.fileRef));
    assert.equal(cache.get(files[0]!.fileRef), undefined);
  });
});

void describe('FileCache putStream', () => {
  void test('streams 5 MB to disk without reading ahead of what is written', async (t) => {
    const { cache, dir } = await startedCache(t);
    const chunk = 64 * 1024;
    const total = 5 * 1024 * 1024;
    const hash = createHash('sha256');
    let produced = 0;
    let maxAhead = 0;
    const source = new Readable({
      read() {
        // How far is the producer ahead of the bytes already on disk?
        const part = readdirSync(dir).find((name) => name.endsWith('.part'));
        const onDisk = part ? statSync(join(dir, part)).size : 0;
        maxAhead = Math.max(maxAhead, produced - onDisk);
        if (produced >= total) {
          this.push(null);
          return;
        }
        const data = Buffer.alloc(chunk, produced / chunk);
        hash.update(data);
        produced += chunk;
        this.push(data);
      },
    });
    const file = await cache.putStream({ ...base, kind: 'recording', stream: source, maxBytes: total });
    assert.equal(file.byteSize, total);
    assert.equal(file.sha256, hash.digest('hex'));
    assert.equal(statSync(cache.path(file.fileRef)!).size, total);
    assert.ok(maxAhead <= 4 * chunk, `producer ran ${maxAhead} bytes ahead of the disk`);
  });

  void test('past maxBytes the source is destroyed, the partial file deleted, and the cache still works', async (t) => {
    const { cache, dir } = await startedCache(t);
    const source = new PassThrough();
    const pending = cache.putStream({ ...base, stream: source, maxBytes: 100_000 });
    source.write(Buffer.alloc(60_000));
    source.write(Buffer.alloc(60_000));
    await assert.rejects(pending, expectCode('file_too_large', 'file exceeds the limit of 100000 bytes'));
    assert.ok(source.destroyed);
    assert.deepEqual(readdirSync(dir), []);
    assert.deepEqual({ files: cache.stats().files, bytes: cache.stats().bytes }, { files: 0, bytes: 0 });
    const ok = await cache.putStream({ ...base, stream: Readable.from([Buffer.alloc(100_000)]), maxBytes: 100_000 });
    assert.equal(ok.byteSize, 100_000);
  });

  void test('the cache maxBytes caps a stream too', async (t) => {
    const { cache, dir } = await startedCache(t, { limits: { maxBytes: 1000 } });
    await assert.rejects(
      cache.putStream({ ...base, stream: Readable.from([Buffer.alloc(1001)]), maxBytes: 10_000 }),
      expectCode('file_too_large'),
    );
    assert.deepEqual(readdirSync(dir), []);
  });

  void test('an aborted signal cancels the write and deletes the partial file', async (t) => {
    const { cache, dir } = await startedCache(t);
    const source = new PassThrough();
    const abort = new AbortController();
    const pending = cache.putStream({ ...base, stream: source, maxBytes: 1_000_000, signal: abort.signal });
    source.write(Buffer.alloc(1000));
    abort.abort();
    await assert.rejects(pending, expectCode('canceled'));
    assert.deepEqual(readdirSync(dir), []);
  });

  void test('a source error rejects with canceled and leaves nothing behind', async (t) => {
    const { cache, dir } = await startedCache(t);
    const source = new PassThrough();
    const pending = cache.putStream({ ...base, stream: source, maxBytes: 1_000_000 });
    source.write(Buffer.alloc(1000));
    source.destroy(new Error('socket hang up'));
    await assert.rejects(pending, expectCode('canceled'));
    assert.deepEqual(readdirSync(dir), []);
  });

  void test('concurrent streams that together overflow the cache never deadlock and never exceed it', async (t) => {
    const maxBytes = 100_000;
    const { cache, dir } = await startedCache(t, { limits: { maxBytes } });
    const a = new PassThrough();
    const b = new PassThrough();
    const pa = cache.putStream({ ...base, stream: a, maxBytes });
    const pb = cache.putStream({ ...base, stream: b, maxBytes });
    a.write(Buffer.alloc(60_000));
    b.write(Buffer.alloc(30_000));
    a.end(Buffer.alloc(30_000));
    b.end(Buffer.alloc(30_000));
    const results = await Promise.allSettled([pa, pb]);
    assert.ok(
      results.some((r) => r.status === 'fulfilled'),
      'at least one stream is stored',
    );
    for (const r of results) {
      if (r.status === 'rejected') expectCode('file_too_large')(r.reason);
    }
    assert.ok(diskUsage(dir).bytes <= maxBytes);
    assert.ok(!diskUsage(dir).names.some((n) => n.endsWith('.part')));
  });
});

void describe('FileCache limits changed while running', () => {
  /** Evicted files are deleted in the background. */
  const waitForDisk = (dir: string, files: number): Promise<void> =>
    untilFolder(dir, () => diskUsage(dir).files === files, `${files} files on disk`);

  void test('smaller caps evict the least recently used files at once; the next put keeps to them', async (t) => {
    const evicted: Array<[string, EvictReason]> = [];
    const { cache, dir } = await startedCache(t, {
      limits: { maxFiles: 10, maxBytes: 10_000 },
      onEvict: (file, reason) => evicted.push([file.fileRef, reason]),
    });
    const files: CachedFile[] = [];
    for (let i = 0; i < 4; i += 1) files.push(await cache.put({ ...base, data: Buffer.alloc(1000, i) }));
    cache.get(files[0]!.fileRef); // the oldest is now the most recently used
    cache.setLimits({ maxFiles: 2 });
    assert.deepEqual(evicted, [
      [files[1]!.fileRef, 'count'],
      [files[2]!.fileRef, 'count'],
    ]);
    await waitForDisk(dir, 2);
    assert.equal(cache.stats().limits.maxFiles, 2);
    cache.setLimits({ maxBytes: 1500 });
    assert.deepEqual(evicted.at(-1), [files[3]!.fileRef, 'bytes']);
    await waitForDisk(dir, 1);
    assert.ok(cache.get(files[0]!.fileRef));
    await assert.rejects(cache.put({ ...base, data: Buffer.alloc(1600) }), expectCode('file_too_large'));
    await cache.put({ ...base, data: Buffer.alloc(1000) });
    assert.equal(cache.get(files[0]!.fileRef), undefined, 'evicted to make room');
    assert.ok(diskUsage(dir).bytes <= 1500);
  });

  void test('a new TTL applies to new files; a shorter one also ends older files early', async (t) => {
    let now = 1_000_000;
    const { cache } = await startedCache(t, { clock: () => now, limits: { ttlMs: 600_000 } });
    const old = await cache.put({ ...base, data: Buffer.from('old') });
    assert.equal(old.expiresAt, now + 600_000);
    now += 120_000;
    cache.setLimits({ ttlMs: 900_000 });
    assert.equal(cache.get(old.fileRef)?.expiresAt, old.expiresAt, 'a longer TTL does not extend stored files');
    const longer = await cache.put({ ...base, data: Buffer.from('longer') });
    assert.equal(longer.expiresAt, now + 900_000);
    cache.setLimits({ ttlMs: 60_000 });
    assert.equal(cache.get(old.fileRef), undefined, 'created 2 min ago: past the new 1 min lifetime');
    assert.equal(cache.get(longer.fileRef)?.expiresAt, now + 60_000);
    now += 60_000;
    assert.equal(cache.get(longer.fileRef), undefined);
  });

  void test('setLimits checks its input and keeps the cleanup interval', async (t) => {
    const { cache } = await startedCache(t);
    assert.throws(
      () => cache.setLimits({ maxBytes: 0 }),
      expectCode('invalid_arguments', 'limits.maxBytes must be a positive integer'),
    );
    assert.throws(
      () => cache.setLimits({ cleanupIntervalMs: 5 } as never),
      expectCode('invalid_arguments', 'limits.cleanupIntervalMs is fixed while the cache runs'),
    );
    assert.throws(
      () => cache.setLimits({ size: 5 } as never),
      expectCode('invalid_arguments', 'limits.size is not a known limit'),
    );
    assert.deepEqual(cache.stats().limits, DEFAULT_FILE_CACHE_LIMITS);
  });
});

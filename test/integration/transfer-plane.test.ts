/**
 * The transfer plane over real sockets: a plain http.Server on port 0 routes to
 * handleDownload / handleUpload exactly as the bridge does, with a real FileCache on a
 * temporary directory and an injected clock.
 */
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { BridgeError } from '../../main/core/errors';
import { untilFolder } from '../helpers/folder-watch';
import { FileCache, FILE_REF_PATTERN, type CachedFile, type FileCacheLimits } from '../../main/core/files/file-cache';
import { UrlSigner } from '../../main/core/files/signed-url';
import { handleDownload } from '../../main/core/files/download-handler';
import { assertFileOwnedBy, handleUpload } from '../../main/core/files/upload-handler';

const API_KEY = 'test-api-key';
const T0 = 1_800_000_000_000;

interface Harness {
  port: number;
  cache: FileCache;
  signer: UrlSigner;
  dir: string;
  root: string;
  clock: { now: number };
  /** How often the handlers asked the cache about a ref (the only way to the disk). */
  lookups: { count: number };
}

async function setup(
  t: TestContext,
  options: { limits?: Partial<FileCacheLimits>; maxUploadBytes?: number; idleTimeoutMs?: number } = {},
): Promise<Harness> {
  const root = mkdtempSync(join(tmpdir(), 'transfer-plane-test-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'cache');
  const clock = { now: T0 };
  const cache = new FileCache({ dir, limits: options.limits, clock: () => clock.now });
  await cache.start();
  t.after(() => cache.stop());
  const lookups = { count: 0 };
  const realGet = cache.get.bind(cache);
  const realPath = cache.path.bind(cache);
  cache.get = (ref: string): CachedFile | undefined => {
    lookups.count += 1;
    return realGet(ref);
  };
  cache.path = (ref: string): string | undefined => {
    lookups.count += 1;
    return realPath(ref);
  };
  const signer = new UrlSigner(randomBytes(32), () => clock.now);
  const channels = new Set(['ch-1', 'ch-2']);
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/files/uploads') {
      handleUpload(req, res, {
        cache,
        authorize: (r) => r.headers.authorization === `Bearer ${API_KEY}`,
        channelExists: (id) => channels.has(id),
        maxUploadBytes: options.maxUploadBytes ?? 8 * 1024 * 1024,
        idleTimeoutMs: options.idleTimeoutMs,
      });
    } else if (url.startsWith('/files/refs/')) {
      handleDownload(req, res, { cache, signer });
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  });
  return { port: (server.address() as AddressInfo).port, cache, signer, dir, root, clock, lookups };
}

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * One request on its own connection. A response that arrives while the body is still being
 * sent (413) is returned; the connection errors that follow it are expected.
 */
function send(
  port: number,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | Readable },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: options.method ?? 'GET',
      path: options.path,
      headers: options.headers,
      agent: false,
    });
    let responded = false;
    req.setTimeout(20_000, () => req.destroy(new Error('request timed out (safety net)')));
    req.on('response', (res) => {
      responded = true;
      if (options.body instanceof Readable) options.body.unpipe(req);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (error) => {
      if (!responded) reject(error);
    });
    if (options.body instanceof Readable) options.body.pipe(req);
    else req.end(options.body);
  });
}

function errorOf(reply: Reply): { code: string; message: string } {
  assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
  const parsed = JSON.parse(reply.body.toString('utf8')) as { error: { code: string; message: string } };
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.equal(typeof parsed.error.message, 'string');
  return parsed.error;
}

function splitSigned(path: string): { ref: string; exp: string; sig: string } {
  const match = /^\/files\/refs\/(file_[A-Za-z0-9_-]{32})\?exp=(\d+)&sig=([A-Za-z0-9_-]{43})$/.exec(path);
  assert.ok(match, path);
  return { ref: match[1]!, exp: match[2]!, sig: match[3]! };
}

function changeChar(text: string, index: number): string {
  const ch = text[index]!;
  const replacement = ch === 'A' ? 'B' : ch === '1' ? '2' : /[0-9]/.test(ch) ? '1' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

const BOUNDARY = '----bridge-test-boundary-7f3a';

function multipartHead(
  file: { filename: string; contentType?: string; field?: string },
  fields: Record<string, string> = {},
): Buffer {
  let text = '';
  for (const [name, value] of Object.entries(fields)) {
    text += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  text += `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${file.field ?? 'file'}"; filename="${file.filename}"\r\n`;
  if (file.contentType) text += `Content-Type: ${file.contentType}\r\n`;
  return Buffer.from(`${text}\r\n`);
}

const MULTIPART_TAIL = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

function uploadHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    Authorization: `Bearer ${API_KEY}`,
    'X-XAgent-Connector-Channel-ID': 'ch-1',
    'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    ...extra,
  };
}

function multipartBody(
  data: Buffer,
  file: { filename: string; contentType?: string; field?: string },
  fields?: Record<string, string>,
): Buffer {
  return Buffer.concat([multipartHead(file, fields), data, MULTIPART_TAIL]);
}

/** A body produced on demand (never held whole), sent with chunked encoding. */
function streamedBody(head: Buffer, total: number, chunkSize: number, hash?: ReturnType<typeof createHash>): Readable {
  let sent = 0;
  let stage: 'head' | 'data' | 'tail' | 'done' = 'head';
  return new Readable({
    read() {
      if (stage === 'head') {
        stage = 'data';
        this.push(head);
      } else if (stage === 'data') {
        const size = Math.min(chunkSize, total - sent);
        const chunk = Buffer.alloc(size, sent / chunkSize);
        hash?.update(chunk);
        sent += size;
        if (sent >= total) stage = 'tail';
        this.push(chunk);
      } else if (stage === 'tail') {
        stage = 'done';
        this.push(MULTIPART_TAIL);
      } else {
        this.push(null);
      }
    },
  });
}

function openFds(): number | undefined {
  return existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : undefined;
}

const png = { mimeType: 'image/png', filename: 'screen.png', channelId: 'ch-1', kind: 'screenshot' as const };

void describe('GET/HEAD /files/refs/{file_ref}', () => {
  void test('a signed URL downloads the bytes with safe headers', async (t) => {
    const h = await setup(t);
    const data = randomBytes(70_000);
    const file = await h.cache.put({
      data,
      mimeType: 'application/pdf',
      filename: 'Bericht "Q1" – März.pdf',
      channelId: 'ch-1',
      kind: 'file',
    });
    const { path } = h.signer.sign(file.fileRef, 60_000, file.expiresAt);
    const reply = await send(h.port, { path });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.body, data);
    assert.equal(reply.headers['content-type'], 'application/pdf');
    assert.equal(reply.headers['content-length'], '70000');
    assert.equal(
      reply.headers['content-disposition'],
      `attachment; filename="Bericht _Q1_ _ M_rz.pdf"; filename*=UTF-8''Bericht%20%22Q1%22%20%E2%80%93%20M%C3%A4rz.pdf`,
    );
    assert.equal(reply.headers['cache-control'], 'private, no-store');
    assert.equal(reply.headers['x-content-type-options'], 'nosniff');
  });

  void test('HEAD answers the same headers without a body', async (t) => {
    const h = await setup(t);
    const file = await h.cache.put({ ...png, data: randomBytes(1234) });
    const reply = await send(h.port, { method: 'HEAD', path: h.signer.sign(file.fileRef, 60_000).path });
    assert.equal(reply.status, 200);
    assert.equal(reply.body.length, 0);
    assert.equal(reply.headers['content-length'], '1234');
    assert.equal(reply.headers['content-type'], 'image/png');
    assert.equal(
      reply.headers['content-disposition'],
      `attachment; filename="screen.png"; filename*=UTF-8''screen.png`,
    );
  });

  void test('changing one character of sig, exp or ref is refused with 403', async (t) => {
    const h = await setup(t);
    const file = await h.cache.put({ ...png, data: Buffer.from('pixels') });
    const other = await h.cache.put({ ...png, data: Buffer.from('other pixels') });
    const { ref, exp, sig } = splitSigned(h.signer.sign(file.fileRef, 60_000).path);
    const tampered = [
      `/files/refs/${ref}?exp=${exp}&sig=${changeChar(sig, 0)}`,
      `/files/refs/${ref}?exp=${exp}&sig=${changeChar(sig, 20)}`,
      `/files/refs/${ref}?exp=${exp}&sig=${changeChar(sig, 42)}`,
      `/files/refs/${ref}?exp=${changeChar(exp, exp.length - 1)}&sig=${sig}`,
      `/files/refs/${ref}?exp=${Number(exp) + 3_600_000}&sig=${sig}`,
      `/files/refs/${changeChar(ref, 10)}?exp=${exp}&sig=${sig}`,
      `/files/refs/${other.fileRef}?exp=${exp}&sig=${sig}`,
      `/files/refs/${ref}`,
      `/files/refs/${ref}?exp=${exp}`,
      `/files/refs/${ref}?sig=${sig}&exp=${exp}&sig=${sig}`,
    ];
    for (const path of tampered) {
      const reply = await send(h.port, { path });
      assert.equal(reply.status, 403, path);
      assert.deepEqual(
        errorOf(reply),
        { code: 'permission_denied', message: 'download URL signature is invalid' },
        path,
      );
    }
    // The genuine URL still works.
    assert.equal((await send(h.port, { path: `/files/refs/${ref}?exp=${exp}&sig=${sig}` })).status, 200);
  });

  void test('an expired URL is 403; a URL alive at its file expiry finds the file gone (404)', async (t) => {
    const h = await setup(t, { limits: { ttlMs: 60_000 } });
    const file = await h.cache.put({ ...png, data: Buffer.from('pixels') });
    const short = h.signer.sign(file.fileRef, 5_000, file.expiresAt);
    h.clock.now = T0 + 5_001;
    const expired = await send(h.port, { path: short.path });
    assert.equal(expired.status, 403);
    assert.deepEqual(errorOf(expired), { code: 'permission_denied', message: 'download URL has expired' });
    // A longer URL is clamped to the file expiry...
    const long = h.signer.sign(file.fileRef, 3_600_000, file.expiresAt);
    assert.equal(long.expiresAt, file.expiresAt);
    assert.equal((await send(h.port, { path: long.path })).status, 200);
    // ...and at that instant the URL still verifies but the file has expired.
    h.clock.now = file.expiresAt;
    const gone = await send(h.port, { path: long.path });
    assert.equal(gone.status, 404);
    assert.deepEqual(errorOf(gone), { code: 'file_not_found', message: 'file not found or expired' });
    h.clock.now = file.expiresAt + 1;
    assert.equal((await send(h.port, { path: long.path })).status, 403);
  });

  void test('an evicted or removed file is 404', async (t) => {
    const h = await setup(t, { limits: { maxFiles: 1 } });
    const first = await h.cache.put({ ...png, data: Buffer.from('first') });
    const url = h.signer.sign(first.fileRef, 60_000).path;
    const second = await h.cache.put({ ...png, data: Buffer.from('second') });
    const evicted = await send(h.port, { path: url });
    assert.equal(evicted.status, 404);
    assert.equal(errorOf(evicted).code, 'file_not_found');
    const secondUrl = h.signer.sign(second.fileRef, 60_000).path;
    await h.cache.remove(second.fileRef);
    assert.equal((await send(h.port, { path: secondUrl })).status, 404);
  });

  void test('path traversal and malformed refs are 404 without any cache or disk access', async (t) => {
    const h = await setup(t);
    writeFileSync(join(h.root, 'secret.txt'), 'TOP SECRET');
    const file = await h.cache.put({ ...png, data: Buffer.from('pixels') });
    const { exp, sig } = splitSigned(h.signer.sign(file.fileRef, 60_000).path);
    const diskName = readdirSync(h.dir)[0]!;
    const attempts = [
      '/files/refs/../../etc/passwd',
      '/files/refs/..%2F..%2Fetc%2Fpasswd',
      '/files/refs/%2e%2e%2f%2e%2e%2fetc%2fpasswd',
      '/files/refs/%2E%2E/secret.txt',
      '/files/refs/..%5c..%5csecret.txt',
      '/files/refs/../secret.txt',
      `/files/refs/../cache/${diskName}`,
      `/files/refs/${diskName}`,
      `/files/refs/${file.fileRef}/../../secret.txt?exp=${exp}&sig=${sig}`,
      `/files/refs/${file.fileRef}/?exp=${exp}&sig=${sig}`,
      `/files/refs/${file.fileRef}%00?exp=${exp}&sig=${sig}`,
      `/files/refs/${file.fileRef}A?exp=${exp}&sig=${sig}`,
      `/files/refs/${file.fileRef.slice(0, -1)}?exp=${exp}&sig=${sig}`,
      `/files/refs/file_${'A'.repeat(5000)}?exp=${exp}&sig=${sig}`,
      `/files/refs/${file.fileRef}?exp=${exp}&sig=${sig}&pad=${'x'.repeat(1000)}`,
      '/files/refs/',
      '/files/refs/file_%41%41',
    ];
    for (const path of attempts) {
      const reply = await send(h.port, { path });
      assert.equal(reply.status, 404, path);
      assert.deepEqual(errorOf(reply), { code: 'file_not_found', message: 'file not found' }, path);
      assert.ok(!reply.body.toString().includes('SECRET'));
    }
    assert.equal(h.lookups.count, 0, 'no malformed request reached the cache');
  });

  void test('other methods are 405', async (t) => {
    const h = await setup(t);
    const file = await h.cache.put({ ...png, data: Buffer.from('pixels') });
    const { path } = h.signer.sign(file.fileRef, 60_000);
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const reply = await send(h.port, { method, path });
      assert.equal(reply.status, 405, method);
      assert.equal(reply.headers.allow, 'GET, HEAD');
    }
    assert.ok(h.cache.get(file.fileRef), 'DELETE did not delete');
  });

  void test('clients that abort mid-download leak no file descriptors and do not crash the server', async (t) => {
    const h = await setup(t);
    const data = randomBytes(16 * 1024 * 1024);
    const file = await h.cache.put({ ...png, data });
    const { path } = h.signer.sign(file.fileRef, 60_000);
    const baseline = openFds();
    for (let i = 0; i < 10; i++) {
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest({ host: '127.0.0.1', port: h.port, path, agent: false }, (res) => {
          assert.equal(res.statusCode, 200);
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (error) => {
          if (!req.destroyed) reject(error);
        });
        req.end();
      });
    }
    if (baseline !== undefined) await waitFor(() => openFds()! <= baseline, 'file descriptors to be released');
    const full = await send(h.port, { path });
    assert.equal(full.status, 200);
    assert.equal(sha256(full.body), sha256(data));
  });
});

void describe('POST /files/uploads', () => {
  const small = (): Buffer => multipartBody(randomBytes(1024), { filename: 'photo.png', contentType: 'image/png' });

  void test('refuses a missing or wrong API key with 401 before reading the body', async (t) => {
    const h = await setup(t);
    for (const authorization of [undefined, 'Bearer wrong', API_KEY]) {
      const headers = uploadHeaders();
      if (authorization === undefined) delete headers.Authorization;
      else headers.Authorization = authorization;
      const reply = await send(h.port, { method: 'POST', path: '/files/uploads', headers, body: small() });
      assert.equal(reply.status, 401);
      assert.equal(errorOf(reply).code, 'unauthorized');
    }
    assert.equal(h.cache.stats().files, 0);
    assert.deepEqual(readdirSync(h.dir), []);
  });

  void test('requires an existing channel: 400 without the header, 404 for an unknown one', async (t) => {
    const h = await setup(t);
    const noHeader = uploadHeaders();
    delete noHeader['X-XAgent-Connector-Channel-ID'];
    const missing = await send(h.port, { method: 'POST', path: '/files/uploads', headers: noHeader, body: small() });
    assert.equal(missing.status, 400);
    assert.equal(errorOf(missing).code, 'connector_channel_id_required');
    const unknown = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders({ 'X-XAgent-Connector-Channel-ID': 'ch-404' }),
      body: small(),
    });
    assert.equal(unknown.status, 404);
    assert.equal(errorOf(unknown).code, 'connection_not_found');
    assert.equal(h.cache.stats().files, 0);
  });

  void test('refuses bodies that are not multipart or lack the file field', async (t) => {
    const h = await setup(t);
    const json = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders({ 'Content-Type': 'application/json' }),
      body: Buffer.from('{}'),
    });
    assert.equal(json.status, 415);
    assert.equal(errorOf(json).code, 'invalid_arguments');
    const noFile = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: multipartBody(Buffer.from('x'), { filename: 'a.png', field: 'attachment' }, { recipient_ref: 'r' }),
    });
    assert.equal(noFile.status, 400);
    assert.deepEqual(errorOf(noFile), { code: 'invalid_arguments', message: 'form field "file" is required' });
    const truncated = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: Buffer.concat([multipartHead({ filename: 'a.png' }), Buffer.alloc(100)]),
    });
    assert.equal(truncated.status, 400);
    assert.equal(errorOf(truncated).code, 'invalid_arguments');
    assert.equal(h.cache.stats().files, 0);
    assert.deepEqual(readdirSync(h.dir), []);
  });

  void test('stores the file bound to its channel and answers exactly the spec fields', async (t) => {
    const h = await setup(t, { limits: { ttlMs: 120_000 } });
    const data = randomBytes(1024);
    const reply = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: multipartBody(
        data,
        { filename: 'photo.png', contentType: 'image/png' },
        { recipient_ref: 'user-9', reply_token: 'tok' },
      ),
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers['content-type'], 'application/json; charset=utf-8');
    const json = JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
    assert.match(String(json.file_ref), FILE_REF_PATTERN);
    assert.deepEqual(json, {
      file_ref: json.file_ref,
      file_type: 'image',
      filename: 'photo.png',
      byte_size: 1024,
      expires_at: T0 + 120_000,
    });
    const ref = String(json.file_ref);
    const owned = assertFileOwnedBy(h.cache, ref, 'ch-1');
    assert.equal(owned.kind, 'upload');
    assert.equal(owned.mimeType, 'image/png');
    assert.deepEqual(readFileSync(h.cache.path(ref)!), data);
    assert.throws(
      () => assertFileOwnedBy(h.cache, ref, 'ch-2'),
      (e: unknown) => e instanceof BridgeError && e.code === 'permission_denied',
    );
    assert.throws(
      () => assertFileOwnedBy(h.cache, `file_${'A'.repeat(32)}`, 'ch-1'),
      (e: unknown) => e instanceof BridgeError && e.code === 'file_not_found',
    );
    // An upload is downloadable only through a signed URL.
    const download = await send(h.port, { path: h.signer.sign(ref, 60_000).path });
    assert.equal(download.status, 200);
    assert.deepEqual(download.body, data);
    assert.equal((await send(h.port, { path: `/files/refs/${ref}` })).status, 403);
  });

  void test('file_type comes from the MIME type, else from the extension', async (t) => {
    const h = await setup(t);
    const cases: Array<[{ filename: string; contentType?: string }, string, string]> = [
      [{ filename: 'clip.mp4', contentType: 'application/octet-stream' }, 'video', 'video/mp4'],
      [{ filename: 'voice.ogg' }, 'audio', 'audio/ogg'],
      [{ filename: 'noext', contentType: 'audio/x-custom' }, 'audio', 'audio/x-custom'],
      [
        { filename: 'app.apk', contentType: 'application/octet-stream' },
        'file',
        'application/vnd.android.package-archive',
      ],
      [{ filename: 'data.bin', contentType: 'application/octet-stream' }, 'file', 'application/octet-stream'],
      [{ filename: 'IMG.JPG', contentType: 'text/plain' }, 'image', 'image/jpeg'],
    ];
    for (const [file, fileType, mimeType] of cases) {
      const reply = await send(h.port, {
        method: 'POST',
        path: '/files/uploads',
        headers: uploadHeaders(),
        body: multipartBody(Buffer.from('x'), file),
      });
      assert.equal(reply.status, 200, file.filename);
      const json = JSON.parse(reply.body.toString('utf8')) as { file_ref: string; file_type: string };
      assert.equal(json.file_type, fileType, file.filename);
      assert.equal(h.cache.get(json.file_ref)?.mimeType, mimeType, file.filename);
    }
  });

  void test('a 5 MB upload streams from a stream source and round-trips', async (t) => {
    const h = await setup(t, { maxUploadBytes: 6 * 1024 * 1024 });
    const total = 5 * 1024 * 1024;
    const hash = createHash('sha256');
    const reply = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: streamedBody(
        multipartHead({ filename: 'screen-recording.mp4', contentType: 'video/mp4' }),
        total,
        64 * 1024,
        hash,
      ),
    });
    assert.equal(reply.status, 200, reply.body.toString());
    const json = JSON.parse(reply.body.toString('utf8')) as { file_ref: string };
    assert.deepEqual(json, {
      file_ref: json.file_ref,
      file_type: 'video',
      filename: 'screen-recording.mp4',
      byte_size: total,
      expires_at: T0 + 600_000,
    });
    const stored = h.cache.get(json.file_ref)!;
    assert.equal(stored.sha256, hash.digest('hex'));
    assert.equal(statSync(h.cache.path(json.file_ref)!).size, total);
  });

  void test('an oversize upload is 413, its partial file is deleted and the server keeps working', async (t) => {
    const h = await setup(t, { maxUploadBytes: 1024 * 1024 });
    const streamed = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: streamedBody(multipartHead({ filename: 'big.bin' }), 3 * 1024 * 1024, 64 * 1024),
    });
    assert.equal(streamed.status, 413);
    assert.equal(errorOf(streamed).code, 'file_too_large');
    assert.equal(streamed.headers.connection, 'close');
    assert.deepEqual(readdirSync(h.dir), [], 'partial file deleted before the answer');
    assert.equal(h.cache.stats().files, 0);
    // A declared length over the limit is refused before reading.
    const declared = multipartBody(Buffer.alloc(2 * 1024 * 1024), { filename: 'big.bin' });
    const early = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: declared,
    });
    assert.equal(early.status, 413);
    assert.equal(errorOf(early).code, 'file_too_large');
    // Exactly at the limit is fine.
    const exact = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: multipartBody(Buffer.alloc(1024 * 1024, 1), { filename: 'fits.bin' }),
    });
    assert.equal(exact.status, 200);
    assert.equal((JSON.parse(exact.body.toString()) as { byte_size: number }).byte_size, 1024 * 1024);
  });

  void test('an upload that stalls is answered 408 and its partial file deleted', async (t) => {
    const h = await setup(t, { idleTimeoutMs: 200 });
    const body = new PassThrough();
    t.after(() => body.destroy());
    const pending = send(h.port, { method: 'POST', path: '/files/uploads', headers: uploadHeaders(), body });
    body.write(multipartHead({ filename: 'slow.bin' }));
    body.write(Buffer.alloc(10_000, 3));
    const reply = await pending;
    assert.equal(reply.status, 408);
    assert.equal(errorOf(reply).code, 'command_timeout');
    assert.deepEqual(readdirSync(h.dir), []);
  });

  void test('a client that disconnects mid-upload leaves no partial file', async (t) => {
    const h = await setup(t);
    const body = new PassThrough();
    const req = httpRequest({
      host: '127.0.0.1',
      port: h.port,
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      agent: false,
    });
    req.on('error', () => undefined);
    body.pipe(req);
    body.write(multipartHead({ filename: 'partial.bin' }));
    body.write(Buffer.alloc(256 * 1024, 2));
    await untilFolder(
      h.dir,
      () => readdirSync(h.dir).some((name) => name.endsWith('.part') && statSync(join(h.dir, name)).size > 0),
      'the upload to reach the disk',
      10_000,
    );
    req.destroy();
    await untilFolder(h.dir, () => readdirSync(h.dir).length === 0, 'the partial file to be deleted', 10_000);
    assert.equal(h.cache.stats().files, 0);
    const after = await send(h.port, {
      method: 'POST',
      path: '/files/uploads',
      headers: uploadHeaders(),
      body: small(),
    });
    assert.equal(after.status, 200);
  });
});

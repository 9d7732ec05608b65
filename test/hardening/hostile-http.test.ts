/**
 * Hardening — hostile traffic at the HTTP/WebSocket edge: oversized and fragmented frames,
 * binary frames, a client that never reads (bounded memory), header floods, 500 malformed
 * upgrade attempts, and path-traversal download attempts. After each, the server still
 * answers and the connections that behaved keep working. (data-plane.test.ts covers the
 * basic cases: one oversize frame, 200 bad API keys, the connection cap.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import WebSocket from 'ws';
import { UrlSigner } from '../../main/core/files/signed-url';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { waitUntil } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';

const MAX_FRAME = 64 * 1024;
const MAX_BUFFERED = 256 * 1024;

/** Sends raw bytes on a fresh TCP connection; resolves with what came back until close (capped). */
function rawExchange(port: number, data: string | Buffer, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    let out = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${out.slice(0, 200)}`));
    }, timeoutMs);
    socket.on('data', (d: Buffer) => {
      out += d.toString('latin1');
      if (out.length > 65536) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.write(data, () => undefined);
    // A server that answers and keeps the connection open: end our side once it answered.
    socket.once('data', () => setTimeout(() => socket.end(), 50));
  });
}

const statusOf = (response: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0);

/** GET with the path exactly as given (no URL normalisation, unlike fetch). */
function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('hardening: hostile traffic at the edge', () => {
  let bridge: TestBridge;
  let port: number;
  let good: XAgentClient;

  before(async () => {
    bridge = await startBridge({
      dataPlane: { maxFrameBytes: MAX_FRAME, maxBufferedBytes: MAX_BUFFERED, maxConnections: 16 },
    });
    port = Number(new URL(bridge.url).port);
    good = await XAgentClient.connect(bridge.url, bridge.apiKey);
    await good.hello();
  });
  after(async () => {
    await good?.close();
    await bridge?.stop();
  });

  const stillFine = async (): Promise<void> => {
    assert.equal((await good.request('ping', {})).type, 'pong');
    assert.equal((await fetch(`${bridge.url}/connector-card.json`)).status, 200);
  };

  test('oversized frames: one over the limit, and a fragmented message adding up past it, close only that connection (1009)', async () => {
    const exact = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await exact.hello();
      // Just under the limit is a normal (if useless) packet.
      const pad = 'p'.repeat(MAX_FRAME - 1024);
      const reply = await exact.request('ping', { pad });
      assert.equal(reply.type, 'pong');
      const closed = new Promise<number>((resolve) => exact.ws.once('close', (code) => resolve(code)));
      exact.sendRaw('x'.repeat(MAX_FRAME + 1));
      assert.equal(await closed, 1009);
    } finally {
      await exact.close();
    }
    const fragmented = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      const closed = new Promise<number>((resolve) => fragmented.ws.once('close', (code) => resolve(code)));
      const chunk = 'f'.repeat(16 * 1024);
      for (let i = 0; i < 8; i++) fragmented.ws.send(chunk, { fin: false });
      fragmented.ws.send(chunk, { fin: true });
      assert.equal(await closed, 1009);
    } finally {
      await fragmented.close();
    }
    await stillFine();
  });

  test('binary frames: each answered invalid_packet, the connection keeps working', async () => {
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await client.hello();
      const start = client.received.length;
      for (let i = 0; i < 50; i++) client.sendRaw(randomBytes(1 + ((i * 997) % 60_000)), true);
      client.sendRaw(
        Buffer.from(JSON.stringify({ schema: 'xagent.connector.packet/v1', packet_id: 'p', type: 'ping' })),
        true,
      );
      await waitUntil(() => client.received.length - start >= 51, 10_000, '51 error replies');
      const replies = client.received.slice(start);
      assert.ok(replies.every((p) => p.type === 'error' && p.error?.code === 'invalid_packet'));
      assert.equal((await client.request('ping', {})).type, 'pong');
      assert.deepEqual(client.invalid, []);
    } finally {
      await client.close();
    }
    await stillFine();
  });

  test('a client that never reads: the server stops buffering and drops it (bounded memory); others unaffected', async () => {
    const slow = await XAgentClient.connect(bridge.url, bridge.apiKey);
    await slow.hello();
    const channelId = String((await slow.openChannel('')).payload?.connector_channel_id);
    const raw = (slow.ws as unknown as { _socket: Socket })._socket;
    raw.pause(); // never read again: the kernel buffers fill, then the server's own buffer
    let closed = false;
    slow.ws.once('close', () => (closed = true));
    const heapBefore = process.memoryUsage().heapUsed;
    let sent = 0;
    const get = JSON.stringify({
      schema: 'xagent.connector.packet/v1',
      packet_id: 'pkt_slow',
      type: 'connection.descriptor.get',
      connector_channel_id: channelId,
    });
    // Each request draws a Descriptor (several KB). Keep asking until the server gives up on us.
    const deadline = Date.now() + 30_000;
    while (!closed && Date.now() < deadline) {
      for (let i = 0; i < 200 && slow.ws.readyState === WebSocket.OPEN; i++, sent++) slow.ws.send(get);
      await new Promise((r) => setTimeout(r, 5));
      if (bridge.core.runtime.dataPlaneCount() === 1) break; // the server already dropped it
    }
    await waitUntil(() => bridge.core.runtime.dataPlaneCount() === 1, 10_000, 'the non-reading client dropped');
    const growth = process.memoryUsage().heapUsed - heapBefore;
    raw.resume();
    slow.ws.terminate();
    // The per-connection buffer cap bounds the server's share; the kernel holds the rest.
    assert.ok(sent > 10, `sent ${sent}`);
    assert.ok(growth < 64 * 1024 * 1024, `heap grew ${growth} bytes`);
    await stillFine();
  });

  test('header floods: many headers and huge headers get 431 (or a close), the server stays fine', async () => {
    const many = Array.from({ length: 2000 }, (_v, i) => `X-Flood-${i}: ${'v'.repeat(20)}\r\n`).join('');
    const huge = `X-Huge: ${'h'.repeat(100_000)}\r\n`;
    const requests = [
      `GET /connector-card.json HTTP/1.1\r\nHost: x\r\n${many}\r\n`,
      `GET /connector-card.json HTTP/1.1\r\nHost: x\r\n${huge}\r\n`,
      `GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${many}\r\n`,
      `GET /${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    ];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_v, i) => rawExchange(port, requests[i % requests.length]!)),
    );
    for (const response of results) {
      const status = statusOf(response);
      assert.ok(status === 431 || status === 0, `got ${response.slice(0, 80)}`);
    }
    assert.ok(results.some((r) => statusOf(r) === 431));
    await stillFine();
  });

  test('500 malformed upgrade attempts (bad API keys, bad Sec-WebSocket-Key, wrong version, no subprotocol) are refused; nothing leaks', async () => {
    const before = bridge.core.runtime.dataPlaneCount();
    const variants = [
      (key: string) =>
        `Authorization: Bearer wrong-${key}\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
      (_key: string) =>
        `Authorization: Bearer ${bridge.apiKey}\r\nSec-WebSocket-Key: not-base64-at-all!!\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
      (_key: string) =>
        `Authorization: Bearer ${bridge.apiKey}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
      (_key: string) =>
        `Authorization: Bearer ${bridge.apiKey}\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 7\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
      (_key: string) =>
        `Authorization: Bearer ${bridge.apiKey}\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n`,
      (key: string) =>
        `Authorization: Basic ${key}\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n`,
    ];
    const statuses: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_v, i) => {
          const headers = variants[(batch * 50 + i) % variants.length]!(randomBytes(8).toString('hex'));
          return rawExchange(
            port,
            `GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${headers}\r\n`,
          );
        }),
      );
      statuses.push(...responses.map(statusOf));
    }
    assert.equal(statuses.length, 500);
    assert.ok(
      statuses.every((s) => s >= 400 && s < 500),
      JSON.stringify([...new Set(statuses)]),
    );
    assert.equal(bridge.core.runtime.dataPlaneCount(), before);
    await stillFine();
  });

  test('path-traversal download attempts (encoded ../, %2e%2e, backslashes, null bytes) never leave the cache', async () => {
    const file = await bridge.core.files.put({
      data: Buffer.from('cached-bytes'),
      mimeType: 'text/plain',
      filename: 'a.txt',
      channelId: 'cch_x',
      kind: 'screenshot',
    });
    const signer = new UrlSigner(
      Buffer.from(readFileSync(join(bridge.dataDir, 'url-signing-key'), 'utf8').trim(), 'base64url'),
    );
    const signed = signer.sign(file.fileRef, 60_000, file.expiresAt).path;
    const query = signed.slice(signed.indexOf('?'));
    const good = await rawGet(port, signed);
    assert.equal(good.status, 200, 'the control: a proper signed URL works');
    assert.equal(good.body, 'cached-bytes');

    const targets = ['api-key', 'admin-token', 'url-signing-key', 'state.json', 'tool-calls.jsonl', 'etc/passwd'];
    const prefixes = [
      '../',
      '..%2f',
      '%2e%2e/',
      '%2e%2e%2f',
      '%252e%252e%252f',
      '..\\',
      '..%5c',
      '%c0%ae%c0%ae/',
      '....//',
      '.%2e/',
      '%2e./',
    ];
    const attempts: string[] = [];
    for (const target of targets) {
      for (const prefix of prefixes) {
        attempts.push(`/files/refs/${prefix.repeat(4)}${target}${query}`);
        attempts.push(`/files/refs/${file.fileRef}/${prefix.repeat(3)}${target}${query}`);
      }
      attempts.push(`/files/refs/${file.fileRef}%00/../../${target}${query}`);
      attempts.push(`/files/refs/${target}%00${file.fileRef}${query}`);
      attempts.push(`/files/refs/..\\..\\..\\${target}`);
      attempts.push(`/files/refs//${join(bridge.dataDir, target)}`);
    }
    attempts.push(`/files/refs/${file.fileRef}%2f..%2f..%2fapi-key${query}`);
    attempts.push(`/files/refs/${file.fileRef.toUpperCase()}${query}`);
    attempts.push(`/files/refs/${file.fileRef}%00${query}`);
    attempts.push(`/files/refs/${file.fileRef}?${query.slice(1)}&exp=9999999999999`);
    attempts.push(`/files/../api-key`);
    attempts.push(`/console/../../api-key`);
    attempts.push(`/console/%2e%2e/%2e%2e/api-key`);
    const secrets = [
      bridge.apiKey,
      bridge.adminToken,
      readFileSync(join(bridge.dataDir, 'url-signing-key'), 'utf8').trim(),
    ];
    for (const path of attempts) {
      const res = await rawGet(port, path).catch((error: unknown) => ({ status: 0, body: String(error) }));
      assert.ok([400, 403, 404].includes(res.status), `${path} → ${res.status}`);
      for (const secret of secrets) assert.ok(!res.body.includes(secret), `${path} leaked a secret`);
      assert.ok(!res.body.includes('cached-bytes') || path.startsWith(signed), `${path} served the file`);
    }
    await stillFine();
  });
});

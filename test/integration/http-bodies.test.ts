/**
 * Headers and bodies (#24 finding 5), through a real bridge: HSTS on every answer under TLS,
 * nosniff on every answer, upload file names in UTF-8, and a slow body judged the right way —
 * an upload by its progress (it may take longer than the body deadline while bytes keep
 * coming), any other body by the deadline (then 408 and the connection closed).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startBridge, TEST_ADMIN_TOKEN, TEST_API_KEY } from '../helpers/bridge';
import { createTestCa } from '../helpers/test-ca';
import { urlRequest } from '../helpers/url-request';
import { XAgentClient } from '../helpers/xagent-client';

const BOUNDARY = '----bridge-bodies-4c1e';

function part(filename: string): { head: Buffer; tail: Buffer } {
  return {
    head: Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: image/png\r\n\r\n`,
      'utf8',
    ),
    tail: Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  };
}

/** Sends an upload in `chunks` pieces, one every `everyMs` (a slow link), and answers the bridge's reply. */
function slowUpload(
  url: string,
  channelId: string,
  filename: string,
  chunks: number,
  everyMs: number,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const { head, tail } = part(filename);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/files/uploads`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${TEST_API_KEY}`,
          'X-XAgent-Connector-Channel-ID': channelId,
          'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
          'Transfer-Encoding': 'chunked',
        },
      },
      (res) => {
        const got: Buffer[] = [];
        res.on('data', (c: Buffer) => got.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(got).toString('utf8')) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.write(head);
    let sent = 0;
    const timer = setInterval(() => {
      req.write(Buffer.alloc(1024, sent));
      sent += 1;
      if (sent === chunks) {
        clearInterval(timer);
        req.end(tail);
      }
    }, everyMs);
  });
}

describe('slow bodies and file names', () => {
  test('an upload that takes longer than the body deadline but keeps moving is stored, its UTF-8 name kept', async () => {
    const bridge = await startBridge({ connections: { requestTimeoutMs: 400, headersTimeoutMs: 300 } });
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await client.hello();
      const channelId = String((await client.openChannel()).payload?.connector_channel_id);
      const started = Date.now();
      const reply = await slowUpload(bridge.url, channelId, '照片.png', 8, 150);
      assert.ok(Date.now() - started > 1000, 'it took longer than the 400 ms deadline');
      assert.equal(reply.status, 200, JSON.stringify(reply.body));
      assert.equal(reply.body.filename, '照片.png');
      assert.equal(reply.body.byte_size, 8 * 1024);
    } finally {
      await client.close();
      await bridge.stop();
    }
  });

  test('an admin body that stops coming gets 408 at the deadline and its connection is closed', async () => {
    const bridge = await startBridge({ connections: { requestTimeoutMs: 400, headersTimeoutMs: 300 } });
    try {
      const { port } = new URL(bridge.url);
      const socket = connect(Number(port), '127.0.0.1');
      const answer: Buffer[] = [];
      socket.on('data', (c: Buffer) => answer.push(c));
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
      socket.write(
        `PUT /admin/api/screen-stream HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_ADMIN_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"default":`,
      );
      await closed;
      assert.match(Buffer.concat(answer).toString('utf8'), /^HTTP\/1\.1 408 /);
      const state = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
        headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      });
      assert.equal(state.json<{ default: string }>().default, 'ask', 'nothing half-read was acted on');
    } finally {
      await bridge.stop();
    }
  });
});

describe('response headers', () => {
  test('under TLS every answer carries HSTS; every answer carries nosniff', async () => {
    const ca = await createTestCa();
    const files = await ca.issue({ ipAddresses: ['127.0.0.1'] });
    const bridge = await startBridge({ network: { tls: { certFile: files.certFile, keyFile: files.keyFile } } });
    try {
      for (const path of ['/connector-card.json', '/health', '/admin/api/state', '/console/', '/nowhere']) {
        const res = await urlRequest(`${bridge.url}${path}`, {
          ca: ca.pem,
          headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        });
        assert.equal(res.headers['strict-transport-security'], 'max-age=31536000', path);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
      }
    } finally {
      await bridge.stop();
      ca.cleanup();
    }
    const plain = await startBridge();
    try {
      const res = await urlRequest(`${plain.url}/connector-card.json`);
      assert.equal(res.headers['strict-transport-security'], undefined, 'never over plain HTTP');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    } finally {
      await plain.stop();
    }
  });
});

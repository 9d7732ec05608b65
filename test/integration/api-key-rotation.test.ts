/**
 * A rotated API key stops working everywhere at once (issue 24, finding 3): data planes
 * opened with the old key are closed with 4401 and what they still send is not acted on,
 * an upload in flight under the old key is refused, and the old key is refused on every
 * plane while the new one works. Real sockets on port 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { CLOSE_API_KEY_ROTATED } from '../../main/core/server/data-plane';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { XAgentClient } from '../helpers/xagent-client';
import { upgradeStatus } from '../helpers/ws-upgrade';

async function healthStatus(bridge: TestBridge, apiKey: string): Promise<number> {
  const res = await fetch(`${bridge.url}/health`, { headers: { Authorization: `Bearer ${apiKey}` } });
  await res.arrayBuffer();
  return res.status;
}

function rotate(bridge: TestBridge): Promise<string> {
  return bridge.admin('POST', '/admin/api/api-key/rotate').then((r) => {
    assert.equal(r.status, 200);
    return String(r.body.api_key);
  });
}

describe('API key rotation', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge();
  });
  after(() => bridge.stop());

  test('rotation closes a data plane opened with the old key (4401 "api key rotated"); frames it still sends are not processed; the new key connects, the old one gets 401', async () => {
    const oldKey = bridge.core.apiKey();
    const client = await XAgentClient.connect(bridge.url, oldKey);
    try {
      await client.hello();
      await client.openChannel();
      const channelsBefore = bridge.core.runtime.channels().length;
      const closed = new Promise<{ code: number; reason: string }>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error('the data plane opened with the old key was still open 5 s after the rotation')),
          5_000,
        );
        client.ws.once('close', (code, reason) => {
          clearTimeout(timer);
          resolve({ code, reason: reason.toString() });
        });
      });
      // The client reads nothing until it has sent more: the bridge's close frame waits unread.
      client.ws.pause();
      const newKey = await rotate(bridge);
      assert.notEqual(newKey, oldKey);
      const seen = client.received.length;
      client.sendRaw(
        JSON.stringify({
          schema: 'xagent.connector.packet/v1',
          packet_id: 'pkt_after_1',
          request_id: 'req_after_ping',
          type: 'ping',
          payload: {},
        }),
      );
      client.sendRaw(
        JSON.stringify({
          schema: 'xagent.connector.packet/v1',
          packet_id: 'pkt_after_2',
          request_id: 'req_after_open',
          type: 'channel.open',
          connector_channel_id: '',
          payload: {},
        }),
      );
      client.ws.resume();
      const { code, reason } = await closed;
      assert.equal(code, CLOSE_API_KEY_ROTATED);
      assert.equal(code, 4401);
      assert.equal(reason, 'api key rotated');
      assert.deepEqual(
        client.received.slice(seen).map((p) => p.type),
        [],
        'nothing sent after the rotation was answered',
      );
      assert.equal(
        bridge.core.runtime.channels().length,
        channelsBefore,
        'the channel.open sent after the rotation created nothing',
      );

      assert.equal(
        await upgradeStatus(bridge.url, { Authorization: `Bearer ${oldKey}` }, 'xagent.connector.packet.v1'),
        401,
      );
      assert.equal(await healthStatus(bridge, oldKey), 401);
      assert.equal(await healthStatus(bridge, newKey), 200);
      const fresh = await XAgentClient.connect(bridge.url, newKey);
      try {
        const ack = await fresh.hello();
        assert.equal(ack.type, 'connector.hello.ack');
        assert.equal((await fresh.openChannel()).type, 'channel.open.ack');
        // A plane opened with the current key stays open through nothing but another rotation.
        assert.equal(fresh.ws.readyState, WebSocket.OPEN);
      } finally {
        await fresh.close();
      }
    } finally {
      client.ws.terminate();
    }
  });

  test('an upload in flight under the old key is refused 401 when the key is rotated, and nothing is kept', async () => {
    const client = await XAgentClient.connect(bridge.url, bridge.core.apiKey());
    let channel: string;
    try {
      await client.hello();
      channel = String((await client.openChannel()).payload?.connector_channel_id);
    } finally {
      client.ws.terminate();
    }
    const boundary = 'rotation-boundary';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
    const filesBefore = bridge.core.files.stats();
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: Number(new URL(bridge.url).port),
        path: '/files/uploads',
        method: 'POST',
        agent: false,
        headers: {
          Authorization: `Bearer ${bridge.core.apiKey()}`,
          'X-XAgent-Connector-Channel-ID': channel,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': String(head.length + 1024 * 1024),
          // The bridge answers 100 Continue in the same turn as it runs the upload handler: past the key check.
          Expect: '100-continue',
        },
        timeout: 10_000,
      });
      req.on('continue', () => {
        req.write(head);
        req.write(Buffer.alloc(64 * 1024, 1), () => {
          void rotate(bridge).catch(reject);
        });
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('timeout', () => req.destroy(new Error('the upload was not refused within 10 s of the rotation')));
      req.on('error', reject);
    });
    assert.equal(answer.status, 401);
    assert.equal((JSON.parse(answer.body) as { error: { code: string } }).error.code, 'unauthorized');
    assert.deepEqual(
      [bridge.core.files.stats().files, bridge.core.files.stats().bytes],
      [filesBefore.files, filesBefore.bytes],
      'the partial upload is not kept',
    );
  });

  test('admin state says where the key comes from: store by default', async () => {
    const state = await bridge.admin('GET', '/admin/api/state');
    assert.deepEqual(state.body.api_key, { source: 'store' });
  });
});

describe('API key from DEVICE_BRIDGE_API_KEY', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge({ apiKeySource: 'env' });
  });
  after(() => bridge.stop());

  test('admin state says env, so the console can say a rotation lasts until the next restart', async () => {
    const state = await bridge.admin('GET', '/admin/api/state');
    assert.deepEqual(state.body.api_key, { source: 'env' });
    await rotate(bridge);
    assert.deepEqual((await bridge.admin('GET', '/admin/api/state')).body.api_key, { source: 'env' });
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { validateDescriptor } from '../helpers/schemas';
import { XAgentClient } from '../helpers/xagent-client';
import { upgradeStatus } from '../helpers/ws-upgrade';

const HOUR = 3_600_000;

describe('data plane handshake', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge({ dataPlane: { maxFrameBytes: 64 * 1024 } });
  });
  after(() => bridge.stop());

  test('upgrade needs the bearer key and the subprotocol, checked before any WebSocket exists', async () => {
    assert.equal(await upgradeStatus(bridge.url, {}, 'xagent.connector.packet.v1'), 401);
    assert.equal(
      await upgradeStatus(bridge.url, { Authorization: 'Bearer not-the-key-at-all' }, 'xagent.connector.packet.v1'),
      401,
    );
    assert.equal(await upgradeStatus(bridge.url, { Authorization: `Bearer ${bridge.apiKey}` }), 400);
    assert.equal(
      await upgradeStatus(bridge.url, { Authorization: `Bearer ${bridge.apiKey}` }, 'xagent.connector.packet.v1'),
      101,
    );
  });

  test('hello first; card id, version and profiles are checked', async () => {
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      const early = await client.request('channel.open', {}, '');
      assert.equal(early.type, 'error');
      assert.equal(early.error?.code, 'hello_required');
      const wrongCard = await client.request('connector.hello', {
        connector_card_id: 'im.wechat',
        protocol_version: '3.0',
        supported_profiles: [],
      });
      assert.equal(wrongCard.error?.code, 'connector_card_id_mismatch');
      const old = await client.request('connector.hello', {
        connector_card_id: 'device.adb',
        protocol_version: '2.9',
        supported_profiles: ['xagent.device.v1'],
      });
      assert.equal(old.error?.code, 'protocol_version_unsupported');
      const missing = await client.request('connector.hello', {
        connector_card_id: 'device.adb',
        supported_profiles: ['xagent.device.v1'],
      });
      assert.equal(missing.error?.code, 'protocol_version_unsupported');
      const noProfiles = await client.request('connector.hello', {
        connector_card_id: 'device.adb',
        protocol_version: '3.0',
      });
      assert.equal(noProfiles.error?.code, 'invalid_packet');
      const ack = await client.hello();
      assert.equal(ack.type, 'connector.hello.ack');
      assert.equal(ack.payload?.connector_card_id, 'device.adb');
      assert.equal(ack.payload?.protocol_version, '3.0');
      assert.match(String(ack.payload?.connector_id), /^conn_/);
      assert.equal(ack.reply_to !== undefined, true);
      assert.deepEqual(client.invalid, []);
    } finally {
      await client.close();
    }
  });

  test('a newer xAgent (protocol 4.4, profiles the bridge does not know) is answered with the bridge’s own 3.0 and works', async () => {
    // xAgent 0.0.16 speaks connector protocol 4.4 and still admits 3.0 connectors; no 4.x wire
    // spec is public, so the bridge answers as the 3.0 connector it is and must not refuse it.
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      const ack = await client.request('connector.hello', {
        connector_card_id: 'device.adb',
        protocol_version: '4.4',
        supported_profiles: ['xagent.device.v1', 'xagent.future.v9'],
        client_features: { parallel_tool_calls: true },
      });
      assert.equal(ack.type, 'connector.hello.ack');
      assert.equal(ack.payload?.protocol_version, '3.0');
      const opened = await client.openChannel('');
      assert.equal(opened.type, 'channel.open.ack');
      assert.deepEqual(client.invalid, []);
    } finally {
      await client.close();
    }
  });

  test('channel.open issues and reuses ids; descriptor.get returns a created Descriptor matching the Card', async () => {
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await client.hello();
      const opened = await client.openChannel('');
      assert.equal(opened.type, 'channel.open.ack');
      const channelId = String(opened.payload?.connector_channel_id);
      assert.match(channelId, /^cch_/);
      assert.equal(opened.connector_channel_id, channelId);
      const descriptor = opened.payload?.connection_descriptor as Record<string, any>;
      assert.deepEqual(validateDescriptor(descriptor), []);
      assert.equal(descriptor.connection.status, 'created');
      assert.equal(descriptor.connection.connector_channel_id, channelId);
      assert.equal(descriptor.connection.connector_id, client.connectorId);
      assert.deepEqual(descriptor.connection.profiles, ['xagent.device.v1']);
      const card = (await (await fetch(`${bridge.url}/connector-card.json`)).json()) as {
        tools: Array<{ tool_id: string }>;
      };
      assert.deepEqual(
        (descriptor.tools as Array<{ tool_id: string; status: string }>).map((t) => t.tool_id),
        card.tools.map((t) => t.tool_id),
      );
      assert.ok((descriptor.tools as Array<{ status: string }>).every((t) => t.status === 'unavailable'));

      const again = await client.openChannel(channelId);
      assert.equal(again.payload?.connector_channel_id, channelId);
      const unknown = await client.openChannel('cch_does_not_exist');
      assert.notEqual(unknown.payload?.connector_channel_id, 'cch_does_not_exist');

      const got = await client.request('connection.descriptor.get', {}, channelId);
      assert.equal(got.type, 'connection.descriptor.get.ack');
      assert.deepEqual(validateDescriptor(got.payload?.connection_descriptor), []);

      const closed = await client.request('channel.close', {}, channelId);
      assert.equal(closed.type, 'channel.close.ack');
      assert.deepEqual(closed.payload, { status: 'ok' });
      const afterClose = await client.request('connection.descriptor.get', {}, channelId);
      assert.equal(afterClose.error?.code, 'channel_not_open');
      const reopened = await client.openChannel(channelId);
      assert.equal(reopened.payload?.connector_channel_id, channelId);
      assert.deepEqual(client.invalid, []);
    } finally {
      await client.close();
    }
  });

  test('bad input gets its documented error and the connection keeps working', async () => {
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    const other = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await client.hello();
      await other.hello();
      const start = client.received.length;
      client.sendRaw('{not json');
      const bad = await client.waitFor((p) => p.type === 'error', 5000, start);
      assert.equal(bad.error?.code, 'invalid_packet');
      client.sendRaw(JSON.stringify({ schema: 'wrong', packet_id: 'p1', request_id: 'r1', type: 'ping' }));
      const wrongSchema = await client.waitFor((p) => p.request_id === 'r1');
      assert.equal(wrongSchema.error?.code, 'invalid_packet');
      client.sendRaw(JSON.stringify([1, 2, 3]));
      client.sendRaw(Buffer.from([1, 2, 3]), true);
      const unknown = await client.request('no.such.packet', {});
      assert.equal(unknown.error?.code, 'unsupported_packet');
      const noChannel = await client.request('connection.descriptor.get', {});
      assert.equal(noChannel.error?.code, 'connector_channel_id_required');
      const notOpen = await client.request('connection.descriptor.get', {}, 'cch_nope');
      assert.equal(notOpen.error?.code, 'channel_not_open');
      const pong = await client.request('ping', {});
      assert.equal(pong.type, 'pong');

      // An oversized frame closes only that connection (1009); the other keeps working.
      const closed = new Promise<number>((resolve) => client.ws.once('close', (code) => resolve(code)));
      client.sendRaw(
        JSON.stringify({
          schema: 'xagent.connector.packet/v1',
          packet_id: 'big',
          type: 'ping',
          payload: { x: 'y'.repeat(100_000) },
        }),
      );
      assert.equal(await closed, 1009);
      const stillThere = await other.request('ping', {});
      assert.equal(stillThere.type, 'pong');
      assert.deepEqual(other.invalid, []);
    } finally {
      await client.close();
      await other.close();
    }
  });
});

describe('runtime lease and persistence', () => {
  test('connector_id and channels survive a restart; the runtime lease unregisters them when nobody returns', async () => {
    const first = await startBridge({ runtimeLeaseMs: 600_000 });
    const dataDir = first.dataDir;
    let connectorId: string;
    let channelId: string;
    try {
      const client = await XAgentClient.connect(first.url, first.apiKey);
      await client.hello();
      connectorId = client.connectorId;
      channelId = String((await client.openChannel()).payload?.connector_channel_id);
      await client.close();
    } finally {
      await first.core.stop();
    }
    const second = await startBridge({ runtimeLeaseMs: 600_000 }, dataDir);
    try {
      const client = await XAgentClient.connect(second.url, second.apiKey);
      const ack = await client.hello(connectorId);
      assert.equal(ack.payload?.connector_id, connectorId);
      const reopened = await client.openChannel(channelId);
      assert.equal(reopened.payload?.connector_channel_id, channelId);
      await client.close();
    } finally {
      await second.core.stop();
    }
    // Restarted with a short lease and nobody says hello: everything is unregistered.
    const third = await startBridge({ runtimeLeaseMs: 200 }, dataDir);
    try {
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (third.core.runtime.connectorId() === null) resolve();
          else third.core.runtime.once('changed', check);
        };
        check();
      });
      const client = await XAgentClient.connect(third.url, third.apiKey);
      const ack = await client.hello(connectorId);
      assert.notEqual(ack.payload?.connector_id, connectorId);
      const reopened = await client.openChannel(channelId);
      assert.notEqual(reopened.payload?.connector_channel_id, channelId);
      await client.close();
    } finally {
      await third.stop();
      const { rmSync } = await import('node:fs');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('runtime lease grace is a limit (Settings → Limits → xAgent reconnect grace)', () => {
  test('1 h by default; a lab sets up to 24 h, which applies at once to a runtime waiting for xAgent; outside 1–24 h is refused', async () => {
    const bridge = await startBridge();
    try {
      const settings = await bridge.admin('GET', '/admin/api/settings');
      assert.equal((settings.body.limits as Record<string, unknown>).runtime_grace_ms, HOUR, 'the spec’s hour');
      const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
      await client.hello();
      const closedAt = Date.now();
      await client.close();
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (bridge.core.runtime.leaseExpiresAt() !== undefined) resolve();
          else bridge.core.runtime.once('changed', check);
        };
        check();
      });
      const hourAway = bridge.core.runtime.leaseExpiresAt()! - closedAt;
      assert.ok(hourAway >= HOUR - 1_000 && hourAway <= HOUR + 5_000, `expires ${hourAway} ms after the close`);

      const patched = await bridge.admin('PATCH', '/admin/api/settings', { limits: { runtime_grace_ms: 24 * HOUR } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const dayAway = bridge.core.runtime.leaseExpiresAt()! - closedAt;
      assert.ok(dayAway >= 24 * HOUR - 1_000 && dayAway <= 24 * HOUR + 5_000, 'counted from the close, not the change');
      const state = await bridge.admin('GET', '/admin/api/state');
      assert.equal((state.body.limits as Record<string, unknown>).runtime_grace_ms, 24 * HOUR);

      for (const [value, words] of [
        [30 * 60_000, /runtime_grace_ms is below its minimum/],
        [25 * HOUR, /runtime_grace_ms is above its maximum/],
      ] as const) {
        const refused = await bridge.admin('PATCH', '/admin/api/settings', { limits: { runtime_grace_ms: value } });
        assert.equal(refused.status, 400);
        assert.match(JSON.stringify(refused.body), words);
      }
      assert.equal(bridge.core.runtime.leaseExpiresAt()! - dayAway, closedAt, 'a refused change changes nothing');
    } finally {
      await bridge.stop();
    }
  });
});

describe('connection floods', () => {
  test('bad-key upgrades are refused, the connection cap holds, and existing data planes keep working', async () => {
    const bridge = await startBridge({ dataPlane: { maxConnections: 3 } });
    const clients: XAgentClient[] = [];
    try {
      const good = await XAgentClient.connect(bridge.url, bridge.apiKey);
      clients.push(good);
      await good.hello();
      const refused = await Promise.all(
        Array.from({ length: 200 }, () =>
          upgradeStatus(bridge.url, { Authorization: 'Bearer wrong-key-wrong-key' }, 'xagent.connector.packet.v1'),
        ),
      );
      assert.ok(refused.every((s) => s === 401));
      clients.push(
        await XAgentClient.connect(bridge.url, bridge.apiKey),
        await XAgentClient.connect(bridge.url, bridge.apiKey),
      );
      assert.equal(
        await upgradeStatus(bridge.url, { Authorization: `Bearer ${bridge.apiKey}` }, 'xagent.connector.packet.v1'),
        503,
      );
      assert.equal((await good.request('ping', {})).type, 'pong');
    } finally {
      for (const c of clients) await c.close();
      await bridge.stop();
    }
  });
});

describe('data plane at the bridge’s stop', () => {
  test('xAgent’s socket is closed with 1001 “going away” (not cut, 1006), and the stop does not wait on it', async () => {
    const bridge = await startBridge();
    try {
      const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
      await client.hello();
      const closed = new Promise<{ code: number; reason: string }>((resolve) =>
        client.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      );
      const started = Date.now();
      await bridge.stop();
      assert.deepEqual(await closed, { code: 1001, reason: 'the bridge is stopping' });
      assert.ok(Date.now() - started < 5_000, 'the stop is prompt');
    } finally {
      await bridge.stop();
    }
  });
});

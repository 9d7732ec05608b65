/**
 * Channels (issue 24, finding 5): a live channel is never taken silently by another socket,
 * a data plane that stopped answering hands it over (and is dropped, said in the log), the
 * channels of one connector are bounded, and abandoned ones expire. Real sockets on port 0.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { waitUntil } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';

const PROBE_MS = 300;
const ABANDONED_TTL_MS = 400;

async function helloClient(bridge: TestBridge, connectorId = ''): Promise<XAgentClient> {
  const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
  const ack = await client.hello(connectorId);
  assert.equal(ack.type, 'connector.hello.ack');
  return client;
}

const channelOf = (ack: { payload?: Record<string, unknown> }): string => String(ack.payload?.connector_channel_id);

describe('channel ownership and expiry', () => {
  let bridge: TestBridge;
  const clients: XAgentClient[] = [];
  before(async () => {
    bridge = await startBridge({
      dataPlane: { claimProbeMs: PROBE_MS },
      channels: { abandonedTtlMs: ABANDONED_TTL_MS },
    });
  });
  after(async () => {
    for (const client of clients) client.ws.terminate();
    await bridge.stop();
  });

  test('a second socket claiming a live channel is refused channel_in_use; the holder keeps it', async () => {
    const holder = await helloClient(bridge);
    clients.push(holder);
    const channel = channelOf(await holder.openChannel());
    const intruder = await helloClient(bridge, holder.connectorId);
    clients.push(intruder);
    const refused = await intruder.openChannel(channel);
    assert.equal(refused.type, 'error');
    assert.equal(refused.error?.code, 'channel_in_use');
    const stillMine = await holder.request('connection.descriptor.get', {}, channel);
    assert.equal(stillMine.type, 'connection.descriptor.get.ack');
    const notOpen = await intruder.request('connection.descriptor.get', {}, channel);
    assert.equal(notOpen.error?.code, 'channel_not_open');
    assert.equal(holder.ws.readyState, WebSocket.OPEN, 'the holder was not disturbed');
    // Released on purpose by its holder, the channel may move.
    assert.equal((await holder.request('channel.close', {}, channel)).type, 'channel.close.ack');
    assert.equal((await intruder.openChannel(channel)).type, 'channel.open.ack');
  });

  test('a holder that stopped answering (a dropped network) hands the channel over and is dropped, not left beside it', async () => {
    const stale = await helloClient(bridge);
    clients.push(stale);
    const channel = channelOf(await stale.openChannel());
    const planes = bridge.core.runtime.dataPlaneCount();
    const staleClosed = new Promise<void>((resolve) => stale.ws.once('close', () => resolve()));
    // Reads nothing from now on: the bridge's ping goes unanswered, as over a dead network.
    stale.ws.pause();
    const reconnected = await helloClient(bridge, stale.connectorId);
    clients.push(reconnected);
    const started = Date.now();
    const ack = await reconnected.openChannel(channel);
    assert.equal(ack.type, 'channel.open.ack');
    assert.equal(channelOf(ack), channel);
    assert.ok(Date.now() - started >= PROBE_MS - 20, 'handed over only after the holder missed its ping');
    await waitUntil(
      () => bridge.core.runtime.dataPlaneCount() === planes,
      5_000,
      'the silent holder dropped by the bridge',
    );
    stale.ws.resume();
    await staleClosed;
  });

  test('a channel nobody holds and that never completed authentication expires; a held one stays', async () => {
    const client = await helloClient(bridge);
    clients.push(client);
    const abandoned = channelOf(await client.openChannel());
    const held = channelOf(await client.openChannel());
    assert.equal((await client.request('channel.close', {}, abandoned)).type, 'channel.close.ack');
    await waitUntil(() => bridge.core.runtime.channel(abandoned) === undefined, 5_000, 'the abandoned channel expired');
    assert.ok(bridge.core.runtime.channel(held), 'the channel still open on a data plane is kept');
    // Asked for again, the expired id is not recognised: a new channel is assigned (spec §8.3).
    const again = await client.openChannel(abandoned);
    assert.equal(again.type, 'channel.open.ack');
    assert.notEqual(channelOf(again), abandoned);
  });
});

describe('channels per connector', () => {
  let bridge: TestBridge;
  let client: XAgentClient | undefined;
  before(async () => {
    bridge = await startBridge({ channels: { maxPerConnector: 3 } });
  });
  after(async () => {
    client?.ws.terminate();
    await bridge.stop();
  });

  test('past the cap a new channel is refused channel_limit_reached; known channels still reopen', async () => {
    client = await helloClient(bridge);
    const opened: string[] = [];
    for (let i = 0; i < 3; i++) opened.push(channelOf(await client.openChannel()));
    const refused = await client.openChannel();
    assert.equal(refused.type, 'error');
    assert.equal(refused.error?.code, 'channel_limit_reached');
    assert.equal(bridge.core.runtime.channels().length, 3);
    assert.equal((await client.openChannel(opened[0])).type, 'channel.open.ack');
  });
});

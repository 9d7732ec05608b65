/**
 * Hardening — faults on the xAgent side of the bridge: the data plane dropped and
 * re-established in the middle of a side-effecting call, and two data planes at once for
 * the same connector_id (a live channel stays with the plane that holds it). No duplicate
 * execution; every ack goes to the connection that asked.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient, type Packet } from '../helpers/xagent-client';
import { invokeWith, openHarmlessApp } from './helpers';

let seq = 0;
const callId = (tag: string): string => `call_dp_${tag}_${process.pid}_${++seq}`;
const tapsAt = (rig: DeviceRig, i: number, x: number): number =>
  rig.phones[i]!.argvLog.filter((a) => a[0] === 'input' && a[1] === 'tap' && a[2] === String(x)).length;
const acksIn = (packets: Packet[]): Packet[] => packets.filter((p) => p.type === 'tool.invoke.ack');

describe('hardening: data plane faults', () => {
  let rig: DeviceRig;
  let first: XAgentClient;
  let channel: string;

  before(async () => {
    rig = await startDeviceRig(1, { lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 600_000 } });
    first = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await first.hello();
    channel = await bindChannel(rig, first, rig.device(0).deviceId);
    await openHarmlessApp(first, channel);
  });
  after(async () => {
    await first?.close();
    await rig?.stop();
  });

  test('xAgent connection dropped mid-call and re-established: the retry joins the running call, the phone is touched once', async () => {
    const phone = rig.phones[0]!;
    phone.setLatency(600); // every command line takes 0.6 s: the tap is still running when the socket drops
    const id = callId('drop');
    let reconnected: XAgentClient | undefined;
    try {
      // The phone's exec event fires when the command line arrives, 0.6 s before it runs.
      const started = new Promise<void>((resolve) => {
        const onExec = (line: string): void => {
          if (!line.includes("'input' 'tap' '242'")) return;
          phone.events.off('exec', onExec);
          resolve();
        };
        phone.events.on('exec', onExec);
      });
      // Its ack can never arrive on the dropped socket; a short wait keeps the file from idling.
      void invokeWith(first, channel, 'android_tap', { x: 242, y: 242 }, id, 3_000).catch(() => undefined);
      await started;
      assert.equal(tapsAt(rig, 0, 242), 0, 'the tap has not run yet');
      first.ws.terminate(); // the network drops; no close handshake
      await waitUntil(() => rig.bridge.core.runtime.dataPlaneCount() === 0, 5_000, 'bridge noticed the drop');

      reconnected = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      const hello = await reconnected.hello(first.connectorId);
      assert.equal(hello.payload?.connector_id, first.connectorId);
      const reopened = await reconnected.openChannel(channel);
      assert.equal(reopened.payload?.connector_channel_id, channel);
      const joined = await invokeWith(reconnected, channel, 'android_tap', { x: 242, y: 242 }, id);
      assert.equal(joined.error, undefined, JSON.stringify(joined.error));
      assert.equal(tapsAt(rig, 0, 242), 1, 'the tap ran exactly once');
      const again = await invokeWith(reconnected, channel, 'android_tap', { x: 242, y: 242 }, id);
      assert.deepEqual(again.payload, joined.payload);
      assert.equal(tapsAt(rig, 0, 242), 1);
      assert.deepEqual(reconnected.invalid, []);
    } finally {
      phone.setLatency(0);
      // Keep `first` usable for the next test: reconnect it under the same connector_id.
      first = reconnected ?? (await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey));
      if (!reconnected) await first.hello();
    }
  });

  test('two data planes at once for the same connector_id: the live channel stays with its plane (channel_in_use), acks go to the connection that asked, a call id runs once across planes', async () => {
    const second = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    try {
      const hello = await second.hello(first.connectorId);
      assert.equal(hello.payload?.connector_id, first.connectorId);
      await first.openChannel(channel);
      // `first` answers pings: the channel is not taken from it, and the refusal says why.
      const refused = await second.openChannel(channel);
      assert.equal(refused.type, 'error');
      assert.equal(refused.error?.code, 'channel_in_use');
      assert.equal(rig.bridge.core.runtime.dataPlaneCount(), 2);
      const startA = first.received.length;
      const startB = second.received.length;

      const fromA = Array.from({ length: 8 }, (_v, i) =>
        invokeWith(first, channel, 'android_tap', { x: 300 + i, y: 50 }, callId('a')),
      );
      const notOpen = await invokeWith(second, channel, 'android_tap', { x: 400, y: 50 }, callId('b'));
      assert.equal(notOpen.error?.code, 'channel_not_open', 'the refused plane cannot drive the channel');
      const shared = callId('shared');
      const [acksA, a] = await Promise.all([
        Promise.all(fromA),
        invokeWith(first, channel, 'android_tap', { x: 500, y: 50 }, shared),
      ]);
      for (const ack of [...acksA, a]) assert.equal(ack.error, undefined, JSON.stringify(ack.error));
      for (let i = 0; i < 8; i++) {
        assert.equal(tapsAt(rig, 0, 300 + i), 1);
        assert.equal((acksA[i]!.payload?.result as { x: number }).x, 300 + i);
      }
      assert.equal(tapsAt(rig, 0, 400), 0, 'nothing ran for the refused plane');

      // Released on purpose by its holder, the channel moves; the same call id does not run again.
      const closed = await first.request('channel.close', {}, channel);
      assert.equal(closed.type, 'channel.close.ack');
      assert.equal((await second.openChannel(channel)).type, 'channel.open.ack');
      const b = await invokeWith(second, channel, 'android_tap', { x: 500, y: 50 }, shared);
      assert.equal(b.error, undefined, JSON.stringify(b.error));
      assert.deepEqual(a.payload, b.payload);
      assert.equal(tapsAt(rig, 0, 500), 1, 'the shared call ran once');
      // Each connection received exactly its own acks: none leaked to the other plane.
      assert.equal(acksIn(first.received.slice(startA)).length, 9);
      assert.equal(
        acksIn(second.received.slice(startB)).length,
        1,
        'its one call on the channel (the refused one got an error packet)',
      );

      // One plane closes; the other keeps the runtime, takes the channel back and works.
      await second.close();
      await waitUntil(() => rig.bridge.core.runtime.dataPlaneCount() === 1, 5_000, 'one plane left');
      assert.equal((await first.openChannel(channel)).type, 'channel.open.ack');
      const still = await invokeWith(first, channel, 'android_tap', { x: 600, y: 50 }, callId('after'));
      assert.equal(still.error, undefined);
      assert.deepEqual(first.invalid, []);
      assert.deepEqual(second.invalid, []);
    } finally {
      await second.close();
    }
  });
});

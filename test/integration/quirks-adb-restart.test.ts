/**
 * `adb-server-restart` (main/sim/QUIRKS.md): another program's adb of a different version kills
 * the ADB server and starts its own ("adb server version (41) doesn't match this client (39);
 * killing..."). Here the private adb server is stopped mid-lease, with a tap in flight, and a
 * new one starts on the same port; the phone attaches to it again as a USB phone would.
 * The bridge finds the server again by itself: the binding goes `offline`, then `connected`
 * once the phone is verified again; the in-flight tap gets a stable error and is never run
 * again; the next tap runs once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import type { SimulatedPhone } from '../../main/sim/phone';

type Json = Record<string, any>;

describe('adb-server-restart: the ADB server is killed and started again mid-lease', () => {
  let bound: BoundRig | undefined;
  let phone: SimulatedPhone;
  let restarted: AdbServerRig | undefined;

  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(async () => {
    await bound?.stop();
    await restarted?.stop();
  });

  test('offline, then connected after re-verification; the in-flight tap fails with a stable code and is not replayed; the next tap runs once', async (t) => {
    const { rig, client, channel } = bound!;
    const taps: string[] = [];
    // Command lines arrive with every word quoted ('input' 'tap' …); compare them unquoted.
    phone.events.on('exec', (line: string) => {
      const plain = line.replace(/'/g, '');
      if (plain.startsWith('input tap')) taps.push(plain);
    });
    const pushed = (status: string, from: number): Promise<unknown> =>
      client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channel &&
          (p.payload?.connection_descriptor as Json | undefined)?.connection?.status === status,
        20_000,
        from,
      );

    // A tap whose `input` never finishes on the phone: it is in flight when the server dies.
    phone.hangNextCommand('tap');
    const from = client.received.length;
    const inflight = invoke(client, channel, 'android_tap', { x: 100, y: 200 }, `call_restart_inflight_${process.pid}`);
    await waitUntil(() => taps.length === 1, 10_000, 'the tap reached the phone');

    const port = rig.adb.port;
    const killedAt = Date.now();
    await rig.adb.stop();
    await pushed('offline', from);
    const failed = await inflight;
    assert.ok(failed.error, JSON.stringify(failed.payload));
    assert.ok(
      ['adb_unavailable', 'device_offline', 'command_failed'].includes(String(failed.error.code)),
      JSON.stringify(failed.error),
    );
    assert.ok(!/\n\s+at /.test(String(failed.error.message)), 'no stack trace');
    const whileDown = await invoke(client, channel, 'android_device_status');
    assert.ok(
      ['device_offline', 'adb_unavailable'].includes(String(whileDown.error?.code)),
      JSON.stringify(whileDown.error),
    );

    // The other program's server: same port, a fresh start; the phone comes back on it.
    const back = client.received.length;
    restarted = await startAdbServer({ port });
    const restartedAt = Date.now();
    await attachToAdb({ host: '127.0.0.1', port }, rig.farm.phones[0]!.port);
    await pushed('connected', back);
    const tookMs = Date.now() - restartedAt;
    t.diagnostic(
      `binding offline → connected ${tookMs} ms after the new ADB server started (${restartedAt - killedAt} ms down)`,
    );
    const record = rig.device(0);
    assert.equal(record.state, 'device');
    assert.ok(record.verifiedAt !== null && record.verifiedAt >= restartedAt, 'verified again on the new server');

    const next = await invoke(client, channel, 'android_tap', { x: 300, y: 400 });
    assert.equal(next.error, undefined, JSON.stringify(next.error));
    // The in-flight tap reached the phone once and was never sent again; the new one once.
    assert.deepEqual(taps, ['input tap 100 200', 'input tap 300 400']);
    // The same tool_call_id again is answered from the journal, not run.
    const again = await invoke(
      client,
      channel,
      'android_tap',
      { x: 100, y: 200 },
      `call_restart_inflight_${process.pid}`,
    );
    assert.deepEqual(again.error?.code, failed.error.code);
    assert.equal(taps.length, 2);
  });
});

/**
 * Hardening — faults around the phones, over the real adb server and simulated phones:
 * the adb server killed mid-action and brought back, a phone unplugged mid-command, a phone
 * that hangs, a phone flapping online/offline. Each asserts no wrong-phone execution, no
 * leaked queue slot and truthful Descriptors at the end.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attachToAdb } from '../../main/sim/sim-farm';
import { bindChannel, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { validateDescriptor } from '../helpers/schemas';
import { XAgentClient, type Packet } from '../helpers/xagent-client';
import { invokeWith, killPid, openHarmlessApp, startAdbServerOnPort } from './helpers';

let seq = 0;
const callId = (tag: string): string => `call_hard_${tag}_${process.pid}_${++seq}`;

/** Resolves when the phone starts a command line containing `match`. */
function execStarted(rig: DeviceRig, i: number, match: string, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const events = rig.phones[i]!.events;
    const timer = setTimeout(() => {
      events.off('exec', onExec);
      reject(new Error(`phone ${i} never started ${match}`));
    }, timeoutMs);
    const onExec = (line: string): void => {
      if (!line.includes(match)) return;
      clearTimeout(timer);
      events.off('exec', onExec);
      resolve();
    };
    events.on('exec', onExec);
  });
}

const TAP_LINE = "'input' 'tap'";
const taps = (rig: DeviceRig, i: number): string[][] =>
  rig.phones[i]!.argvLog.filter((a) => a[0] === 'input' && a[1] === 'tap');

async function descriptorStatus(client: XAgentClient, channelId: string): Promise<string> {
  const got = await client.request('connection.descriptor.get', {}, channelId);
  const descriptor = got.payload?.connection_descriptor as { connection: { status: string } };
  assert.deepEqual(validateDescriptor(descriptor), []);
  return descriptor.connection.status;
}

describe('hardening: adb server killed mid-action', () => {
  test('adb server killed mid-action: stable error within the deadline, not replayed, devices offline, recovery when it returns', async (t) => {
    const timeoutMs = 8_000;
    const rig = await startDeviceRig(2, {
      adbCommandTimeoutMs: timeoutMs,
      lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 600_000 },
    });
    let revived: Awaited<ReturnType<typeof startAdbServerOnPort>> | undefined = undefined;
    const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    t.after(async () => {
      await client.close();
      await rig.bridge.stop();
      await rig.farm.stop();
      await revived?.stop();
      await rig.adb.stop();
    });
    await client.hello();
    const channel = await bindChannel(rig, client, rig.device(0).deviceId);
    await openHarmlessApp(client, channel);
    const deviceIds = [rig.device(0).deviceId, rig.device(1).deviceId];
    rig.phones[0]!.clearArgvLog();

    rig.phones[0]!.hangNextCommand(TAP_LINE);
    const started = execStarted(rig, 0, TAP_LINE);
    const hungId = callId('adbkill');
    const t0 = Date.now();
    const pending = invokeWith(client, channel, 'android_tap', { x: 111, y: 222 }, hungId);
    await started;
    await killPid(rig.adb.pid);

    const ack = await pending;
    const elapsed = Date.now() - t0;
    assert.equal(ack.type, 'tool.invoke.ack');
    assert.equal(ack.error?.code, 'adb_unavailable', JSON.stringify(ack));
    assert.ok(elapsed < timeoutMs + 1_000, `ack after ${elapsed} ms`);
    await waitUntil(
      () => deviceIds.every((id) => rig.bridge.core.registry.get(id)?.state !== 'device'),
      10_000,
      'phones offline',
    );
    assert.equal(rig.bridge.core.adbLinks[0]!.getHealth().status === 'connected', false);
    // While the server is down a new call fails at once with a stable code, not a hang.
    const whileDown = await invokeWith(client, channel, 'android_tap', { x: 5, y: 5 }, callId('down'));
    assert.equal(whileDown.error?.code, 'device_offline');
    assert.equal(await descriptorStatus(client, channel), 'offline');

    revived = await startAdbServerOnPort(rig.adb.port);
    const address = { host: '127.0.0.1', port: rig.adb.port };
    await Promise.all(rig.farm.phones.map((p) => attachToAdb(address, p.port, { timeoutMs: 15_000 })));
    await waitUntil(
      () =>
        deviceIds.every(
          (id) =>
            rig.bridge.core.registry.get(id)?.state === 'device' &&
            rig.bridge.core.registry.get(id)?.verifiedAt != null,
        ),
      20_000,
      'phones back as device and re-verified',
    );
    await waitUntil(() => rig.bridge.core.adbLinks[0]!.getHealth().status === 'connected', 10_000, 'link connected');
    assert.equal(await descriptorStatus(client, channel), 'connected');

    // The hung tap was never replayed by the bridge on its own, and its id keeps its answer.
    assert.deepEqual(taps(rig, 0), []);
    const retried = await invokeWith(client, channel, 'android_tap', { x: 111, y: 222 }, hungId);
    assert.equal(retried.error?.code, 'adb_unavailable');
    assert.deepEqual(taps(rig, 0), []);
    const fresh = await invokeWith(client, channel, 'android_tap', { x: 333, y: 444 }, callId('after'));
    assert.equal(fresh.error, undefined, JSON.stringify(fresh.error));
    assert.deepEqual(taps(rig, 0), [['input', 'tap', '333', '444']]);
    // Nothing is left stuck on the phone's queue. The phone check that runs when a phone comes
    // back is observation work on the same queue and may still be reading on a loaded machine.
    const idle = (): boolean => {
      const stats = rig.bridge.core.tools.queue.stats(deviceIds[0]!);
      return stats.running === 0 && stats.queued === 0;
    };
    await waitUntil(
      idle,
      20_000,
      `the queue empty: ${JSON.stringify(rig.bridge.core.tools.queue.stats(deviceIds[0]!))}`,
    );
  });
});

describe('hardening: phone faults', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channelA: string;
  let channelB: string;
  const timeoutMs = 3_000;

  before(async () => {
    rig = await startDeviceRig(2, {
      adbCommandTimeoutMs: timeoutMs,
      lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 600_000 },
    });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channelA = await bindChannel(rig, client, rig.device(0).deviceId);
    channelB = await bindChannel(rig, client, rig.device(1).deviceId);
    await openHarmlessApp(client, channelA);
    await openHarmlessApp(client, channelB);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  const queueIdle = (i: number): boolean => {
    const s = rig.bridge.core.tools.queue.stats(rig.device(i).deviceId);
    return s.running === 0 && s.queued === 0;
  };

  test('a phone unplugged mid-command: device_offline at once, the other phone unaffected, no leaked slot, back to connected', async () => {
    rig.phones[0]!.clearArgvLog();
    rig.phones[1]!.clearArgvLog();
    rig.phones[0]!.hangNextCommand(TAP_LINE);
    const started = execStarted(rig, 0, TAP_LINE);
    const pending = invokeWith(client, channelA, 'android_tap', { x: 101, y: 202 }, callId('unplug'));
    const queuedBehind = invokeWith(client, channelA, 'android_tap', { x: 102, y: 202 }, callId('unplug2'));
    await started;
    const t0 = Date.now();
    await rig.farm.phones[0]!.server.goOffline();
    const [ack, behind] = await Promise.all([pending, queuedBehind]);
    assert.ok(Date.now() - t0 < timeoutMs + 1_000);
    assert.ok(
      ['device_offline', 'adb_unavailable', 'command_failed'].includes(ack.error?.code ?? ''),
      JSON.stringify(ack),
    );
    assert.equal(ack.error?.code, 'device_offline', JSON.stringify(ack));
    assert.equal(behind.error?.code, 'device_offline', JSON.stringify(behind));
    const other = await invokeWith(client, channelB, 'android_tap', { x: 901, y: 902 }, callId('other'));
    assert.equal(other.error, undefined);
    await waitUntil(() => queueIdle(0), 5_000, 'queue slot released');
    await waitUntil(() => rig.device(0).state !== 'device', 5_000, 'phone 0 offline');
    assert.equal(await descriptorStatus(client, channelA), 'offline');

    await rig.farm.bringOnline(0);
    await waitUntil(
      () => rig.device(0).state === 'device' && rig.device(0).verifiedAt !== null,
      15_000,
      'phone 0 back and re-verified',
    );
    assert.equal(await descriptorStatus(client, channelA), 'connected');
    const again = await invokeWith(client, channelA, 'android_tap', { x: 103, y: 203 }, callId('back'));
    assert.equal(again.error, undefined, JSON.stringify(again.error));
    assert.deepEqual(taps(rig, 0), [['input', 'tap', '103', '203']]);
    assert.deepEqual(taps(rig, 1), [['input', 'tap', '901', '902']]);
  });

  test('a phone that hangs: command_timeout at the deadline, the other phone unaffected, the queue slot released', async () => {
    rig.phones[0]!.clearArgvLog();
    rig.phones[1]!.clearArgvLog();
    rig.phones[0]!.setHang(TAP_LINE, true);
    try {
      const t0 = Date.now();
      const hung = invokeWith(client, channelA, 'android_tap', { x: 11, y: 22 }, callId('hang'));
      // The other phone runs at full speed while phone 0 is stuck.
      const others: Packet[] = [];
      for (let i = 0; i < 5; i++) {
        const s0 = Date.now();
        others.push(await invokeWith(client, channelB, 'android_tap', { x: 700 + i, y: 800 }, callId('fast')));
        assert.ok(Date.now() - s0 < timeoutMs, 'a phone 1 call never waits for phone 0’s deadline');
      }
      for (const ack of others) assert.equal(ack.error, undefined);
      const ack = await hung;
      const elapsed = Date.now() - t0;
      assert.equal(ack.error?.code, 'command_timeout', JSON.stringify(ack));
      // Ends at its deadline (the whole operation's budget), not before and not much after.
      assert.ok(elapsed >= timeoutMs - 100 && elapsed < timeoutMs + 3_000, `timed out after ${elapsed} ms`);
      await waitUntil(() => queueIdle(0), 3_000, 'queue slot released');
    } finally {
      rig.phones[0]!.setHang(TAP_LINE, false);
    }
    const next = await invokeWith(client, channelA, 'android_tap', { x: 12, y: 23 }, callId('after-hang'));
    assert.equal(next.error, undefined, JSON.stringify(next.error));
    assert.deepEqual(taps(rig, 0), [['input', 'tap', '12', '23']]);
    assert.equal(taps(rig, 1).length, 5);
    assert.ok(taps(rig, 1).every((a) => a[3] === '800'));
  });

  test('a phone flapping online/offline 20 times: no wrong-phone execution, no leaked slot, Descriptors correct at the end', async () => {
    rig.phones[0]!.clearArgvLog();
    rig.phones[1]!.clearArgvLog();
    const allowed = new Set(['device_offline', 'adb_unavailable', 'command_failed', 'command_timeout']);
    let flapping = true;
    const results: Array<{ phone: number; code: string | undefined }> = [];
    // Callers keep both phones busy; phone 0 taps use y=1000, phone 1 taps y=2000.
    const caller = async (phone: 0 | 1): Promise<void> => {
      let n = 0;
      while (flapping) {
        const ack = await invokeWith(
          client,
          phone === 0 ? channelA : channelB,
          'android_tap',
          { x: 1 + (n++ % 500), y: phone === 0 ? 1000 : 2000 },
          callId(`flap${phone}`),
        );
        results.push({ phone, code: ack.error?.code });
        if (ack.error) await new Promise((r) => setTimeout(r, 10));
      }
    };
    const callers = [caller(0), caller(0), caller(1)];
    try {
      for (let i = 0; i < 20; i++) {
        await rig.farm.phones[0]!.server.goOffline();
        await waitUntil(() => rig.device(0).state !== 'device', 5_000, `offline #${i}`);
        await rig.farm.bringOnline(0);
        await waitUntil(
          () => rig.device(0).state === 'device' && rig.device(0).verifiedAt !== null,
          15_000,
          `online #${i}`,
        );
        // Each time it is back, phone 0 must actually work again before the next flap.
        const before = results.length;
        await waitUntil(
          () => results.slice(before).some((r) => r.phone === 0 && r.code === undefined),
          10_000,
          `a call on phone 0 after flap #${i}`,
        );
      }
    } finally {
      flapping = false;
      await Promise.all(callers);
    }
    for (const r of results)
      if (r.code !== undefined) assert.ok(r.phone === 0 && allowed.has(r.code), JSON.stringify(r));
    assert.ok(
      results.some((r) => r.phone === 0 && r.code === undefined),
      'phone 0 worked between flaps',
    );
    // No wrong-phone execution: each phone only ever saw its own channel's taps.
    assert.ok(
      taps(rig, 0).every((a) => a[3] === '1000'),
      JSON.stringify(taps(rig, 0).slice(0, 5)),
    );
    assert.ok(taps(rig, 1).every((a) => a[3] === '2000'));
    assert.equal(taps(rig, 1).length, results.filter((r) => r.phone === 1).length);
    assert.ok(taps(rig, 0).length <= results.filter((r) => r.phone === 0).length);
    await waitUntil(() => queueIdle(0) && queueIdle(1), 5_000, 'queues idle');
    assert.equal(await descriptorStatus(client, channelA), 'connected');
    assert.equal(await descriptorStatus(client, channelB), 'connected');
    const lastPushA = [...client.received]
      .reverse()
      .find((p) => p.type === 'connection.descriptor.push' && p.connector_channel_id === channelA);
    assert.equal(
      (lastPushA?.payload?.connection_descriptor as { connection: { status: string } } | undefined)?.connection.status,
      'connected',
    );
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    assert.equal(state.status, 200);
    assert.deepEqual(client.invalid, []);
    const final = await invokeWith(client, channelA, 'android_tap', { x: 7, y: 1000 }, callId('final'));
    assert.equal(final.error, undefined);
  });
});

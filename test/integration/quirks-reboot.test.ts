/**
 * `reboot` (main/sim/QUIRKS.md): the phone restarts during a lease, with a tap in flight. Its
 * connection drops, adb lists it again with the same serial while Android still boots
 * (`sys.boot_completed` absent), and boot completes later. The bridge: the binding goes
 * `offline`; the in-flight tap gets a stable error and is never run again; a phone listed as
 * `device` but still booting is not used (no input reaches it, calls are refused as offline);
 * once booted it is verified again and the binding is `connected`; the next tap runs once.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import type { SimulatedPhone } from '../../main/sim/phone';

type Json = Record<string, any>;

describe('reboot: the phone restarts mid-lease', () => {
  let bound: BoundRig | undefined;
  let phone: SimulatedPhone;

  before(async () => {
    bound = await startBoundRig();
    phone = bound.rig.phones[0]!;
  });
  after(() => bound?.stop());

  test('offline, listed again while booting but not used, connected once booted; the in-flight tap fails with a stable code, is not replayed; the next tap runs once', async (t) => {
    const { rig, client, channel } = bound!;
    const lines: string[] = [];
    phone.events.on('exec', (line: string) => lines.push(line.replace(/'/g, '')));
    const taps = (): string[] => lines.filter((l) => l.startsWith('input '));
    const pushed = (status: string, from: number): Promise<unknown> =>
      client.waitFor(
        (p) =>
          p.type === 'connection.descriptor.push' &&
          p.connector_channel_id === channel &&
          (p.payload?.connection_descriptor as Json | undefined)?.connection?.status === status,
        20_000,
        from,
      );
    const getprop = async (name: string): Promise<string> =>
      (await phone.exec(`getprop ${name}`, { signal: new AbortController().signal })).stdout.toString().trim();

    phone.hangNextCommand('tap');
    const from = client.received.length;
    const inflight = invoke(client, channel, 'android_tap', { x: 120, y: 240 }, `call_reboot_inflight_${process.pid}`);
    await waitUntil(() => taps().length === 1, 10_000, 'the tap reached the phone');

    // Boot long enough for the checks below to run while it boots, even on a loaded machine.
    const timing = { downMs: 300, bootMs: 5_000 };
    const rebootedAt = Date.now();
    const listedAgain = rig.farm.reboot(0, timing);
    await pushed('offline', from);
    const failed = await inflight;
    assert.ok(
      ['device_offline', 'adb_unavailable', 'command_failed'].includes(String(failed.error?.code)),
      JSON.stringify(failed.error),
    );
    assert.ok(!/\n\s+at /.test(String(failed.error?.message)), 'no stack trace');
    await listedAgain;

    // adb lists the phone as `device` (same serial) while it boots: the bridge waits.
    const serial = rig.farm.phones[0]!.serial;
    await waitUntil(
      () => rig.bridge.core.registry.list().some((d) => d.serial === serial && d.state === 'device'),
      10_000,
      'listed as device again',
    );
    assert.equal(await getprop('sys.boot_completed'), '');
    assert.equal(await getprop('init.svc.bootanim'), 'running');
    assert.equal(rig.device(0).verifiedAt, null, 'not verified while booting');
    const described = await client.request('connection.descriptor.get', {}, channel);
    assert.equal((described.payload?.connection_descriptor as Json).connection.status, 'offline');
    const early = await invoke(client, channel, 'android_tap', { x: 10, y: 10 });
    assert.equal(early.error?.code, 'device_offline', JSON.stringify(early.error));
    assert.equal(taps().length, 1, 'nothing injected into a booting phone');

    await pushed('connected', from);
    const connectedMs = Date.now() - rebootedAt;
    assert.equal(await getprop('sys.boot_completed'), '1');
    assert.ok(
      connectedMs >= timing.downMs + timing.bootMs - 50,
      `connected after ${connectedMs} ms, before boot completed`,
    );
    t.diagnostic(
      `reboot → connected in ${connectedMs} ms (adbd back after ${timing.downMs} ms, booted ${timing.bootMs} ms later)`,
    );

    assert.equal(
      phone.foregroundPackage(),
      'com.google.android.apps.nexuslauncher',
      'a rebooted phone starts on the home screen',
    );
    const next = await invoke(client, channel, 'android_tap', { x: 300, y: 600 });
    assert.equal(next.error, undefined, JSON.stringify(next.error));
    assert.deepEqual(taps(), ['input tap 120 240', 'input tap 300 600']);
  });
});

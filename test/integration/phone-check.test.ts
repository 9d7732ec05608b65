/**
 * The phone check (docs/REFERENCE.md "Phone check"): it runs by itself once a phone is ready and on
 * demand through `GET /admin/api/devices/:id/check`, only reads (the phone's argv log holds
 * no `input`), and lands in the admin state as `devices[].check`. A phone adb cannot open
 * over USB (Linux without udev rules) is checked from adb's own words: a fake ADB server
 * lists it with the exact text of Debian's adb 1.0.41.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { startBridge, type TestBridge } from '../helpers/bridge';
import type { AdminPhoneCheck, AdminState } from '../../main/contract/admin-api';

const byId = (check: AdminPhoneCheck, id: string) => {
  const row = check.checks.find((c) => c.id === id);
  assert.ok(row, `check row ${id}`);
  return row;
};

describe('phone check on a ready phone', () => {
  let rig: DeviceRig;
  before(async () => {
    rig = await startDeviceRig(1, {}, { withAdbKeyboard: false });
  });
  after(async () => {
    await rig.stop();
  });

  test('runs on attach, in the admin state, read-only', async () => {
    const id = rig.device(0).deviceId;
    await waitUntil(
      () => rig.bridge.core.adminState().devices.find((d) => d.device_id === id)?.check?.running === false,
      20_000,
      'first check',
    );
    const check = rig.bridge.core.adminState().devices.find((d) => d.device_id === id)?.check;
    assert.ok(check);
    assert.equal(byId(check, 'authorized').status, 'ok');
    assert.equal(byId(check, 'screen_awake').status, 'ok');
    assert.equal(byId(check, 'unlocked').status, 'ok');
    assert.equal(byId(check, 'ui_tree_readable').status, 'ok');
    assert.match(byId(check, 'display').detail, /display 0 \(default\), 1080×2400/);
    assert.equal(byId(check, 'android_version').status, 'ok');
    assert.match(byId(check, 'free_storage').detail, /87\.1 GiB free on \/data/);
    // No ADB Keyboard on this phone: a problem with its fix in words.
    const unicode = byId(check, 'unicode_typing');
    assert.equal(unicode.status, 'problem');
    assert.match(unicode.fix ?? '', /Install ADB Keyboard/);
    // Never tested by injecting input.
    assert.equal(byId(check, 'input_accepted').status, 'unknown');
  });

  test('on demand over the admin API; nothing but reads ran, each once', async () => {
    const id = rig.device(0).deviceId;
    rig.phones[0]?.clearArgvLog();
    const res = await rig.bridge.admin('GET', `/admin/api/devices/${id}/check`);
    assert.equal(res.status, 200);
    const check = res.body as unknown as AdminPhoneCheck;
    assert.equal(check.device_id, id);
    assert.equal(check.checks.length, 13);
    const log = (rig.phones[0]?.argvLog ?? []).map((argv) => argv.join(' '));
    assert.ok(!log.some((line) => line.startsWith('input ')), `no input injected: ${log.join(' | ')}`);
    assert.equal(log.filter((line) => line === 'dumpsys power').length, 1);
    assert.equal(log.filter((line) => line === 'dumpsys window').length, 1);
    const unknown = await rig.bridge.admin('GET', '/admin/api/devices/dev_nope/check');
    assert.equal(unknown.status, 404);
  });

  test('what calls met shows: input_blocked (inject-events-denied), an unreadable screen (ui-dump-null-root), a full phone', async () => {
    const id = rig.device(0).deviceId;
    const phone = rig.phones[0];
    assert.ok(phone);
    const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    try {
      await client.hello();
      const channel = await bindChannel(rig, client, id);
      phone.setQuirks(['inject-events-denied', 'ui-dump-null-root', 'install-insufficient-storage']);
      const tap = await invoke(client, channel, 'android_tap', { x: 10, y: 20 });
      assert.equal(tap.error?.code, 'input_blocked', JSON.stringify(tap.error ?? tap.payload));
      phone.clearArgvLog();
      const check = (await rig.bridge.admin('GET', `/admin/api/devices/${id}/check`))
        .body as unknown as AdminPhoneCheck;
      const input = byId(check, 'input_accepted');
      assert.equal(input.status, 'problem');
      assert.match(input.detail, /INJECT_EVENTS/);
      assert.match(input.fix ?? '', /USB debugging \(Security settings\)/);
      const ui = byId(check, 'ui_tree_readable');
      assert.equal(ui.status, 'problem');
      assert.match(ui.fix ?? '', /wake and unlock the phone/);
      const storage = byId(check, 'free_storage');
      assert.equal(storage.status, 'problem');
      assert.match(storage.detail, /50 MiB free/);
      assert.ok(!phone.argvLog.some((a) => a[0] === 'input'), 'the check injected nothing');
    } finally {
      phone.setQuirks([]);
      await client.close();
    }
  });
});

/** adb 1.0.41's `host:devices` line for a phone whose USB node the user cannot open (diagnose_usb.cpp). */
const NO_PERMISSIONS =
  'no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html]';

/** A fake ADB server that lists one USB phone with `state`, for `host:devices` and `host:track-devices`. */
async function fakeAdbServer(serial: string, state: string): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const list = `${serial}\t${state}\n`;
  const framed = (text: string): string => `${Buffer.byteLength(text).toString(16).padStart(4, '0')}${text}`;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      const length = Number.parseInt(buffered.slice(0, 4), 16);
      if (Number.isNaN(length) || buffered.length < 4 + length) return;
      const request = buffered.slice(4, 4 + length);
      buffered = '';
      if (request === 'host:track-devices') socket.write(`OKAY${framed(list)}`);
      else if (request === 'host:devices') socket.end(`OKAY${framed(list)}`);
      else if (request === 'host:version') socket.end(`OKAY${framed('0029')}`);
      else socket.end(`FAIL${framed('unknown request')}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('usb-no-permissions: adb cannot open the phone over USB (Linux)', () => {
  let adb: Awaited<ReturnType<typeof fakeAdbServer>>;
  let bridge: TestBridge;
  before(async () => {
    adb = await fakeAdbServer('0A1B2C3D4E5F', NO_PERMISSIONS);
    bridge = await startBridge({ adbServers: [{ host: '127.0.0.1', port: adb.port }] });
  });
  after(async () => {
    await bridge.stop();
    await adb.close();
  });

  test('registry state, the reason with its fix, and the phone check', async () => {
    await waitUntil(() => bridge.core.registry.list().some((d) => d.serial === '0A1B2C3D4E5F'), 10_000, 'phone listed');
    const record = bridge.core.registry.list().find((d) => d.serial === '0A1B2C3D4E5F');
    assert.ok(record);
    assert.equal(record.state, 'offline');
    assert.equal(record.rawState, NO_PERMISSIONS);
    assert.equal(record.transport, 'usb');

    const state = (await bridge.admin('GET', '/admin/api/state')).body as unknown as AdminState;
    const device = state.devices.find((d) => d.serial === '0A1B2C3D4E5F');
    assert.ok(device);
    assert.equal(device.reason_code, 'usb_permission');
    assert.match(device.reason ?? '', /udev rule .* plugdev group/);

    const res = await bridge.admin('GET', `/admin/api/devices/${device.device_id}/check`);
    assert.equal(res.status, 200);
    const check = res.body as unknown as AdminPhoneCheck;
    const usb = byId(check, 'usb_permission');
    assert.equal(usb.status, 'problem');
    assert.ok(usb.detail.includes(NO_PERMISSIONS));
    assert.match(usb.fix ?? '', /udev rule .* plugdev group \(see README/);
    // Nothing else could be looked at: unknown, never a guess.
    assert.equal(byId(check, 'screen_awake').status, 'unknown');
  });
});

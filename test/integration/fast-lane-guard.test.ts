/**
 * The fast lane's guard (#24): the helper (appium-uiautomator2-server) listens on every
 * interface of the phone with no authentication, so the bridge starts it only when the
 * installed files are its own copy and the person accepted the exposure of a phone on a
 * network, and stops it at once when anything but the bridge's adb forward connects to it.
 * Simulated phones model the listener (LISTEN sockets in /proc/net/tcp6), the bridge's own
 * connections (adbd, uid shell) and foreign peers (a host on the Wi-Fi, an app on the phone).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { invoke, startBoundRig, waitUntil } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { helperOf, setHelper, waitForHelper, withInstalledHelper } from '../helpers/fast-lane';
import { findHelperApks } from '../../main/core/helper/helper-apks';

const isInstrument = (a: string[]): boolean => a[0] === 'am' && a[1] === 'instrument';
const isForceStop = (a: string[]): boolean => a.join(' ') === 'am force-stop io.appium.uiautomator2.server';
const GUARD = { fastLane: { watchMs: 30 } };

async function guardAudit(bound: Awaited<ReturnType<typeof startBoundRig>>): Promise<Json[]> {
  const audit = await bound.rig.bridge.admin(
    'GET',
    `/admin/api/audit?device_id=${encodeURIComponent(bound.rig.device(0).deviceId)}&limit=20`,
  );
  return (audit.body.entries as Json[]).filter((e) => e.tool_id === 'fast_lane_guard');
}

describe('fast lane guard: a phone on a network', () => {
  test('turning it on on the card is the yes to its open ports: on a phone with Wi-Fi it runs, and the card names the addresses', async () => {
    await withInstalledHelper(GUARD, async (bound, phone) => {
      phone.network.setWifi('192.168.1.23');
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      const helper = await waitForHelper(bound.rig, 'ready', 10_000, (h) => typeof h.watched_at === 'number');
      assert.ok(
        (helper.network_addresses as string[]).includes('wlan0 192.168.1.23'),
        JSON.stringify(helper.network_addresses),
      );
      assert.equal(helper.last_error_code, null);
    });
  });
});

describe('fast lane guard: only the bridge drives the helper', () => {
  test("the bridge's own traffic (calls, the phone view's stream) never trips it", async () => {
    await withInstalledHelper(GUARD, async (bound) => {
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      const first = await waitForHelper(bound.rig, 'ready', 10_000, (h) => typeof h.watched_at === 'number');
      // Calls in a row while the guard reads the tables many times.
      for (let i = 0; i < 6; i++) {
        const tap = result(await invoke(bound.client, bound.channel, 'android_tap', { x: 100 + i, y: 400 }));
        assert.equal(tap.lane, 'helper');
      }
      const later = await waitForHelper(
        bound.rig,
        'ready',
        10_000,
        (h) => (h.watched_at as number) > (first.watched_at as number),
      );
      assert.equal(later.last_error_code, null);
    });
  });

  test('a host on the Wi-Fi connecting to the helper stops it at once; it stays off, the person is told, the audit says why', async () => {
    await withInstalledHelper(GUARD, async (bound, phone) => {
      phone.network.setWifi('192.168.1.23');
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      const from = phone.argvLog.length;
      phone.network.connectToHelper({ network: '192.168.1.77' });
      const helper = await waitForHelper(bound.rig, 'failed', 10_000);
      assert.equal(helper.last_error_reason, 'uia2_foreign_connection');
      assert.match(String(helper.last_error), /192\.168\.1\.77 on the network \(port 6790\)/);
      assert.ok(phone.argvLog.slice(from).some(isForceStop));
      assert.equal(phone.helper.state(), 'stopped');
      const lines = await guardAudit(bound);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]?.error_code, 'helper_foreign_connection');
      assert.equal(lines[0]?.decided_by, 'bridge');
      // The next call goes the stock way and does not start it again.
      const before = phone.argvLog.length;
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'adb');
      assert.ok(!phone.argvLog.slice(before).some(isInstrument));
      // Enabling again is the person's decision; then it runs.
      await setHelper(bound.rig, 'enable');
      await waitForHelper(bound.rig, 'idle');
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
    });
  });

  test('an app on the phone connecting through 127.0.0.1 (to the MJPEG port too) stops it', async () => {
    await withInstalledHelper(GUARD, async (bound, phone) => {
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      phone.network.connectToHelper({ appUid: 10_140 }, 7810);
      const helper = await waitForHelper(bound.rig, 'failed', 10_000);
      assert.equal(helper.last_error_reason, 'uia2_foreign_connection');
      assert.match(String(helper.last_error), /an app on the phone \(uid 10140, port 7810\)/);
      assert.equal(phone.helper.state(), 'stopped');
    });
  });
});

describe('fast lane guard: connections that are no longer plainly open', () => {
  test('an app that sends its request and closes its sending side (FIN_WAIT2) is seen, and the helper stopped', async () => {
    await withInstalledHelper(GUARD, async (bound, phone) => {
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      phone.network.connectToHelper({ appUid: 10_150 }, 7810, 'half_closed');
      const helper = await waitForHelper(bound.rig, 'failed', 10_000);
      assert.equal(helper.last_error_reason, 'uia2_foreign_connection');
      assert.match(String(helper.last_error), /an app on the phone \(uid 10150, port 7810\)/);
      assert.equal(phone.helper.state(), 'stopped');
    });
  });
});

describe('fast lane guard: the installed helper is the bridge’s own copy', () => {
  test('a package planted under the helper’s name is never started; enabling again reinstalls the bridge’s copy', async () => {
    const apks = findHelperApks();
    assert.ok(apks, 'the helper APKs ship with the bridge');
    await withInstalledHelper(GUARD, async (bound, phone) => {
      // Same package, same version, signed with the same public AOSP test key: only its bytes differ.
      const planted = Buffer.concat([readFileSync(apks.testApk), Buffer.from('planted')]);
      phone.fs.write('/data/local/tmp/planted.apk', planted, 0o644, Date.now());
      const installed = await phone.exec('pm install -r /data/local/tmp/planted.apk', {
        signal: new AbortController().signal,
      });
      assert.match(installed.stdout.toString(), /Success/);
      const from = phone.argvLog.length;
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'adb');
      assert.ok(!phone.argvLog.slice(from).some(isInstrument), 'the planted instrumentation never ran');
      const helper = await helperOf(bound.rig);
      assert.equal(helper.state, 'failed');
      assert.equal(helper.last_error_reason, 'uia2_not_verified');
      assert.match(
        String(helper.last_error),
        /io\.appium\.uiautomator2\.server\.test on the phone is not the bridge's copy/,
      );
      assert.equal((await guardAudit(bound))[0]?.error_code, 'helper_not_verified');

      const reinstallFrom = phone.argvLog.length;
      await setHelper(bound.rig, 'enable');
      await waitForHelper(bound.rig, 'idle');
      assert.ok(
        phone.argvLog.slice(reinstallFrom).some((a) => a[0] === 'pm' && a[1] === 'install'),
        'the same version name was not taken as proof: the bridge installed its own copy again',
      );
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
    });
  });
});

describe('fast lane guard: only while a lease is active', () => {
  test('the lease ends while the helper runs: it stops, and nothing starts it until the next lease', async () => {
    const bound = await startBoundRig(GUARD);
    try {
      await setHelper(bound.rig, 'enable');
      await waitForHelper(bound.rig, 'idle');
      const phone = bound.rig.phones[0];
      assert.ok(phone);
      assert.equal(result(await invoke(bound.client, bound.channel, 'android_ui_tree', {})).lane, 'helper');
      const from = phone.argvLog.length;
      const revoked = await bound.rig.bridge.admin(
        'POST',
        `/admin/api/channels/${encodeURIComponent(bound.channel)}/revoke`,
        {},
      );
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      await waitUntil(() => phone.helper.state() === 'stopped', 10_000, 'the helper stops with the lease');
      assert.ok(!phone.argvLog.slice(from).some(isInstrument));
      assert.equal((await helperOf(bound.rig)).state, 'idle');
    } finally {
      await bound.stop();
    }
  });
});

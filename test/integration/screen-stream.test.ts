/**
 * The screen stream (minicap) end to end over the real adb server, on simulated phones that run
 * the real @u4/minicap-prebuilt files (test/sim/minicap.test.ts): it starts only with the
 * person's consent and while the phone is leased or watched, the agent's screenshot comes from
 * it and always shows the screen after the last action, a phone minicap cannot serve falls back
 * to screencap in the same call, and nothing of minicap is left on the phone after the lease.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';
import { XAgentClient } from '../helpers/xagent-client';
import { MINICAP_DIR, minicapFiles, minicapRunning } from '../helpers/minicap-on-phone';
import { NOTES_HEADER_RGB, headerProbePoint } from '../../main/sim/screen/colors';
import type { AdminPhoneProgram } from '../../main/contract/admin-api';

/** minicap's program entry with its stream facts (way, fps, for) at the top. */
type StreamEntry = Omit<AdminPhoneProgram, 'stream'> & NonNullable<AdminPhoneProgram['stream']>;

function flatten(program: AdminPhoneProgram | undefined): StreamEntry | undefined {
  return program?.stream ? { ...program, ...program.stream } : undefined;
}

function minicapIn(programs: unknown): StreamEntry | undefined {
  return flatten((programs as AdminPhoneProgram[]).find((p) => p.program === 'minicap_stream'));
}

const SCREEN = { width: 1080, height: 2400, density: 420 };

async function pixelAt(image: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.round(y) * info.width + Math.round(x)) * 3;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

function near(a: readonly number[], b: readonly number[], tolerance: number): boolean {
  return a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= tolerance);
}

describe('the screen stream (minicap) over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;

  const streamOf = (i: number): StreamEntry | undefined =>
    minicapIn(rig.bridge.core.adminState().devices.find((d) => d.device_id === rig.device(i).deviceId)?.programs ?? []);

  const download = async (path: string): Promise<Buffer> =>
    Buffer.from(await (await fetch(`${rig.bridge.url}${path}`)).arrayBuffer());

  before(async () => {
    // Phones 0 and 1: Android 12L (SDK 32: minicap's native binary and library; its pictures hide secure windows).
    // Phone 2: Android 14 (no library for SDK 34 in the package: the APK through app_process).
    // Phone 3: Android 11 (native; its virtual display shows secure windows, so the agent's screenshots stay screencap).
    const releases: Array<{ sdk: number; androidVersion: string }> = [
      { sdk: 32, androidVersion: '12' },
      { sdk: 32, androidVersion: '12' },
      { sdk: 34, androidVersion: '14' },
      { sdk: 30, androidVersion: '11' },
    ];
    rig = await startDeviceRig(
      releases.length,
      {
        lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
        // The simulated phones encode frames on this computer's CPU, shared with the tests: on a busy machine a
        // change reaches the bridge far later than on a phone (a real minicap sends it within a frame's time), so
        // the freshness rule's latency margin is set to what this machine can be late by.
        screenStream: { latencyFloorMs: 600 },
      },
      { perPhone: (i) => releases[i] ?? {} },
    );
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('without the person’s consent nothing is copied to the phone; screenshots come from screencap', async () => {
    const settings = await rig.bridge.admin('GET', '/admin/api/screen-stream');
    assert.equal(settings.status, 200);
    assert.equal(settings.body.default, 'ask');
    assert.equal(settings.body.available, true);
    const channel = await bindChannel(rig, client, rig.device(0).deviceId);
    const shot = result(await invoke(client, channel, 'android_screenshot', {}));
    assert.equal(shot.source, 'screencap');
    assert.equal(streamOf(0)?.state, 'off');
    assert.deepEqual(minicapFiles(rig.phones[0]!), []);
    assert.equal(minicapRunning(rig.phones[0]!), false);
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
  });

  test('with consent, a leased phone streams: the screenshot comes from minicap and shows the screen after each action', async () => {
    const phone = rig.phones[0]!;
    const deviceId = rig.device(0).deviceId;
    const enabled = await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    assert.equal(enabled.status, 200);
    assert.equal(minicapIn(enabled.body.programs)?.enabled, true);
    const channel = await bindChannel(rig, client, deviceId);

    const home = result(await invoke(client, channel, 'android_screenshot', {}));
    assert.equal(home.source, 'stream');
    assert.deepEqual([home.width, home.height], [576, 1280], 'the same size as a screencap at max_side 1280');
    const stream = streamOf(0);
    assert.deepEqual([stream?.state, stream?.way], ['ready', 'native'], JSON.stringify(stream));
    assert.ok(stream?.for.includes('lease'));
    assert.ok(minicapRunning(phone), 'minicap runs on the phone');
    assert.deepEqual(minicapFiles(phone).sort(), ['minicap', 'minicap.so']);

    // An action, then at once a screenshot: it shows the screen the action left (the notes app), never the home screen before it.
    const probe = headerProbePoint(SCREEN);
    const k = 1280 / SCREEN.height;
    for (let round = 0; round < 3; round++) {
      result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
      const notes = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
      assert.equal(notes.source, 'stream');
      const inNotes = await pixelAt(await download(String(notes.download_url)), probe.x * k, probe.y * k);
      assert.ok(
        near(inNotes, NOTES_HEADER_RGB, 16),
        `round ${round}: the notes header, got ${JSON.stringify(inNotes)}`,
      );
      result(await invoke(client, channel, 'android_press_key', { key: 'home' }));
      const back = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
      assert.equal(back.source, 'stream');
      const onHome = await pixelAt(await download(String(back.download_url)), probe.x * k, probe.y * k);
      assert.ok(!near(onHome, NOTES_HEADER_RGB, 16), `round ${round}: home again, not the notes app before it`);
    }

    // A tap: on the home screen's Notes icon; the screenshot at once after it shows the notes app.
    result(await invoke(client, channel, 'android_tap', { element: { text: 'Notes' } }));
    const tapped = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
    assert.equal(tapped.source, 'stream');
    const afterTap = await pixelAt(await download(String(tapped.download_url)), probe.x * k, probe.y * k);
    assert.ok(near(afterTap, NOTES_HEADER_RGB, 16), `after the tap: the notes app, got ${JSON.stringify(afterTap)}`);

    // Nothing changed since: the same picture answers `unchanged` (minicap sent no new frame).
    const again = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
    assert.equal(again.source, 'stream');
    assert.equal(again.unchanged, true);

    // A max_side beyond the stream's pictures is taken the stock way, at full size.
    const full = result(await invoke(client, channel, 'android_screenshot', { format: 'png', max_side: 2400 }));
    assert.deepEqual([full.source, full.width, full.height], ['screencap', SCREEN.width, SCREEN.height]);

    // The lease ends: minicap stops and its files leave the phone.
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(
      () => !minicapRunning(phone) && minicapFiles(phone).length === 0,
      15_000,
      'minicap gone from the phone',
    );
    assert.equal(streamOf(0)?.state, 'idle');
  });

  test('the phone turns: the stream restarts in the new orientation; no screenshot is ever of the old one', async () => {
    const phone = rig.phones[0]!;
    const deviceId = rig.device(0).deviceId;
    const channel = await bindChannel(rig, client, deviceId);
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
    const upright = result(await invoke(client, channel, 'android_screenshot', {}));
    assert.deepEqual([upright.source, upright.width, upright.height], ['stream', 576, 1280]);
    const startsBefore = phone.argvLog.filter((argv) => argv[0] === `${MINICAP_DIR}/minicap`).length;

    phone.setQuirks(['landscape']);
    try {
      // The first call after the turn reads the rotation: the stream's picture is not the screen's, so screencap answers.
      result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
      const turned = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
      assert.deepEqual([turned.width, turned.height], [1280, 576], JSON.stringify(turned));
      // Natural size 1080x2400, turned a quarter: `-P 1080x2400@576x1280/90`.
      const turnedStart = (argv: string[]): boolean =>
        argv[0] === `${MINICAP_DIR}/minicap` && argv.includes('1080x2400@576x1280/90');
      await waitUntil(() => phone.argvLog.some(turnedStart), 15_000, 'minicap restarted with the turned projection');
      assert.ok(phone.argvLog.filter((argv) => argv[0] === `${MINICAP_DIR}/minicap`).length > startsBefore);
      await waitUntil(() => streamOf(0)?.state === 'ready', 15_000, 'the stream running again');
      result(await invoke(client, channel, 'android_press_key', { key: 'back' }));
      result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
      const landscape = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
      assert.deepEqual([landscape.source, landscape.width, landscape.height], ['stream', 1280, 576]);
      const wide = { width: 2400, height: 1080, density: 420 };
      const probe = headerProbePoint(wide);
      const k = 1280 / wide.width;
      const got = await pixelAt(await download(String(landscape.download_url)), probe.x * k, probe.y * k);
      assert.ok(near(got, NOTES_HEADER_RGB, 16), `the turned notes app, whole: ${JSON.stringify(got)}`);
      const frame = await fetch(`${rig.bridge.url}/admin/api/devices/${deviceId}/frame`, {
        headers: { authorization: `Bearer ${rig.bridge.adminToken}` },
      });
      assert.equal(frame.headers.get('x-frame-lane'), 'minicap');
      assert.deepEqual([frame.headers.get('x-screen-width'), frame.headers.get('x-screen-height')], ['2400', '1080']);
    } finally {
      phone.setQuirks([]);
    }
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
  });

  test('a phone that leaves while streaming: minicap ends with its adb shell; its files are removed when it comes back', async () => {
    const phone = rig.phones[0]!;
    const deviceId = rig.device(0).deviceId;
    const channel = await bindChannel(rig, client, deviceId);
    assert.equal(result(await invoke(client, channel, 'android_screenshot', {})).source, 'stream');
    assert.ok(minicapRunning(phone));
    await rig.farm.phones[0]!.server.goOffline();
    await waitUntil(() => rig.device(0).state !== 'device', 15_000, 'the phone offline in the bridge');
    await waitUntil(() => !minicapRunning(phone), 15_000, 'minicap ended with its shell');
    assert.deepEqual(minicapFiles(phone).sort(), ['minicap', 'minicap.so'], 'left behind while the phone was away');
    // The lease ends while the phone is away; when it returns, nothing of minicap stays on it.
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await rig.farm.bringOnline(0);
    await waitUntil(() => minicapFiles(phone).length === 0, 20_000, 'minicap’s files removed on its return');
    assert.equal(minicapRunning(phone), false);
  });

  test('minicap that crashes on a phone: restarted once, then the screenshot comes from screencap in the same call, and the card says why', async () => {
    const phone = rig.phones[1]!;
    const deviceId = rig.device(1).deviceId;
    phone.setQuirks(['minicap-segfault']);
    await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    const channel = await bindChannel(rig, client, deviceId);
    const sources: unknown[] = [];
    // Each launch changes the screen: the crashing minicap serves three frames, then dies.
    for (let i = 0; i < 8; i++) {
      result(
        await invoke(client, channel, 'android_launch_app', {
          package: i % 2 ? 'com.example.notes' : 'com.example.login',
        }),
      );
      const shot = result(await invoke(client, channel, 'android_screenshot', {}));
      assert.ok(shot.file_ref, 'every call is answered with a picture');
      sources.push(shot.source);
    }
    assert.ok(sources.includes('stream'), JSON.stringify(sources));
    assert.equal(sources.at(-1), 'screencap', JSON.stringify(sources));
    await waitUntil(() => streamOf(1)?.state === 'failed', 15_000, 'the stream marked failed');
    assert.match(String(streamOf(1)?.last_error), /Segmentation fault/);
    const starts = phone.argvLog.filter((argv) => argv[0] === `${MINICAP_DIR}/minicap` && argv.includes('-P'));
    assert.equal(starts.length, 2, 'started, restarted once after the crash, then left alone');
    assert.equal(minicapRunning(phone), false);
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(() => minicapFiles(phone).length === 0, 15_000, 'minicap’s files removed');
  });

  test('Android 14 runs minicap’s APK through app_process; the stream stops when the lease ends', async () => {
    const phone = rig.phones[2]!;
    const deviceId = rig.device(2).deviceId;
    await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    const channel = await bindChannel(rig, client, deviceId);
    result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
    const shot = result(await invoke(client, channel, 'android_screenshot', { format: 'png' }));
    assert.equal(shot.source, 'stream');
    const probe = headerProbePoint(SCREEN);
    const k = 1280 / SCREEN.height;
    const got = await pixelAt(await download(String(shot.download_url)), probe.x * k, probe.y * k);
    assert.ok(near(got, NOTES_HEADER_RGB, 16), JSON.stringify(got));
    assert.deepEqual([streamOf(2)?.state, streamOf(2)?.way], ['ready', 'apk']);
    assert.deepEqual(minicapFiles(phone), ['minicap.apk']);
    assert.ok(phone.processes.list().some((p) => p.name === 'app_process'));
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(() => !minicapRunning(phone) && minicapFiles(phone).length === 0, 15_000, 'minicap gone');
  });

  test('Android 11: minicap would show secure windows, so the agent’s screenshots stay screencap while the live view streams', async () => {
    const phone = rig.phones[3]!;
    const deviceId = rig.device(3).deviceId;
    await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'enable',
      program: 'minicap_stream',
    });
    const channel = await bindChannel(rig, client, deviceId);
    const shot = result(await invoke(client, channel, 'android_screenshot', {}));
    assert.equal(shot.source, 'screencap');
    await waitUntil(() => streamOf(3)?.state === 'ready', 15_000, 'the stream running for the lease');
    const frame = await fetch(`${rig.bridge.url}/admin/api/devices/${deviceId}/frame`, {
      headers: { authorization: `Bearer ${rig.bridge.adminToken}` },
    });
    assert.equal(frame.status, 200);
    assert.equal(frame.headers.get('x-frame-lane'), 'minicap');
    assert.deepEqual(
      [frame.headers.get('x-screen-width'), frame.headers.get('x-screen-height')],
      [String(SCREEN.width), String(SCREEN.height)],
    );
    // The lease ends, but someone watches: the stream stays for the view alone.
    assert.equal((await rig.bridge.admin('POST', `/admin/api/channels/${channel}/revoke`)).status, 200);
    await waitUntil(() => JSON.stringify(streamOf(3)?.for) === '["view"]', 15_000, 'the stream kept for the view');
    assert.ok(minicapRunning(phone));
    // Turned off for this phone: stopped and removed at once, though the view is still open.
    const off = await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
      action: 'disable',
      program: 'minicap_stream',
    });
    assert.equal(off.status, 200);
    assert.deepEqual([minicapIn(off.body.programs)?.state, minicapIn(off.body.programs)?.enabled], ['off', false]);
    assert.equal(minicapRunning(phone), false);
    assert.deepEqual(minicapFiles(phone), []);
  });
});

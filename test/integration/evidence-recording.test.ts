/**
 * A 400 s recording through the real adb server: three chunks of at most 180 s (the phone's
 * screenrecord limit), in order, each starting before the previous ended, each lasting its
 * whole time although the screen stayed still (the phone sent one frame). The phone's time is
 * virtual (phone-clock.ts), so 400 s of recording take well under a second of wall time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { XAgentClient } from '../helpers/xagent-client';
import { mp4Timing } from '../../main/core/android/mp4-hold';

describe('android_screen_record past 180 s', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;

  before(async () => {
    rig = await startDeviceRig(1, {}, { profile: 'usb-phone', virtualTime: true });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('400 s of a still screen: 3 chunks in order, overlapping, each as long as it recorded', async () => {
    const phone = rig.phones[0]!;
    phone.clearArgvLog();
    const wall = Date.now();
    const rec = result(await invoke(client, channel, 'android_screen_record', { seconds: 400 }));
    assert.ok(Date.now() - wall < 30_000, 'virtual time: no 400 s wait');
    assert.equal(rec.seconds, 400);
    const chunks = rec.chunks as Json[];
    assert.deepEqual(
      chunks.map((c) => [c.index, c.seconds]),
      [
        [1, 180],
        [2, 180],
        [3, 44],
      ],
    );
    let covered = 0;
    for (const [i, chunk] of chunks.entries()) {
      // No gap: each starts no later than the previous one ended (it overlaps by about 2 s).
      assert.ok(chunk.start_ms <= covered, `chunk ${i + 1} starts at ${chunk.start_ms}, covered until ${covered}`);
      covered = chunk.start_ms + chunk.seconds * 1000;
      if (i < chunks.length - 1)
        assert.ok(chunk.overlap_ms >= 0 && chunk.overlap_ms <= 3_000, String(chunk.overlap_ms));
      // The screen stayed still: the phone encoded one frame, yet the clip lasts its whole chunk.
      assert.equal(chunk.frames, 1);
      const res = await fetch(`${rig.bridge.url}${chunk.download_url}`);
      assert.equal(res.status, 200);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(body.toString('latin1', 4, 8), 'ftyp');
      assert.equal(mp4Timing(body)?.durationMs, chunk.seconds * 1000);
    }
    assert.ok(covered >= 400_000, `covered ${covered} ms`);
    // Three screenrecord processes of at most 180 s, run by one shell on the phone, files removed.
    const records = phone.argvLog.filter((a) => a[0] === 'screenrecord');
    assert.deepEqual(
      records.map((a) => a.slice(0, 3)),
      [
        ['screenrecord', '--time-limit', '180'],
        ['screenrecord', '--time-limit', '180'],
        ['screenrecord', '--time-limit', '44'],
      ],
    );
    for (const argv of records) assert.equal(phone.fs.stat(argv.at(-1)!), undefined, 'removed from the phone');
  });

  test('up to 180 s is one file as before, as long as it recorded', async () => {
    const pending = invoke(client, channel, 'android_screen_record', { seconds: 20 });
    const rec = result(await pending);
    assert.equal(rec.chunks, undefined);
    assert.equal(rec.mime_type, 'video/mp4');
    const res = await fetch(`${rig.bridge.url}${rec.download_url}`);
    assert.equal(mp4Timing(Buffer.from(await res.arrayBuffer()))?.durationMs, 20_000);
  });
});

/**
 * Evidence through the real adb server and a simulated phone: android_logcat's filters
 * (package, tag, level), its redaction (a lab secret, text typed during the lease, a token),
 * large output as a file through the transfer plane, and app crashes and ANRs reported in
 * the result of the call they happened in (or the next one).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { XAgentClient } from '../helpers/xagent-client';
import { SYSTEM_SERVER_PID } from '../../main/sim/phone-logcat';

describe('android_logcat and crash reports', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channel: string;
  const phone = () => rig.phones[0]!;
  const call = async (toolId: string, args: Json = {}): Promise<Json> =>
    result(await invoke(client, channel, toolId, args));

  before(async () => {
    rig = await startDeviceRig(1);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);
    const put = await rig.bridge.admin('PUT', '/admin/api/secrets/shop-api', { value: 'sk_live_51HxQz9' });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    await call('android_launch_app', { package: 'com.example.notes' });
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('filters by package (its pid), tag and level; a package not running is said plainly', async () => {
    const notesPid = phone().logcat.pidOf('com.example.notes')!;
    phone().logcat.write('main', notesPid, notesPid, 'W', 'NotesSync', 'sync slow: 2300 ms');
    phone().logcat.write('main', notesPid, notesPid, 'D', 'NotesSync', 'sync detail');
    phone().logcat.write('main', 4242, 4242, 'W', 'OtherApp', 'not from notes');

    const byPackage = await call('android_logcat', { package: 'com.example.notes' });
    assert.equal(byPackage.package_running, true);
    assert.equal(byPackage.pid, notesPid);
    assert.ok(byPackage.lines.length >= 3, JSON.stringify(byPackage));
    assert.ok(
      byPackage.lines.every((l: string) => l.includes(` ${notesPid} `)),
      'only the app’s process',
    );
    assert.ok(byPackage.lines.some((l: string) => / W NotesSync: sync slow: 2300 ms$/.test(l)));
    assert.ok(!byPackage.lines.some((l: string) => l.includes('not from notes')));
    // threadtime exactly as Android prints it.
    assert.match(byPackage.lines.at(-1), /^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] .+: /);

    const byTag = await call('android_logcat', { tags: ['NotesSync'], min_level: 'W' });
    assert.deepEqual(
      byTag.lines.map((l: string) => l.replace(/^.* W /, '')),
      ['NotesSync: sync slow: 2300 ms'],
    );
    const sent = phone()
      .argvLog.filter((a) => a[0] === 'logcat')
      .at(-1);
    assert.deepEqual(sent?.slice(-2), ['NotesSync:W', '*:S'], 'tags go as filter specs, the rest silent');

    const systemErrors = await call('android_logcat', { buffers: ['system'], min_level: 'I', max_lines: 2 });
    assert.ok(systemErrors.lines.length <= 2);
    assert.ok(systemErrors.lines.every((l: string) => l.includes(` ${SYSTEM_SERVER_PID} `)));

    const missing = await call('android_logcat', { package: 'com.example.wallet' });
    assert.equal(missing.package_running, false);
    assert.deepEqual(missing.lines, []);
    assert.match(missing.note, /no running process/);

    const refused = await invoke(client, channel, 'android_logcat', { tags: ['Tag; rm -rf /'] });
    assert.equal(refused.error?.code, 'invalid_arguments');
  });

  test('redacts a lab secret, the text typed during this lease and token-shaped values', async () => {
    await call('android_tap', { element: { resource_id: 'note_text' } });
    await call('android_type_text', { text: 'meet Anna at the pier' });
    const pid = phone().logcat.pidOf('com.example.notes')!;
    phone().logcat.write('main', pid, pid, 'I', 'Net', 'POST /pay key=sk_live_51HxQz9 ok');
    phone().logcat.write('main', pid, pid, 'I', 'Net', 'Authorization: Bearer abcdef0123456789XYZ');
    phone().logcat.write('main', pid, pid, 'I', 'Net', 'login password=hunter2hunter');

    const got = await call('android_logcat', { package: 'com.example.notes' });
    const text = (got.lines as string[]).join('\n');
    // The sim's Notes logs what was typed, as apps do.
    assert.match(text, /afterTextChanged: "\[typed text\]"/);
    assert.ok(!text.includes('meet Anna at the pier'));
    assert.match(text, /key=\[secret: shop-api\] ok/);
    assert.ok(!text.includes('sk_live_51HxQz9'));
    assert.match(text, /Bearer \[redacted\]/);
    assert.match(text, /password=\[redacted\]/);
    assert.ok(!text.includes('hunter2hunter'));
  });

  test('large output comes as a text file through the transfer plane, with the head inline', async () => {
    const pid = phone().logcat.pidOf('com.example.notes')!;
    for (let i = 0; i < 800; i++)
      phone().logcat.write('main', pid, pid, 'I', 'Bulk', `line ${i} ${'x'.repeat(60)} token=t0k3n${i}abc`);
    const got = await call('android_logcat', { tags: ['Bulk'], max_lines: 2000 });
    assert.equal(got.lines, undefined);
    assert.equal(got.mime_type, 'text/plain');
    assert.equal(got.count, 800);
    assert.ok(got.head.length > 0 && got.head.length <= 40);
    const res = await fetch(`${rig.bridge.url}${got.download_url}`);
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.equal(body.trim().split('\n').length, 800);
    assert.ok(!/t0k3n\d/.test(body), 'the file is redacted too');
    assert.equal(Buffer.byteLength(body), got.byte_size);

    const capped = await call('android_logcat', { tags: ['Bulk'], max_lines: 2000, max_bytes: 4096 });
    assert.equal(capped.truncated, true);
    assert.ok(capped.lines.join('\n').length <= 4096);
    assert.match(capped.lines.at(-1), /line 799 /, 'the newest lines are kept');
  });

  test('an app crash while a person held the phone unwatched is theirs: no result after the hand-back carries it', async () => {
    await call('android_launch_app', { package: 'com.example.notes' });
    const id = rig.device(0).deviceId;
    const admin = async (path: string, body: Json): Promise<void> => {
      const res = await rig.bridge.admin('POST', `/admin/api/devices/${id}/${path}`, body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await admin('takeover', { action: 'take' });
    phone().faultOnNextInput('crash');
    await admin('input', { kind: 'tap', x: 200, y: 900 });
    assert.notEqual(phone().foregroundPackage(), 'com.example.notes', 'the app crashed under the person’s tap');
    await admin('takeover', { action: 'hand_back' });
    const next = await call('android_device_status');
    assert.equal(next.crashes, undefined, JSON.stringify(next.crashes));
  });

  test('an app crash during a tap is in that result or the next, with the package and first lines', async () => {
    await call('android_launch_app', { package: 'com.example.notes' });
    phone().faultOnNextInput('crash');
    const tapped = await call('android_tap', { x: 200, y: 900 });
    const next = tapped.crashes ? undefined : await call('android_device_status');
    const crashes = (tapped.crashes ?? next?.crashes) as Json[] | undefined;
    assert.ok(crashes, `no crash reported: ${JSON.stringify({ tapped, next })}`);
    assert.equal(crashes.length, 1);
    const crash = crashes[0]!;
    assert.equal(crash.package, 'com.example.notes');
    assert.equal(crash.kind, 'crash');
    assert.match(crash.at, /^\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/);
    assert.equal(crash.first_lines[0], 'FATAL EXCEPTION: main');
    assert.match(crash.first_lines[1], /^Process: com\.example\.notes, PID: \d+$/);
    assert.match(crash.first_lines[2], /IllegalStateException/);
    assert.notEqual(phone().foregroundPackage(), 'com.example.notes', 'the app left the screen');
    // Reported once.
    const later = await call('android_device_status');
    assert.equal(later.crashes, undefined);
  });

  test('an ANR is reported likewise, and its dialog shows', async () => {
    await call('android_launch_app', { package: 'com.example.notes' });
    phone().faultOnNextInput('anr');
    const tapped = await call('android_tap', { x: 200, y: 900 });
    const next = tapped.crashes ? undefined : await call('android_device_status');
    const anr = ((tapped.crashes ?? next?.crashes) as Json[] | undefined)?.find((c) => c.kind === 'anr');
    assert.ok(anr, `no ANR reported: ${JSON.stringify({ tapped, next })}`);
    assert.equal(anr.package, 'com.example.notes');
    assert.match(anr.first_lines[0], /^ANR in com\.example\.notes/);
    assert.ok(anr.first_lines.some((l: string) => /^Reason: Input dispatching timed out/.test(l)));
    const status = await call('android_device_status');
    assert.match(String(status.system_dialog), /responding/i, JSON.stringify(status));
    assert.equal(phone().quirks().includes('anr-dialog'), true);
    // Answered (Wait), the dialog goes.
    await call('android_press_key', { key: 'back' });
    assert.equal(phone().quirks().includes('anr-dialog'), false);
  });
});

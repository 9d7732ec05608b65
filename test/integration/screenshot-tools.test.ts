/**
 * The screenshot pipeline and the transfer plane's tool side, end to end over the real adb
 * server: decoded pixels against what the simulated phone drew, annotated boxes labelled
 * with element refs whose numbers work as selectors too, FLAG_SECURE frames, screen recordings, uploads used by
 * android_install_apk / android_push_file, and the file cache's caps under a burst.
 * (Signed URLs, uploads over HTTP and the unchanged flag are in transfer-plane.test.ts and
 * device-tools.test.ts.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';
import { XAgentClient } from '../helpers/xagent-client';
import { NOTES_HEADER_RGB, headerProbePoint } from '../../main/sim/screen/colors';
import type { SimulatedPhone } from '../../main/sim/phone';

const SCREEN = { width: 1080, height: 2400, density: 420 };
/** Small caps, so a burst of screenshots has to evict. */
const CACHE_LIMITS = { maxFiles: 12, maxBytes: 400 * 1024 };

/** Runs a command line on the simulated phone itself (not through the bridge). */
async function onPhone(phone: SimulatedPhone, line: string): Promise<string> {
  const out = await phone.exec(line, { signal: AbortSignal.timeout(10_000) });
  assert.equal(out.exitCode, 0, `${line}: ${out.stderr.toString()}`);
  return out.stdout.toString('utf8');
}

function launch(phone: SimulatedPhone, pkg: string): Promise<string> {
  return onPhone(phone, `monkey -p ${pkg} -c android.intent.category.LAUNCHER 1`);
}

async function rgbaOf(image: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

function pixel(img: { data: Buffer; width: number }, x: number, y: number): [number, number, number] {
  const at = (y * img.width + x) * 4;
  return [img.data[at]!, img.data[at + 1]!, img.data[at + 2]!];
}

/** Bytes and files in the cache directory right now, temporary files included. */
function diskUsage(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const name of readdirSync(dir)) {
    try {
      bytes += statSync(join(dir, name)).size;
      files += 1;
    } catch {
      // removed between readdir and stat
    }
  }
  return { files, bytes };
}

describe('screenshot tools over the real adb server', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channelA: string;
  let channelB: string;

  const download = async (path: string): Promise<{ status: number; type: string | null; body: Buffer }> => {
    const res = await fetch(`${rig.bridge.url}${path}`);
    return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
  };

  before(async () => {
    // The status bar draws the phone's clock: a minute turning between the tool's capture and
    // the raw one would change pixels, so these phones keep one time.
    rig = await startDeviceRig(
      2,
      {
        fileCache: CACHE_LIMITS,
        lease: { maxDurationMs: null, idleTimeoutMs: null, disconnectGraceMs: 60_000 },
      },
      { clock: () => Date.UTC(2026, 11, 4, 9, 41) },
    );
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channelA = await bindChannel(rig, client, rig.device(0).deviceId);
    channelB = await bindChannel(rig, client, rig.device(1).deviceId);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
  });

  test('a full-size PNG is the phone’s frame pixel for pixel; the default WebP keeps the header colour', async () => {
    const phone = rig.phones[0]!;
    await launch(phone, 'com.example.notes');
    const shot = result(await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400 }));
    assert.deepEqual([shot.width, shot.height, shot.secure_screen], [SCREEN.width, SCREEN.height, false]);
    const png = await download(shot.download_url);
    assert.equal(png.type, 'image/png');
    const image = await rgbaOf(png.body);
    assert.deepEqual([image.width, image.height], [SCREEN.width, SCREEN.height]);

    // What the phone drew: its own raw screencap of the same (unchanged) screen.
    const raw = (await phone.exec('screencap', { signal: AbortSignal.timeout(10_000) })).stdout;
    const drawn = raw.subarray(16);
    assert.equal(drawn.length, image.data.length);
    assert.ok(drawn.equals(image.data), 'decoded PNG differs from the phone’s frame');

    // A known colour region: the Notes toolbar around its probe point.
    const probe = headerProbePoint(SCREEN);
    for (let dy = -2; dy <= 2; dy++) {
      for (let dx = -2; dx <= 2; dx++)
        assert.deepEqual(pixel(image, probe.x + dx, probe.y + dy), [...NOTES_HEADER_RGB]);
    }

    const small = result(await invoke(client, channelA, 'android_screenshot', {}));
    assert.equal(small.mime_type, 'image/webp');
    const webp = await download(small.download_url);
    assert.equal(webp.type, 'image/webp');
    assert.equal(webp.body.length, small.byte_size);
    const scaled = await rgbaOf(webp.body);
    assert.deepEqual([scaled.width, scaled.height], [small.width, small.height]);
    assert.equal(Math.max(scaled.width, scaled.height), 1280);
    const k = scaled.height / SCREEN.height;
    const got = pixel(scaled, Math.round(probe.x * k), Math.round(probe.y * k));
    got.forEach((v, i) =>
      assert.ok(
        Math.abs(v - NOTES_HEADER_RGB[i]!) <= 12,
        `webp header pixel ${JSON.stringify(got)} vs ${JSON.stringify(NOTES_HEADER_RGB)}`,
      ),
    );
  });

  test('annotate draws boxes labelled with refs; the number in a ref works as an index selector too', async () => {
    const phone = rig.phones[0]!;
    await onPhone(phone, 'input keyevent KEYCODE_HOME');
    const plain = await rgbaOf(
      (
        await download(
          result(await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400 })).download_url,
        )
      ).body,
    );
    const shot = result(
      await invoke(client, channelA, 'android_screenshot', { format: 'png', max_side: 2400, annotate: true }),
    );
    assert.equal(shot.unchanged, false, 'the boxes make it a different image');
    const elements = shot.elements as Array<{ ref: string; index: number; text: string; center: [number, number] }>;
    const notes = elements.find((e) => e.text === 'Notes');
    assert.ok(notes, `no Notes icon among ${JSON.stringify(elements.map((e) => e.text))}`);
    assert.ok(
      elements.every((e) => Number.isInteger(e.index) && new RegExp(`^@[a-z]+${e.index}$`).test(e.ref)),
      JSON.stringify(elements.slice(0, 3)),
    );

    // The label box of the Notes icon sits at its top-left corner: red where the plain frame is not.
    const tree = result(await invoke(client, channelA, 'android_ui_tree', {}));
    const node = (
      tree.nodes as Array<{ ref?: string; index: number; text?: string; bounds: [number, number, number, number] }>
    ).find((n) => n.text === 'Notes')!;
    assert.equal(node.ref, notes.ref, 'the same screen read again: the same refs');
    const annotated = await rgbaOf((await download(shot.download_url)).body);
    const [left, top] = node.bounds;
    const red = pixel(annotated, left + 2, top + 2);
    assert.ok(red[0] > 200 && red[1] < 80 && red[2] < 120, `label pixel ${JSON.stringify(red)} is not the box red`);
    assert.notDeepEqual(pixel(plain, left + 2, top + 2), red);

    phone.clearArgvLog();
    const tapped = result(await invoke(client, channelA, 'android_tap', { element: { index: notes.index } }));
    assert.deepEqual([tapped.x, tapped.y], notes.center);
    assert.deepEqual(
      phone.argvLog.filter((argv) => argv[0] === 'input'),
      [['input', 'tap', String(notes.center[0]), String(notes.center[1])]],
    );
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
  });

  test('a FLAG_SECURE screen is reported as secure_screen, not as a normal screenshot', async () => {
    const phone = rig.phones[1]!;
    await launch(phone, 'com.example.wallet');
    const tree = result(await invoke(client, channelB, 'android_ui_tree', {}));
    const pay = (tree.nodes as Array<{ resource_id?: string; center: [number, number] }>).find(
      (n) => n.resource_id === 'com.example.wallet:id/pay_button',
    )!;
    await onPhone(phone, `input tap ${pay.center[0]} ${pay.center[1]}`);
    assert.equal(phone.screenState().secure, true);

    const shot = result(await invoke(client, channelB, 'android_screenshot', { format: 'png' }));
    assert.equal(shot.secure_screen, true);
    assert.match(String(shot.note), /FLAG_SECURE/);
    const image = await rgbaOf((await download(shot.download_url)).body);
    for (let i = 0; i < image.data.length; i += 4) {
      if (image.data[i] !== 0 || image.data[i + 1] !== 0 || image.data[i + 2] !== 0)
        assert.fail(`pixel ${i / 4} of a secure frame is not black`);
    }
    await onPhone(phone, 'input keyevent KEYCODE_BACK');
    await onPhone(phone, 'input keyevent KEYCODE_HOME');
    const normal = result(await invoke(client, channelB, 'android_screenshot', {}));
    assert.equal(normal.secure_screen, false);
  });

  test('android_screen_record returns an MP4 through the transfer plane', async () => {
    const phone = rig.phones[0]!;
    phone.clearArgvLog();
    const ack = await invoke(client, channelA, 'android_screen_record', { seconds: 1 });
    const rec = result(ack);
    assert.match(rec.file_ref, /^file_[A-Za-z0-9_-]{32}$/);
    assert.equal(rec.mime_type, 'video/mp4');
    const file = await download(rec.download_url);
    assert.equal(file.status, 200);
    assert.equal(file.type, 'video/mp4');
    assert.equal(file.body.toString('latin1', 4, 8), 'ftyp');
    assert.equal(file.body.length, rec.byte_size);
    const recorded = phone.argvLog.find((argv) => argv[0] === 'screenrecord');
    assert.deepEqual(recorded?.slice(0, 3), ['screenrecord', '--time-limit', '1']);
    assert.equal(phone.fs.stat(recorded.at(-1)!), undefined, 'the recording is removed from the phone');
  });

  describe('uploads used by android_install_apk and android_push_file', () => {
    const upload = async (
      channelId: string,
      filename: string,
      data: Buffer,
      type = 'application/octet-stream',
    ): Promise<string> => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(data)], { type }), filename);
      const res = await fetch(`${rig.bridge.url}/files/uploads`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rig.bridge.apiKey}`, 'X-XAgent-Connector-Channel-ID': channelId },
        body: form,
      });
      assert.equal(res.status, 200, await res.clone().text());
      return String(((await res.json()) as { file_ref: string }).file_ref);
    };

    before(async () => {
      // Installing and pushing are high risk and ask a person by default; here the policy
      // allows them (a bridge without the policy API has no gate to open).
      const res = await rig.bridge.admin('PUT', '/admin/api/policies', {
        defaults: { install_app: 'allow', push_file: 'allow' },
        per_device: {},
        sensitive_apps: [],
      });
      assert.ok(res.status === 200 || res.status === 404, JSON.stringify(res.body));
    });

    test('an uploaded APK installs on the bound phone and is removed from its temp folder', async () => {
      const phone = rig.phones[0]!;
      const apk = Buffer.concat([
        Buffer.from([0x50, 0x4b, 0x03, 0x04]),
        Buffer.from('AndroidManifest.xml package=com.bench.sample '),
        Buffer.alloc(2048, 7),
      ]);
      const ref = await upload(channelA, 'sample.apk', apk, 'application/vnd.android.package-archive');
      phone.clearArgvLog();
      const installed = result(await invoke(client, channelA, 'android_install_apk', { file_ref: ref }));
      assert.equal(installed.status, 'installed');
      const pm = phone.argvLog.filter((argv) => argv[0] === 'pm' && argv[1] === 'install');
      assert.equal(pm.length, 1, JSON.stringify(pm));
      // For the user in front (0 on the simulated phone), not every user (#36 point 6).
      assert.deepEqual(pm[0]!.slice(0, 5), ['pm', 'install', '-r', '--user', '0']);
      assert.equal(installed.user, 0);
      assert.match(pm[0]![5]!, /^\/data\/local\/tmp\/xagent-[a-z0-9]+\.apk$/);
      assert.ok((await onPhone(phone, 'pm list packages -3')).includes('package:com.bench.sample'));
      assert.equal(phone.fs.stat(pm[0]![5]!), undefined, 'the staged APK is deleted');
    });

    test('push_file lands in Download only; a path that climbs out is refused', async () => {
      const phone = rig.phones[0]!;
      const data = Buffer.from('hello from the bridge\n');
      const ref = await upload(channelA, 'notes.txt', data, 'text/plain');
      const pushed = result(await invoke(client, channelA, 'android_push_file', { file_ref: ref }));
      assert.equal(pushed.path, '/sdcard/Download/notes.txt');
      assert.deepEqual(phone.fs.read('/sdcard/Download/notes.txt'), data);

      const before = phone.fs
        .list('/sdcard')
        ?.map((f) => f.name)
        .sort();
      for (const filename of ['../escaped.txt', '../../data/local/tmp/x', 'a/b.txt', '..\\x.txt']) {
        const refused = await invoke(client, channelA, 'android_push_file', { file_ref: ref, filename });
        assert.equal(refused.error?.code, 'invalid_arguments', filename);
      }
      assert.deepEqual(
        phone.fs
          .list('/sdcard')
          ?.map((f) => f.name)
          .sort(),
        before,
      );
      assert.equal(phone.fs.stat('/sdcard/escaped.txt'), undefined);

      // A name made only of dots cannot mean "the parent folder" either.
      const dots = result(await invoke(client, channelA, 'android_push_file', { file_ref: ref, filename: '..' }));
      assert.match(String(dots.path), /^\/sdcard\/Download\/[^/]+$/);
      assert.notEqual(dots.path, '/sdcard/Download/..');

      // An upload whose own name carries folders keeps only its base name.
      const sneaky = await upload(channelA, '../../sneaky.txt', data, 'text/plain');
      const landed = result(await invoke(client, channelA, 'android_push_file', { file_ref: sneaky }));
      assert.equal(landed.path, '/sdcard/Download/sneaky.txt');
    });

    test('a file uploaded for another channel is permission_denied and never reaches the phone', async () => {
      const phone = rig.phones[0]!;
      const ref = await upload(channelB, 'other.txt', Buffer.from('not yours'), 'text/plain');
      phone.clearArgvLog();
      const push = await invoke(client, channelA, 'android_push_file', { file_ref: ref });
      assert.equal(push.error?.code, 'permission_denied');
      const install = await invoke(client, channelA, 'android_install_apk', { file_ref: ref });
      assert.equal(install.error?.code, 'permission_denied');
      assert.equal(phone.fs.stat('/sdcard/Download/other.txt'), undefined);
      assert.ok(!phone.argvLog.some((argv) => argv[0] === 'pm'), JSON.stringify(phone.argvLog));
    });
  });

  test('a burst of 500 screenshots never takes the cache past its caps', async () => {
    const cacheDir = join(rig.bridge.dataDir, 'cache');
    const files = rig.bridge.core.files;
    let worst = { files: 0, bytes: 0, diskFiles: 0, diskBytes: 0 };
    const check = (): void => {
      const stats = files.stats();
      const disk = diskUsage(cacheDir);
      worst = {
        files: Math.max(worst.files, stats.files),
        bytes: Math.max(worst.bytes, stats.bytes),
        diskFiles: Math.max(worst.diskFiles, disk.files),
        diskBytes: Math.max(worst.diskBytes, disk.bytes),
      };
    };
    const watcher = setInterval(check, 2);
    const refs = new Set<string>();
    try {
      // A different max_side per call: every capture is a new image and a new file.
      const total = 500;
      let next = 0;
      const worker = async (channel: string): Promise<void> => {
        while (next < total) {
          const i = next++;
          const shot = result(await invoke(client, channel, 'android_screenshot', { max_side: 160 + i, quality: 30 }));
          refs.add(shot.file_ref);
          check();
        }
      };
      // Two phones, four concurrent callers each (their observation concurrency).
      await Promise.all(
        [channelA, channelA, channelA, channelA, channelB, channelB, channelB, channelB].map((c) => worker(c)),
      );
    } finally {
      clearInterval(watcher);
    }
    check();
    assert.equal(refs.size, 500, 'every call stored a new file');
    assert.ok(worst.files <= CACHE_LIMITS.maxFiles, `cache held ${worst.files} files`);
    assert.ok(worst.bytes <= CACHE_LIMITS.maxBytes, `cache held ${worst.bytes} bytes`);
    assert.ok(worst.diskFiles <= CACHE_LIMITS.maxFiles, `cache dir held ${worst.diskFiles} files`);
    assert.ok(worst.diskBytes <= CACHE_LIMITS.maxBytes, `cache dir held ${worst.diskBytes} bytes`);
    const final = diskUsage(cacheDir);
    assert.ok(final.files <= CACHE_LIMITS.maxFiles && final.bytes <= CACHE_LIMITS.maxBytes, JSON.stringify(final));
    assert.equal(files.stats().files, final.files);
    // The newest file is still served; the oldest was evicted (404).
    const newest = [...refs].pop()!;
    assert.ok(files.get(newest));
    assert.equal(files.get([...refs][0]!), undefined);
  });
});

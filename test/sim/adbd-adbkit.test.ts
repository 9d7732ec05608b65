// The simulated adbd through @devicefarmer/adbkit (what the bridge itself uses) and the real
// adb server: shell, properties, sync push/pull/stat/readdir, and against the full simulated
// phone: screencap, install, getProperties.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Adb from '@devicefarmer/adbkit';
import { AdbdServer } from '../../main/sim/adbd-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { startAdbServer } from '../helpers/adb-server';
import type { AdbServerRig } from '../helpers/adb-server';
import { FakePhone, bigPattern } from '../helpers/fake-phone';
import sharp from 'sharp';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { WALLET_HEADER_RGB, headerProbePoint } from '../../main/sim/screen/colors';

async function collect(stream: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => parts.push(chunk));
  await once(stream, 'end', { signal: AbortSignal.timeout(20_000) });
  return Buffer.concat(parts);
}

void describe('adbkit against a simulated phone', () => {
  let rig: AdbServerRig;
  let phone: FakePhone;
  let server: AdbdServer;
  let serial: string;

  before(async () => {
    rig = await startAdbServer();
    phone = new FakePhone({ model: 'Kit_Model', serial: 'KIT123' });
    server = await AdbdServer.start({ phone });
    serial = await attachToAdb(rig, server.port);
  });
  after(async () => {
    await server?.close();
    await rig?.stop();
  });

  const device = () => Adb.createClient({ host: rig.host, port: rig.port }).getDevice(serial);

  void test('listDevices shows the phone as device', async () => {
    const devices = await Adb.createClient({ host: rig.host, port: rig.port }).listDevices();
    assert.deepEqual(
      devices.map((d) => [d.id, d.type]),
      [[serial, 'device']],
    );
  });

  void test('shell("echo hi") reads back hi', async () => {
    const output = await Adb.util.readAll(await device().shell('echo hi'));
    assert.equal(output.toString(), 'hi\n');
  });

  void test('shell output of several MiB arrives intact', async () => {
    const output = await Adb.util.readAll(await device().shell('big 3000000'));
    assert.ok(output.equals(bigPattern(3_000_000)));
  });

  void test("getProperties parses the phone's getprop", async () => {
    const props = await device().getProperties();
    assert.equal(props['ro.product.model'], 'Kit_Model');
    assert.equal(props['ro.serialno'], 'KIT123');
  });

  void test('push then pull round-trips 2 MiB; stat and readdir see the file', async () => {
    const content = randomBytes(2 * 1024 * 1024 + 3);
    const source = new PassThrough();
    source.end(content);
    const push = await device().push(source, '/sdcard/kit/blob.bin', 0o600);
    await once(push, 'end', { signal: AbortSignal.timeout(20_000) });
    assert.ok(phone.fs.read('/sdcard/kit/blob.bin')?.equals(content));
    assert.equal((phone.fs.stat('/sdcard/kit/blob.bin')?.mode ?? 0) & 0o777, 0o600);

    const pulled = await collect(await device().pull('/sdcard/kit/blob.bin'));
    assert.ok(pulled.equals(content));

    const stats = await device().stat('/sdcard/kit/blob.bin');
    assert.ok(stats.isFile());
    assert.equal(Number(stats.size), content.length);
    const entries = await device().readdir('/sdcard/kit');
    assert.deepEqual(
      entries.map((e) => [e.name, e.size]),
      [['blob.bin', content.length]],
    );
  });

  void test('stat of a missing file rejects with ENOENT; pull of it errors', async () => {
    await assert.rejects(device().stat('/sdcard/missing'), (error: NodeJS.ErrnoException) => error.code === 'ENOENT');
    const transfer = await device().pull('/sdcard/missing');
    const [error] = (await once(transfer, 'error', { signal: AbortSignal.timeout(10_000) })) as [Error];
    assert.match(error.message, /No such file or directory/);
  });
});

void describe('adbkit against the full simulated phone: screencap, install, properties', () => {
  let rig: AdbServerRig;
  let phone: SimulatedPhone;
  let server: AdbdServer;
  let serial: string;

  before(async () => {
    rig = await startAdbServer();
    phone = createSimulatedPhone({
      serial: 'KITSIM042',
      model: 'Pixel 7',
      screen: { width: 720, height: 1600, density: 320 },
    });
    server = await AdbdServer.start({ phone });
    serial = await attachToAdb(rig, server.port);
  });
  after(async () => {
    await server?.close();
    phone?.close();
    await rig?.stop();
  });

  const device = () => Adb.createClient({ host: rig.host, port: rig.port }).getDevice(serial);

  void test('getProperties reads the simulated phone’s identity', async () => {
    const props = await device().getProperties();
    assert.equal(props['ro.product.model'], 'Pixel 7');
    assert.equal(props['ro.product.manufacturer'], 'Google');
    assert.equal(props['ro.build.version.release'], '14');
    assert.equal(props['ro.build.version.sdk'], '34');
    assert.equal(props['ro.serialno'], 'KITSIM042');
  });

  void test('screencap() is a PNG of the screen size showing the front app', async () => {
    await Adb.util.readAll(await device().shell('monkey -p com.example.wallet -c android.intent.category.LAUNCHER 1'));
    assert.equal(phone.foregroundPackage(), 'com.example.wallet');
    const png = await Adb.util.readAll(await device().screencap());
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [720, 1600]);
    const { x, y } = headerProbePoint({ width: 720, height: 1600, density: 320 });
    const at = (y * info.width + x) * info.channels;
    assert.deepEqual([data[at], data[at + 1], data[at + 2]], [...WALLET_HEADER_RGB]);
  });

  void test('install(stream) pushes the APK and pm installs it; a non-APK is refused', async () => {
    // The simulated package manager accepts a ZIP whose manifest text names the package.
    const apk = Buffer.concat([
      Buffer.from([0x50, 0x4b, 0x03, 0x04]),
      Buffer.from('AndroidManifest.xml package=com.example.kitapp '),
      randomBytes(4096),
    ]);
    const source = new PassThrough();
    source.end(apk);
    phone.clearArgvLog();
    assert.equal(await device().install(source), true);
    assert.ok(
      phone.argvLog.some((argv) => argv[0] === 'pm' && argv[1] === 'install'),
      JSON.stringify(phone.argvLog),
    );
    assert.equal(await device().isInstalled('com.example.kitapp'), true);
    const third = (await Adb.util.readAll(await device().shell('pm list packages -3'))).toString();
    assert.match(third, /^package:com\.example\.kitapp$/m);

    const junk = new PassThrough();
    junk.end(Buffer.from('not a zip at all'));
    await assert.rejects(device().install(junk), /INSTALL_PARSE_FAILED_NOT_APK/);
  });

  void test('pull of a uiautomator dump written on the phone', async () => {
    await Adb.util.readAll(await device().shell('uiautomator dump /sdcard/kit.xml'));
    const xml = (await collect(await device().pull('/sdcard/kit.xml'))).toString('utf8');
    assert.ok(xml.startsWith("<?xml version='1.0'"), xml.slice(0, 60));
    assert.match(xml, /resource-id="com\.example\.wallet:id\//);
  });
});

// The simulated adbd through @devicefarmer/adbkit (what the bridge itself uses) and the real
// adb server: shell, properties, sync push/pull/stat/readdir.
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

  void test('getProperties parses the phone\'s getprop', async () => {
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

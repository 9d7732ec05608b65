// The simulated adbd against the REAL adb server and the REAL adb CLI (Debian adb 1.0.41):
// what a user of `adb` sees, including auth, offline/online and dropped connections.
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AdbdServer } from '../../main/sim/adbd-server';
import { hostConnect, hostDevices, waitForDeviceStates } from '../../main/sim/adb-host-client';
import { attachToAdb, reattachToAdb, serialForPort } from '../../main/sim/sim-farm';
import { startAdbServer, runAdb } from '../helpers/adb-server';
import type { AdbServerRig } from '../helpers/adb-server';
import { FakePhone, bigPattern } from '../helpers/fake-phone';

const wait = (): { signal: AbortSignal } => ({ signal: AbortSignal.timeout(15_000) });

void describe('adb CLI against a simulated phone', () => {
  let rig: AdbServerRig;
  let phone: FakePhone;
  let server: AdbdServer;
  let serial: string;
  let scratch: string;
  const adb = (...args: string[]) => runAdb(rig, ['-s', serial, ...args]);

  before(async () => {
    rig = await startAdbServer();
    phone = new FakePhone({ model: 'Pixel_Sim' });
    server = await AdbdServer.start({ phone });
    serial = await attachToAdb(rig, server.port);
    scratch = mkdtempSync(join(tmpdir(), 'adbd-cli-'));
  });
  after(async () => {
    await server?.close();
    await rig?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  void test('adb devices -l lists the phone as device with its model', async () => {
    const { stdout, code } = await runAdb(rig, ['devices', '-l']);
    assert.equal(code, 0);
    const line = stdout
      .toString()
      .split('\n')
      .find((l) => l.startsWith(`${serial} `));
    assert.ok(line, stdout.toString());
    assert.match(line, /\sdevice\s/);
    assert.match(line, /model:Pixel_Sim/);
    assert.match(line, /product:fake_product/);
  });

  void test('adb shell echo hi prints hi', async () => {
    const { stdout, code } = await adb('shell', 'echo', 'hi');
    assert.equal(code, 0);
    assert.equal(stdout.toString(), 'hi\n');
    assert.equal(phone.commands.at(-1), 'echo hi');
  });

  void test('adb shell propagates the exit code and keeps stderr apart (shell v2)', async () => {
    const exit = await adb('shell', 'exit', '7');
    assert.equal(exit.code, 7);
    const failing = await adb('shell', 'fail-stderr', 'broken', 'pipe');
    assert.equal(failing.code, 3);
    assert.equal(failing.stdout.length, 0);
    assert.equal(failing.stderr, 'broken pipe\n');
  });

  void test('adb exec-out big 5000000 returns exactly those bytes (flow control)', async () => {
    const { stdout, code } = await adb('exec-out', 'big', '5000000');
    assert.equal(code, 0);
    assert.equal(stdout.length, 5_000_000);
    assert.ok(stdout.equals(bigPattern(5_000_000)));
  });

  void test('adb push 3 MB then adb pull returns identical bytes; shell sees the file', async () => {
    const content = randomBytes(3 * 1024 * 1024 + 17);
    const local = join(scratch, 'upload.bin');
    writeFileSync(local, content);
    const push = await adb('push', local, '/sdcard/Download/new/upload.bin');
    assert.equal(push.code, 0, push.stderr);
    assert.ok(phone.fs.read('/sdcard/Download/new/upload.bin')?.equals(content));
    assert.equal(phone.fs.stat('/sdcard/Download/new/upload.bin')?.size, content.length);

    const back = join(scratch, 'download.bin');
    const pull = await adb('pull', '/sdcard/Download/new/upload.bin', back);
    assert.equal(pull.code, 0, pull.stderr);
    assert.ok(readFileSync(back).equals(content));

    const cat = await adb('exec-out', 'cat', '/sdcard/Download/new/upload.bin');
    assert.ok(cat.stdout.equals(content));
    const ls = await adb('shell', 'ls', '/sdcard/Download/new');
    assert.equal(ls.stdout.toString(), 'upload.bin\n');
  });

  void test('adb push into a folder keeps the name; adb ls lists it with size', async () => {
    const local = join(scratch, 'note.txt');
    writeFileSync(local, 'hello phone\n');
    const push = await adb('push', local, '/data/local/tmp/');
    assert.equal(push.code, 0, push.stderr);
    assert.equal(phone.fs.read('/data/local/tmp/note.txt')?.toString(), 'hello phone\n');
    const ls = await adb('ls', '/data/local/tmp');
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout.toString(), /^[0-9a-f]{8} 0000000c [0-9a-f]{8} note\.txt$/m);
  });

  void test("adb pull of a missing file fails with the phone's message", async () => {
    const pull = await adb('pull', '/sdcard/nope.bin', join(scratch, 'nope.bin'));
    assert.notEqual(pull.code, 0);
    // adb 1.0.41 prints sync errors on stdout.
    assert.match(pull.stdout.toString() + pull.stderr, /No such file or directory/);
  });

  void test('killing the adb client aborts the hung command on the phone', async () => {
    const started = once(phone.events, 'exec-start', wait());
    const child = spawn('adb', ['-P', String(rig.port), '-s', serial, 'shell', 'sleep-forever'], {
      env: rig.env,
      stdio: 'ignore',
    });
    const exited = once(child, 'exit', wait());
    await started;
    const ended = once(phone.events, 'exec-end', wait());
    child.kill('SIGKILL');
    await exited;
    await ended;
    assert.equal(phone.running, 0);
  });

  void test('malformed bytes on another connection do not disturb the phone adb uses', async () => {
    const socket = connect({ host: '127.0.0.1', port: server.port });
    await once(socket, 'connect', wait());
    const closed = once(socket, 'close', wait());
    socket.on('error', () => undefined);
    socket.write(Buffer.concat([Buffer.from('CNXN'), randomBytes(60)]));
    await closed;
    const { stdout } = await adb('shell', 'echo', 'unharmed');
    assert.equal(stdout.toString(), 'unharmed\n');
  });

  void test('dropped connections: adb marks the phone offline and reconnects by itself', async () => {
    const online = once(server, 'online', wait());
    server.dropConnections();
    // adb 1.0.41 retries a lost TCP device once straight away: no reattach needed here.
    await online;
    await waitForDeviceStates(rig, [serial], 'device');
    assert.equal((await adb('shell', 'echo', 'back')).stdout.toString(), 'back\n');
  });

  void test('a stream cut midway fails that command only; the phone comes back', async () => {
    server.dropNextStreamMidway();
    const online = once(server, 'online', wait());
    const cut = await adb('exec-out', 'big', '1000000');
    assert.ok(cut.stdout.length < 1_000_000, `got ${cut.stdout.length} bytes`);
    await online;
    await waitForDeviceStates(rig, [serial], 'device');
    assert.ok((await adb('exec-out', 'big', '1000000')).stdout.equals(bigPattern(1_000_000)));
  });

  void test('goOffline: adb no longer lists it as device; goOnline + reattach: device again', async () => {
    await server.goOffline();
    const port = server.port;
    await waitForDeviceStates(rig, [serial], (state) => state !== 'device');
    const failed = await adb('shell', 'echo', 'x');
    assert.notEqual(failed.code, 0);

    await server.goOnline();
    assert.equal(server.port, port);
    await reattachToAdb(rig, server.port);
    assert.equal((await adb('shell', 'echo', 'returned')).stdout.toString(), 'returned\n');
  });
});

void describe('an unauthorized phone', () => {
  void test('shows as unauthorized, refuses commands, and becomes device after authorize()', async (t) => {
    const rig = await startAdbServer();
    t.after(() => rig.stop());
    const server = await AdbdServer.start({ phone: new FakePhone(), unauthorized: true });
    t.after(() => server.close());
    const serial = serialForPort(server.port);

    const prompt = once(server, 'auth-prompt', wait());
    // adb answers "failed to authenticate", but the device stays attached as unauthorized.
    assert.match(await hostConnect(rig, serial), /failed to authenticate/);
    await prompt;
    await waitForDeviceStates(rig, [serial], 'unauthorized');
    const refused = await runAdb(rig, ['-s', serial, 'shell', 'echo', 'hi']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /unauthorized/);

    server.authorize();
    await waitForDeviceStates(rig, [serial], 'device');
    assert.equal((await runAdb(rig, ['-s', serial, 'shell', 'echo', 'hi'])).stdout.toString(), 'hi\n');

    // Revoking drops the connection; adb's immediate reconnect meets the prompt again.
    const again = once(server, 'auth-prompt', wait());
    server.setUnauthorized(true);
    await again;
    await waitForDeviceStates(rig, [serial], 'unauthorized');
    assert.deepEqual(
      (await hostDevices(rig)).map((d) => [d.serial, d.state]),
      [[serial, 'unauthorized']],
    );
  });
});

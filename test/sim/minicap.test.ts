// Simulated phones run minicap as real phones do, through the real adb server and adbkit (what
// the bridge uses): the package's files pushed with sync, chmod, started by `adb shell`, its
// socket opened with `localabstract:minicap`; the banner, frames only on screen changes, kill,
// and the ways minicap fails (wrong ABI, missing or wrong library, no library for the SDK, a
// segfaulting phone, secure windows, rotation).
import { once } from 'node:events';
import type { Duplex } from 'node:stream';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Adb from '@devicefarmer/adbkit';
import sharp from 'sharp';
import { getPrebuilt } from '@u4/minicap-prebuilt';
import { AdbdServer } from '../../main/sim/adbd-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';

const DEADLINE_MS = 20_000;
const TMP = '/data/local/tmp';
const NATIVE_START = `LD_LIBRARY_PATH=${TMP} ${TMP}/minicap -P 1080x2400@540x1200/0`;

/** Reads exact byte counts from a stream, each read with a deadline. */
class ByteReader {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(readonly stream: Duplex) {
    stream.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake?.();
    });
    const end = (): void => {
      this.ended = true;
      this.wake?.();
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  get available(): number {
    return this.buffered.length;
  }

  /** `length` bytes, or undefined when the stream ends first. */
  async read(length: number, timeoutMs = DEADLINE_MS): Promise<Buffer | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.buffered.length < length) {
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${length} bytes (have ${this.buffered.length})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
    const out = this.buffered.subarray(0, length);
    this.buffered = this.buffered.subarray(length);
    return out;
  }

  /** Resolves when the stream has ended (the far side closed it). */
  async untilEnd(timeoutMs = DEADLINE_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for the stream to end');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }
}

interface Banner {
  version: number;
  size: number;
  pid: number;
  realWidth: number;
  realHeight: number;
  virtualWidth: number;
  virtualHeight: number;
  orientation: number;
  quirks: number;
}

async function readBanner(reader: ByteReader): Promise<Banner> {
  const b = await reader.read(24);
  assert.ok(b, 'the socket closed before the banner');
  return {
    version: b.readUInt8(0),
    size: b.readUInt8(1),
    pid: b.readUInt32LE(2),
    realWidth: b.readUInt32LE(6),
    realHeight: b.readUInt32LE(10),
    virtualWidth: b.readUInt32LE(14),
    virtualHeight: b.readUInt32LE(18),
    orientation: b.readUInt8(22),
    quirks: b.readUInt8(23),
  };
}

async function readFrame(reader: ByteReader): Promise<Buffer | undefined> {
  const header = await reader.read(4);
  if (!header) return undefined;
  return reader.read(header.readUInt32LE(0));
}

async function jpegInfo(jpeg: Buffer): Promise<{ width: number; height: number; format: string; mean: number }> {
  const meta = await sharp(jpeg).metadata();
  const stats = await sharp(jpeg).stats();
  const mean = stats.channels.slice(0, 3).reduce((sum, c) => sum + c.mean, 0) / 3;
  return { width: meta.width ?? 0, height: meta.height ?? 0, format: meta.format ?? '', mean };
}

void describe('minicap on simulated phones', () => {
  let rig: AdbServerRig;
  const started: Array<{ server: AdbdServer; phone: SimulatedPhone }> = [];

  before(async () => {
    rig = await startAdbServer();
  });
  after(async () => {
    for (const { server, phone } of started) {
      phone.close();
      await server.close();
    }
    await rig?.stop();
  });

  const client = () => Adb.createClient({ host: rig.host, port: rig.port });

  async function newPhone(options: Partial<SimulatedPhoneOptions> & { serial: string }) {
    const phone = createSimulatedPhone(options);
    const server = await AdbdServer.start({ phone });
    started.push({ server, phone });
    const serial = await attachToAdb(rig, server.port);
    return { phone, device: client().getDevice(serial) };
  }

  type Device = ReturnType<ReturnType<typeof client>['getDevice']>;

  async function shell(device: Device, command: string): Promise<string> {
    return (await Adb.util.readAll(await device.shell(command))).toString();
  }

  async function push(device: Device, prebuilt: string, remote: string): Promise<void> {
    const transfer = await device.push(getPrebuilt(prebuilt), remote, 0o644);
    await once(transfer, 'end', { signal: AbortSignal.timeout(DEADLINE_MS) });
  }

  /** Pushes the binary and library as a bridge would, and makes the binary executable. */
  async function installNative(device: Device, abi: string, sdk: number): Promise<void> {
    await push(device, `${abi}/bin/minicap`, `${TMP}/minicap`);
    await push(device, `${abi}/lib/android-${sdk}/minicap.so`, `${TMP}/minicap.so`);
    assert.equal(await shell(device, `chmod 755 ${TMP}/minicap`), '');
  }

  /** Starts minicap in the foreground of an adb shell and resolves once its socket listens. */
  async function startMinicap(phone: SimulatedPhone, device: Device, command: string) {
    const listening = once(phone.processes.events, 'listen', { signal: AbortSignal.timeout(DEADLINE_MS) });
    const session = new ByteReader(await device.shell(command));
    const [name, pid] = (await listening) as [string, number];
    return { session, name, pid };
  }

  async function connect(device: Device, name = 'minicap'): Promise<ByteReader> {
    return new ByteReader(await device.openLocal(`localabstract:${name}`));
  }

  void test('native minicap (Android 11, arm64): banner, first frame at the virtual size, frames only on change, kill', async () => {
    const { phone, device } = await newPhone({ serial: 'MINICAP30', sdk: 30, androidVersion: '11' });
    await installNative(device, 'arm64-v8a', 30);
    const localSha = (await shell(device, `sha256sum ${TMP}/minicap.so`)).split(/\s+/)[0];
    assert.match(localSha ?? '', /^[0-9a-f]{64}$/);

    const { session, pid } = await startMinicap(phone, device, NATIVE_START);
    assert.match(await shell(device, 'pidof minicap'), new RegExp(`^${pid}\\n$`));
    assert.match(await shell(device, 'ps -A'), new RegExp(`\\s${pid}\\s.*\\sminicap\\n`));

    const stream = await connect(device);
    const banner = await readBanner(stream);
    assert.deepEqual(banner, {
      version: 1,
      size: 24,
      pid,
      realWidth: 1080,
      realHeight: 2400,
      virtualWidth: 540,
      virtualHeight: 1200,
      orientation: 0,
      quirks: 2,
    });
    const first = await readFrame(stream);
    assert.ok(first);
    const info = await jpegInfo(first);
    assert.deepEqual([info.format, info.width, info.height], ['jpeg', 540, 1200]);

    // No frame while the screen stays; the next frame is the changed screen (the notes app).
    const rendersBefore = phone.renderCount();
    await shell(device, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    const next = await readFrame(stream);
    assert.ok(next);
    assert.ok(!next.equals(first), 'the frame after a change shows the new screen');
    assert.ok(phone.renderCount() > rendersBefore);
    // Composed straight at the projection's size, it is the screen screencap shows, scaled.
    const png = await Adb.util.readAll(await device.shell('screencap -p'));
    const size = { width: 540, height: 1200 };
    const [streamed, captured] = await Promise.all(
      [next, png].map((image) =>
        sharp(image).resize(size.width, size.height, { fit: 'fill' }).removeAlpha().raw().toBuffer(),
      ),
    );
    assert.ok(streamed && captured);
    let difference = 0;
    for (let i = 0; i < streamed.length; i++) difference += Math.abs((streamed[i] ?? 0) - (captured[i] ?? 0));
    assert.ok(difference / streamed.length < 4, `mean difference per channel ${difference / streamed.length}`);

    assert.equal(await shell(device, `kill ${pid}`), '');
    await stream.untilEnd();
    await session.untilEnd();
    assert.equal(await shell(device, 'pidof minicap; echo $?'), '1\n');
    await assert.rejects(
      connect(device).then((r) => r.read(1, 5_000)),
      'nothing listens after the kill',
    );
  });

  void test('-t prints OK, -i prints the display as JSON, -h the usage; a bad -P is refused', async () => {
    const { device } = await newPhone({ serial: 'MINICAPOPTS', sdk: 30, androidVersion: '11' });
    await installNative(device, 'arm64-v8a', 30);
    assert.equal(await shell(device, `${NATIVE_START} -t 2>/dev/null; echo $?`), 'OK\n0\n');
    const info = JSON.parse(await shell(device, `LD_LIBRARY_PATH=${TMP} ${TMP}/minicap -i`)) as Record<string, unknown>;
    assert.deepEqual([info.width, info.height, info.rotation, info.secure], [1080, 2400, 0, true]);
    assert.match(
      await shell(device, `LD_LIBRARY_PATH=${TMP} ${TMP}/minicap -h 2>&1`),
      /^Usage: \/data\/local\/tmp\/minicap \[-h\] \[-n <name>\]\n/,
    );
    assert.equal(
      await shell(device, `LD_LIBRARY_PATH=${TMP} ${TMP}/minicap -P 1080x2400 2>&1; echo $?`),
      'ERROR: invalid format for -P, need <w>x<h>@<w>x<h>/{0|90|180|270}\n1\n',
    );
  });

  void test('wrong ABI, no library, a library for another SDK or bitness: the real linker and shell errors', async () => {
    const { device } = await newPhone({ serial: 'MINICAPFAIL', sdk: 34, androidVersion: '14' });
    await push(device, 'x86_64/bin/minicap', `${TMP}/minicap`);
    assert.equal(
      await shell(device, `${NATIVE_START} 2>&1; echo $?`),
      `/system/bin/sh: ${TMP}/minicap: can't execute: Permission denied\n126\n`,
    );
    await shell(device, `chmod 755 ${TMP}/minicap`);
    assert.equal(
      await shell(device, `${NATIVE_START} 2>&1; echo $?`),
      `/system/bin/sh: ${TMP}/minicap: not executable: 64-bit ELF file\n126\n`,
    );
    await push(device, 'arm64-v8a/bin/minicap', `${TMP}/minicap`);
    await shell(device, `chmod 755 ${TMP}/minicap`);
    assert.equal(
      await shell(device, `${NATIVE_START} 2>&1; echo $?`),
      `CANNOT LINK EXECUTABLE "${TMP}/minicap": library "minicap.so" not found\n1\n`,
    );
    // Android 14 has no minicap.so in the package: the nearest one does not link.
    await push(device, 'arm64-v8a/lib/android-32/minicap.so', `${TMP}/minicap.so`);
    assert.match(
      await shell(device, `${NATIVE_START} 2>&1; echo $?`),
      /^CANNOT LINK EXECUTABLE "\/data\/local\/tmp\/minicap": cannot locate symbol "\S+" referenced by "\/data\/local\/tmp\/minicap.so"\.\.\.\n1\n$/,
    );
    await push(device, 'armeabi-v7a/lib/android-32/minicap.so', `${TMP}/minicap.so`);
    assert.equal(
      await shell(device, `${NATIVE_START} 2>&1; echo $?`),
      `CANNOT LINK EXECUTABLE "${TMP}/minicap": "${TMP}/minicap.so" is 32-bit instead of 64-bit\n1\n`,
    );
    assert.equal(await shell(device, 'pidof minicap; echo $?'), '1\n');
  });

  void test('the APK through app_process (Android 14): banner, frames, a FLAG_SECURE window is black', async () => {
    const { phone, device } = await newPhone({ serial: 'MINICAPAPK', sdk: 34 });
    await push(device, 'noarch/minicap.apk', `${TMP}/minicap.apk`);
    const { session, pid } = await startMinicap(
      phone,
      device,
      `CLASSPATH=${TMP}/minicap.apk app_process /system/bin io.devicefarmer.minicap.Main -P 1080x2400@540x1200/0`,
    );
    assert.equal(await shell(device, 'pidof app_process'), `${pid}\n`);
    const stream = await connect(device);
    const banner = await readBanner(stream);
    assert.deepEqual(
      [banner.pid, banner.realWidth, banner.realHeight, banner.virtualWidth, banner.virtualHeight, banner.quirks],
      [pid, 1080, 2400, 540, 1200, 2],
    );
    const first = await readFrame(stream);
    assert.ok(first);
    assert.deepEqual((await jpegInfo(first)).width, 540);
    assert.ok((await jpegInfo(first)).mean > 10, 'the home screen is not black');

    // The wallet's confirmation is FLAG_SECURE: on Android 12+ minicap's display is not secure.
    await shell(device, 'monkey -p com.example.wallet -c android.intent.category.LAUNCHER 1');
    await readFrame(stream);
    phone.screenState(); // the wallet in front
    const dump = await shell(device, 'uiautomator dump /dev/tty');
    const pay = /text="Pay \$25\.00"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(dump);
    assert.ok(pay, 'the pay button is on screen');
    await shell(device, `input tap ${Number(pay[1]) + 2} ${Number(pay[2]) + 2}`);
    assert.equal(phone.screenState().secure, true);
    const secure = await readFrame(stream);
    assert.ok(secure);
    assert.ok((await jpegInfo(secure)).mean < 1, 'a secure window streams black');

    assert.equal(await shell(device, `kill -9 ${pid}`), '');
    await stream.untilEnd();
    await session.untilEnd();
  });

  void test('minicap-segfault quirk: -t crashes, and a stream dies after a few frames', async () => {
    const { phone, device } = await newPhone({
      serial: 'MINICAPSEGV',
      sdk: 30,
      androidVersion: '11',
      quirks: ['minicap-segfault'],
    });
    await installNative(device, 'arm64-v8a', 30);
    assert.equal(await shell(device, `${NATIVE_START} -t 2>&1 | tail -1; echo $?`), 'Segmentation fault \n0\n');
    const { session } = await startMinicap(phone, device, `${NATIVE_START} -S`);
    const stream = await connect(device);
    await readBanner(stream);
    let frames = 0;
    for (let i = 0; i < 10; i++) {
      const frame = await readFrame(stream);
      if (!frame) break;
      frames++;
      await shell(device, `input keyevent ${i % 2 === 0 ? 'KEYCODE_APP_SWITCH' : 'KEYCODE_HOME'}`);
    }
    assert.equal(frames, 3, 'three frames, then the socket closes mid-stream');
    await session.untilEnd();
    assert.equal(await shell(device, 'pidof minicap; echo $?'), '1\n');
  });

  void test('one client at a time; closing the adb shell ends a foreground minicap, nohup … & outlives it', async () => {
    const { phone, device } = await newPhone({ serial: 'MINICAPLIFE', sdk: 30, androidVersion: '11' });
    await installNative(device, 'arm64-v8a', 30);
    const { session, pid } = await startMinicap(phone, device, NATIVE_START);
    const a = await connect(device);
    await readBanner(a);
    const b = await connect(device);
    assert.ok(await readFrame(a));
    assert.equal(b.available, 0, 'the second client waits in the backlog');
    const exited = once(phone.processes.events, 'exit', { signal: AbortSignal.timeout(DEADLINE_MS) });
    session.stream.destroy();
    assert.deepEqual((await exited)[0], pid, 'adbd hangs up the shell: minicap ends with it');
    await a.untilEnd();
    await b.untilEnd();

    const listening = once(phone.processes.events, 'listen', { signal: AbortSignal.timeout(DEADLINE_MS) });
    assert.equal(
      await shell(device, `LD_LIBRARY_PATH=${TMP} nohup ${TMP}/minicap -P 1080x2400@540x1200/0 >/dev/null 2>&1 &`),
      '',
    );
    const [, detachedPid] = (await listening) as [string, number];
    assert.equal(await shell(device, 'pidof minicap'), `${detachedPid}\n`, 'still running after its shell closed');
    const c = await connect(device);
    assert.equal((await readBanner(c)).pid, detachedPid);
    await shell(device, `kill ${detachedPid}`);
    await c.untilEnd();
  });

  void test('rotation while running: the banner and frame keep the -P orientation (restart minicap to follow it)', async () => {
    const { phone, device } = await newPhone({ serial: 'MINICAPROT', sdk: 30, androidVersion: '11' });
    await installNative(device, 'arm64-v8a', 30);
    await startMinicap(phone, device, NATIVE_START);
    const stream = await connect(device);
    await readBanner(stream);
    await readFrame(stream);
    phone.setQuirks(['landscape']);
    const turned = await readFrame(stream);
    assert.ok(turned);
    const info = await jpegInfo(turned);
    assert.deepEqual([info.width, info.height], [540, 1200], 'still the portrait projection');
    // The landscape screen is cropped into the portrait layer stack: the bottom is black.
    const bottom = await sharp(
      await sharp(turned).extract({ left: 0, top: 700, width: 540, height: 500 }).toBuffer(),
    ).stats();
    assert.ok(
      bottom.channels.slice(0, 3).every((c) => c.mean < 2),
      'below the landscape content is black',
    );
  });
});

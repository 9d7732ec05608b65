// The full simulated phone (screen, apps, commands) driven through the REAL adb CLI and the
// real adb server, as a person would: getprop, screencap -p, uiautomator dump (to the
// terminal and to a file + pull), input text with quotes, and an unknown command.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { AdbdServer } from '../../main/sim/adbd-server';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { attachToAdb } from '../../main/sim/sim-farm';
import { NOTES_HEADER_RGB, LAUNCHER_WALLPAPER_RGB, headerProbePoint } from '../../main/sim/screen/colors';
import { startAdbServer, runAdb } from '../helpers/adb-server';
import type { AdbServerRig } from '../helpers/adb-server';
import { center, findNode, parseDump } from './phone-test-kit';

const SIZE = { width: 720, height: 1600, density: 320 };

void describe('adb CLI commands against the full simulated phone', () => {
  let rig: AdbServerRig;
  let phone: SimulatedPhone;
  let server: AdbdServer;
  let serial: string;
  let scratch: string;
  const adb = (...args: string[]) => runAdb(rig, ['-s', serial, ...args]);

  before(async () => {
    rig = await startAdbServer();
    phone = createSimulatedPhone({ serial: 'CLICMD0001', model: 'Pixel 8', screen: SIZE });
    server = await AdbdServer.start({ phone });
    serial = await attachToAdb(rig, server.port);
    scratch = mkdtempSync(join(tmpdir(), 'adbd-cli-cmd-'));
  });
  after(async () => {
    await server?.close();
    phone?.close();
    await rig?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  void test('adb shell getprop ro.product.model prints the model', async () => {
    const r = await adb('shell', 'getprop', 'ro.product.model');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'Pixel 8\n');
    assert.deepEqual(phone.argvLog.at(-1), ['getprop', 'ro.product.model']);
  });

  void test('adb exec-out screencap -p is a PNG of the phone’s size showing the screen', async () => {
    // Home screen first: the launcher wallpaper fills the bottom band above the nav bar.
    phone.clearArgvLog();
    const home = await adb('exec-out', 'screencap', '-p');
    assert.equal(home.code, 0, home.stderr);
    assert.ok(
      home.stdout.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
      'PNG signature',
    );
    const meta = await sharp(home.stdout).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['png', SIZE.width, SIZE.height]);
    assert.deepEqual(phone.argvLog, [['screencap', '-p']]);
    assert.equal(phone.screenState().package, phone.foregroundPackage());

    const launched = await adb(
      'shell',
      'monkey',
      '-p',
      'com.example.notes',
      '-c',
      'android.intent.category.LAUNCHER',
      '1',
    );
    assert.equal(launched.code, 0, launched.stderr);
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    const notes = await adb('exec-out', 'screencap', '-p');
    const { data, info } = await sharp(notes.stdout).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [SIZE.width, SIZE.height]);
    const pixel = (x: number, y: number): number[] => {
      const at = (y * info.width + x) * info.channels;
      return [data[at] ?? -1, data[at + 1] ?? -1, data[at + 2] ?? -1];
    };
    const probe = headerProbePoint(SIZE);
    assert.deepEqual(
      pixel(probe.x, probe.y),
      [...NOTES_HEADER_RGB],
      'the notes app’s toolbar colour is where it is drawn',
    );
    // The home screen’s wallpaper is no longer what the screenshot shows.
    const homePixels = await sharp(home.stdout).raw().toBuffer();
    const homeAt = (probe.y * info.width + probe.x) * info.channels;
    assert.deepEqual([homePixels[homeAt], homePixels[homeAt + 1], homePixels[homeAt + 2]], [...LAUNCHER_WALLPAPER_RGB]);
  });

  void test('adb shell uiautomator dump /dev/tty prints the XML hierarchy of the screen', async () => {
    const r = await adb('shell', 'uiautomator', 'dump', '/dev/tty');
    assert.equal(r.code, 0, r.stderr);
    const text = r.stdout.toString();
    assert.match(text, /^<\?xml version='1\.0' encoding='UTF-8' standalone='yes' \?><hierarchy rotation="0">/);
    assert.ok(text.endsWith('</hierarchy>UI hierchary dumped to: /dev/tty\n'), text.slice(-120));
    const nodes = parseDump(text);
    const field = findNode(nodes, (n) => n['resource-id'] === 'com.example.notes:id/note_text');
    assert.equal(field.class, 'android.widget.EditText');
    assert.ok(nodes.every((n) => n.package !== undefined));
  });

  void test('adb shell uiautomator dump to a file, then adb pull of that file', async () => {
    const r = await adb('shell', 'uiautomator', 'dump', '/sdcard/ui.xml');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.toString(), 'UI hierchary dumped to: /sdcard/ui.xml\n');
    const local = join(scratch, 'ui.xml');
    const pull = await adb('pull', '/sdcard/ui.xml', local);
    assert.equal(pull.code, 0, pull.stderr);
    const pulled = readFileSync(local, 'utf8');
    assert.ok(pulled.startsWith("<?xml version='1.0'"), pulled.slice(0, 80));
    assert.ok(pulled.endsWith('</hierarchy>'), pulled.slice(-40));
    assert.equal(pulled, phone.fs.read('/sdcard/ui.xml')?.toString('utf8'));
    assert.ok(parseDump(pulled).some((n) => n['resource-id'] === 'com.example.notes:id/note_text'));
    // The default location, as `adb shell uiautomator dump` with no file writes it.
    const byDefault = await adb('shell', 'uiautomator', 'dump');
    assert.equal(byDefault.stdout.toString(), 'UI hierchary dumped to: /sdcard/window_dump.xml\n');
    const pullDefault = await adb('pull', '/sdcard/window_dump.xml', join(scratch, 'window_dump.xml'));
    assert.equal(pullDefault.code, 0, pullDefault.stderr);
    assert.equal(readFileSync(join(scratch, 'window_dump.xml'), 'utf8'), pulled);
  });

  void test('adb shell input text with a quoted string: exact argv on the phone, the field holds it', async () => {
    const dumped = await adb('shell', 'uiautomator', 'dump', '/dev/tty');
    const field = center(
      findNode(parseDump(dumped.stdout.toString()), (n) => n['resource-id'] === 'com.example.notes:id/note_text'),
    );
    assert.equal((await adb('shell', 'input', 'tap', String(field.x), String(field.y))).code, 0);
    const before = phone.screenState().version;
    phone.clearArgvLog();
    // The adb CLI joins its arguments with spaces; the phone’s shell removes the quotes.
    const r = await adb('shell', 'input', 'text', `'it;s&&fine|$(id)'`);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(phone.argvLog, [['input', 'text', 'it;s&&fine|$(id)']]);
    assert.equal(phone.typedText('note_text'), 'it;s&&fine|$(id)');
    assert.ok(phone.screenState().version > before, 'the screen changed');
    phone.clearArgvLog();
    const spaced = await adb('shell', 'input', 'text', '"two%swords"');
    assert.equal(spaced.code, 0, spaced.stderr);
    assert.deepEqual(phone.argvLog, [['input', 'text', 'two%swords']]);
    assert.equal(phone.typedText('note_text'), 'it;s&&fine|$(id)two words');
    const shown = parseDump((await adb('shell', 'uiautomator', 'dump', '/dev/tty')).stdout.toString());
    assert.equal(
      findNode(shown, (n) => n['resource-id'] === 'com.example.notes:id/note_text').text,
      'it;s&&fine|$(id)two words',
    );
  });

  // Android's mksh words it "inaccessible or not found" (the "NAME: not found" is its tail).
  void test('adb shell with an unknown command: "/system/bin/sh: NAME: inaccessible or not found", exit 127', async () => {
    const r = await adb('shell', 'frobnicate', '--now');
    assert.equal(r.code, 127);
    assert.equal(r.stdout.length, 0);
    assert.equal(r.stderr, '/system/bin/sh: frobnicate: inaccessible or not found\n');
    assert.deepEqual(phone.argvLog.at(-1), ['frobnicate', '--now']);
  });
});

// The resident helper (appium-uiautomator2-server) on a simulated phone, through the REAL adb
// server and CLI: `adb install` of the real APKs, `am instrument -w` starting it, `adb forward`
// to device tcp:6790, and the HTTP subset the bridge uses — status, sessions, page source,
// W3C taps, keycodes, Unicode text, settings, screenshot — plus the single UiAutomation
// connection (stock dump refused while it runs, fine after force-stop).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ADB } from '../../main/sim/private-adb-server';
import { NOTES_PKG } from '../../main/sim/screen/app-notes';
import { parseDump } from './phone-test-kit';
import { centreOf, sourceNodes, startHelperRig, tapActions, type HelperRig, type Instrumentation } from './helper-kit';

void describe('resident helper on a simulated phone through the real adb server', () => {
  let h: HelperRig;
  before(async () => {
    h = await startHelperRig();
  });
  after(() => h?.close());

  void test('without the test APK, am instrument fails as a real phone does', async () => {
    const r = await h.adb(
      'shell',
      'am',
      'instrument',
      '-w',
      'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stdout,
      /^INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo\{io\.appium\.uiautomator2\.server\.test\/androidx\.test\.runner\.AndroidJUnitRunner\}\nINSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS_CODE: -1\n$/,
    );
    assert.match(
      r.stderr,
      /^android\.util\.AndroidException: INSTRUMENTATION_FAILED: io\.appium\.uiautomator2\.server\.test\/androidx\.test\.runner\.AndroidJUnitRunner\n\tat com\.android\.commands\.am\.Instrument\.run/,
    );
    assert.equal(h.phone.helper.state(), 'stopped');
  });

  void test('adb install of the real APKs: recognised by package and version read from the APK', async () => {
    await h.installHelper();
    const list = await h.adb('shell', 'pm', 'list', 'packages', 'uiautomator2');
    assert.equal(list.stdout, 'package:io.appium.uiautomator2.server\npackage:io.appium.uiautomator2.server.test\n');
    const dumpsys = await h.adb('shell', 'dumpsys', 'package', 'io.appium.uiautomator2.server');
    assert.match(dumpsys.stdout, /^ {4}versionName=10\.6\.6$/m);
    assert.match(dumpsys.stdout, /^ {4}versionCode=278 /m);
    const inst = await h.adb('shell', 'pm', 'list', 'instrumentation');
    assert.equal(
      inst.stdout,
      'instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner (target=io.appium.uiautomator2.server)\n',
    );
    // The helper has no launcher activity: no icon on the home screen.
    const home = await h.adb('shell', 'uiautomator', 'dump', '/dev/tty');
    assert.ok(!home.stdout.includes('uiautomator2'), home.stdout);
  });

  void test('am instrument starts it; HTTP over adb forward; taps, text and keys change the screen; dump refused until force-stop', async () => {
    const dumpBefore = await h.adb('shell', 'uiautomator', 'dump', '/dev/tty');
    assert.equal(dumpBefore.code, 0);
    let instrumentation: Instrumentation | undefined;
    try {
      instrumentation = await h.startInstrumentation();
      assert.equal(instrumentation.output(), '\nio.appium.uiautomator2.server.test.AppiumUiAutomator2Server:');
      const port = await h.forward();
      const status = await h.waitReady(port);
      assert.deepEqual(status, {
        status: 200,
        json: {
          value: {
            ready: true,
            message: 'UiAutomator2 Server is ready to accept commands',
            build: { version: '10.6.6', versionCode: 278 },
          },
          sessionId: 'None',
        },
      });
      assert.equal(h.phone.helper.state(), 'running');

      // Stock dump while the helper holds UiAutomation: killed, nothing printed (exit 137).
      const refused = await h.adb('shell', 'uiautomator', 'dump', '/sdcard/while.xml');
      assert.deepEqual([refused.code, refused.stdout, refused.stderr], [137, '', '']);

      // Sessions.
      const noSession = await h.http(port, 'GET', '/session/nope/source');
      assert.equal(noSession.status, 404);
      assert.equal((noSession.json.value as { error: string }).error, 'invalid session id');
      const id = await h.newSession(port);
      const sessions = await h.http(port, 'GET', '/sessions');
      assert.deepEqual(sessions.json, {
        value: [{ sessionId: id, capabilities: { platformName: 'Android' }, id }],
        sessionId: 'None',
      });
      const unknown = await h.http(port, 'GET', `/session/${id}/no/such/route`);
      assert.equal(unknown.status, 404);
      assert.deepEqual(Object.keys(unknown.json.value as object), ['error', 'message', 'stacktrace']);
      assert.equal((unknown.json.value as { error: string }).error, 'unknown command');

      // Page source: the server's format, describing the same screen as the stock dump.
      const source = await h.http(port, 'GET', `/session/${id}/source`);
      assert.equal(source.status, 200);
      const xml = source.json.value as string;
      assert.match(
        xml,
        /^<\?xml version='1\.0' encoding='UTF-8' standalone='yes' \?>\r\n<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">\r\n {2}<android\.widget\.FrameLayout index="0" package="/,
      );
      const helperTexts = sourceNodes(xml).map((n) => `${n.text ?? ''}|${n.bounds ?? ''}`);
      const stockTexts = parseDump(dumpBefore.stdout).map((n) => `${n.text ?? ''}|${n.bounds}`);
      assert.deepEqual(helperTexts, stockTexts);

      // Tap the Notes icon through the helper: the app opens; the argv log shows one tap.
      const notes = sourceNodes(xml).find((n) => n.text === 'Notes');
      assert.ok(notes?.bounds);
      const at = centreOf(notes.bounds);
      h.phone.clearArgvLog();
      const tap = await h.http(port, 'POST', `/session/${id}/actions`, tapActions(at.x, at.y));
      assert.deepEqual(tap, { status: 200, json: { value: null, sessionId: id } });
      assert.equal(h.phone.foregroundPackage(), NOTES_PKG);
      assert.deepEqual(h.phone.argvLog, [['helper', 'POST', '/actions', 'tap', `${at.x},${at.y}`]]);

      // Focus the note field, type Chinese and emoji with no ADB Keyboard, then append.
      const noteXml = (await h.http(port, 'GET', `/session/${id}/source`)).json.value as string;
      const field = sourceNodes(noteXml).find((n) => n['resource-id'] === `${NOTES_PKG}:id/note_text`);
      assert.ok(field?.bounds);
      const f = centreOf(field.bounds);
      assert.equal((await h.http(port, 'POST', `/session/${id}/actions`, tapActions(f.x, f.y))).status, 200);
      assert.equal(
        (await h.http(port, 'POST', `/session/${id}/keys`, { text: '你好，世界 👋', replace: true })).status,
        200,
      );
      assert.equal((await h.http(port, 'POST', `/session/${id}/keys`, { text: ' ok' })).status, 200);
      assert.equal(h.phone.typedText('note_text'), '你好，世界 👋 ok');
      // A keycode: DEL removes the last character.
      assert.equal(
        (await h.http(port, 'POST', `/session/${id}/appium/device/press_keycode`, { keycode: 67 })).status,
        200,
      );
      assert.equal(h.phone.typedText('note_text'), '你好，世界 👋 o');
      const noFocus = await h.http(port, 'POST', `/session/${id}/keys`, {});
      assert.equal(noFocus.status, 400);
      assert.equal((noFocus.json.value as { error: string }).error, 'invalid argument');

      // Settings and screenshot.
      assert.equal(
        (
          await h.http(port, 'POST', `/session/${id}/appium/settings`, {
            settings: { waitForIdleTimeout: 0, noSuchSetting: 1 },
          })
        ).status,
        200,
      );
      const settings = (await h.http(port, 'GET', `/session/${id}/appium/settings`)).json.value as Record<
        string,
        unknown
      >;
      assert.equal(settings.waitForIdleTimeout, 0);
      assert.equal(settings.noSuchSetting, undefined);
      const shot = await h.http(port, 'GET', `/session/${id}/screenshot`);
      assert.equal(
        Buffer.from(shot.json.value as string, 'base64')
          .subarray(1, 4)
          .toString('latin1'),
        'PNG',
      );

      // Every helper request is in the argv log; each tap once.
      const taps = h.phone.argvLog.filter((a) => a[0] === 'helper' && a[2] === '/actions');
      assert.deepEqual(taps, [
        ['helper', 'POST', '/actions', 'tap', `${at.x},${at.y}`],
        ['helper', 'POST', '/actions', 'tap', `${f.x},${f.y}`],
      ]);

      // force-stop ends the instrumentation's stream with the real text; UiAutomation is free.
      const stop = await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
      assert.equal(stop.code, 0);
      const ended = await instrumentation.exited;
      instrumentation = undefined;
      assert.equal(ended.code, 0);
      assert.equal(
        ended.output,
        '\nio.appium.uiautomator2.server.test.AppiumUiAutomator2Server:INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n',
      );
      assert.equal(h.phone.helper.state(), 'stopped');
      await assert.rejects(h.http(port, 'GET', '/status'));
      const after = await h.adb('shell', 'uiautomator', 'dump', '/dev/tty');
      assert.equal(after.code, 0);
      const typed = parseDump(after.stdout).find((n) => n['resource-id'] === `${NOTES_PKG}:id/note_text`);
      assert.equal(typed?.text, '你好，世界 👋 o');
    } finally {
      instrumentation?.child.kill('SIGKILL');
      await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    }
  });

  void test('over exec: (adb exec-out) the instrumentation output streams too', async () => {
    const child = spawn(
      ADB,
      [
        '-P',
        String(h.rig.port),
        '-s',
        h.serial,
        'exec-out',
        'am',
        'instrument',
        '-w',
        'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
      ],
      { env: h.rig.env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      child.stdout.setEncoding('utf8');
      const first = new Promise<void>((resolve) =>
        child.stdout.on('data', (t: string) => {
          out += t;
          if (out.includes('AppiumUiAutomator2Server:')) resolve();
        }),
      );
      await Promise.race([first, once(child, 'close').then(() => assert.fail(`exec-out ended early: ${out}`))]);
      await h.phone.helper.waitForState('running', AbortSignal.timeout(10_000));
      const closed = once(child, 'close');
      await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
      await closed;
      assert.equal(
        out,
        '\nio.appium.uiautomator2.server.test.AppiumUiAutomator2Server:INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n',
      );
    } finally {
      child.kill('SIGKILL');
    }
  });

  void test('DELETE /session stops the server after answering; the test finishes OK', async () => {
    const instrumentation = await h.startInstrumentation();
    const port = await h.forward();
    await h.waitReady(port);
    const id = await h.newSession(port);
    const del = await h.http(port, 'DELETE', `/session/${id}`);
    assert.deepEqual(del, { status: 200, json: { value: null, sessionId: id } });
    const ended = await instrumentation.exited;
    assert.equal(ended.code, 0);
    assert.match(
      ended.output,
      /AppiumUiAutomator2Server:\n\nTime: \d+\.\d{3}\n\nOK \(1 test\)\n\n\nINSTRUMENTATION_CODE: -1\n$/,
    );
    assert.equal(h.phone.helper.state(), 'stopped');
  });

  void test('closing the am stream leaves the instrumentation running, as on a phone; uninstall stops it', async () => {
    const instrumentation = await h.startInstrumentation();
    instrumentation.child.kill('SIGKILL');
    await instrumentation.exited;
    const port = await h.forward();
    assert.equal((await h.waitReady(port)).status, 200);
    const un = await h.adb('shell', 'pm', 'uninstall', 'io.appium.uiautomator2.server.test');
    assert.equal(un.stdout, 'Success\n');
    assert.equal(h.phone.helper.state(), 'stopped');
    assert.equal(
      (await h.adb('shell', 'pm', 'list', 'packages', 'uiautomator2')).stdout,
      'package:io.appium.uiautomator2.server\n',
    );
  });
});

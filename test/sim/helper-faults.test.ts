// The resident helper's faults on a simulated phone, through the real adb server: a refused
// install, a phone that will not start the instrumentation, a crash before or after the
// action (connection reset, port refused, stream ended with "Process crashed."), the system
// killing it, a slow start, a sparse tree and a stale tree after a navigation.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { NOTES_PKG } from '../../main/sim/screen/app-notes';
import { LAUNCHER_PKG } from '../../main/sim/screen/app-launcher';
import {
  centreOf,
  sourceNodes,
  startHelperRig,
  tapActions,
  SERVER_APK_PATH,
  type HelperRig,
  type Instrumentation,
} from './helper-kit';

const helperTaps = (h: HelperRig): string[][] =>
  h.phone.argvLog.filter((a) => a[0] === 'helper' && a[2] === '/actions');

void describe('resident helper faults on a simulated phone', () => {
  let h: HelperRig;
  let scratch: string;
  before(async () => {
    h = await startHelperRig();
    scratch = mkdtempSync(join(tmpdir(), 'helper-faults-'));
  });
  after(async () => {
    await h?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** Starts the helper, forwards, waits for /status, opens a session. */
  const up = async (): Promise<{ inst: Instrumentation; port: number; id: string }> => {
    const inst = await h.startInstrumentation();
    const port = await h.forward();
    assert.equal((await h.waitReady(port)).status, 200);
    return { inst, port, id: await h.newSession(port) };
  };
  const home = async (): Promise<void> => {
    await h.adb('shell', 'input', 'keyevent', 'HOME');
  };
  const notesIcon = async (port: number, id: string): Promise<{ x: number; y: number }> => {
    const xml = (await h.http(port, 'GET', `/session/${id}/source`)).json.value as string;
    const icon = sourceNodes(xml).find((n) => n.text === 'Notes');
    assert.ok(icon?.bounds, xml.slice(0, 400));
    return centreOf(icon.bounds);
  };

  void test('helper-install-refused: only the helper APKs are refused, with the real Failure line', async () => {
    h.phone.setQuirks(['helper-install-refused']);
    const refused = await h.adb('install', SERVER_APK_PATH);
    assert.equal(refused.code, 1);
    assert.match(
      refused.stdout + refused.stderr,
      /Failure \[INSTALL_FAILED_USER_RESTRICTED: Install canceled by user\]/,
    );
    assert.equal((await h.adb('shell', 'pm', 'list', 'packages', 'uiautomator2')).stdout, '');
    const other = join(scratch, 'other.apk');
    writeFileSync(other, Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.from('package=com.acme.other\n')]));
    const ok = await h.adb('install', other);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /Success/);
    h.phone.setQuirks([]);
    await h.installHelper();
  });

  void test('helper-no-instrumentation: am instrument fails with the SecurityException; UiAutomation stays free', async () => {
    h.phone.setQuirks(['helper-no-instrumentation']);
    const r = await h.adb(
      'shell',
      'am',
      'instrument',
      '-w',
      'io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner',
    );
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      /^java\.lang\.SecurityException: Permission Denial: starting instrumentation ComponentInfo\{io\.appium\.uiautomator2\.server\.test\/androidx\.test\.runner\.AndroidJUnitRunner\} from pid=\d+, uid=2000 not allowed because package io\.appium\.uiautomator2\.server\.test does not have a signature matching the target io\.appium\.uiautomator2\.server\n/,
    );
    assert.equal(h.phone.helper.state(), 'stopped');
    assert.equal((await h.adb('shell', 'uiautomator', 'dump', '/dev/tty')).code, 0);
    h.phone.setQuirks([]);
  });

  void test('helper-crash: the next action resets the connection before acting; the port refuses; a restart works and the crash is not re-armed', async () => {
    await home();
    const { inst, port, id } = await up();
    const at = await notesIcon(port, id);
    h.phone.setQuirks(['helper-crash']);
    h.phone.clearArgvLog();
    await assert.rejects(
      h.http(port, 'POST', `/session/${id}/actions`, tapActions(at.x, at.y)),
      /socket hang up|ECONNRESET/,
    );
    const ended = await inst.exited;
    assert.match(
      ended.output,
      /AppiumUiAutomator2Server:INSTRUMENTATION_RESULT: shortMsg=Process crashed\.\nINSTRUMENTATION_CODE: 0\n$/,
    );
    assert.equal(h.phone.foregroundPackage(), LAUNCHER_PKG, 'nothing was tapped');
    assert.deepEqual(helperTaps(h), []);
    await assert.rejects(h.http(port, 'GET', '/status'));
    // The same phone, the quirk still set: started again, the tap goes through once.
    const again = await up();
    const tap = await h.http(again.port, 'POST', `/session/${again.id}/actions`, tapActions(at.x, at.y));
    assert.equal(tap.status, 200);
    assert.equal(h.phone.foregroundPackage(), NOTES_PKG);
    assert.deepEqual(helperTaps(h), [['helper', 'POST', '/actions', 'tap', `${at.x},${at.y}`]]);
    h.phone.setQuirks([]);
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    await again.inst.exited;
  });

  void test('a crash after acting: the tap lands once, the answer never comes', async () => {
    await home();
    const { inst, port, id } = await up();
    const at = await notesIcon(port, id);
    h.phone.clearArgvLog();
    h.phone.helper.crashOnNextRequest({ match: 'POST /actions', when: 'after' });
    await assert.rejects(h.http(port, 'POST', `/session/${id}/actions`, tapActions(at.x, at.y)));
    assert.equal(h.phone.foregroundPackage(), NOTES_PKG);
    assert.deepEqual(helperTaps(h), [['helper', 'POST', '/actions', 'tap', `${at.x},${at.y}`]]);
    assert.match((await inst.exited).output, /shortMsg=Process crashed\./);
    assert.equal(h.phone.helper.state(), 'stopped');
  });

  void test('helper-killed: the system kills it a while after start; the stream ends with the real text', async () => {
    h.phone.setQuirks(['helper-killed']);
    const inst = await h.startInstrumentation();
    const ended = await inst.exited;
    assert.equal(ended.code, 0);
    assert.match(ended.output, /INSTRUMENTATION_RESULT: shortMsg=Process crashed\.\nINSTRUMENTATION_CODE: 0\n$/);
    assert.equal(h.phone.helper.state(), 'stopped');
    h.phone.setQuirks([]);
  });

  void test('helper-slow-start: connections are refused while it starts, then it answers', async () => {
    h.phone.setQuirks(['helper-slow-start']);
    const inst = await h.startInstrumentation();
    const port = await h.forward();
    assert.equal(h.phone.helper.state(), 'starting');
    await assert.rejects(h.http(port, 'GET', '/status'));
    // Dump already refused: the instrumentation holds UiAutomation from its start.
    assert.equal((await h.adb('shell', 'uiautomator', 'dump', '/dev/tty')).code, 137);
    assert.equal((await h.waitReady(port)).status, 200);
    h.phone.setQuirks([]);
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server.test');
    assert.match((await inst.exited).output, /Process crashed/);
  });

  void test('helper-sparse-tree: the source misses text the stock dump sees', async () => {
    await home();
    h.phone.setQuirks(['helper-sparse-tree']);
    const { inst, port, id } = await up();
    const xml = (await h.http(port, 'GET', `/session/${id}/source`)).json.value as string;
    const nodes = sourceNodes(xml);
    assert.ok(!nodes.some((n) => n.text === 'Notes'));
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    await inst.exited;
    const stock = await h.adb('shell', 'uiautomator', 'dump', '/dev/tty');
    assert.match(stock.stdout, /text="Notes"/);
    assert.ok(nodes.length * 3 < (stock.stdout.match(/<node /g) ?? []).length, `${nodes.length} helper nodes`);
    h.phone.setQuirks([]);
  });

  void test('helper-stale-tree: after a navigation the next two sources show the previous screen', async () => {
    await home();
    h.phone.setQuirks(['helper-stale-tree']);
    const { inst, port, id } = await up();
    const at = await notesIcon(port, id);
    assert.equal((await h.http(port, 'POST', `/session/${id}/actions`, tapActions(at.x, at.y))).status, 200);
    assert.equal(h.phone.foregroundPackage(), NOTES_PKG);
    const pkgOf = async (): Promise<string | undefined> =>
      sourceNodes((await h.http(port, 'GET', `/session/${id}/source`)).json.value as string)[0]?.package;
    assert.deepEqual([await pkgOf(), await pkgOf(), await pkgOf()], [LAUNCHER_PKG, LAUNCHER_PKG, NOTES_PKG]);
    h.phone.setQuirks([]);
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    await inst.exited;
  });
});

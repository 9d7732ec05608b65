/**
 * The simulated phone's output by Android version and the `no-shell-v2` adbd (main/sim/QUIRKS.md,
 * "Android 8–9 and 10+", "no-shell-v2"): where `dumpsys window` puts the focus, how it writes
 * mFocusedApp and the lock screen, what the CNXN banner announces, and what the legacy
 * `shell:` stream carries. The bridge's parsers read each format.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { A_CNXN } from '../../main/sim/adb-protocol';
import { AdbdServer } from '../../main/sim/adbd-server';
import { createSimulatedPhone, type SimulatedPhone } from '../../main/sim/phone';
import { parseForegroundApp } from '../../main/core/android/device-info';
import { parseKeyguard } from '../../main/core/android/screen-state';
import { parseWindowFacts } from '../../main/core/android/screen-probe';
import { RawAdbHost } from '../helpers/raw-adb-host';

async function text(phone: SimulatedPhone, line: string): Promise<string> {
  const out = await phone.exec(line, { signal: new AbortController().signal });
  assert.equal(out.exitCode, 0, out.stderr.toString());
  return out.stdout.toString('utf8');
}

const LAUNCHER = 'com.google.android.apps.nexuslauncher';

describe('dumpsys window by Android version', () => {
  test('Android 8.0 (API 26): focus ends the windows section, mFocusedApp is an AppWindowToken, the display section has none; policy with mUnrestrictedScreen and mShowingLockscreen', async () => {
    const phone = createSimulatedPhone({ serial: 'V26', sdk: 26, androidVersion: '8.0.0' });
    const windows = await text(phone, 'dumpsys window windows');
    assert.match(
      windows,
      new RegExp(
        `\\n {2}mCurrentFocus=Window\\{[0-9a-f]{7} u0 ${LAUNCHER}/[\\w.]+\\}\\n {2}mFocusedApp=AppWindowToken\\{[0-9a-f]{7} token=Token\\{[0-9a-f]{7} ActivityRecord\\{[0-9a-f]{7} u0 ${LAUNCHER}/[\\w.]+ t\\d+\\}\\}\\}\\n {2}mInputMethodTarget=Window\\{`,
      ),
    );
    assert.doesNotMatch(await text(phone, 'dumpsys window displays'), /mCurrentFocus|mFocusedApp/);
    const policy = await text(phone, 'dumpsys window policy');
    assert.match(policy, /\n {4}mUnrestrictedScreen=\(0,0\) 1080x2400\n/);
    assert.match(
      policy,
      /\n {4}mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=false mDreamingSleepToken=null\n/,
    );
    assert.doesNotMatch(policy, /KeyguardServiceDelegate|KeyguardStateMonitor/);
    phone.setQuirks(['locked-pin']);
    const locked = await text(phone, 'dumpsys window policy');
    assert.match(locked, /mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=true/);
    // The bridge: the lock screen without knowing whether it has a secret; the app in front.
    assert.deepEqual(parseKeyguard(locked), { showing: true, secure: null });
    assert.equal(parseForegroundApp(await text(phone, 'dumpsys window'))?.package, LAUNCHER);
    assert.equal(parseWindowFacts(`${await text(phone, 'dumpsys window displays')}\n${windows}`)?.package, LAUNCHER);
  });

  test('Android 9 (API 28): as 8, without mUnrestrictedScreen', async () => {
    const phone = createSimulatedPhone({ serial: 'V28', sdk: 28, androidVersion: '9' });
    assert.match(await text(phone, 'dumpsys window windows'), /\n {2}mFocusedApp=AppWindowToken\{/);
    const policy = await text(phone, 'dumpsys window policy');
    assert.doesNotMatch(policy, /mUnrestrictedScreen/);
    assert.match(policy, /mShowingLockscreen=false/);
  });

  test('Android 10 (API 29): the focus moved to the display section, still an AppWindowToken; windows end with mInputMethodTarget in display# 0', async () => {
    const phone = createSimulatedPhone({ serial: 'V29', sdk: 29, androidVersion: '10' });
    const windows = await text(phone, 'dumpsys window windows');
    assert.doesNotMatch(windows, /mCurrentFocus|mFocusedApp/);
    assert.match(windows, /\n {2}mInputMethodTarget in display# 0 Window\{/);
    const displays = await text(phone, 'dumpsys window displays');
    assert.match(displays, new RegExp(`\\n {2}mCurrentFocus=Window\\{[0-9a-f]{7} u0 ${LAUNCHER}/`));
    assert.match(displays, /\n {2}mFocusedApp=AppWindowToken\{[0-9a-f]{7} token=Token\{/);
    assert.match(await text(phone, 'dumpsys window policy'), /KeyguardServiceDelegate/);
  });

  test('Android 14 (API 34): focus in the display section as an ActivityRecord; windows end with the ime targets and no focus', async () => {
    const phone = createSimulatedPhone({ serial: 'V34' });
    const windows = await text(phone, 'dumpsys window windows');
    assert.doesNotMatch(windows, /mCurrentFocus|mFocusedApp/);
    for (const target of ['imeLayeringTarget', 'imeInputTarget', 'imeControlTarget'])
      assert.match(windows, new RegExp(`\\n {2}${target} in display# 0 Window\\{`));
    const displays = await text(phone, 'dumpsys window displays');
    assert.match(displays, new RegExp(`\\n {2}mFocusedApp=ActivityRecord\\{[0-9a-f]{7} u0 ${LAUNCHER}/`));
    // The windows section alone no longer tells the app in front (as on real phones); both do.
    assert.equal(parseWindowFacts(windows)?.package ?? null, null);
    const facts = parseWindowFacts(`${displays}\n${windows}`);
    assert.equal(facts?.package, LAUNCHER);
    assert.equal(facts?.secure, false);
  });

  test('several focus lines: the first naming an activity wins (mCurrentFocus=null on a display without focus)', () => {
    const output = [
      '  mCurrentFocus=null',
      '  mCurrentFocus=Window{5e9b13b u0 jp.naver.line.android/jp.naver.line.android.activity.main.MainActivity}',
      '  mFocusedApp=null',
    ].join('\n');
    assert.deepEqual(parseForegroundApp(output), {
      package: 'jp.naver.line.android',
      activity: 'jp.naver.line.android.activity.main.MainActivity',
    });
  });
});

describe('no-shell-v2: an adbd without the shell protocol', () => {
  const servers: AdbdServer[] = [];
  const hosts: RawAdbHost[] = [];
  after(async () => {
    for (const host of hosts) host.close();
    for (const server of servers) await server.close();
  });

  async function online(quirks: string[]): Promise<RawAdbHost> {
    const phone = createSimulatedPhone({ serial: `NOV2${servers.length}`, quirks });
    const server = await AdbdServer.start({ phone });
    servers.push(server);
    const host = await RawAdbHost.connect(server.port);
    hosts.push(host);
    const reply = await host.handshake();
    assert.equal(reply.command, A_CNXN);
    const features = reply.data.toString().split('features=')[1]?.split(',') ?? [];
    assert.equal(features.includes('shell_v2'), !quirks.includes('no-shell-v2'), reply.data.toString());
    assert.ok(features.includes('cmd'));
    return host;
  }

  test('the banner lacks shell_v2; shell,v2 is refused; shell: carries stderr in stdout, in order, and no exit status', async () => {
    const host = await online(['no-shell-v2', 'inject-events-denied']);
    assert.equal(await host.open('shell,v2,raw:echo hi'), 'refused');
    const out = (await host.run('shell:input tap 1 1; echo after=$?')).toString('utf8');
    assert.match(
      out,
      /^\nException occurred while executing 'tap':\njava\.lang\.SecurityException: Injecting input events requires[^\n]*INJECT_EVENTS[\s\S]*\nafter=255\n$/,
    );
  });

  test('a stock phone still announces shell_v2 and answers shell,v2', async () => {
    const host = await online([]);
    assert.notEqual(await host.open('shell,v2,raw:echo hi'), 'refused');
  });
});

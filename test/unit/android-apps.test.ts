import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkInstallOutput,
  installApk,
  isPackageInstalled,
  isValidActivityName,
  isValidPackageName,
  launchApp,
  listPackages,
  openUrl,
  parsePackageList,
  stopApp,
} from '../../main/core/android/apps';
import { BridgeError } from '../../main/core/errors';
import { androidFixture, FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

void describe('package and activity names', () => {
  void test('package names follow Android rules', () => {
    for (const ok of ['com.android.settings', 'de.example.banking_app', 'a.b', 'org.mozilla.firefox_beta'])
      assert.ok(isValidPackageName(ok), ok);
    for (const bad of ['settings', 'com..x', '1com.x', 'com.x;reboot', 'com.x ', '-p.x', 'com.x/.Main', '', 'com.1x']) {
      assert.ok(!isValidPackageName(bad), bad);
    }
  });

  void test('activity names may be relative or fully qualified, with $ for nested classes', () => {
    for (const ok of ['.MainActivity', 'com.example.app.MainActivity', '.ui.Settings$Wifi', 'Main'])
      assert.ok(isValidActivityName(ok), ok);
    for (const bad of ['..Main', '.Main Activity', 'com/x', '.Main;id', '', '.1Main', '-n'])
      assert.ok(!isValidActivityName(bad), bad);
  });
});

void describe('listPackages', () => {
  void test('parses package: lines, sorted, and passes -3 for third-party only', async () => {
    const shell = new FakeDeviceShell().on(['pm', 'list', 'packages'], androidFixture('pm-list-packages-3.txt'));
    const names = await listPackages(shell, { thirdPartyOnly: true });
    assert.deepEqual(names, [
      'com.android.adbkeyboard',
      'com.spotify.music',
      'com.whatsapp',
      'de.example.banking_app',
      'org.mozilla.firefox',
    ]);
    assert.deepEqual(shell.argvs(), [['pm', 'list', 'packages', '-3']]);
    await listPackages(shell);
    assert.deepEqual(shell.argvs()[1], ['pm', 'list', 'packages']);
  });

  void test('ignores noise and CRLF line endings', () => {
    assert.deepEqual(
      parsePackageList('package:com.a.b\r\nWARNING: linker: something\npackage:com.a.b\n\npackage:bad name\n'),
      ['com.a.b'],
    );
  });
});

void describe('launchApp', () => {
  void test('with an activity: am start -n pkg/activity', async () => {
    const shell = new FakeDeviceShell().on(['am', 'start'], androidFixture('am-start-ok.txt'));
    await launchApp(shell, 'com.android.settings', '.Settings');
    assert.deepEqual(shell.argvs(), [['am', 'start', '-n', 'com.android.settings/.Settings']]);
  });

  void test('an unknown activity is invalid_arguments with the phone’s message', async () => {
    const shell = new FakeDeviceShell().on(['am', 'start'], androidFixture('am-start-unknown-activity.txt'));
    await assert.rejects(
      launchApp(shell, 'com.android.settings', '.DoesNotExist'),
      isCode('invalid_arguments', /does not exist/),
    );
  });

  void test('a non-exported activity is permission_denied', async () => {
    const shell = new FakeDeviceShell().on(['am', 'start'], {
      stdout:
        'Starting: Intent { cmp=com.x.y/.Secret }\njava.lang.SecurityException: Permission Denial: starting Intent { cmp=com.x.y/.Secret } not exported\n',
      exitCode: 255,
    });
    await assert.rejects(launchApp(shell, 'com.x.y', '.Secret'), isCode('permission_denied'));
  });

  void test('without an activity: monkey with the launcher category', async () => {
    const shell = new FakeDeviceShell().on(['monkey'], androidFixture('monkey-launch-ok.txt'));
    await launchApp(shell, 'com.android.settings');
    assert.deepEqual(shell.argvs(), [
      ['monkey', '-p', 'com.android.settings', '-c', 'android.intent.category.LAUNCHER', '1'],
    ]);
  });

  void test('no launcher activity / not installed is app_not_found', async () => {
    const shell = new FakeDeviceShell().on(['monkey'], androidFixture('monkey-no-activities.txt'));
    await assert.rejects(
      launchApp(shell, 'com.example.nothere'),
      isCode('app_not_found', /not installed or has no launcher activity/),
    );
    // When monkey's complaint went to stderr (not captured), pm path decides.
    const quiet = new FakeDeviceShell()
      .on(['monkey'], { stdout: '', exitCode: 251 })
      .on(['pm', 'path'], { stdout: '', exitCode: 1 });
    await assert.rejects(launchApp(quiet, 'com.example.nothere'), isCode('app_not_found'));
    assert.deepEqual(quiet.argvs()[1], ['pm', 'path', 'com.example.nothere']);
  });

  void test('bad names are refused before anything runs', async () => {
    const shell = new FakeDeviceShell();
    await assert.rejects(launchApp(shell, 'com.x;reboot'), isCode('invalid_arguments', /package name/));
    await assert.rejects(launchApp(shell, 'com.x', '.Main; reboot'), isCode('invalid_arguments', /activity name/));
    await assert.rejects(stopApp(shell, '$(id)'), isCode('invalid_arguments'));
    assert.equal(shell.calls.length, 0);
  });
});

void describe('stopApp, openUrl, isPackageInstalled', () => {
  void test('stopApp: am force-stop pkg', async () => {
    const shell = new FakeDeviceShell().on(['am', 'force-stop'], '');
    await stopApp(shell, 'com.whatsapp');
    assert.deepEqual(shell.argvs(), [['am', 'force-stop', 'com.whatsapp']]);
  });

  void test('openUrl: VIEW intent with the URL as one argument', async () => {
    const shell = new FakeDeviceShell().on(
      ['am', 'start'],
      'Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n',
    );
    const url = "https://example.com/a?b=1&c='x'#frag";
    await openUrl(shell, url);
    assert.deepEqual(shell.argvs(), [['am', 'start', '-a', 'android.intent.action.VIEW', '-d', url]]);
  });

  void test('openUrl: nothing handles the URL → invalid_arguments; option-like URLs are refused', async () => {
    const shell = new FakeDeviceShell().on(['am', 'start'], androidFixture('am-start-view-unresolved.txt'));
    await assert.rejects(openUrl(shell, 'xyz://nothing'), isCode('invalid_arguments', /unable to resolve/));
    await assert.rejects(openUrl(shell, '--user 10'), isCode('invalid_arguments'));
    await assert.rejects(openUrl(shell, ''), isCode('invalid_arguments'));
  });

  void test('isPackageInstalled reads pm path', async () => {
    const yes = new FakeDeviceShell().on(['pm', 'path'], 'package:/data/app/~~Xk2b==/com.whatsapp-9aQ==/base.apk\n');
    assert.equal(await isPackageInstalled(yes, 'com.whatsapp'), true);
    assert.deepEqual(yes.argvs(), [['pm', 'path', 'com.whatsapp']]);
    const no = new FakeDeviceShell().on(['pm', 'path'], { stdout: '', exitCode: 1 });
    assert.equal(await isPackageInstalled(no, 'com.nothere.app'), false);
  });
});

void describe('installApk', () => {
  void test('Success installs with one pm install -r', async () => {
    const shell = new FakeDeviceShell().on(['pm', 'install'], { stdout: 'Success\n', exitCode: 0 });
    await installApk(shell, '/data/local/tmp/a.apk');
    assert.deepEqual(shell.argvs(), [['pm', 'install', '-r', '/data/local/tmp/a.apk']]);
  });

  void test('refusals a person can fix are install_blocked with the fix; others are command_failed', () => {
    const cases: Array<[string, RegExp]> = [
      [
        'Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]',
        /Fix: turn on Install via USB in Developer options/,
      ],
      [
        'Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 34 is older than current 35]',
        /Fix: uninstall the newer version first/,
      ],
      ['Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]', /Fix: free storage on the phone/],
      ['Failure [INSTALL_FAILED_VERIFICATION_FAILURE]', /Fix: accept the prompt on the phone/],
    ];
    for (const [output, fix] of cases)
      assert.throws(() => checkInstallOutput(`${output}\n`, 1), isCode('install_blocked', fix), output);
    assert.throws(
      () => checkInstallOutput('Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse]\n', 1),
      isCode('command_failed', /NOT_APK/),
    );
    assert.doesNotThrow(() => checkInstallOutput('Performing Streamed Install\nSuccess\n', 0));
  });

  void test('no answer before the deadline is install_blocked: a prompt may be waiting', async () => {
    const shell = new FakeDeviceShell().on(['pm', 'install'], { hang: true });
    await assert.rejects(
      installApk(shell, '/data/local/tmp/a.apk', { timeoutMs: 50 }),
      isCode('install_blocked', /prompt may be waiting.*Fix: accept the prompt on the phone/),
    );
  });
});

/**
 * An app's runtime permissions and data against a scripted phone: `dumpsys package` read for
 * user 0 only and the package's own block only; grant and revoke checked before (installed,
 * requested, runtime) and after (the state the phone reports), whatever `pm` printed; the
 * exceptions of each Android version; `pm clear`.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePackagePermissions, setRuntimePermission, shellException } from '../../main/core/android/app-permissions';
import { clearAppData } from '../../main/core/android/apps';
import { BridgeError } from '../../main/core/errors';
import { androidFixture, FakeDeviceShell } from '../helpers/fake-device-shell';

const PKG = 'com.example.camera';
const CAMERA = 'android.permission.CAMERA';
const DUMP = androidFixture('dumpsys-package-permissions.txt');

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

/** The fixture with CAMERA of user 0 granted or not. */
function dumpWithCamera(granted: boolean): string {
  return DUMP.replace(
    `        ${CAMERA}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`,
    `        ${CAMERA}: granted=${granted}, flags=[ USER_SET|USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`,
  );
}

const NOT_INSTALLED = 'Activity Resolver Table:\n  Non-Data Actions:\n\nKey Set Manager:\n\nPackages:\n\nQueries:\n';

void describe('dumpsys package: permissions', () => {
  void test('requested, install and user 0 runtime permissions of the package’s first block only', () => {
    const parsed = parsePackagePermissions(DUMP, PKG);
    assert.ok(parsed);
    assert.deepEqual(parsed.requested, [
      'android.permission.INTERNET',
      CAMERA,
      'android.permission.RECORD_AUDIO',
      'android.permission.ACCESS_FINE_LOCATION',
      'android.permission.POST_NOTIFICATIONS',
      'android.permission.READ_EXTERNAL_STORAGE',
    ]);
    assert.deepEqual([...parsed.install], [['android.permission.INTERNET', true]]);
    // User 10 and the hidden system copy grant CAMERA; user 0 does not.
    assert.deepEqual(parsed.runtime.get(CAMERA), {
      granted: false,
      flags: ['USER_SENSITIVE_WHEN_GRANTED', 'USER_SENSITIVE_WHEN_DENIED'],
    });
    assert.equal(parsed.runtime.get('android.permission.RECORD_AUDIO')?.granted, true);
    assert.deepEqual(parsed.runtime.get('android.permission.ACCESS_FINE_LOCATION')?.flags, [
      'POLICY_FIXED',
      'USER_SENSITIVE_WHEN_GRANTED',
      'USER_SENSITIVE_WHEN_DENIED',
    ]);
    assert.equal(parsed.runtime.size, 5);
    assert.equal(parsePackagePermissions(DUMP, PKG, 10)?.runtime.get(CAMERA)?.granted, true);
    assert.deepEqual([...(parsePackagePermissions(DUMP, 'com.example.other')?.runtime.keys() ?? [])], [CAMERA]);
    assert.equal(parsePackagePermissions(NOT_INSTALLED, PKG), null);
    assert.equal(parsePackagePermissions(DUMP, 'com.example'), null, 'a prefix of a package is not that package');
  });

  void test('the exception a pm command printed, in each Android version’s form', () => {
    assert.deepEqual(
      shellException(
        `\nException occurred while executing 'grant':\njava.lang.SecurityException: Package ${PKG} has not requested permission ${CAMERA}\n\tat com.android.server.pm.permission.PermissionManagerServiceImpl.grantRuntimePermissionInternal(PermissionManagerServiceImpl.java:1395)\n`,
      ),
      {
        type: 'SecurityException',
        message: `Package ${PKG} has not requested permission ${CAMERA}`,
      },
    );
    assert.equal(
      shellException(
        `Bad argument: java.lang.IllegalArgumentException: Unknown package: ${PKG}\nusage: pm path [--user USER_ID] PACKAGE\n`,
      )?.message,
      `Unknown package: ${PKG}`,
    );
    assert.equal(shellException(''), null);
    assert.equal(shellException('Success\n'), null);
  });
});

void describe('setRuntimePermission', () => {
  void test('grant: reads, runs one pm grant with the names as argv, reads again', async () => {
    const shell = new FakeDeviceShell()
      .on(['dumpsys', 'package', PKG], DUMP, dumpWithCamera(true))
      .on(['pm', 'grant'], '');
    assert.deepEqual(await setRuntimePermission(shell, PKG, CAMERA, true), { granted: true, changed: true });
    assert.deepEqual(shell.argvs(), [
      ['dumpsys', 'package', PKG],
      ['pm', 'grant', PKG, CAMERA],
      ['dumpsys', 'package', PKG],
    ]);
  });

  void test('revoke of a permission already revoked: no change, no error', async () => {
    const shell = new FakeDeviceShell().on(['dumpsys', 'package', PKG], DUMP).on(['pm', 'revoke'], '');
    assert.deepEqual(await setRuntimePermission(shell, PKG, CAMERA, false), { granted: false, changed: false });
  });

  void test('refused before anything changes: not installed, not requested, granted at install, a bad name', async () => {
    const gone = new FakeDeviceShell().on(['dumpsys', 'package'], NOT_INSTALLED);
    await assert.rejects(setRuntimePermission(gone, PKG, CAMERA, true), isCode('app_not_found', /not installed/));
    const phone = new FakeDeviceShell().on(['dumpsys', 'package'], DUMP);
    await assert.rejects(
      setRuntimePermission(phone, PKG, 'android.permission.READ_CONTACTS', true),
      isCode('invalid_arguments', /does not request android\.permission\.READ_CONTACTS/),
    );
    await assert.rejects(
      setRuntimePermission(phone, PKG, 'android.permission.INTERNET', false),
      isCode('invalid_arguments', /install-time permission/),
    );
    await assert.rejects(setRuntimePermission(phone, PKG, 'CAMERA;reboot', true), isCode('invalid_arguments'));
    await assert.rejects(setRuntimePermission(phone, 'com.x;reboot', CAMERA, true), isCode('invalid_arguments'));
    assert.ok(!phone.argvs().some((argv) => argv[0] === 'pm'), 'no pm command ran');
  });

  void test('a phone that says nothing and changes nothing (Android 11+ with a fixed permission) is command_failed naming the flags', async () => {
    const shell = new FakeDeviceShell().on(['dumpsys', 'package', PKG], DUMP).on(['pm', 'grant'], '');
    await assert.rejects(
      setRuntimePermission(shell, PKG, 'android.permission.ACCESS_FINE_LOCATION', true),
      isCode('command_failed', /left android\.permission\.ACCESS_FINE_LOCATION .* not granted \(flags POLICY_FIXED\)/),
    );
  });

  void test('an exception is command_failed quoting it; Xiaomi’s refusal is permission_denied with the fix', async () => {
    const exception = (text: string) => ({
      stdout: `\nException occurred while executing 'grant':\n${text}\n\tat android.app.ContextImpl.enforce(ContextImpl.java:2253)\n`,
      exitCode: 255,
    });
    const shell = new FakeDeviceShell()
      .on(['dumpsys', 'package', PKG], DUMP)
      .on(
        ['pm', 'grant'],
        exception(
          `java.lang.SecurityException: Permission ${CAMERA} requested by ${PKG} is not a changeable permission type`,
        ),
      );
    await assert.rejects(
      setRuntimePermission(shell, PKG, CAMERA, true),
      isCode(
        'command_failed',
        /SecurityException: Permission android\.permission\.CAMERA requested by .* not a changeable/,
      ),
    );
    const xiaomi = new FakeDeviceShell()
      .on(['dumpsys', 'package', PKG], DUMP)
      .on(
        ['pm', 'grant'],
        exception(
          'java.lang.SecurityException: grantRuntimePermission: Neither user 2000 nor current process has android.permission.GRANT_RUNTIME_PERMISSIONS.',
        ),
      );
    await assert.rejects(
      setRuntimePermission(xiaomi, PKG, CAMERA, true),
      (e: unknown) =>
        isCode('permission_denied', /USB debugging \(Security settings\)/)(e) &&
        (e as BridgeError).details?.fix !== undefined,
    );
  });
});

void describe('clearAppData', () => {
  void test('Success; Failed for a package that is not installed is app_not_found; otherwise command_failed', async () => {
    const ok = new FakeDeviceShell().on(['pm', 'clear'], 'Success\n');
    await clearAppData(ok, PKG);
    assert.deepEqual(ok.argvs(), [['pm', 'clear', PKG]]);
    const gone = new FakeDeviceShell()
      .on(['pm', 'clear'], { stdout: 'Failed\n', exitCode: 1 })
      .on(['pm', 'path'], { stdout: '', exitCode: 1 });
    await assert.rejects(clearAppData(gone, PKG), isCode('app_not_found'));
    const refused = new FakeDeviceShell()
      .on(['pm', 'clear'], { stdout: 'Failed\n', exitCode: 1 })
      .on(['pm', 'path'], `package:/data/app/${PKG}/base.apk\n`);
    await assert.rejects(clearAppData(refused, PKG), isCode('command_failed', /did not clear/));
  });
});

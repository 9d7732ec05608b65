// Output formats of the simulated phone's commands, checked against what Android 14 prints.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { center, dump, newPhone, sh } from './phone-test-kit';

describe('device information', () => {
  test('getprop lists [key]: [value] lines and answers single keys', async () => {
    const phone = newPhone({ serial: 'R5CT1234ABC' });
    const all = await sh(phone, 'getprop');
    for (const line of [
      '[ro.product.model]: [Pixel 7]',
      '[ro.product.manufacturer]: [Google]',
      '[ro.build.version.sdk]: [34]',
      '[ro.serialno]: [R5CT1234ABC]',
      '[sys.boot_completed]: [1]',
      '[ro.product.cpu.abi]: [arm64-v8a]',
    ]) {
      assert.ok(all.stdout.split('\n').includes(line), line);
    }
    assert.equal((await sh(phone, 'getprop ro.build.version.release')).stdout, '14\n');
    assert.equal((await sh(phone, 'getprop no.such.key')).stdout, '\n');
    assert.match(
      (await sh(phone, 'getprop ro.build.fingerprint')).stdout,
      /^google\/panther\/panther:14\/UQ1A\.240205\.004\/\d+:user\/release-keys\n$/,
    );
    assert.deepEqual(phone.identity(), {
      serial: 'R5CT1234ABC',
      product: 'panther',
      model: 'Pixel 7',
      device: 'panther',
    });
  });

  test('wm size and density follow the configured screen', async () => {
    const phone = newPhone({ screen: { width: 720, height: 1600, density: 320 } });
    assert.equal((await sh(phone, 'wm size')).stdout, 'Physical size: 720x1600\n');
    assert.equal((await sh(phone, 'wm density')).stdout, 'Physical density: 320\n');
  });

  test('bad options are refused up front with a precise message', () => {
    assert.throws(() => newPhone({ serial: '' }), /createSimulatedPhone: serial must be/);
    assert.throws(
      () => newPhone({ screen: { width: 0, height: 10, density: 420 } }),
      /screen\.width must be an integer from 64 to 8192 \(got 0\)/,
    );
  });

  test('dumpsys battery, power and input carry the lines clients grep for', async () => {
    const phone = newPhone();
    const battery = (await sh(phone, 'dumpsys battery')).stdout.split('\n');
    assert.equal(battery[0], 'Current Battery Service state:');
    for (const line of [
      '  AC powered: false',
      '  USB powered: true',
      '  level: 87',
      '  scale: 100',
      '  status: 2',
      '  temperature: 290',
    ])
      assert.ok(battery.includes(line), line);
    assert.match(
      (await sh(phone, 'dumpsys power')).stdout,
      /\n {2}mWakefulness=Awake\n[\s\S]*\n {2}mHoldingDisplaySuspendBlocker=true\n/,
    );
    assert.ok((await sh(phone, 'dumpsys input')).stdout.includes('\n      SurfaceOrientation: 0\n'));
    await sh(phone, 'input keyevent KEYCODE_POWER');
    assert.match((await sh(phone, 'dumpsys power')).stdout, /\n {2}mWakefulness=Asleep\n/);
    await sh(phone, 'input keyevent 26');
    assert.match((await sh(phone, 'dumpsys power')).stdout, /\n {2}mWakefulness=Awake\n/);
  });

  test('dumpsys window and activity follow the foreground app', async () => {
    const phone = newPhone();
    await sh(phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    const window = (await sh(phone, 'dumpsys window')).stdout;
    assert.match(
      window,
      /\n {2}mCurrentFocus=Window\{[0-9a-f]{7} u0 com\.example\.notes\/com\.example\.notes\.MainActivity\}\n/,
    );
    assert.match(
      window,
      /\n {2}mFocusedApp=ActivityRecord\{[0-9a-f]{7} u0 com\.example\.notes\/\.MainActivity t\d+\}\n/,
    );
    assert.match(window, /cur=1080x2400 /);
    const activities = (await sh(phone, 'dumpsys activity activities')).stdout;
    assert.match(
      activities,
      /\n {4}mResumedActivity: ActivityRecord\{[0-9a-f]+ u0 com\.example\.notes\/\.MainActivity t\d+\}\n/,
    );
    assert.match(
      activities,
      /\n {2}ResumedActivity: ActivityRecord\{[0-9a-f]+ u0 com\.example\.notes\/\.MainActivity t\d+\}\n/,
    );
  });
});

describe('packages', () => {
  test('pm list packages: all, third-party, filtered', async () => {
    const phone = newPhone({ withAdbKeyboard: true });
    const all = (await sh(phone, 'pm list packages')).stdout.split('\n');
    for (const p of ['com.android.settings', 'com.android.systemui', 'com.example.notes', 'com.android.adbkeyboard'])
      assert.ok(all.includes(`package:${p}`), p);
    const third = (await sh(phone, 'pm list packages -3')).stdout.trim().split('\n').sort();
    assert.deepEqual(third, [
      'package:com.android.adbkeyboard',
      'package:com.example.list',
      'package:com.example.login',
      'package:com.example.notes',
      'package:com.example.wallet',
    ]);
    assert.equal((await sh(phone, 'pm list packages wallet')).stdout, 'package:com.example.wallet\n');
  });

  test('pm path: an APK path, or exit 1 and no output when unknown', async () => {
    const phone = newPhone();
    assert.match(
      (await sh(phone, 'pm path com.example.notes')).stdout,
      /^package:\/data\/app\/~~[A-Za-z0-9_-]{22}==\/com\.example\.notes-[A-Za-z0-9_-]{22}==\/base\.apk\n$/,
    );
    const unknown = await sh(phone, 'pm path com.nope');
    assert.deepEqual([unknown.exitCode, unknown.stdout, unknown.stderr], [1, '', '']);
  });

  test('pm install registers a pushed APK, refuses non-zips, uninstall removes it', async () => {
    const phone = newPhone();
    phone.fs.write(
      '/data/local/tmp/app.apk',
      Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('...\npackage=com.acme.shop\n...')]),
      0o644,
      0,
    );
    phone.fs.write('/data/local/tmp/bad.apk', Buffer.from('not a zip'), 0o644, 0);
    const ok = await sh(phone, 'pm install -r -g /data/local/tmp/app.apk');
    assert.deepEqual([ok.exitCode, ok.stdout], [0, 'Success\n']);
    assert.ok((await sh(phone, 'pm list packages -3')).stdout.includes('package:com.acme.shop\n'));
    await sh(phone, 'monkey -p com.acme.shop -c android.intent.category.LAUNCHER 1');
    assert.equal(phone.foregroundPackage(), 'com.acme.shop');
    const bad = await sh(phone, 'pm install /data/local/tmp/bad.apk');
    assert.equal(bad.exitCode, 1);
    assert.match(bad.stdout, /^Failure \[INSTALL_PARSE_FAILED_NOT_APK: /);
    const missing = await sh(phone, 'pm install /data/local/tmp/none.apk');
    assert.equal(missing.exitCode, 255);
    assert.match(
      missing.stderr,
      /^\nException occurred while executing 'install':\njava\.lang\.IllegalArgumentException: Error: Can't open file: \/data\/local\/tmp\/none\.apk\n\tat /,
    );
    assert.equal((await sh(phone, 'pm uninstall com.acme.shop')).stdout, 'Success\n');
    assert.equal((await sh(phone, 'pm path com.acme.shop')).exitCode, 1);
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
    assert.deepEqual(await sh(phone, 'pm uninstall com.nope').then((r) => [r.exitCode, r.stdout]), [
      1,
      'Failure [DELETE_FAILED_INTERNAL_ERROR]\n',
    ]);
  });
});

describe('runtime permissions and app data', () => {
  const CAMERA = 'android.permission.CAMERA';
  const runtimeLine = (dump: string, permission: string): string | undefined =>
    new RegExp(`^ {8}${permission.replaceAll('.', '\\.')}: .*$`, 'm').exec(dump)?.[0];

  test('dumpsys package lists what the app requests, install permissions, and user 0’s runtime permissions; pm grant and revoke change them', async () => {
    const phone = newPhone();
    const before = (await sh(phone, 'dumpsys package com.example.notes')).stdout;
    assert.match(
      before,
      /^ {4}requested permissions:\n {6}android\.permission\.INTERNET\n {6}android\.permission\.CAMERA\n {6}android\.permission\.RECORD_AUDIO\n {6}android\.permission\.POST_NOTIFICATIONS\n {4}install permissions:\n {6}android\.permission\.INTERNET: granted=true\n {4}User 0: /m,
    );
    assert.equal(
      runtimeLine(before, CAMERA),
      `        ${CAMERA}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]`,
    );
    const granted = await sh(phone, `pm grant com.example.notes ${CAMERA}`);
    assert.deepEqual([granted.exitCode, granted.stdout, granted.stderr], [0, '', '']);
    assert.match(
      runtimeLine((await sh(phone, 'dumpsys package com.example.notes')).stdout, CAMERA) ?? '',
      /granted=true/,
    );
    assert.equal((await sh(phone, `pm revoke --user 0 com.example.notes ${CAMERA}`)).exitCode, 0);
    assert.match(
      runtimeLine((await sh(phone, 'dumpsys package com.example.notes')).stdout, CAMERA) ?? '',
      /granted=false/,
    );
    const usage = await sh(phone, 'pm grant com.example.notes');
    assert.deepEqual([usage.exitCode, usage.stderr], [1, 'Error: no permission specified\n']);
  });

  test('what pm grant says by Android version: an unknown package, a permission not requested, one granted at install, an unknown one', async () => {
    const exception = (r: { exitCode: number; stderr: string }): string =>
      r.exitCode === 255
        ? (/^java\.lang\.\w+: .*$/m.exec(r.stderr)?.[0] ?? r.stderr)
        : `exit ${r.exitCode}: ${r.stderr}`;
    const cases = async (sdk: number): Promise<string[]> => {
      const phone = newPhone({ sdk });
      const out: string[] = [];
      for (const line of [
        `pm grant com.example.nope ${CAMERA}`,
        'pm grant com.example.notes android.permission.READ_CONTACTS',
        'pm grant com.example.notes android.permission.INTERNET',
        'pm revoke com.example.notes android.permission.NOPE',
      ]) {
        out.push(exception(await sh(phone, line)));
      }
      return out;
    };
    assert.deepEqual(await cases(28), [
      'java.lang.IllegalArgumentException: Unknown package: com.example.nope',
      'java.lang.SecurityException: Package com.example.notes has not requested permission android.permission.READ_CONTACTS',
      'java.lang.SecurityException: Permission android.permission.INTERNET requested by com.example.notes is not a changeable permission type',
      'java.lang.IllegalArgumentException: Unknown permission: android.permission.NOPE',
    ]);
    assert.deepEqual(await cases(34), [
      'exit 0: ',
      'java.lang.SecurityException: Package com.example.notes has not requested permission android.permission.READ_CONTACTS',
      'java.lang.SecurityException: Permission android.permission.INTERNET requested by com.example.notes is not a changeable permission type',
      'java.lang.IllegalArgumentException: Unknown permission: android.permission.NOPE',
    ]);
    assert.deepEqual(await cases(35), [
      'exit 0: ',
      'exit 0: ',
      'java.lang.SecurityException: Permission android.permission.INTERNET requested by package com.example.notes is not a changeable permission type',
      'java.lang.IllegalArgumentException: Unknown permission android.permission.NOPE',
    ]);
    // Android 9 prints no flags; POST_NOTIFICATIONS does not exist before Android 13.
    const old = (await sh(newPhone({ sdk: 28 }), 'dumpsys package com.example.notes')).stdout;
    assert.equal(runtimeLine(old, CAMERA), `        ${CAMERA}: granted=false`);
    assert.equal(runtimeLine(old, 'android.permission.POST_NOTIFICATIONS'), undefined);
  });

  test('Xiaomi without USB debugging (Security settings): the shell may not grant', async () => {
    const phone = newPhone({ quirks: ['inject-events-denied'] });
    const r = await sh(phone, `pm grant com.example.notes ${CAMERA}`);
    assert.equal(r.exitCode, 255);
    assert.match(
      r.stderr,
      /^\nException occurred while executing 'grant':\njava\.lang\.SecurityException: grantRuntimePermission: Neither user 2000 nor current process has android\.permission\.GRANT_RUNTIME_PERMISSIONS\.\n\tat android\.app\.ContextImpl\.enforce/,
    );
    assert.match(
      runtimeLine((await sh(phone, 'dumpsys package com.example.notes')).stdout, CAMERA) ?? '',
      /granted=false/,
    );
  });

  test('pm clear: Success, the saved note and the runtime grants are gone; Failed for an unknown package', async () => {
    const phone = newPhone();
    await sh(phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    await sh(phone, 'input tap 540 700');
    await sh(phone, 'input text keep%sme');
    assert.equal(phone.typedText('note_text'), 'keep me');
    const save = (await dump(phone)).find((n) => n['resource-id'] === 'com.example.notes:id/save_button');
    assert.ok(save);
    await sh(phone, `input tap ${center(save).x} ${center(save).y}`);
    await sh(phone, `pm grant com.example.notes ${CAMERA}`);
    await sh(
      phone,
      'am force-stop com.example.notes; monkey -p com.example.notes -c android.intent.category.LAUNCHER 1',
    );
    assert.equal(phone.typedText('note_text'), 'keep me', 'a saved note survives a stop');
    const cleared = await sh(phone, 'pm clear com.example.notes');
    assert.deepEqual([cleared.exitCode, cleared.stdout], [0, 'Success\n']);
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher', 'the app was stopped');
    await sh(phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    assert.equal(phone.typedText('note_text') ?? '', '', 'nothing saved is restored');
    assert.match(
      runtimeLine((await sh(phone, 'dumpsys package com.example.notes')).stdout, CAMERA) ?? '',
      /granted=false/,
    );
    const unknown = await sh(phone, 'pm clear com.example.nope');
    assert.deepEqual([unknown.exitCode, unknown.stdout], [1, 'Failed\n']);
  });
});

describe('activity manager', () => {
  test('am start prints the intent; repeats and unknown classes are reported like Android', async () => {
    const phone = newPhone();
    const first = await sh(phone, 'am start -n com.example.notes/.MainActivity');
    assert.deepEqual(
      [first.exitCode, first.stdout, first.stderr],
      [0, 'Starting: Intent { cmp=com.example.notes/.MainActivity }\n', ''],
    );
    assert.equal(phone.foregroundPackage(), 'com.example.notes');
    const again = await sh(phone, 'am start -n com.example.notes/com.example.notes.MainActivity');
    assert.equal(
      again.stderr,
      'Warning: Activity not started, intent has been delivered to currently running top-most instance.\n',
    );
    const missing = await sh(phone, 'am start -n com.example.notes/.Nope');
    assert.equal(missing.exitCode, 1);
    assert.equal(missing.stdout, 'Starting: Intent { cmp=com.example.notes/.Nope }\n');
    assert.equal(
      missing.stderr,
      'Error type 3\nError: Activity class {com.example.notes/com.example.notes.Nope} does not exist.\n',
    );
  });

  test('am start VIEW opens the browser at the URL (printed the safe way)', async () => {
    const phone = newPhone();
    const r = await sh(phone, "am start -a android.intent.action.VIEW -d 'https://example.com/a/b?token=secret'");
    assert.equal(r.stdout, 'Starting: Intent { act=android.intent.action.VIEW dat=https://example.com/... }\n');
    assert.equal(phone.foregroundPackage(), 'com.android.chrome');
    assert.equal(phone.typedText('url_bar'), 'https://example.com/a/b?token=secret');
  });

  test('am force-stop ends the app and its unsaved text', async () => {
    const phone = newPhone();
    await sh(phone, 'am start -n com.example.notes/.MainActivity && input tap 540 600 && input text draft');
    assert.equal(phone.typedText('note_text'), 'draft');
    await sh(phone, 'am force-stop com.example.notes');
    assert.equal(phone.foregroundPackage(), 'com.google.android.apps.nexuslauncher');
    await sh(phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    assert.equal(phone.typedText('note_text') ?? '', '');
  });

  test('monkey without a launchable package aborts like the real one', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'monkey -p com.nope -c android.intent.category.LAUNCHER 1');
    assert.equal(r.exitCode, 252);
    assert.match(r.stdout, /\n\*\* No activities found to run, monkey aborted\.\n$/);
  });
});

describe('input methods and settings', () => {
  test('ime list shows ADB Keyboard only when installed; settings reflect the selection', async () => {
    const plain = newPhone();
    assert.equal(
      (await sh(plain, 'ime list -s')).stdout,
      'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n',
    );
    const withKeyboard = newPhone({ withAdbKeyboard: true });
    assert.equal(
      (await sh(withKeyboard, 'ime list -s')).stdout,
      'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\ncom.android.adbkeyboard/.AdbIME\n',
    );
    assert.equal(
      (await sh(withKeyboard, 'settings get secure default_input_method')).stdout,
      'com.android.adbkeyboard/.AdbIME\n',
    );
    assert.equal(
      (await sh(withKeyboard, 'ime set com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME'))
        .stdout,
      'Input method com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME selected for user #0\n',
    );
    assert.equal(
      (await sh(withKeyboard, 'settings get secure default_input_method')).stdout,
      'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n',
    );
    assert.equal(
      (await sh(withKeyboard, 'ime enable com.android.adbkeyboard/.AdbIME')).stdout,
      'Input method com.android.adbkeyboard/.AdbIME: already enabled\n',
    );
    const unknown = await sh(plain, 'ime set com.android.adbkeyboard/.AdbIME');
    assert.equal(unknown.exitCode, 255);
    assert.equal((await sh(plain, 'settings get global no_such')).stdout, 'null\n');
    await sh(plain, 'settings put global stay_on_while_plugged_in 3');
    assert.equal((await sh(plain, 'settings get global stay_on_while_plugged_in')).stdout, '3\n');
  });
});

describe('input argument errors', () => {
  test('missing or bad numbers fail the way InputShellCommand does', async () => {
    const phone = newPhone();
    const missing = await sh(phone, 'input tap 10');
    assert.equal(missing.exitCode, 255);
    assert.match(
      missing.stderr,
      /^\nException occurred while executing 'tap':\njava\.lang\.IllegalArgumentException: Argument expected after "10"\n\tat /,
    );
    const bad = await sh(phone, 'input swipe 1 2 x 4');
    assert.match(bad.stderr, /java\.lang\.IllegalArgumentException: Error: Invalid arguments for command: swipe\n/);
    assert.equal((await sh(phone, 'input tap 1.5e2 20f')).exitCode, 0);
  });

  test('input text with non-ASCII fails as on Android 14 and types nothing', async () => {
    const phone = newPhone();
    await sh(phone, 'am start -n com.example.notes/.MainActivity; input tap 540 600');
    const r = await sh(phone, "input text 'caf\u00e9'");
    assert.equal(r.exitCode, 255);
    assert.match(
      r.stderr,
      /java\.lang\.NullPointerException: Attempt to get length of null array\n\tat com\.android\.server\.input\.InputShellCommand\.sendText/,
    );
    assert.equal(phone.typedText('note_text'), '');
  });
});

describe('files', () => {
  test('ls, mkdir -p, rm and cat behave like toybox', async () => {
    const phone = newPhone();
    assert.ok((await sh(phone, 'ls /sdcard')).stdout.split('\n').includes('Download'));
    assert.equal((await sh(phone, 'mkdir -p /sdcard/a/b && echo x > /sdcard/a/b/f && ls /sdcard/a/b')).stdout, 'f\n');
    assert.match(
      (await sh(phone, 'ls -l /sdcard/a/b')).stdout,
      /^total \d+\n-rw-rw-rw- 1 \S+ \S+ 2 \d{4}-\d\d-\d\d \d\d:\d\d f\n$/,
    );
    const rmDir = await sh(phone, 'rm /sdcard/a');
    assert.deepEqual([rmDir.exitCode, rmDir.stderr], [1, 'rm: /sdcard/a: Is a directory\n']);
    assert.equal(
      (await sh(phone, 'rm -rf /sdcard/a; ls /sdcard/a')).stderr,
      'ls: /sdcard/a: No such file or directory\n',
    );
    assert.equal((await sh(phone, 'rm -f /sdcard/none; echo $?')).stdout, '0\n');
    assert.equal((await sh(phone, 'cat /sdcard/none')).stderr, 'cat: /sdcard/none: No such file or directory\n');
  });

  test('screenrecord writes an MP4 that starts with an ftyp box', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'screenrecord --time-limit 3 --size 720x1600 --bit-rate 4000000 /sdcard/rec.mp4');
    assert.deepEqual([r.exitCode, r.stdout, r.stderr], [0, '', '']);
    const mp4 = phone.fs.read('/sdcard/rec.mp4');
    assert.ok(mp4);
    const ftypSize = mp4.readUInt32BE(0);
    assert.equal(mp4.toString('latin1', 4, 8), 'ftyp');
    assert.equal(mp4.toString('latin1', 8, 12), 'isom');
    assert.equal(mp4.toString('latin1', ftypSize + 4, ftypSize + 8), 'moov');
  });

  test('cmd package is the same as pm', async () => {
    const phone = newPhone();
    assert.equal((await sh(phone, 'cmd package list packages notes')).stdout, 'package:com.example.notes\n');
    assert.equal((await sh(phone, 'cmd nosuch')).exitCode, 20);
  });
});

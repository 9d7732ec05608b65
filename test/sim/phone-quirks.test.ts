/**
 * The named quirks of simulated phones (main/sim/QUIRKS.md): checked up front, in the test
 * API and on the command line, and each answering with the real phone's output and status.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createSimulatedPhone } from '../../main/sim/phone';
import { QUIRK_NAMES } from '../../main/sim/phone-quirks';
import { quirksFlag } from '../../main/sim/sim-cli';
import { UsageError } from '../../main/cli-args';

async function run(
  phone: ReturnType<typeof createSimulatedPhone>,
  line: string,
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const out = await phone.exec(line, { signal: new AbortController().signal });
  return { stdout: out.stdout.toString('utf8'), stderr: out.stderr.toString('utf8'), exitCode: out.exitCode };
}

describe('simulated phone quirks', () => {
  test('unknown quirk names are refused with the list, in the test API and in --quirks', () => {
    assert.throws(
      () => createSimulatedPhone({ serial: 'Q1', quirks: ['inject-events-denied', 'no-such-quirk'] }),
      (error: unknown) =>
        error instanceof TypeError &&
        error.message ===
          `createSimulatedPhone: unknown quirk "no-such-quirk"; known quirks: ${QUIRK_NAMES.join(', ')}`,
    );
    assert.deepEqual(quirksFlag('ui-dump-empty, inject-events-denied,'), ['ui-dump-empty', 'inject-events-denied']);
    assert.deepEqual(quirksFlag(undefined), []);
    assert.throws(
      () => quirksFlag('ui-dump-empty,bogus'),
      (error: unknown) =>
        error instanceof UsageError &&
        error.code === 'invalid_value' &&
        error.message === `--quirks: unknown quirk "bogus"; known quirks: ${QUIRK_NAMES.join(', ')}`,
    );
    const phone = createSimulatedPhone({ serial: 'Q2' });
    assert.throws(() => phone.setQuirks(['bogus']), /unknown quirk "bogus"/);
    assert.deepEqual(phone.quirks(), []);
  });

  test('inject-events-denied: every injecting input verb prints the SecurityException and exits 255; nothing reaches the screen', async () => {
    const phone = createSimulatedPhone({ serial: 'Q3', quirks: ['inject-events-denied'] });
    const version = phone.screenState().version;
    for (const [line, verb] of [
      ['input tap 10 10', 'tap'],
      ['input swipe 10 10 20 20 100', 'swipe'],
      ['input text hello', 'text'],
      ['input keyevent 66', 'keyevent'],
    ] as const) {
      const out = await run(phone, line);
      assert.equal(out.exitCode, 255, line);
      assert.equal(out.stdout, '');
      assert.ok(
        out.stderr.startsWith(
          `\nException occurred while executing '${verb}':\njava.lang.SecurityException: Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.\n\tat com.android.server.input.InputManagerService.injectInputEventToTarget(`,
        ),
        out.stderr,
      );
    }
    assert.equal(phone.screenState().version, version);
    const old = createSimulatedPhone({ serial: 'Q4', androidVersion: '12', sdk: 31, quirks: ['inject-events-denied'] });
    assert.match(
      (await run(old, 'input tap 1 1')).stderr,
      /java\.lang\.SecurityException: Injecting to another application requires INJECT_EVENTS permission\n/,
    );
    // Bad arguments are still reported first, as the real service parses before injecting.
    assert.match((await run(phone, 'input tap x 1')).stderr, /IllegalArgumentException/);
  });

  test('install quirks answer pm install with the real Failure line and exit 1', async () => {
    const expected: Record<string, string> = {
      'install-user-restricted': 'Failure [INSTALL_FAILED_USER_RESTRICTED: Install canceled by user]\n',
      'install-version-downgrade':
        'Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 34 is older than current 35]\n',
      'install-insufficient-storage': 'Failure [INSTALL_FAILED_INSUFFICIENT_STORAGE]\n',
      'install-verifier-timeout': 'Failure [INSTALL_FAILED_VERIFICATION_FAILURE]\n',
    };
    for (const [quirk, line] of Object.entries(expected)) {
      const phone = createSimulatedPhone({ serial: 'Q5', quirks: [quirk] });
      phone.fs.write(
        '/data/local/tmp/a.apk',
        Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from('package=com.q.app')]),
        0o100644,
        0,
      );
      assert.deepEqual(
        await run(phone, 'pm install -r /data/local/tmp/a.apk'),
        { stdout: line, stderr: '', exitCode: 1 },
        quirk,
      );
      assert.doesNotMatch((await run(phone, 'pm list packages -3')).stdout, /com\.q\.app/);
    }
  });

  test('uiautomator dump quirks print what real phones print and exit 0', async () => {
    const cases: Record<string, { stdout: string; stderr: string }> = {
      'ui-dump-idle-timeout': { stdout: '', stderr: 'ERROR: could not get idle state.\n' },
      'ui-dump-null-root': { stdout: '', stderr: 'ERROR: null root node returned by UiTestAutomationBridge.\n' },
      'ui-dump-empty': {
        stdout: `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0" />UI hierchary dumped to: /dev/tty\n`,
        stderr: '',
      },
      'ui-dump-unreadable': { stdout: 'UI hierchary dumped to: /dev/tty\n', stderr: '' },
    };
    for (const [quirk, out] of Object.entries(cases)) {
      const phone = createSimulatedPhone({ serial: 'Q6', quirks: [quirk] });
      assert.deepEqual(await run(phone, 'uiautomator dump /dev/tty'), { ...out, exitCode: 0 }, quirk);
    }
    const unreadable = createSimulatedPhone({ serial: 'Q7', quirks: ['ui-dump-unreadable'] });
    assert.equal(
      (await run(unreadable, 'uiautomator dump /sdcard/window_dump.xml')).stdout,
      'UI hierchary dumped to: /sdcard/window_dump.xml\n',
    );
    const cat = await run(unreadable, 'cat /sdcard/window_dump.xml');
    assert.notEqual(cat.exitCode, 0);
    const huge = createSimulatedPhone({ serial: 'Q8', quirks: ['ui-huge-tree'] });
    const xml = (await run(huge, 'uiautomator dump /dev/tty')).stdout;
    assert.ok((xml.match(/<node /g) ?? []).length > 6000);
    assert.match(xml, /<\/node><\/hierarchy>UI hierchary dumped to: \/dev\/tty\n$/);
  });

  test('no-uiautomator-jar: the jar is gone and stock uiautomator cannot load its Launcher (exit 1)', async () => {
    const phone = createSimulatedPhone({ serial: 'Q11', quirks: ['no-uiautomator-jar'] });
    assert.deepEqual(await run(phone, 'uiautomator dump /dev/tty'), {
      stdout: '',
      stderr:
        'Exception in thread "main" java.lang.ClassNotFoundException: Didn\'t find class "com.android.commands.uiautomator.Launcher" on path: DexPathList[[],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]\n',
      exitCode: 1,
    });
    assert.equal((await run(phone, 'ls /system/framework/uiautomator.jar')).exitCode, 1);
    phone.setQuirks([]);
    assert.equal(
      (await run(phone, 'ls /system/framework/uiautomator.jar')).stdout,
      '/system/framework/uiautomator.jar\n',
    );
    assert.equal((await run(phone, 'uiautomator dump /dev/tty')).exitCode, 0);
    phone.close();
  });

  test('timing on the usb-phone profile: the idle timeout and the verifier each take 10 s, as on a real phone', async () => {
    const idle = createSimulatedPhone({ serial: 'Q9', profile: 'usb-phone', quirks: ['ui-dump-idle-timeout'] });
    const verifier = createSimulatedPhone({
      serial: 'Q10',
      profile: 'usb-phone',
      quirks: ['install-verifier-timeout'],
    });
    verifier.fs.write('/data/local/tmp/a.apk', Buffer.from([0x50, 0x4b, 0x03, 0x04]), 0o100644, 0);
    const timed = async (run: () => Promise<unknown>): Promise<number> => {
      const started = Date.now();
      await run();
      return Date.now() - started;
    };
    const [dumpMs, installMs] = await Promise.all([
      timed(() => run(idle, 'uiautomator dump /dev/tty')),
      timed(() => run(verifier, 'pm install -r /data/local/tmp/a.apk')),
    ]);
    assert.ok(dumpMs >= 10_000 && dumpMs < 15_000, `dump took ${dumpMs} ms`);
    assert.ok(installMs >= 10_000 && installMs < 15_000, `install took ${installMs} ms`);
  });
  test('zh-cn: the locale properties say zh-CN and the screens show Simplified Chinese (UTF-8 in the dump); typed text and the frame are kept', async () => {
    const phone = createSimulatedPhone({ serial: 'Q9', quirks: ['zh-cn'] });
    assert.equal((await run(phone, 'getprop persist.sys.locale')).stdout, 'zh-CN\n');
    assert.equal((await run(phone, 'getprop ro.product.locale')).stdout, 'zh-CN\n');
    const home = await run(phone, 'uiautomator dump /dev/tty');
    assert.equal(home.exitCode, 0);
    for (const label of ['设置', '钱包', '笔记', '登录']) assert.ok(home.stdout.includes(`text="${label}"`), label);
    assert.ok(!home.stdout.includes('text="Settings"'));
    assert.equal((await run(phone, 'am start -n com.example.wallet/.WalletActivity')).exitCode, 0);
    const wallet = (await run(phone, 'uiautomator dump /dev/tty')).stdout;
    assert.ok(wallet.includes('text="立即支付 $25.00"') && wallet.includes('text="余额"'), wallet);
    // Back to English when the quirk goes: the same phone, the same screen.
    phone.setQuirks([]);
    assert.equal((await run(phone, 'getprop persist.sys.locale')).stdout, 'en-US\n');
    assert.ok((await run(phone, 'uiautomator dump /dev/tty')).stdout.includes('text="Pay $25.00"'));
  });
});

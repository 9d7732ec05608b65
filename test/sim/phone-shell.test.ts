// The simulated phone's command line: quoting, operators, substitution, redirections and
// the argv log that proves how a command line was split.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newPhone, sh } from './phone-test-kit';

/** Single-quote one argument for sh, the way a careful adb client does. */
function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

describe('shell parsing and execution', () => {
  test('quotes and escapes are removed exactly as sh does', async () => {
    const phone = newPhone();
    const r = await sh(phone, `echo 'a  b' "c\\"d" e\\ f \\$HOME "$HOME" '$HOME' ""`);
    assert.deepEqual(phone.argvLog, [['echo', 'a  b', 'c"d', 'e f', '$HOME', '/', '$HOME', '']]);
    assert.equal(r.stdout, 'a  b c"d e f $HOME / $HOME \n');
  });

  test('; && || run only what they should', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'false && echo skipped; true && echo yes || echo never; false || echo rescued');
    assert.equal(r.stdout, 'yes\nrescued\n');
    assert.deepEqual(phone.argvLog, [['false'], ['true'], ['echo', 'yes'], ['false'], ['echo', 'rescued']]);
    assert.equal(r.exitCode, 0);
  });

  test('pipes feed stdout to the next command', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'dumpsys window | grep mCurrentFocus | wc -l');
    assert.equal(r.stdout, '1\n');
    const focus = await sh(phone, 'dumpsys window displays | grep -o "mCurrentFocus=.*"');
    assert.match(focus.stdout, /^mCurrentFocus=Window\{[0-9a-f]+ u0 com\.google\.android\.apps\.nexuslauncher\//);
  });

  test('$(…) and backquotes substitute output; unquoted results split into words', async () => {
    const phone = newPhone();
    await sh(phone, 'echo "[$(getprop ro.product.model)]" $(echo a  b) `echo c`');
    assert.deepEqual(phone.argvLog.at(-1), ['echo', '[Pixel 7]', 'a', 'b', 'c']);
  });

  test('$? is the previous status', async () => {
    const phone = newPhone();
    assert.equal((await sh(phone, 'false; echo $?; true; echo $?')).stdout, '1\n0\n');
  });

  test('a hostile string reaches input text as ONE argument and nothing else runs', async () => {
    const phone = newPhone();
    const hostile = "a'; reboot; $(rm -rf /) `";
    await sh(phone, 'monkey -p com.example.notes -c android.intent.category.LAUNCHER 1');
    await sh(phone, 'input tap 540 600');
    phone.clearArgvLog();
    const r = await sh(phone, `input text 'a'\\''; reboot; $(rm -rf /) \`'`);
    assert.equal(r.exitCode, 0);
    assert.deepEqual(phone.argvLog, [['input', 'text', hostile]]);
    assert.equal(phone.typedText('note_text'), hostile);
  });

  test('any string single-quoted arrives as exactly one argv element', async () => {
    const phone = newPhone();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\0')),
        async (s) => {
          phone.clearArgvLog();
          await sh(phone, `echo ${quote(s)} ${quote('$(reboot)')}`);
          assert.deepEqual(phone.argvLog, [['echo', s, '$(reboot)']]);
        },
      ),
      { numRuns: 200 },
    );
  });

  test('unknown commands fail with mksh message and 127', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'reboot');
    assert.equal(r.exitCode, 127);
    assert.equal(r.stderr, '/system/bin/sh: reboot: inaccessible or not found\n');
    assert.equal((await sh(phone, 'reboot 2>/dev/null || echo handled')).stdout, 'handled\n');
  });

  test('syntax errors are reported, never thrown', async () => {
    const phone = newPhone();
    for (const line of ["echo 'unterminated", 'echo a &&', '| cat', 'echo $(echo', 'echo a ;; echo b', 'echo (x)']) {
      const r = await sh(phone, line);
      assert.equal(r.exitCode, 2, line);
      assert.match(r.stderr, /^\/system\/bin\/sh: syntax error: /, line);
    }
    assert.deepEqual(phone.argvLog, []);
  });

  test('redirections write, append, discard and merge', async () => {
    const phone = newPhone();
    const r = await sh(
      phone,
      'echo hi > /sdcard/x.txt; echo more >> /sdcard/x.txt; cat /sdcard/x.txt; cat /nope 2>&1 | grep -c "No such"; ls /nope 2>/dev/null; echo $?',
    );
    assert.equal(r.stdout, 'hi\nmore\n1\n1\n');
    assert.equal(r.stderr, '');
    assert.equal(phone.fs.read('/storage/emulated/0/x.txt')?.toString(), 'hi\nmore\n');
    const ro = await sh(phone, 'echo x > /system/bin/evil');
    assert.equal(ro.exitCode, 1);
    assert.equal(ro.stderr, "/system/bin/sh: can't create /system/bin/evil: Read-only file system\n");
  });

  test('comments, newlines and cd', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'echo a # echo b\ncd /data/local/tmp && pwd && echo x > f && cat /data/local/tmp/f');
    assert.equal(r.stdout, 'a\n/data/local/tmp\nx\n');
  });

  test('exit stops the script with its status', async () => {
    const phone = newPhone();
    const r = await sh(phone, 'echo before; exit 3; echo after');
    assert.equal(r.stdout, 'before\n');
    assert.equal(r.exitCode, 3);
  });

  test('echo interprets backslash escapes like mksh', async () => {
    const phone = newPhone();
    assert.equal((await sh(phone, "echo 'a\\tb\\nc'; echo -n x; echo -E 'd\\ne'")).stdout, 'a\tb\nc\nxd\\ne\n');
  });
});

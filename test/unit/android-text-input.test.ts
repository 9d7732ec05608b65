import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildCommandLine } from '../../main/core/devices/shell-quote';
import {
  clearField,
  detectUnicodeIme,
  MAX_INPUT_TEXT_CHUNK,
  needsUnicodeIme,
  planAsciiTyping,
  typeText,
} from '../../main/core/android/text-input';
import { BridgeError } from '../../main/core/errors';
import { androidFixture, FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

/**
 * What Android's `input text ARG` types (InputShellCommand.sendText): each `%` followed by
 * `s` becomes one space, scanning left to right; everything else is typed as is.
 */
function androidInputText(arg: string): string {
  const buff = arg.split('');
  let escape = false;
  for (let i = 0; i < buff.length; i++) {
    if (escape) {
      escape = false;
      if (buff[i] === 's') {
        buff[i] = ' ';
        buff.splice(--i, 1);
      }
    }
    if (buff[i] === '%') escape = true;
  }
  return buff.join('');
}

/** What the focused field receives from a sequence of argv, as a phone would process them. */
function typedBy(argvs: string[][]): string {
  let out = '';
  for (const argv of argvs) {
    if (argv[0] === 'input' && argv[1] === 'text') out += androidInputText(argv[2] ?? '');
    else if (argv[0] === 'input' && argv[1] === 'keyevent') {
      for (const code of argv.slice(2)) out += code === '66' ? '\n' : code === '61' ? '\t' : `<key ${code}>`;
    } else if (argv[0] === 'am' && argv[3] === 'ADB_INPUT_B64')
      out += Buffer.from(argv[6] ?? '', 'base64').toString('utf8');
    else throw new Error(`unexpected argv ${JSON.stringify(argv)}`);
  }
  return out;
}

const asciiChar = fc.oneof(
  fc.constantFrom('%', 's', ' ', '\n', '\t', '%s', '%%', "'", '"', '\\', '$', '`'),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
);
const asciiText = fc.array(asciiChar, { minLength: 1, maxLength: 300 }).map((parts) => parts.join(''));

void describe('planAsciiTyping', () => {
  void test('the reference sendText turns %s into a space (sanity check of the model)', () => {
    assert.equal(androidInputText('a%sb'), 'a b');
    assert.equal(androidInputText('%%s'), '% ');
    assert.equal(androidInputText('100%'), '100%');
  });

  void test('spaces are sent as %s, never raw', () => {
    assert.deepEqual(planAsciiTyping('hello world'), [['input', 'text', 'hello%sworld']]);
  });

  void test('a literal %s is split so it is not read as a space', () => {
    const calls = planAsciiTyping('100%s sure');
    assert.deepEqual(calls, [
      ['input', 'text', '100%'],
      ['input', 'text', 's%ssure'],
    ]);
    assert.equal(typedBy(calls), '100%s sure');
    assert.equal(typedBy(planAsciiTyping('%%s')), '%%s');
    assert.equal(typedBy(planAsciiTyping('% s')), '% s');
  });

  void test('newlines and tabs become key events between text segments', () => {
    assert.deepEqual(planAsciiTyping('ab\ncd\n\n\tx\n'), [
      ['input', 'text', 'ab'],
      ['input', 'keyevent', '66'],
      ['input', 'text', 'cd'],
      ['input', 'keyevent', '66', '66', '61'],
      ['input', 'text', 'x'],
      ['input', 'keyevent', '66'],
    ]);
    assert.deepEqual(planAsciiTyping('a\r\nb\rc'), [
      ['input', 'text', 'a'],
      ['input', 'keyevent', '66'],
      ['input', 'text', 'b'],
      ['input', 'keyevent', '66'],
      ['input', 'text', 'c'],
    ]);
  });

  void test('long text is chunked to at most 200 characters per call', () => {
    const text = 'x'.repeat(450) + ' '.repeat(150);
    const calls = planAsciiTyping(text);
    assert.ok(calls.length >= 4);
    for (const argv of calls) assert.ok((argv[2] ?? '').length <= MAX_INPUT_TEXT_CHUNK);
    assert.equal(typedBy(calls), text);
  });

  void test('property: any printable ASCII text with newlines and tabs is typed exactly', () => {
    fc.assert(
      fc.property(asciiText, (text) => {
        const calls = planAsciiTyping(text);
        for (const argv of calls) {
          if (argv[1] === 'text') {
            const arg = argv[2] ?? '';
            assert.ok(arg.length > 0 && arg.length <= MAX_INPUT_TEXT_CHUNK);
            assert.ok(!arg.includes(' '), 'no raw space');
            assert.ok(!/[\n\t]/.test(arg));
          }
        }
        assert.equal(typedBy(calls), text);
      }),
      { numRuns: 1500 },
    );
  });
});

void describe('typeText', () => {
  void test('hostile text reaches input text as one literal argument', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    const hostile = "a'; reboot #$(id)";
    const result = await typeText(shell, hostile, { hasUnicodeIme: false });
    assert.deepEqual(shell.argvs(), [['input', 'text', "a';%sreboot%s#$(id)"]]);
    assert.equal(buildCommandLine(shell.argvs()[0] ?? []), `'input' 'text' 'a'\\'';%sreboot%s#$(id)'`);
    assert.deepEqual(result, { method: 'input_text', calls: 1 });
    assert.equal(typedBy(shell.argvs()), hostile);
  });

  void test('ASCII text never asks whether the unicode IME exists', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    let asked = false;
    await typeText(shell, 'plain ascii\nline two', {
      hasUnicodeIme: async () => {
        asked = true;
        return true;
      },
    });
    assert.equal(asked, false);
    assert.equal(typedBy(shell.argvs()), 'plain ascii\nline two');
  });

  void test('non-ASCII text goes whole through ADB Keyboard as base64 UTF-8', async () => {
    const shell = new FakeDeviceShell().on(
      ['am', 'broadcast'],
      'Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 (has extras) }\nBroadcast completed: result=0\n',
    );
    const text = 'Grüße 👋🏽 你好\nzweite Zeile %s';
    const result = await typeText(shell, text, { hasUnicodeIme: true });
    assert.deepEqual(shell.argvs(), [
      ['am', 'broadcast', '-a', 'ADB_INPUT_B64', '--es', 'msg', Buffer.from(text, 'utf8').toString('base64')],
    ]);
    assert.deepEqual(result, { method: 'unicode_ime', calls: 1 });
    assert.equal(typedBy(shell.argvs()), text);
  });

  void test('non-ASCII text without the IME is unicode_input_unavailable explaining the install', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await assert.rejects(
      typeText(shell, 'café', { hasUnicodeIme: false }),
      isCode('unicode_input_unavailable', /ADB Keyboard.*ime enable/s),
    );
    assert.equal(shell.calls.length, 0, 'nothing typed, not even the ASCII part');
  });

  void test('without hasUnicodeIme the IME is detected with ime list -s', async () => {
    const withIme = new FakeDeviceShell()
      .on(['ime', 'list', '-s'], androidFixture('ime-list-with-adbkeyboard.txt'))
      .on(['am', 'broadcast'], 'Broadcast completed: result=0\n');
    await typeText(withIme, '😀', {});
    assert.deepEqual(
      withIme.argvs().map((a) => a[0]),
      ['ime', 'am'],
    );

    const without = new FakeDeviceShell().on(['ime', 'list', '-s'], androidFixture('ime-list-gboard-only.txt'));
    await assert.rejects(typeText(without, '😀'), isCode('unicode_input_unavailable'));
  });

  void test('a broadcast nobody completes is command_failed', async () => {
    const shell = new FakeDeviceShell().on(['am', 'broadcast'], {
      stdout: 'Exception occurred while executing',
      exitCode: 255,
    });
    await assert.rejects(typeText(shell, 'ñ', { hasUnicodeIme: true }), isCode('command_failed'));
  });

  void test('text length is capped at 10 000 characters; empty text is refused', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await assert.rejects(
      typeText(shell, 'a'.repeat(10_001), { hasUnicodeIme: false }),
      isCode('invalid_arguments', /10001.*10000/),
    );
    await assert.rejects(typeText(shell, '', { hasUnicodeIme: false }), isCode('invalid_arguments'));
    assert.equal(shell.calls.length, 0);
  });

  void test('needsUnicodeIme: control characters and anything beyond 0x7E need the IME', () => {
    assert.equal(needsUnicodeIme('abc ~!@#$%^&*()\n\t\r'), false);
    assert.equal(needsUnicodeIme('é'), true);
    assert.equal(needsUnicodeIme('\u0007'), true);
    assert.equal(needsUnicodeIme('\u007f'), true);
  });

  void test('one deadline covers all calls of a long text', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    await typeText(shell, 'word '.repeat(200), { timeoutMs: 50_000, hasUnicodeIme: false });
    assert.ok(shell.calls.length > 1);
    for (const call of shell.calls) assert.ok(call.options.timeoutMs <= 50_000);
  });
});

void describe('detectUnicodeIme and clearField', () => {
  void test('detectUnicodeIme reads ime list -s', async () => {
    assert.equal(
      await detectUnicodeIme(new FakeDeviceShell().on(['ime'], androidFixture('ime-list-with-adbkeyboard.txt'))),
      true,
    );
    assert.equal(
      await detectUnicodeIme(new FakeDeviceShell().on(['ime'], androidFixture('ime-list-gboard-only.txt'))),
      false,
    );
    assert.equal(await detectUnicodeIme(new FakeDeviceShell().on(['ime'], '')), false);
  });

  void test('clearField: MOVE_END, then one keyevent call with one DEL per character', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    assert.deepEqual(await clearField(shell, { currentLength: 5 }), { deletes: 5 });
    assert.deepEqual(shell.argvs(), [
      ['input', 'keyevent', '123'],
      ['input', 'keyevent', '67', '67', '67', '67', '67'],
    ]);
  });

  void test('clearField defaults to 64 presses, caps huge lengths, skips DEL for empty fields', async () => {
    const shell = new FakeDeviceShell().on(['input'], '');
    assert.deepEqual(await clearField(shell), { deletes: 64 });
    assert.equal((shell.argvs()[1] ?? []).length, 2 + 64);
    const capped = new FakeDeviceShell().on(['input'], '');
    assert.deepEqual(await clearField(capped, { currentLength: 1_000_000 }), { deletes: 2000 });
    const empty = new FakeDeviceShell().on(['input'], '');
    await clearField(empty, { currentLength: 0 });
    assert.deepEqual(empty.argvs(), [['input', 'keyevent', '123']]);
    await assert.rejects(clearField(empty, { currentLength: -1 }), isCode('invalid_arguments'));
  });
});

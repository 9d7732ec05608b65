/**
 * The CLI's command-line parser: flags declared once per command (boolean or valued,
 * repeatable), `--flag value` and `--flag=value`, unknown or misplaced flags and commands
 * refused with the nearest known name, and the usage text printed from the same tables.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  editDistance,
  formatUsage,
  nearest,
  parseCommandLine,
  parseHostPort,
  UsageError,
  type CommandSpec,
  type UsageErrorCode,
} from '../../main/cli-args';
import { COMMANDS, DEFAULT_COMMAND, usage } from '../../main/cli-commands';

const TOY: readonly CommandSpec[] = [
  {
    name: 'run',
    summary: 'run it',
    flags: [
      { name: 'port', kind: 'value', placeholder: 'PORT', help: 'the port' },
      { name: 'tag', kind: 'value', repeatable: true, placeholder: 'TAG', help: 'a tag' },
      { name: 'verbose', kind: 'boolean', help: 'say more' },
    ],
  },
  { name: 'show', summary: 'show it', flags: [{ name: 'format', kind: 'value', help: 'json or text' }] },
];

function refusal(fn: () => unknown): { code: UsageErrorCode; message: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof UsageError, `expected a UsageError, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }
  assert.fail('expected the command line to be refused');
}

const parseToy = (...argv: string[]) => parseCommandLine(argv, TOY, 'run');
const parseReal = (...argv: string[]) => parseCommandLine(argv, COMMANDS, DEFAULT_COMMAND);

describe('parseCommandLine', () => {
  test('valued flags take the next argument or the part after =; boolean flags take none', () => {
    const spaced = parseToy('run', '--port', '9000', '--verbose');
    assert.equal(spaced.command.name, 'run');
    assert.equal(spaced.flags.value('port'), '9000');
    assert.equal(spaced.flags.has('verbose'), true);
    const inline = parseToy('run', '--port=9000');
    assert.equal(inline.flags.value('port'), '9000');
    assert.equal(inline.flags.has('verbose'), false);
    // The = form carries values that look like flags or hold '='.
    assert.equal(parseToy('run', '--port=--x').flags.value('port'), '--x');
    assert.equal(parseToy('run', '--tag=a=b').flags.values('tag')[0], 'a=b');
    // A single-dash value is a value (the command then judges it).
    assert.equal(parseToy('run', '--port', '-1').flags.value('port'), '-1');
  });

  test('a boolean flag does not swallow the next argument', () => {
    const { code, message } = refusal(() => parseToy('run', '--verbose', '9000'));
    assert.equal(code, 'unexpected_argument');
    assert.match(message, /unexpected argument "9000" for run/);
    assert.equal(refusal(() => parseToy('run', '--verbose=yes')).code, 'unexpected_value');
    assert.match(refusal(() => parseToy('run', '--verbose=')).message, /--verbose takes no value/);
  });

  test('a valued flag without its value is refused, naming the placeholder', () => {
    for (const argv of [
      ['run', '--port'],
      ['run', '--port', '--verbose'],
      ['run', '--port='],
      ['run', '--port', ''],
    ]) {
      const { code, message } = refusal(() => parseToy(...argv));
      assert.equal(code, 'missing_value', argv.join(' '));
      assert.equal(message, '--port needs a value: --port PORT');
    }
  });

  test('repeatable flags keep every value in order; others may be given once', () => {
    const parsed = parseToy('run', '--tag', 'a', '--tag=b', '--tag', 'c');
    assert.deepEqual(parsed.flags.values('tag'), ['a', 'b', 'c']);
    assert.deepEqual(parseToy('run').flags.values('tag'), []);
    assert.equal(refusal(() => parseToy('run', '--port', '1', '--port=2')).code, 'repeated_flag');
    assert.equal(refusal(() => parseToy('run', '--verbose', '--verbose')).code, 'repeated_flag');
  });

  test('an unknown flag names the command and the nearest known flag when it is a slip', () => {
    assert.equal(
      refusal(() => parseReal('serve', '--prot', '9000')).message,
      'unknown flag --prot for serve (did you mean --port?)',
    );
    assert.equal(
      refusal(() => parseReal('serve', '--adbb', 'h:5037')).message,
      'unknown flag --adbb for serve (did you mean --adb?)',
    );
    assert.equal(
      refusal(() => parseReal('serve', '--data-dri=x')).message,
      'unknown flag --data-dri for serve (did you mean --data-dir?)',
    );
    assert.equal(
      refusal(() => parseReal('serve', '--allow-remote')).message,
      'unknown flag --allow-remote for serve (did you mean --allow-remote-admin?)',
    );
    assert.equal(
      refusal(() => parseReal('sim', '--devics', '2')).message,
      'unknown flag --devics for sim (did you mean --devices?)',
    );
    // Nothing close: no guess.
    const far = refusal(() => parseReal('serve', '--verbose'));
    assert.equal(far.code, 'unknown_flag');
    assert.equal(far.message, 'unknown flag --verbose for serve');
    assert.equal(refusal(() => parseReal('serve', '-p', '1')).message, 'unknown flag -p for serve');
  });

  test('a flag given to the wrong command is refused the same way, saying whose it is', () => {
    const wrong = refusal(() => parseReal('api-key', '--port', '1'));
    assert.equal(wrong.code, 'unknown_flag');
    assert.equal(wrong.message, 'unknown flag --port for api-key (--port is a flag of serve, demo)');
    // demo runs its own ADB server: --adb belongs to serve and sim only.
    assert.equal(
      refusal(() => parseReal('demo', '--adb', '127.0.0.1:5037')).message,
      'unknown flag --adb for demo (--adb is a flag of serve, sim)',
    );
    assert.equal(refusal(() => parseReal('sim', '--allow-remote-admin')).code, 'unknown_flag');
    assert.equal(
      refusal(() => parseToy('show', '--port', '1')).message,
      'unknown flag --port for show (--port is a flag of run)',
    );
  });

  test('unknown commands are refused with the nearest command; no command means the default', () => {
    assert.deepEqual(
      refusal(() => parseReal('serv')),
      { code: 'unknown_command', message: 'unknown command serv (did you mean serve?)' },
    );
    assert.equal(refusal(() => parseReal('dmeo')).message, 'unknown command dmeo (did you mean demo?)');
    assert.equal(refusal(() => parseReal('launch')).message, 'unknown command launch');
    assert.equal(parseReal().command.name, 'serve');
    const flagsFirst = parseReal('--port', '0');
    assert.equal(flagsFirst.command.name, 'serve');
    assert.equal(flagsFirst.flags.value('port'), '0');
  });

  test('every command takes --help and -h; help takes no flags or arguments', () => {
    assert.equal(parseReal('api-key', '--help').help, true);
    assert.equal(parseReal('-h').help, true);
    assert.equal(parseReal('--help').command.name, 'serve');
    assert.equal(parseReal('help').command.name, 'help');
    assert.equal(parseReal('serve', '--port', '1').help, false);
    assert.equal(refusal(() => parseReal('help', 'serve')).code, 'unexpected_argument');
    assert.equal(refusal(() => parseReal('serve', '--help=1')).code, 'unexpected_value');
  });

  test('arguments that are not flags are refused', () => {
    for (const arg of ['extra', '-', '--'])
      assert.equal(refusal(() => parseReal('serve', arg)).code, 'unexpected_argument', arg);
  });
});

describe('ParsedFlags', () => {
  test('integer() accepts whole numbers in range and refuses the rest naming the flag and range', () => {
    assert.equal(parseReal('serve', '--port', '0').flags.integer('port', { min: 0, max: 65535 }), 0);
    assert.equal(parseReal('serve').flags.integer('port', { min: 0, max: 65535 }), undefined);
    for (const bad of ['abc', '1.5', '1e3', '0x10', ' 80', '65536', '-1']) {
      const { code, message } = refusal(() =>
        parseReal('serve', `--port=${bad}`).flags.integer('port', { min: 0, max: 65535 }),
      );
      assert.equal(code, 'invalid_value');
      assert.equal(message, `--port must be an integer from 0 to 65535 (got ${JSON.stringify(bad)})`);
    }
  });

  test('choice() accepts only the listed values', () => {
    assert.equal(
      parseReal('sim', '--profile', 'usb-phone').flags.choice('profile', ['instant', 'usb-phone']),
      'usb-phone',
    );
    assert.equal(
      refusal(() => parseReal('sim', '--profile=fast').flags.choice('profile', ['instant', 'usb-phone'])).message,
      '--profile must be instant or usb-phone (got "fast")',
    );
  });

  test('reading a flag the command does not declare is a programming error, not a usage error', () => {
    const { flags } = parseReal('demo');
    assert.throws(
      () => flags.value('adb'),
      (error: unknown) => !(error instanceof UsageError) && /--adb is not a flag of demo/.test(String(error)),
    );
    assert.throws(() => flags.value('allow-remote-admin'), /boolean flag of demo/);
    assert.throws(() => parseReal('serve').flags.value('adb'), /repeatable/);
  });
});

describe('nearest and editDistance', () => {
  test('a swap of neighbours is one edit', () => {
    assert.equal(editDistance('prot', 'port'), 1);
    assert.equal(editDistance('', 'abc'), 3);
    assert.equal(editDistance('kitten', 'sitting'), 3);
    assert.equal(editDistance('same', 'same'), 0);
  });

  test('suggests only reasonably close names', () => {
    const names = ['host', 'port', 'data-dir', 'allow-remote-admin', 'adb'];
    assert.equal(nearest('prot', names), 'port');
    assert.equal(nearest('hots', names), 'host');
    assert.equal(nearest('datadir', names), 'data-dir');
    assert.equal(nearest('allow', names), 'allow-remote-admin');
    assert.equal(nearest('p', names), undefined);
    assert.equal(nearest('prt0', names), undefined);
    assert.equal(nearest('verbose', names), undefined);
  });
});

describe('usage', () => {
  test('is printed from the tables: every command and each of its flags, placeholders and repeatability', () => {
    const text = formatUsage('toy', TOY);
    assert.match(text, /^Usage: toy <command> \[flags\]/);
    assert.match(text, /\n {2}run +run it\n/);
    assert.match(text, /\n {6}--port PORT +the port\n/);
    assert.match(text, /\n {6}--tag TAG \.\.\. +a tag\n/);
    assert.match(text, /\n {6}--verbose +say more\n/);
    assert.match(text, /\n {6}--format VALUE +json or text/);
  });

  test('the real usage lists every declared flag of every command', () => {
    const text = usage();
    for (const command of COMMANDS) {
      assert.ok(text.includes(`  ${command.name} `), command.name);
      for (const flag of command.flags) assert.ok(text.includes(`--${flag.name}`), `${command.name} --${flag.name}`);
    }
    assert.match(text, /exit status 2/);
  });
});

describe('parseHostPort', () => {
  test('HOST:PORT, IPv6 in brackets; the message names the flag', () => {
    assert.deepEqual(parseHostPort('10.0.0.5:5037', '--adb'), { host: '10.0.0.5', port: 5037 });
    assert.deepEqual(parseHostPort('[::1]:5037', '--adb'), { host: '::1', port: 5037 });
    assert.deepEqual(parseHostPort('adb-host', '--adb', 5037), { host: 'adb-host', port: 5037 });
    const { code, message } = refusal(() => parseHostPort('adb-host', '--adb'));
    assert.equal(code, 'invalid_value');
    assert.equal(message, '--adb must be HOST:PORT with a port from 1 to 65535 (got "adb-host")');
    assert.equal(refusal(() => parseHostPort('h:70000', '--adb')).code, 'invalid_value');
  });
});

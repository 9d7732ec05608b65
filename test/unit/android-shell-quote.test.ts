import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildCommandLine, OperationDeadline, quoteShellArg } from '../../main/core/devices/shell-quote';
import { BridgeError } from '../../main/core/errors';

/**
 * A strict reference reader of POSIX shell words for what quoteShellArg emits: single-quoted
 * runs, backslash escapes and a small set of plain characters. Any other character outside
 * quotes (`$ ; | & ( ) < > \` * ? # ~ "` …) is an error: seeing one would mean the device
 * shell could interpret part of an argument.
 */
function readShellWords(line: string): string[] {
  const words: string[] = [];
  let current: string | null = null;
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === ' ') {
      if (current !== null) words.push(current);
      current = null;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated quote at ${i}`);
      current = (current ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new Error('trailing backslash');
      current = (current ?? '') + line.charAt(i + 1);
      i += 2;
    } else if (/[A-Za-z0-9_./:@,+-]/.test(c)) {
      current = (current ?? '') + c;
      i++;
    } else {
      throw new Error(`unquoted shell metacharacter ${JSON.stringify(c)} at ${i}`);
    }
  }
  if (current !== null) words.push(current);
  return words;
}

/** The simulator's mksh parser, when it exists in this checkout (written in parallel). */
interface SimParser {
  parseShell(source: string): {
    items: Array<{
      first: {
        commands: Array<{ words: Array<{ parts: Array<{ kind: string; value?: string }> }>; redirects: unknown[] }>;
      };
      rest: unknown[];
    }>;
  };
}
const simParserPath = join(__dirname, '..', '..', 'main', 'sim', 'shell-parser.ts');

function simWords(parser: SimParser, line: string): string[] {
  const script = parser.parseShell(line);
  assert.equal(script.items.length, 1, 'exactly one command');
  const item = script.items[0]!;
  assert.equal(item.rest.length, 0, 'no && / ||');
  assert.equal(item.first.commands.length, 1, 'no pipeline');
  const command = item.first.commands[0]!;
  assert.equal(command.redirects.length, 0, 'no redirections');
  return command.words.map((word) =>
    word.parts
      .map((part) => {
        assert.equal(part.kind, 'text', 'no parameter or command substitution');
        return part.value ?? '';
      })
      .join(''),
  );
}

const anyArg = fc.string({ unit: 'binary', maxLength: 60 }).filter((s) => !s.includes('\0'));

void describe('quoteShellArg', () => {
  void test('wraps in single quotes and escapes embedded quotes', () => {
    assert.equal(quoteShellArg('abc'), "'abc'");
    assert.equal(quoteShellArg(''), "''");
    assert.equal(quoteShellArg("it's"), "'it'\\''s'");
    assert.equal(quoteShellArg("'"), "''\\'''");
  });

  void test('rejects NUL bytes with invalid_arguments', () => {
    assert.throws(
      () => quoteShellArg('a\0b'),
      (e: unknown) => e instanceof BridgeError && e.code === 'invalid_arguments' && /NUL/.test(e.message),
    );
  });

  void test('property: any string survives quoting exactly (reference reader)', () => {
    fc.assert(
      fc.property(anyArg, (arg) => {
        assert.deepEqual(readShellWords(quoteShellArg(arg)), [arg]);
      }),
      { numRuns: 2000 },
    );
  });

  void test('property: any argv survives buildCommandLine exactly, element by element', () => {
    fc.assert(
      fc.property(fc.array(anyArg, { minLength: 1, maxLength: 6 }), (argv) => {
        assert.deepEqual(readShellWords(buildCommandLine(argv)), argv);
      }),
      { numRuns: 1000 },
    );
  });

  void test(
    'property: the simulator shell parser reads the same argv back',
    { skip: !existsSync(simParserPath) && 'main/sim/shell-parser.ts not present' },
    async () => {
      const parser = (await import(simParserPath)) as SimParser;
      const printable = fc.string({ unit: 'grapheme', maxLength: 40 }).filter((s) => !s.includes('\0'));
      fc.assert(
        fc.property(fc.array(printable, { minLength: 1, maxLength: 5 }), (argv) => {
          assert.deepEqual(simWords(parser, buildCommandLine(argv)), argv);
        }),
        { numRuns: 500 },
      );
    },
  );

  void test('hostile text stays one literal argument', () => {
    const hostile = "a'; reboot #$(id) `id` && rm -rf / | cat > /x\n$HOME";
    const line = buildCommandLine(['input', 'text', hostile]);
    assert.deepEqual(readShellWords(line), ['input', 'text', hostile]);
    assert.equal(line, `'input' 'text' 'a'\\''; reboot #$(id) \`id\` && rm -rf / | cat > /x\n$HOME'`);
  });

  void test('buildCommandLine rejects an empty argv', () => {
    assert.throws(
      () => buildCommandLine([]),
      (e: unknown) => e instanceof BridgeError && e.code === 'invalid_arguments',
    );
  });
});

void describe('OperationDeadline', () => {
  void test('rejects nonsense timeouts with the value in the message', () => {
    assert.throws(
      () => new OperationDeadline({ timeoutMs: -5 }, 1000, 'x'),
      (e: unknown) => e instanceof BridgeError && e.code === 'invalid_arguments' && /-5/.test(e.message),
    );
  });

  void test('an aborted signal is canceled before any call', () => {
    const controller = new AbortController();
    controller.abort();
    assert.throws(
      () => new OperationDeadline({ signal: controller.signal }, 1000, 'typing'),
      (e: unknown) => e instanceof BridgeError && e.code === 'canceled',
    );
  });

  void test('next() hands out the remaining budget and the signal', () => {
    const controller = new AbortController();
    const deadline = new OperationDeadline({ timeoutMs: 5000, signal: controller.signal }, 1000, 'x');
    const options = deadline.next();
    assert.ok(options.timeoutMs > 0 && options.timeoutMs <= 5000);
    assert.equal(options.signal, controller.signal);
  });
});

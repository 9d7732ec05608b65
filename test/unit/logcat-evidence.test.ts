/** The threadtime parser, the crash/ANR detector, the logcat argv and log redaction. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FailureDetector, logcatArgv, parseThreadtimeLine } from '../../main/core/android/logcat';
import { redactLogText } from '../../main/core/tools/log-redaction';
import { BridgeError } from '../../main/core/errors';

const line = (pid: number, level: string, tag: string, msg: string): string =>
  `01-31 10:15:02.123 ${String(pid).padStart(5)} ${String(pid).padStart(5)} ${level} ${tag.padEnd(8)}: ${msg}`;

test('threadtime lines parse; separators and noise do not', () => {
  assert.deepEqual(parseThreadtimeLine(line(12034, 'W', 'Notes', 'a: b')), {
    time: '01-31 10:15:02.123',
    pid: 12034,
    tid: 12034,
    level: 'W',
    tag: 'Notes',
    message: 'a: b',
  });
  assert.equal(parseThreadtimeLine('--------- beginning of crash'), null);
  assert.equal(parseThreadtimeLine(''), null);
});

test('a crash block is found with its package, across other processes’ lines', () => {
  const d = new FailureDetector(() => 0);
  for (const l of [
    line(900, 'E', 'AndroidRuntime', 'FATAL EXCEPTION: main'),
    line(1437, 'I', 'ActivityManager', 'unrelated'),
    line(900, 'E', 'AndroidRuntime', 'Process: com.x.app:remote, PID: 900'),
    line(900, 'E', 'AndroidRuntime', 'java.lang.NullPointerException'),
  ])
    d.push(parseThreadtimeLine(l)!);
  const [crash, ...rest] = d.take();
  assert.deepEqual(rest, []);
  assert.equal(crash?.package, 'com.x.app');
  assert.deepEqual(crash?.first_lines, [
    'FATAL EXCEPTION: main',
    'Process: com.x.app:remote, PID: 900',
    'java.lang.NullPointerException',
  ]);
  assert.deepEqual(d.take(), [], 'each once');
  // A header alone waits for its lines (they may be on their way) until it settles.
  const half = new FailureDetector(() => 0);
  half.push(parseThreadtimeLine(line(1437, 'E', 'ActivityManager', 'ANR in com.y (com.y/.Main)'))!);
  assert.deepEqual(half.take(), []);
  half.push(parseThreadtimeLine(line(1437, 'E', 'ActivityManager', 'Reason: Input dispatching timed out'))!);
  assert.equal(half.take()[0]?.kind, 'anr');
});

test('logcat argv: tags as filter specs, everything else silent; bad tags refused', () => {
  assert.deepEqual(logcatArgv({ buffers: ['main'], tags: ['Net'], minLevel: 'W', maxLines: 5, pid: 7 }), [
    'logcat',
    '-d',
    '-v',
    'threadtime',
    '-b',
    'main',
    '-t',
    '5',
    '--pid=7',
    'Net:W',
    '*:S',
  ]);
  assert.deepEqual(logcatArgv({ buffers: ['crash'], sinceMs: 1_700_000_000_123, maxLines: 5 }).slice(6, 8), [
    '-T',
    '1700000000.123',
  ]);
  assert.throws(() => logcatArgv({ buffers: ['main'], tags: ['a b'], maxLines: 1 }), BridgeError);
});

test('redaction: secrets by name, typed text, secret shapes; markers stay intact', () => {
  const out = redactLogText('key=s3cr3t-value typed: hello there Bearer abcdefgh12345 password="pw1234"', {
    secrets: [{ name: 'api', value: 's3cr3t-value' }],
    typed: ['hello there'],
  });
  assert.equal(out, 'key=[secret: api] typed: [typed text] Bearer [redacted] password="[redacted]"');
  assert.equal(
    redactLogText('secret: s3cr3t-value', { secrets: [{ name: 'x', value: 's3cr3t-value' }], typed: [] }),
    'secret: [secret: x]',
  );
});

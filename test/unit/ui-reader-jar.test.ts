/**
 * The xagent UI reader as shipped (resources/device/xagent-ui-reader.jar):
 * - the committed jar is exactly what its smali source builds (Debian's `smali`), so what is
 *   reviewed is what runs;
 * - its dex, translated to Java bytecode by Debian's `enjarify`, runs on a JVM against stand-ins
 *   for the phone's framework classes (test/fixtures/ui-reader-stubs/) and speaks protocol 1
 *   (device/ui-reader/README.md): ready line, tree and focus answers with byte counts, none,
 *   errors that leave it running, quit and end of input, connect failure, usage.
 * No ART runs here: a phone's verifier and its real framework are not exercised (the simulated
 * phones model the reader's behaviour and timing; docs/REFERENCE.md says what is unmeasured).
 * Each part says it skipped, and why, when its tool is not installed (.ci/run installs them).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

const ROOT = join(__dirname, '..', '..');
const JAR = join(ROOT, 'resources', 'device', 'xagent-ui-reader.jar');
const STUBS = join(ROOT, 'test', 'fixtures', 'ui-reader-stubs');

function installed(command: string, args: string[] = ['--version']): boolean {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  return result.error === undefined;
}

test('the committed jar is exactly what device/ui-reader/smali builds', (t) => {
  if (!installed('smali')) {
    t.skip('smali is not installed (Debian: libsmali-java): the jar was not rebuilt from its source');
    return;
  }
  const check = spawnSync(process.execPath, [join(ROOT, 'scripts', 'build-ui-reader.mjs'), '--check'], {
    encoding: 'utf8',
  });
  assert.equal(check.status, 0, check.stderr);
});

/** The one stored entry of the jar (the build writes it uncompressed). */
function storedEntry(zip: Buffer, name: string): Buffer {
  let at = 0;
  while (zip.readUInt32LE(at) === 0x04034b50) {
    const method = zip.readUInt16LE(at + 8);
    const size = zip.readUInt32LE(at + 18);
    const nameLength = zip.readUInt16LE(at + 26);
    const extraLength = zip.readUInt16LE(at + 28);
    const entryName = zip.toString('utf8', at + 30, at + 30 + nameLength);
    const dataAt = at + 30 + nameLength + extraLength;
    if (entryName === name) {
      assert.equal(method, 0, `${name} is stored, not compressed`);
      assert.equal(dataAt % 4, 0, `${name} starts on a 4-byte boundary`);
      return zip.subarray(dataAt, dataAt + size);
    }
    at = dataAt + size;
  }
  throw new Error(`${name} not in the jar`);
}

let work: string | undefined;
let skipWhy: string | undefined;
let classPath = '';

before(() => {
  if (!installed('enjarify', ['-h'])) skipWhy = 'enjarify is not installed (Debian: enjarify)';
  else if (!installed('javac', ['-version'])) skipWhy = 'javac is not installed (Debian: default-jdk-headless)';
  if (skipWhy) return;
  work = mkdtempSync(join(tmpdir(), 'ui-reader-jar-'));
  const dex = join(work, 'classes.dex');
  writeFileSync(dex, storedEntry(readFileSync(JAR), 'classes.dex'));
  // enjarify's launcher picks the first python3 on PATH; Debian's module lives with /usr/bin/python3.
  const env = existsSync('/usr/bin/python3') ? { ...process.env, PYTHON: '/usr/bin/python3' } : process.env;
  const translated = join(work, 'reader.jar');
  const enjarify = spawnSync('enjarify', ['-f', '-o', translated, dex], { encoding: 'utf8', env });
  assert.equal(enjarify.status, 0, enjarify.stderr + enjarify.stdout);
  const sources: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.java')) sources.push(full);
    }
  };
  walk(STUBS);
  const classes = join(work, 'stubs');
  const javac = spawnSync('javac', ['-d', classes, ...sources], { encoding: 'utf8' });
  assert.equal(javac.status, 0, javac.stderr);
  classPath = `${classes}:${translated}`;
});

after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Starts the reader with `args`, writes `input` (then ends its stdin unless `keepOpen`), waits for its exit. */
function runReader(args: string[], input: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', ['-cp', classPath, 'com.xagent.bridge.UiReader', ...args], {
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr }));
    child.stdin.end(input);
  });
}

/** Protocol 1's answers in order: a line, and after `tree n` / `focus n` exactly n bytes. */
function answers(stdout: Buffer): Array<{ line: string; body?: string }> {
  const found: Array<{ line: string; body?: string }> = [];
  let at = 0;
  while (at < stdout.length) {
    const end = stdout.indexOf(0x0a, at);
    assert.notEqual(end, -1, `an unterminated line: ${stdout.toString('utf8', at)}`);
    const line = stdout.toString('utf8', at, end);
    at = end + 1;
    const counted = /^(tree|focus) (\d+)$/.exec(line);
    if (counted) {
      const size = Number(counted[2]);
      found.push({ line, body: stdout.toString('utf8', at, at + size) });
      at += size;
    } else found.push({ line });
  }
  return found;
}

test('protocol 1: ready, a tree and a focused field with exact byte counts, errors that leave it running, quit', async (t) => {
  if (skipWhy) return t.skip(skipWhy);
  const dump = join(work ?? '', 'dump.xml');
  const run = await runReader(
    ['1', dump],
    'tree 1 1080 2400\nfocus 0 1080 2400\nbogus request\ntree x 1080 2400\ntree 0 720 1600\nquit\n',
    { STUB_ROOT: '设置 Settings ✓', STUB_FOCUS: '搜索 field' },
  );
  assert.equal(run.code, 0, run.stderr);
  const [ready, tree, focus, bogus, notNumber, again, ...rest] = answers(run.stdout);
  assert.match(ready?.line ?? '', /^xagent-ui-reader 1 ready \d+$/);
  assert.equal(tree?.line.startsWith('tree '), true);
  assert.match(tree?.body ?? '', /<hierarchy rotation="1"><node text="设置 Settings ✓" bounds="\[0,0\]\[1080,2400\]"/);
  assert.match(focus?.body ?? '', /<hierarchy rotation="0"><node text="搜索 field"/);
  assert.equal(bogus?.line, 'error bad-request');
  assert.match(notNumber?.line ?? '', /^error java\.lang\.NumberFormatException: .*"x"/);
  assert.match(again?.body ?? '', /bounds="\[0,0\]\[720,1600\]"/, 'the reader goes on after an error');
  assert.deepEqual(rest, []);
  assert.equal(existsSync(dump), false, 'the dump file is deleted after each read');
  const calls = run.stderr.split('\n').filter((l) => l.startsWith('stub: '));
  assert.deepEqual(calls, [
    'stub: connect',
    'stub: setCompressedLayoutHierarchy false',
    'stub: waitForIdle 100 500',
    'stub: clearCache',
    'stub: dump 设置 Settings ✓ 1 1080 2400',
    'stub: clearCache',
    'stub: findFocus 1',
    'stub: dump 搜索 field 0 1080 2400',
    'stub: waitForIdle 100 500',
    'stub: clearCache',
    'stub: dump 设置 Settings ✓ 0 720 1600',
    'stub: disconnect',
  ]);
});

test('every walk reads the phone, not the connection’s cache: clearCache, or before Android 14 the same service info applied again', async (t) => {
  if (skipWhy) return t.skip(skipWhy);
  // A long-lived UiAutomation's node cache can keep serving a screen that is gone
  // (mobile-next/mobilecli#439); Android 13 and older have no UiAutomation.clearCache().
  const dump = join(work ?? '', 'dump-cache.xml');
  const run = await runReader(['1', dump], 'tree 0 1080 2400\nfocus 0 1080 2400\nquit\n', {
    STUB_ROOT: 'home',
    STUB_FOCUS: 'field',
    STUB_BEFORE_ANDROID_14: '1',
  });
  assert.equal(run.code, 0, run.stderr);
  const [, tree, focus] = answers(run.stdout);
  assert.match(tree?.body ?? '', /<node text="home"/);
  assert.match(focus?.body ?? '', /<node text="field"/);
  const calls = run.stderr.split('\n').filter((l) => l.startsWith('stub: '));
  assert.deepEqual(calls.slice(2, -1), [
    'stub: waitForIdle 100 500',
    'stub: getServiceInfo',
    'stub: setServiceInfo same',
    'stub: dump home 0 1080 2400',
    'stub: getServiceInfo',
    'stub: setServiceInfo same',
    'stub: findFocus 1',
    'stub: dump field 0 1080 2400',
  ]);
});

test('no window or no focused field is "none"; a screen that never settles is still read', async (t) => {
  if (skipWhy) return t.skip(skipWhy);
  const dump = join(work ?? '', 'dump-none.xml');
  const noRoot = await runReader(['1', dump], 'tree 0 1080 2400\nfocus 0 1080 2400\n');
  assert.deepEqual(
    answers(noRoot.stdout).map((a) => a.line),
    [answers(noRoot.stdout)[0]?.line, 'none', 'none'],
  );
  assert.equal(noRoot.code, 0, 'end of input ends it as quit does');
  assert.match(noRoot.stderr, /stub: disconnect/);
  const noFocus = await runReader(['1', dump], 'focus 0 1080 2400\ntree 0 1080 2400\n', {
    STUB_ROOT: 'home',
    STUB_NEVER_IDLE: '1',
  });
  const [, focus, tree] = answers(noFocus.stdout);
  assert.equal(focus?.line, 'none');
  assert.match(tree?.body ?? '', /<node text="home"/);
});

test('a dump that wrote nothing is an error line, and the next request is answered', async (t) => {
  if (skipWhy) return t.skip(skipWhy);
  const dump = join(work ?? '', 'dump-fails.xml');
  const run = await runReader(['1', dump], 'tree 0 1080 2400\nquit\n', { STUB_ROOT: 'home', STUB_DUMP_FAILS: '1' });
  const [, failed, ...rest] = answers(run.stdout);
  assert.match(failed?.line ?? '', /^error java\.io\.FileNotFoundException/);
  assert.deepEqual(rest, []);
  assert.equal(run.code, 0);
});

test('a UiAutomation connection it cannot get: one error line, exit 1; wrong arguments: exit 2', async (t) => {
  if (skipWhy) return t.skip(skipWhy);
  const refused = await runReader(['1', join(work ?? '', 'x.xml')], 'tree 0 1 1\n', { STUB_CONNECT_FAILS: '1' });
  assert.equal(refused.code, 1);
  assert.match(
    refused.stdout.toString('utf8'),
    /^error connect java\.lang\.IllegalStateException: .* already registered!\n$/,
  );
  const usage = await runReader(['2', join(work ?? '', 'x.xml')], '');
  assert.equal(usage.code, 2);
  assert.equal(usage.stdout.toString('utf8'), 'error usage\n');
  assert.doesNotMatch(usage.stderr, /stub: connect/, 'nothing is connected before the arguments are checked');
});

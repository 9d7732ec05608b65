// Runs each test of the given test files on its own (`--test-name-pattern`), one after another,
// after running each file alone once to learn its test names. A test that passes in its file
// but fails alone leans on an earlier test. Usage: node scripts/run-each-alone.mjs <file>...
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/run-each-alone.mjs <test file>...');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'each-alone-'));
// A reporter that writes one line per finished leaf test: "pass|fail<TAB>name".
const reporter = join(work, 'reporter.mjs');
writeFileSync(
  reporter,
  `export default async function* (source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    yield (event.type === 'test:pass' ? 'pass' : 'fail') + '\\t' + event.data.name + '\\n';
  }
}
`,
);
const env = { ...process.env, ADB_SERVER_SOCKET: '', ANDROID_ADB_SERVER_PORT: '' };
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function run(file, pattern) {
  const out = join(work, 'out.txt');
  const args = [
    '--import',
    'tsx',
    '--test',
    '--test-timeout=120000',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${out}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
  ];
  if (pattern !== undefined) args.push(`--test-name-pattern=${pattern}`);
  const started = Date.now();
  const result = spawnSync(process.execPath, [...args, file], { env, encoding: 'utf8' });
  let lines = [];
  try {
    lines = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  } catch {
    // no test finished
  }
  return { ok: result.status === 0, lines, ms: Date.now() - started, output: `${result.stdout}${result.stderr}` };
}

let failed = 0;
try {
  for (const file of files) {
    const whole = run(file);
    console.log(`${whole.ok ? 'ok  ' : 'FAIL'} ${file} alone (${whole.ms} ms, ${whole.lines.length} tests)`);
    if (!whole.ok) failed++;
    const names = [...new Set(whole.lines.map((l) => l.slice(l.indexOf('\t') + 1)))];
    for (const name of names) {
      const one = run(file, `^${escape(name)}$`);
      const ran = one.lines.length;
      const ok = one.ok && ran > 0;
      console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${name} (${one.ms} ms${ran === 0 ? ', nothing ran' : ''})`);
      if (!ok) {
        failed++;
        if (process.env.EACH_ALONE_VERBOSE) console.log(one.output);
      }
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

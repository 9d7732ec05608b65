// Runs every test file under test/ (unit, integration, e2e) with Node's test runner and tsx.
// Node 20's runner does not discover .ts files by itself, so we list them here.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const filters = process.argv.slice(2);
const all = findTests('test').sort();
const files = filters.length ? all.filter((f) => filters.some((x) => f.includes(x))) : all;
if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=2',
    '--test-timeout=120000',
    // TAP as before, then the failures once more at the very end, where a CI log's tail shows them.
    '--test-reporter=tap',
    '--test-reporter-destination=stdout',
    `--test-reporter=${fileURLToPath(new URL('./failures-reporter.mjs', import.meta.url))}`,
    '--test-reporter-destination=stdout',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, ADB_SERVER_SOCKET: '', ANDROID_ADB_SERVER_PORT: '' } },
);
process.exit(result.status ?? 1);

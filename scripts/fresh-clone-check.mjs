// What a stranger meets: `git clone` of this repository's HEAD into an empty temporary folder
// (nothing beside it: no ../shared, no built dist/, no node_modules), `npm ci`, then the
// README's test command. Run by CI after the suite (`npm run test:fresh-clone`), and by hand
// before a release. Uncommitted changes are not part of a clone, so they are not tested here.
//
//   node scripts/fresh-clone-check.mjs [--keep]     --keep leaves the clone for a look
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const keep = process.argv.includes('--keep');
const unknown = process.argv.slice(2).filter((a) => a !== '--keep');
if (unknown.length > 0) {
  process.stderr.write(
    `fresh-clone-check: unknown argument ${unknown[0]}\nUsage: node scripts/fresh-clone-check.mjs [--keep]\n`,
  );
  process.exit(2);
}

const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { encoding: 'utf8' });
if (top.status !== 0) {
  process.stderr.write('fresh-clone-check: not inside a git checkout\n');
  process.exit(2);
}
const source = top.stdout.trim();
const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], {
  cwd: source,
  encoding: 'utf8',
}).stdout.trim();
if (dirty)
  process.stdout.write('fresh-clone-check: note: uncommitted changes are not part of the clone and are not tested\n');

const parent = mkdtempSync(join(tmpdir(), 'device-bridge-fresh-'));
const clone = join(parent, 'device-bridge');
let child;
const cleanup = () => {
  if (!keep) rmSync(parent, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    child?.kill(signal);
    cleanup();
    process.exit(130);
  });
}

// Nothing from this machine's setup may leak in: no spec folder override, no adb server pointers.
const env = { ...process.env };
delete env.XAGENT_SPEC_DIR;
delete env.ADB_SERVER_SOCKET;
delete env.ANDROID_ADB_SERVER_PORT;

function step(title, command, args, cwd) {
  process.stdout.write(`\n== fresh-clone-check: ${title}\n`);
  return new Promise((resolve) => {
    child = spawn(command, args, { cwd, env, stdio: 'inherit' });
    child.once('error', (error) => {
      process.stderr.write(`fresh-clone-check: ${command} could not start: ${error.message}\n`);
      resolve(127);
    });
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
let status = await step(
  `git clone ${source} into an empty folder`,
  'git',
  ['clone', '--quiet', '--no-local', source, clone],
  parent,
);
if (status === 0) {
  const beside = readdirSync(parent).filter((name) => name !== 'device-bridge');
  if (beside.length > 0) {
    process.stderr.write(`fresh-clone-check: the clone's folder is not alone (${beside.join(', ')})\n`);
    status = 1;
  }
}
if (status === 0) status = await step('npm ci', npm, ['ci', '--no-audit', '--no-fund'], clone);
if (status === 0) status = await step('npm test (the README test command)', npm, ['test'], clone);

const seconds = Math.round((Date.now() - started) / 1000);
process.stdout.write(
  status === 0
    ? `\nfresh-clone-check: green in ${seconds} s on a clone with nothing beside it${keep ? ` (kept at ${clone})` : ''}\n`
    : `\nfresh-clone-check: FAILED (status ${status}) after ${seconds} s${keep ? `; the clone is kept at ${clone}` : ''}\n`,
);
cleanup();
process.exit(status);

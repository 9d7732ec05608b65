// Build: compile main/ with tsc into dist/, bundle the preload and the renderer, and write the
// build identity (version, git tag/rev, build time) that the Card and /health report.
import { execFileSync, spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = spawnSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')],
  { stdio: 'inherit' },
);
if (tsc.status !== 0) process.exit(tsc.status ?? 1);

// A sandboxed preload may require only electron: the contract's operations table it names its
// functions from is bundled into the one file.
await build({
  absWorkingDir: root,
  entryPoints: ['preload/index.ts'],
  outfile: join(root, 'dist', 'preload', 'index.js'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'es2022',
  external: ['electron'],
  logLevel: 'warning',
});

const rendererBuild = join(root, 'scripts', 'build-renderer.mjs');
if (existsSync(rendererBuild)) {
  const r = spawnSync(process.execPath, [rendererBuild], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
let rev = 'unknown';
let tag = `v${pkg.version}`;
try {
  rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
  // Only an exact release tag names the build; between releases the tag stays v<version>.
  tag =
    execFileSync('git', ['describe', '--tags', '--exact-match'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim() || tag;
} catch {
  // not a git checkout: keep the defaults
}
const now = new Date();
const pad = (n) => String(n).padStart(2, '0');
const buildTime = `${pad(now.getUTCFullYear() % 100)}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}`;
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(
  join(root, 'dist', 'build-info.json'),
  `${JSON.stringify({ version: pkg.version, git_tag: tag, git_rev: rev, build_time: buildTime }, null, 1)}\n`,
);

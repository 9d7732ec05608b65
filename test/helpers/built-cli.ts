/**
 * The compiled CLI for tests that run `bin/device-bridge.js` as a user would: builds dist/
 * with the project's own build (scripts/build.mjs, what `npm run build` runs) when it is
 * missing or older than the sources, at most once per test process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(__dirname, '..', '..');
export const BIN = join(ROOT, 'bin', 'device-bridge.js');
/** Written last by scripts/build.mjs, so its time says when the build finished. */
const BUILD_STAMP = join(ROOT, 'dist', 'build-info.json');
const SOURCES = [
  'main',
  'preload',
  'renderer',
  'scripts/build.mjs',
  'scripts/build-renderer.mjs',
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
];
const BUILD_DEADLINE_MS = 240_000;

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const name of readdirSync(path)) {
    if (name === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, name)));
  }
  return newest;
}

/** True when dist/ holds a finished build newer than every source it is made from. */
export function isBuildFresh(): boolean {
  if (!existsSync(BUILD_STAMP) || !existsSync(join(ROOT, 'dist', 'main', 'cli.js'))) return false;
  const built = statSync(BUILD_STAMP).mtimeMs;
  return SOURCES.every((s) => newestMtime(join(ROOT, s)) <= built);
}

function runBuild(): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'scripts', 'build.mjs')], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm run build took longer than ${BUILD_DEADLINE_MS} ms:\n${output}`));
    }, BUILD_DEADLINE_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolvePromise();
      else reject(new Error(`npm run build failed (exit ${String(code)}):\n${output}`));
    });
  });
}

let building: Promise<void> | undefined;

/** Builds dist/ unless a fresh build is already there. */
export function ensureBuilt(): Promise<void> {
  building ??= isBuildFresh() ? Promise.resolve() : runBuild();
  return building;
}

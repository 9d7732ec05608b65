/**
 * Build identity shown in the Card and /health. `npm run build` writes dist/build-info.json;
 * when running from source (tests, tsx) it is derived from package.json and git once.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BuildInfo {
  version: string;
  git_tag: string;
  git_rev: string;
  build_time: string;
}

/** The project root: two levels above this file both in source (main/core) and in dist/main/core. */
export function projectRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i += 1) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = join(dir, '..');
  }
  return process.cwd();
}

/** YYMMDDHHmm in UTC, the format the spec's examples use. */
export function formatBuildTime(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${pad(date.getUTCFullYear() % 100)}${pad(date.getUTCMonth() + 1)}${pad(date.getUTCDate())}${pad(date.getUTCHours())}${pad(date.getUTCMinutes())}`;
}

let cached: BuildInfo | undefined;

export function loadBuildInfo(): BuildInfo {
  if (cached) return cached;
  const root = projectRoot();
  const built = join(root, 'dist', 'build-info.json');
  if (existsSync(built)) {
    try {
      cached = JSON.parse(readFileSync(built, 'utf8')) as BuildInfo;
      return cached;
    } catch {
      // fall through to the source-tree identity
    }
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  let rev = 'unknown';
  try {
    rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: root,
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    // not a git checkout
  }
  cached = { version: pkg.version, git_tag: `v${pkg.version}`, git_rev: rev, build_time: formatBuildTime(new Date()) };
  return cached;
}

/**
 * The formatter (Prettier, settings in .prettierrc.json) has the last word on layout: every
 * source file the repository tracks is as `npx prettier --write .` leaves it. `npm run format`
 * fixes what this test finds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as prettier from 'prettier';

const ROOT = resolve(__dirname, '../..');
const FORMATTED = /\.(ts|tsx|mjs|js|json|css|html|yml)$/;

/** The files git tracks (a clean clone has exactly these), minus what .prettierignore leaves out. */
async function formattedFiles(): Promise<string[]> {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => FORMATTED.test(f));
  const kept: string[] = [];
  for (const file of tracked) {
    const info = await prettier.getFileInfo(join(ROOT, file), { ignorePath: join(ROOT, '.prettierignore') });
    if (!info.ignored && info.inferredParser) kept.push(file);
  }
  return kept;
}

test('every source file is formatted as Prettier formats it', async () => {
  const files = await formattedFiles();
  assert.ok(files.length > 300, `found ${files.length} files to check; is git available?`);
  const unformatted: string[] = [];
  for (const file of files) {
    const path = join(ROOT, file);
    const options = await prettier.resolveConfig(path);
    if (!(await prettier.check(readFileSync(path, 'utf8'), { ...options, filepath: path }))) unformatted.push(file);
  }
  assert.deepEqual(unformatted, [], 'run `npm run format`');
});

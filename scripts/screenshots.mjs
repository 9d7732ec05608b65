// Regenerates the reference screenshots in docs/screenshots/en/ and docs/screenshots/zh-CN/:
// runs the two-language browser test (test/e2e/console-i18n.test.ts) with UPDATE_SCREENSHOTS=1,
// which saves every console screen in English and in Simplified Chinese there as well as under
// the OS temp folder. Needs what the browser tests need (adb, Chromium, a CJK font).
import { spawnSync } from 'node:child_process';

const result = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'e2e/console-i18n'], {
  stdio: 'inherit',
  env: { ...process.env, UPDATE_SCREENSHOTS: '1' },
});
if (result.status === 0) console.log('screenshots written to docs/screenshots/en and docs/screenshots/zh-CN');
process.exit(result.status ?? 1);

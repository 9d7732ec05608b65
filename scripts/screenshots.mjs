// Regenerates the reference screenshots in docs/screenshots/en/ and docs/screenshots/zh-CN/:
// runs the two-language browser tests (test/e2e/console-i18n.test.ts, test/e2e/phone-view.test.ts)
// with UPDATE_SCREENSHOTS=1, which save every console screen and the phone view in English and in
// Simplified Chinese there (without it they go under the OS temp folder only). Needs what the browser tests need (adb, Chromium, a CJK font).
import { spawnSync } from 'node:child_process';

const result = spawnSync(process.execPath, ['scripts/run-tests.mjs', 'e2e/console-i18n', 'e2e/phone-view'], {
  stdio: 'inherit',
  env: { ...process.env, UPDATE_SCREENSHOTS: '1' },
});
if (result.status === 0) console.log('screenshots written to docs/screenshots/en and docs/screenshots/zh-CN');
process.exit(result.status ?? 1);

// Regenerates the reference screenshots in docs/screenshots/en/ and docs/screenshots/zh-CN/:
// runs the two-language browser tests (test/e2e/console-i18n.test.ts, test/e2e/phone-view.test.ts,
// and at 390 px test/e2e/narrow-screen.test.ts, test/e2e/waiting-banner.test.ts) with
// UPDATE_SCREENSHOTS=1, which save every console screen, the phone view and the narrow-*.png phone
// screens in English and in Simplified Chinese there (without it they go under the OS temp folder
// only). Needs what the browser tests need (adb, Chromium, a CJK font).
import { spawnSync } from 'node:child_process';

const result = spawnSync(
  process.execPath,
  ['scripts/run-tests.mjs', 'e2e/console-i18n', 'e2e/phone-view', 'e2e/narrow-screen', 'e2e/waiting-banner'],
  {
    stdio: 'inherit',
    env: { ...process.env, UPDATE_SCREENSHOTS: '1' },
  },
);
if (result.status === 0) console.log('screenshots written to docs/screenshots/en and docs/screenshots/zh-CN');
process.exit(result.status ?? 1);

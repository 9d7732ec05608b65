/**
 * What goes wrong is shown where the person looks (issue #37 point 6), in English and Chinese:
 * an xAgent with a wrong API key gets its clean 401, and Connect xAgent says at once where it
 * came from and what to do ("copy the key again"), as the terminal does; a flood of refusals
 * fills neither: one line per address on the page, counted, and a handful of terminal lines.
 *
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/refused-key.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { upgradeStatus } from '../helpers/ws-upgrade';
import { WS_SUBPROTOCOL } from '../../main/contract/wire-schemas';
import type { Logger } from '../../main/core/logging/logger';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
/** Refusals sent in the flood. */
const FLOOD = 200;

const WORDS = {
  en: {
    lang: 'en-US',
    wrong: /An xAgent at 127\.0\.0\.1 tried .* with a wrong API key — copy the key again/,
    tries: /201 tries/,
  },
  'zh-CN': {
    lang: 'zh-CN',
    wrong: /来自 127\.0\.0\.1 的 xAgent .*尝试连接，但 API 密钥不对——请重新复制密钥/,
    tries: /共 201 次/,
  },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('refused-key-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`a wrong API key is shown on Connect xAgent (${locale})`, { concurrency: 1 }, () => {
    let bridge: TestBridge;
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (message, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }),
      error: () => undefined,
    };

    before(async () => {
      bridge = await startBridge({ consoleDir: buildDir, logger });
    });
    after(async () => {
      await bridge?.stop();
    });

    test('the refusal is on the page and in the terminal; a flood stays one counted line and a few terminal lines', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      try {
        await page.goto(`${bridge.url}/console/#/connect?token=${bridge.adminToken}`);
        await page.getByTestId('connect-status').waitFor({ timeout: UI_MS });
        assert.equal(await page.getByTestId('connect-refused').count(), 0, 'nothing refused yet');

        const wrong = { Authorization: 'Bearer not-the-key-0123456789' };
        assert.equal(await upgradeStatus(bridge.url, wrong, WS_SUBPROTOCOL), 401, 'the agent gets its clean 401');
        const line = page.getByTestId('connect-refused-127.0.0.1');
        await line.waitFor({ timeout: UI_MS });
        assert.match(await line.innerText(), WORDS[locale].wrong);
        const refusedLines = (): typeof warnings => warnings.filter((w) => w.message.includes('wrong API key'));
        assert.equal(refusedLines().length, 1);
        assert.equal(refusedLines()[0]?.fields?.address, '127.0.0.1');
        assert.ok(!JSON.stringify(warnings).includes('not-the-key'), 'the wrong key itself is never logged');

        for (let i = 0; i < FLOOD; i++) await upgradeStatus(bridge.url, wrong, WS_SUBPROTOCOL);
        await eventually(async () => WORDS[locale].tries.test(await line.innerText()), 'the tries counted', UI_MS);
        assert.equal(await page.locator('[data-testid^="connect-refused-"]').count(), 1, 'one line per address');
        assert.equal(refusedLines().length, 1, 'the terminal is not flooded either');
        mkdirSync(join(SHOTS, locale), { recursive: true });
        await page.screenshot({ path: join(SHOTS, locale, 'refused-key.png') });
      } finally {
        await context.close();
      }
    });
  });
}

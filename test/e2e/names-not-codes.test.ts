/**
 * Names instead of codes (issue #37 point 7), in English and Chinese: a simulated phone reads
 * as its own maker's ("samsung Galaxy S23", never "Google Galaxy S23") with a "simulated"
 * badge where a real phone says USB or LAN.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { startDeviceRig, type DeviceRig } from '../helpers/device-rig';

const UI_MS = 10_000;
const WORDS = {
  en: { lang: 'en-US', simulated: 'simulated' },
  'zh-CN': { lang: 'zh-CN', simulated: '模拟' },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('names-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('names instead of codes', { concurrency: 1 }, () => {
  let rig: DeviceRig;

  before(async () => {
    rig = await startDeviceRig(2, { consoleDir: buildDir });
  });
  after(async () => {
    await rig?.stop();
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    for (const width of [1280, 390]) {
      test(`${locale} at ${width} px: a simulated phone shows its own maker and a "simulated" badge`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: WORDS[locale].lang });
        const page = await context.newPage();
        try {
          await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
          const galaxy = rig.device(1).deviceId;
          const pixel = rig.device(0).deviceId;
          await page.getByTestId(`device-${galaxy}`).waitFor({ timeout: UI_MS });
          assert.match(await page.getByTestId(`device-summary-${galaxy}`).innerText(), /^samsung Galaxy S23 · /);
          assert.match(await page.getByTestId(`device-summary-${pixel}`).innerText(), /^Google Pixel 7 · /);
          for (const id of [galaxy, pixel]) {
            const badge = page.getByTestId(`device-transport-${id}`);
            assert.equal((await badge.innerText()).trim(), WORDS[locale].simulated);
            assert.ok(await badge.isVisible());
          }
        } finally {
          await context.close();
        }
      });
    }
  }
});

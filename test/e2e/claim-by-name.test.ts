/**
 * A lab claim by the words a person uses, on the console (#37 point 1), in English and in
 * Chinese, at 1280 px and 390 px (Debian's Chromium through playwright-core): Settings → Lab
 * access codes tells the admin what a claimant types, with this lab's own phone as the example;
 * a claim by "galaxy s23" binds that phone and Bindings shows the words the claimant used.
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/claim-by-name-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
const CODE = 'claim-words-1';

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('claim-by-name-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`claim by name on the console (${locale})`, { concurrency: 1 }, () => {
    let rig: DeviceRig;
    let context: BrowserContext;
    let page: Page;
    let client: XAgentClient | undefined;
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);

    async function shot(label: string): Promise<void> {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.screenshot({ path: join(SHOTS, locale, `claim-by-name-${label}.png`), fullPage: true });
    }

    before(async () => {
      rig = await startDeviceRig(2, { consoleDir: buildDir });
      const set = await rig.bridge.admin('POST', '/admin/api/access-codes', {
        scope: '*',
        code: CODE,
        require_approval: false,
      });
      assert.equal(set.status, 200);
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      await page.goto(`${rig.bridge.url}/console/#/settings/access-codes?token=${rig.bridge.adminToken}`);
      await page.getByTestId('access-code-naming').waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await client?.close().catch(() => undefined);
      await context?.close();
      await rig?.stop();
    });

    for (const width of [1280, 390]) {
      test(`Settings says what a claimant types, with this lab's phone as the example (${width} px)`, async () => {
        await page.setViewportSize({ width, height: 900 });
        const naming = page.getByTestId('access-code-naming');
        const text = await naming.innerText();
        assert.match(text, words(/names the phone as they know it/, /按自己认得的方式填写手机/));
        // The example is a phone of this lab: its model and its label's last four characters.
        assert.match(text, /(Pixel 7|Galaxy S23)/);
        assert.match(text, /4F2[AB]/);
        assert.deepEqual(
          await naming.locator('b').allInnerTexts(),
          text.includes('Pixel 7') ? ['Pixel 7', '4F2A'] : ['Galaxy S23', '4F2B'],
        );
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(sideways <= 0, `no sideways scroll at ${width} px (${sideways} px)`);
        await shot(`settings-${width}`);
      });
    }

    test('a claim by "galaxy s23" binds that phone; Bindings shows the words used', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      await client.hello();
      const channel = String((await client.openChannel('')).payload?.connector_channel_id);
      const ack = await client.request(
        'auth.start',
        { flow_id: 'device_claim', input: { device: 'galaxy s23', access_code: CODE, requester: 'Ada' } },
        channel,
      );
      assert.equal(ack.payload?.status, 'authenticated', JSON.stringify(ack.payload));
      await page.goto(`${rig.bridge.url}/console/#/bindings`);
      const holder = page.getByTestId(`binding-holder-${channel}`);
      await holder.waitFor({ timeout: UI_MS });
      assert.match(await holder.innerText(), words(/asked for “galaxy s23”/, /申请的是“galaxy s23”/));
      assert.match(await page.getByTestId(`channel-${channel}`).innerText(), /Galaxy S23 ···4F2B/);
      await shot('bindings-1280');
    });
  });
}

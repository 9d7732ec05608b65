/**
 * #29 points 4 and 5 in English and Chinese (Debian's Chromium through playwright-core): a
 * phone's card says in words what the phone is doing, from the agent's calls only — idle;
 * still idle while a person watches its live screen (the view's frame reads are not the
 * agent's work); "agent: <what it does>…" while a call runs; "waiting for your approval" while
 * a call is held — and its phone check is one line ("ready") with every row behind a toggle.
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/card-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { decideApproval } from '../helpers/approvals';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('card-words-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`the card in words (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let context: BrowserContext;
    let page: Page;
    let deviceId = '';
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);
    const queueText = (): Promise<string> => page.getByTestId(`device-queue-${deviceId}`).innerText();

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      deviceId = bound.rig.device(0).deviceId;
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      await page.goto(`${bound.rig.bridge.url}/console/#/devices?token=${bound.rig.bridge.adminToken}`);
      await page.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('idle, and still idle while a person watches the live screen', async () => {
      assert.equal(await queueText(), locale === 'en' ? 'idle' : '空闲');
      const watcher = await context.newPage();
      await watcher.goto(`${bound.rig.bridge.url}/console/#/devices/${deviceId}?token=${bound.rig.bridge.adminToken}`);
      await watcher.getByTestId('phone-view').waitFor({ timeout: UI_MS });
      // Several frames read for the watcher, none of them the agent's.
      const frame = watcher.getByTestId('phone-view-frame');
      await eventually(
        async () => Number((await frame.getAttribute('data-seq').catch(() => null)) ?? 0) >= 3,
        'three live frames',
        15_000,
      );
      assert.equal(await queueText(), locale === 'en' ? 'idle' : '空闲');
      assert.equal(await page.getByTestId(`device-stop-${deviceId}`).count(), 0, 'no red Stop on an idle phone');
      await watcher.close();
    });

    test('while the agent works: "agent: <what>…"; while a call is held: waiting for you', async () => {
      const waiting = invoke(bound.client, bound.channel, 'android_wait_for', {
        element: { text: 'Never on this screen' },
        timeout_ms: 4000,
      });
      const doing = page.getByTestId(`device-doing-${deviceId}`);
      await doing.waitFor({ timeout: UI_MS });
      assert.match(
        await doing.innerText(),
        words(/^agent: Wait for the screen .*Never on this screen.*…$/, /^智能体：等待屏幕.*Never on this screen.*…$/),
      );
      await page.getByTestId(`device-stop-${deviceId}`).waitFor({ timeout: UI_MS });
      await page.getByTestId(`device-${deviceId}`).screenshot({ path: shotPath('card-working') });
      await waiting;

      const launch = invoke(bound.client, bound.channel, 'android_launch_app', { package: 'com.example.wallet' });
      const needsYou = page.getByTestId(`device-needs-you-${deviceId}`);
      await needsYou.waitFor({ timeout: UI_MS });
      assert.equal(await needsYou.innerText(), locale === 'en' ? '1 waiting for your approval' : '1 个等待你批准');
      await page.getByTestId(`device-${deviceId}`).screenshot({ path: shotPath('card-waiting') });
      await decideApproval(bound.rig.bridge, 'android_launch_app', 'deny');
      assert.equal((await launch).error?.code, 'approval_denied');
      await eventually(async () => (await queueText()) === (locale === 'en' ? 'idle' : '空闲'), 'idle again');
    });

    test('the phone check is one line; its rows wait behind a toggle', async () => {
      const check = page.getByTestId(`phone-check-${deviceId}`);
      await check.waitFor({ timeout: UI_MS });
      assert.match(await check.locator('h4').innerText(), words(/ready/i, /就绪/));
      const details = page.getByTestId(`phone-check-details-${deviceId}`);
      assert.equal(await details.getAttribute('open'), null, 'collapsed');
      const rows = details.locator('li');
      assert.ok((await rows.count()) >= 10, 'every fine row is there');
      assert.equal(await rows.first().isVisible(), false, 'but not in view');
      await details.locator('summary').click();
      assert.equal(await rows.first().isVisible(), true);
      await details.locator('summary').click();
    });

    function shotPath(name: string): string {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      return join(SHOTS, locale, `${name}.png`);
    }
  });
}

/**
 * An unplugged leased phone on the console (#37 point 2), in English and in Chinese, at 1280 px
 * and 390 px (Debian's Chromium through playwright-core): adb forgets the phone mid-lease, yet
 * Devices keeps its card, greyed, saying how long the lease waits and to plug it back in; the
 * phone's view says the same; Bindings shows the wait instead of the idle timer.
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/away-lease-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { bindChannel, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { runAdb } from '../helpers/adb-server';
import { XAgentClient } from '../helpers/xagent-client';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('away-lease-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`an unplugged leased phone on the console (${locale})`, { concurrency: 1 }, () => {
    let rig: DeviceRig;
    let context: BrowserContext;
    let page: Page;
    let client: XAgentClient | undefined;
    let deviceId = '';
    let channel = '';
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);
    const away = words(
      /Unplugged — the lease is kept (9|10):\d\d more; plug it back in/,
      /已拔出 — 租约还保留 (9|10):\d\d；请把手机重新插上/,
    );

    async function shot(label: string): Promise<void> {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.screenshot({ path: join(SHOTS, locale, `away-lease-${label}.png`), fullPage: true });
    }

    before(async () => {
      rig = await startDeviceRig(1, {
        consoleDir: buildDir,
        lease: { maxDurationMs: null, idleTimeoutMs: 900_000, disconnectGraceMs: 600_000 },
      });
      deviceId = rig.device(0).deviceId;
      client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      await client.hello();
      channel = await bindChannel(rig, client, deviceId);
      await runAdb(rig.adb, ['disconnect', `127.0.0.1:${rig.farm.phones[0]!.port}`]);
      await waitUntil(() => rig.bridge.core.registry.get(deviceId)?.state === 'gone', UI_MS, 'adb forgets the phone');
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
      await page.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await client?.close().catch(() => undefined);
      await context?.close();
      await rig?.stop();
    });

    for (const width of [1280, 390]) {
      test(`Devices keeps the card, greyed, with the wait and the fix (${width} px)`, async () => {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${rig.bridge.url}/console/#/devices`);
        const card = page.getByTestId(`device-${deviceId}`);
        await card.waitFor({ timeout: UI_MS });
        assert.equal(await card.getAttribute('data-away'), 'true');
        assert.match(await page.getByTestId(`device-away-${deviceId}`).innerText(), away);
        await shot(`devices-${width}`);
      });
    }

    test('the phone view and Bindings say the same; the idle timer waits', async () => {
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${rig.bridge.url}/console/#/devices/${deviceId}`);
      await page.getByTestId('phone-view-away').waitFor({ timeout: UI_MS });
      assert.match(await page.getByTestId('phone-view-away').innerText(), away);
      assert.match(
        await page.getByTestId('phone-view-lease-idle-away').innerText(),
        words(/waits — the phone is unplugged/, /等待中 — 手机已拔出/),
      );
      await shot('phone-view-1280');
      await page.goto(`${rig.bridge.url}/console/#/bindings`);
      await page.getByTestId(`channel-away-${channel}`).waitFor({ timeout: UI_MS });
      assert.match(await page.getByTestId(`channel-away-${channel}`).innerText(), away);
      await page.getByTestId(`channel-idle-away-${channel}`).waitFor({ timeout: UI_MS });
      await shot('bindings-1280');
    });
  });
}

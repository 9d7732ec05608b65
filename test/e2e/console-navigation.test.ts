/**
 * The console's first run and its addresses, in English and Simplified Chinese (Debian's
 * Chromium through playwright-core, no download):
 * - a fresh bridge opens on the connect guide, "waiting"; an xAgent client says hello and the
 *   same page turns to "connected" without a reload; from then on (a restart too) it opens on Devices;
 * - every section has its own address: Back and Forward move between them, a deep link to
 *   Settings → Limits opens there at its top, the console link pasted into an open tab works;
 * - "No cap" hides the value it overrides;
 * - at 390 × 844 (a phone) every section fits the width, the sections stay reachable, and an
 *   approval's buttons are on screen and at least 44 px tall.
 * Screens are saved under <os tmp>/xagent-console-navigation/<locale>/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser, eventually } from '../helpers/console-browser';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient, type Packet } from '../helpers/xagent-client';

const SHOTS = join(tmpdir(), 'xagent-console-navigation');
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const UI_MS = 10_000;

type Locale = 'en' | 'zh-CN';
const LOCALES: readonly Locale[] = ['en', 'zh-CN'];

const WORDS = {
  en: { waiting: 'Waiting for xAgent…', connected: 'xAgent connected', away: 'xAgent is not connected right now' },
  'zh-CN': { waiting: '正在等待 xAgent…', connected: 'xAgent 已连接', away: 'xAgent 当前未连接' },
} as const;

async function shot(page: Page, locale: Locale, name: string): Promise<void> {
  await page.mouse.move(1, 1);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  mkdirSync(join(SHOTS, locale), { recursive: true });
  await page.screenshot({ path: join(SHOTS, locale, `${name}.png`) });
}

const hashOf = (page: Page): Promise<string> => page.evaluate(() => window.location.hash);

/** The section shown: its heading is there and its navigation entry is the current one. */
async function shows(page: Page, section: string): Promise<void> {
  await page.locator(`#${section}-heading`).waitFor({ timeout: UI_MS });
  await eventually(
    async () => (await page.getByTestId(`nav-${section}`).getAttribute('aria-current')) === 'page',
    `nav-${section} current`,
  );
}

async function go(page: Page, section: string): Promise<void> {
  await page.getByTestId(`nav-${section}`).click();
  await shows(page, section);
}

async function openConsole(context: BrowserContext, bridge: TestBridge, route = ''): Promise<Page> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  (page as Page & { problems?: string[] }).problems = problems;
  const fragment = route ? `${route}?token=${bridge.adminToken}` : `token=${bridge.adminToken}`;
  await page.goto(`${bridge.url}/console/#${fragment}`);
  await page.getByTestId('live-status').locator('.live-dot').waitFor({ timeout: UI_MS });
  await eventually(
    async () => (await page.getByTestId('live-status').getAttribute('class'))?.includes('live-live'),
    'the live stream',
  );
  return page;
}

/** No sideways scrolling of the page itself (a table may scroll inside its own box). */
const pageWidth = (page: Page): Promise<number> =>
  page.evaluate(() => (document.scrollingElement ?? document.documentElement).scrollWidth);

/** Where the page and the content area are scrolled to. */
const scrollTops = (page: Page): Promise<{ page: number; content: number }> =>
  page.evaluate(() => ({
    page: (document.scrollingElement ?? document.documentElement).scrollTop,
    content: document.querySelector('.content')?.scrollTop ?? -1,
  }));

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('console-navigation-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of LOCALES) {
  describe(`first run and section addresses (${locale})`, { concurrency: 1 }, () => {
    let bridge: TestBridge;
    let client: XAgentClient | undefined;
    let context: BrowserContext;
    const dataDir = mkdtempSync(join(tmpdir(), 'console-navigation-data-'));

    before(async () => {
      bridge = await startBridge({ consoleDir: buildDir }, dataDir);
      context = await browser.newContext({ viewport: DESKTOP, locale: locale === 'en' ? 'en-US' : 'zh-CN' });
    });
    after(async () => {
      await context?.close();
      await client?.close();
      await bridge?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('a fresh bridge opens on the connect guide, waiting; xAgent says hello and it turns to connected, no reload', async () => {
      const page = await openConsole(context, bridge);
      await shows(page, 'connect');
      assert.equal(await hashOf(page), '#/connect', 'the first page has its own address');
      const status = page.getByTestId('connect-status');
      assert.equal(await status.getAttribute('data-state'), 'waiting');
      assert.equal(await page.getByTestId('connect-status-title').innerText(), WORDS[locale].waiting);
      assert.equal(await page.getByTestId('connect-base-url').innerText(), bridge.url);
      await page.getByTestId('connect-api-key-copy').waitFor();
      assert.ok(!(await page.getByTestId('connect-api-key').innerText()).includes(bridge.apiKey), 'the key is hidden');
      await shot(page, locale, 'connect-waiting');
      // A mark on the page's window: a reload would lose it.
      await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

      client = await XAgentClient.connect(bridge.url, bridge.apiKey);
      const ack: Packet = await client.hello();
      assert.equal(ack.type, 'connector.hello.ack');
      await eventually(async () => (await status.getAttribute('data-state')) === 'connected', 'connected');
      const title = await page.getByTestId('connect-status-title').innerText();
      assert.equal(title.replace(/^✓\s*/, ''), WORDS[locale].connected);
      assert.equal(await page.getByTestId('connect-connector-id').innerText(), client.connectorId);
      assert.equal(
        await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere),
        true,
        'no reload',
      );
      assert.equal(await page.getByTestId('connect-next-pairings').getAttribute('href'), '#/pairings');
      await shot(page, locale, 'connect-connected');
      await page.getByTestId('connect-next-pairings').click();
      await shows(page, 'pairings');

      // From now on the console opens on Devices; an address still wins.
      const next = await openConsole(context, bridge);
      await shows(next, 'devices');
      assert.equal(await hashOf(next), '#/devices');
      const deep = await openConsole(context, bridge, '/connect');
      await shows(deep, 'connect');
      for (const p of [page, next, deep]) assert.deepEqual((p as Page & { problems?: string[] }).problems, []);
      await Promise.all([page.close(), next.close(), deep.close()]);
    });

    test('after a restart it still opens on Devices; the guide says xAgent is away', async () => {
      await client?.close();
      client = undefined;
      await bridge.stop();
      bridge = await startBridge({ consoleDir: buildDir }, dataDir);
      const page = await openConsole(context, bridge);
      await shows(page, 'devices');
      await go(page, 'connect');
      assert.equal(await page.getByTestId('connect-status').getAttribute('data-state'), 'away');
      assert.equal(await page.getByTestId('connect-status-title').innerText(), WORDS[locale].away);
      await page.close();
    });

    test('each section has its address: Back and Forward move between them; each opens at its top', async () => {
      const page = await openConsole(context, bridge);
      await shows(page, 'devices');
      await go(page, 'pairings');
      assert.equal(await hashOf(page), '#/pairings');
      await go(page, 'approvals');
      await go(page, 'settings');
      assert.equal(await hashOf(page), '#/settings');
      await page.goBack();
      await shows(page, 'approvals');
      assert.equal(await hashOf(page), '#/approvals');
      await page.goBack();
      await shows(page, 'pairings');
      await page.goForward();
      await shows(page, 'approvals');

      // Scrolled down on the long Settings page, the next section still opens at its top.
      await go(page, 'settings');
      await page.getByTestId('policy-table').waitFor({ timeout: UI_MS });
      await page.locator('.content').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      assert.ok((await scrollTops(page)).content > 0, 'Settings scrolled down');
      await go(page, 'activity');
      assert.deepEqual(await scrollTops(page), { page: 0, content: 0 });

      // Settings' parts: each its own address.
      await go(page, 'settings');
      await page.getByTestId('settings-part-policies').click();
      await page.locator('#policies-heading').waitFor({ timeout: UI_MS });
      assert.equal(await hashOf(page), '#/settings/policies');
      assert.equal(await page.locator('#limits-heading').count(), 0, 'one part at a time');
      await page.goBack();
      await page.locator('#limits-heading').waitFor({ timeout: UI_MS });
      assert.equal(await hashOf(page), '#/settings', 'All again');
      await page.close();
    });

    test('a deep link opens Settings → Limits at its top; No cap hides the value it overrides', async () => {
      const page = await openConsole(context, bridge, '/settings/limits');
      await page.locator('#limits-heading').waitFor({ timeout: UI_MS });
      assert.equal(await hashOf(page), '#/settings/limits', 'the token left the address, the section stayed');
      assert.equal(await page.getByTestId('settings-part-limits').getAttribute('aria-current'), 'page');
      assert.equal(await page.locator('#policies-heading').count(), 0);
      assert.deepEqual(await scrollTops(page), { page: 0, content: 0 });
      const heading = await page.locator('#limits-heading').boundingBox();
      assert.ok(heading && heading.y < DESKTOP.height / 3, `Limits at the top (y = ${heading?.y})`);

      const value = page.getByTestId('limit-lease_idle_timeout_ms');
      const noCap = page.getByTestId('limit-lease_idle_timeout_ms-none');
      const before = await value.inputValue();
      await noCap.check();
      await value.waitFor({ state: 'detached', timeout: UI_MS });
      assert.equal(await page.getByTestId('limit-lease_idle_timeout_ms-unit').count(), 0, 'its unit goes too');
      await shot(page, locale, 'settings-limits-no-cap');
      await noCap.uncheck();
      await value.waitFor({ timeout: UI_MS });
      assert.equal(await value.inputValue(), before, 'the value comes back');
      await page.close();
    });

    test('the console link pasted into an open tab works without a reload', async () => {
      const fresh = await browser.newContext({ viewport: DESKTOP, locale: locale === 'en' ? 'en-US' : 'zh-CN' });
      try {
        const page = await fresh.newPage();
        await page.goto(`${bridge.url}/console/`);
        await page.getByTestId('token-screen').waitFor({ timeout: UI_MS });
        await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));
        // Only the fragment changes: the same document stays (what pasting does in a browser).
        await page.goto(`${bridge.url}/console/#token=${bridge.adminToken}`);
        await shows(page, 'devices');
        assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true);
        assert.equal(await hashOf(page), '#/devices', 'the token left the address bar');
        // A link to a section, pasted the same way.
        await page.goto(`${bridge.url}/console/#/pairings?token=${bridge.adminToken}`);
        await shows(page, 'pairings');
        assert.equal(await hashOf(page), '#/pairings');
        assert.equal(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere), true);
      } finally {
        await fresh.close();
      }
    });
  });
}

describe('a phone-sized browser (390 × 844)', { concurrency: 1 }, () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let channelId = '';
  const contexts: BrowserContext[] = [];

  before(async () => {
    rig = await startDeviceRig(1, { consoleDir: buildDir });
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channelId = await bindChannel(rig, client, rig.device(0).deviceId);
    await invoke(client, channelId, 'android_device_status');
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await client?.close();
    await rig?.stop();
  });

  for (const locale of LOCALES) {
    test(`every section fits 390 px, the sections stay reachable, an approval's buttons are ≥ 44 px (${locale})`, async () => {
      const context = await browser.newContext({
        viewport: PHONE,
        isMobile: true,
        hasTouch: true,
        deviceScaleFactor: 2,
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      contexts.push(context);
      const page = await openConsole(context, rig.bridge);
      await shows(page, 'devices');
      const phone = rig.device(0).deviceId;
      await page.getByTestId(`device-${phone}`).waitFor({ timeout: UI_MS });
      // An approval waiting: the call is held until someone decides.
      const held = invoke(client, channelId, 'android_launch_app', { package: 'com.example.wallet' });
      await page.getByTestId('badge-approvals').waitFor({ timeout: UI_MS });

      for (const section of [
        'connect',
        'devices',
        'lan',
        'bindings',
        'pairings',
        'activity',
        'settings',
        'approvals',
      ]) {
        await go(page, section);
        if (section === 'activity')
          await eventually(
            async () => (await page.locator('[data-testid^="activity-row-"]').count()) > 0,
            'audit rows',
          );
        if (section === 'settings') await page.getByTestId('policy-table').waitFor({ timeout: UI_MS });
        const width = await pageWidth(page);
        assert.ok(width <= PHONE.width, `${section}: the page is ${width} px wide`);
        await shot(page, locale, `phone-${section}`);
      }

      // On Approvals (the last): the card's buttons are on screen after a scroll, and big enough for a thumb.
      const approve = page.locator('[data-testid^="approval-approve-once-"]').first();
      await approve.scrollIntoViewIfNeeded();
      const box = await approve.boundingBox();
      assert.ok(box, 'the approve button is shown');
      assert.ok(box.height >= 44, `approve is ${box.height} px tall`);
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, 'within the screen');
      await shot(page, locale, 'phone-approvals-buttons');
      await approve.click();
      const ack = await held;
      assert.equal(ack.type, 'tool.invoke.ack', JSON.stringify(ack.error));

      // Settings → Limits and the connect guide in the phone's width too.
      await page.goto(`${rig.bridge.url}/console/#/settings/limits`);
      await page.locator('#limits-heading').waitFor({ timeout: UI_MS });
      assert.ok((await pageWidth(page)) <= PHONE.width, 'Limits fits');
      // A deep link scrolls the bars sideways so that the current section and part are in view.
      for (const id of ['nav-settings', 'settings-part-limits']) {
        const shown = await page.getByTestId(id).boundingBox();
        assert.ok(shown && shown.x >= 0 && shown.x + shown.width <= PHONE.width, `${id} in view`);
      }
      await shot(page, locale, 'phone-settings-limits');
      assert.deepEqual((page as Page & { problems?: string[] }).problems, []);
    });
  }
});

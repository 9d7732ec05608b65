/**
 * The fast lane in the web console: Debian's Chromium (playwright-core, no download) on a
 * bridge with a simulated phone behind a real adb server. The person enables the helper from
 * the phone's card, sees it installed, an agent's call starts it and the card shows it
 * running with its version and the call counted on the fast lane; Settings says it is a
 * per-phone opt-in with no lab-wide switch. Screenshot: test-artifacts/screenshots/fast-lane-card.png.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';

const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 15_000;

let browser: Browser;
let buildDir = '';
let bound: BoundRig;

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ browser, buildDir } = await startConsoleBrowser('fast-lane-e2e-'));
  bound = await startBoundRig({ consoleDir: buildDir });
});

after(async () => {
  await bound?.stop();
  await stopConsoleBrowser(browser, buildDir);
});

/** The console in English at 1280×900, with the page's own errors collected. */
async function openConsole(): Promise<{ context: BrowserContext; page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${bound.rig.bridge.url}/console/#token=${bound.rig.bridge.adminToken}`);
  return { context, page, problems };
}

test('enable the fast lane from a phone card, and see the helper running', async () => {
  const deviceId = bound.rig.device(0).deviceId;
  const { context, page, problems } = await openConsole();
  try {
    const panel = page.getByTestId(`program-${deviceId}-uia2_server`);
    await panel.waitFor({ timeout: UI_MS });
    // Before consent: what would be installed and what it exposes, beside the button.
    const words = (await panel.innerText()).replace(/\s+/g, ' ');
    assert.match(words, /appium-uiautomator2-server \d+\.\d+\.\d+ \(Apache-2\.0/);
    assert.match(words, /any app on this phone, and any computer on a network the phone is on, can control the phone/);
    await page.getByTestId(`program-${deviceId}-uia2_server-enable`).click();
    await page
      .locator(`[data-testid="program-${deviceId}-uia2_server"][data-state="idle"][data-enabled="true"]`)
      .waitFor({ timeout: UI_MS });
    // An agent's call starts it; the card follows through the live events.
    const tree = await invoke(bound.client, bound.channel, 'android_ui_tree', {});
    assert.equal((tree.payload?.result as { lane?: string } | undefined)?.lane, 'helper', JSON.stringify(tree));
    await page
      .locator(`[data-testid="program-${deviceId}-uia2_server"][data-state="ready"]`)
      .waitFor({ timeout: UI_MS });
    // The call's count arrives with the state the finished call publishes.
    await page
      .getByTestId(`program-${deviceId}-uia2_server-served`)
      .filter({ hasText: /Calls: 1 by it/ })
      .waitFor({ timeout: UI_MS });
    assert.match(await panel.innerText(), /version \d+\.\d+\.\d+/);
    await panel.scrollIntoViewIfNeeded();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: join(SHOTS, 'fast-lane-card.png') });
    await page.getByTestId('nav-settings').click();
    const section = page.getByTestId('settings-fast-lane');
    await section.waitFor({ timeout: UI_MS });
    assert.match(await section.innerText(), /off on every phone, with no lab-wide switch/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a phone on a network: the card names its addresses; a foreign connection shows as an alert', async () => {
  const deviceId = bound.rig.device(0).deviceId;
  const phone = bound.rig.phones[0];
  assert.ok(phone);
  const { context, page, problems } = await openConsole();
  try {
    await page
      .locator(`[data-testid="program-${deviceId}-uia2_server"][data-state="ready"]`)
      .waitFor({ timeout: UI_MS });
    await page.getByTestId(`program-${deviceId}-uia2_server-guard`).waitFor({ timeout: UI_MS });
    // Wi-Fi comes on: the opt-in already covered it; the card names the addresses.
    phone.network.setWifi('192.168.1.23');
    const network = page.getByTestId(`program-${deviceId}-uia2_server-exposure`);
    await network.waitFor({ timeout: UI_MS });
    assert.match(await network.innerText(), /on a network \(wlan0 192\.168\.1\.23.*ports 6790 and 7810/s);
    await network.scrollIntoViewIfNeeded();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: join(SHOTS, 'fast-lane-network.png') });
    // An app on the phone connects to it.
    const tree = await invoke(bound.client, bound.channel, 'android_ui_tree', {});
    assert.equal((tree.payload?.result as { lane?: string } | undefined)?.lane, 'helper');
    phone.network.connectToHelper({ appUid: 10_140 });
    const alert = page.locator(`[data-testid="program-${deviceId}-uia2_server-error"][role="alert"]`);
    await alert.waitFor({ timeout: UI_MS });
    assert.match(await alert.innerText(), /Stopped to keep the phone safe.*uid 10140/s);
    await alert.scrollIntoViewIfNeeded();
    await page.mouse.move(1, 1);
    await page.screenshot({ path: join(SHOTS, 'fast-lane-alert.png') });
    // The person decides to use it again: the bridge's copy is checked and it runs once more.
    await page.getByTestId(`program-${deviceId}-uia2_server-enable`).click();
    await page
      .locator(`[data-testid="program-${deviceId}-uia2_server"][data-state="idle"][data-enabled="true"]`)
      .waitFor({ timeout: UI_MS });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

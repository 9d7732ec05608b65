/**
 * Settings → Hosts in a real browser (Debian's Chromium via playwright-core) against a bridge
 * taking phones from two private ADB servers with simulated phones: both hosts are listed as
 * connected with their phones and round trip; when one host's ADB server goes away its row
 * says so with the reason and since when, its phones go offline, and the other host stays
 * connected. In English and in Chinese.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startLabRig, type LabRig } from '../helpers/lab-rig';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 10_000;

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string }>;

async function buildConsole(outDir: string): Promise<void> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href;
  const { buildRenderer } = (await import(url)) as { buildRenderer: BuildRenderer };
  await buildRenderer({ outDir, minify: false });
}

describe('Settings → Hosts in the web console', { concurrency: 1 }, () => {
  let browser: Browser;
  let buildDir = '';
  let lab: LabRig;
  const problems: string[] = [];

  async function openHosts(locale: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, locale });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${lab.bridge.url}/console/#token=${lab.bridge.adminToken}`);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-part-hosts').click();
    await page.locator('#hosts-heading').waitFor({ timeout: UI_MS });
    return page;
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildDir = mkdtempSync(join(tmpdir(), 'console-hosts-'));
    await buildConsole(buildDir);
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-sync'],
    });
    lab = await startLabRig({ servers: 2, phonesPerServer: 2, bridge: { consoleDir: buildDir } });
  });
  after(async () => {
    await browser?.close();
    await lab?.stop();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  test('both hosts connected, with their phones; one host going away is shown with its reason while the other stays (English)', async () => {
    const page = await openHosts('en-US');
    const [first, second] = [lab.address(0), lab.address(1)];
    for (const address of [first, second]) {
      const row = page.getByTestId(`host-${address}`);
      await row.waitFor({ timeout: UI_MS });
      assert.equal(await row.getAttribute('data-state'), 'connected');
      const text = await row.innerText();
      assert.match(text, /direct/);
      assert.match(text, /2 of 2 phones ready/);
    }
    await page.waitForFunction(
      (address) =>
        /round trip \d+ ms/.test(document.querySelector(`[data-testid="host-${address}"]`)?.textContent ?? ''),
      first,
      { timeout: UI_MS },
    );

    const goneAt = Date.now();
    await lab.stopServer(1);
    const row = page.getByTestId(`host-${second}`);
    await page.waitForFunction(
      (address) =>
        document.querySelector(`[data-testid="host-${address}"]`)?.getAttribute('data-state') === 'reconnecting',
      second,
      { timeout: 5000 },
    );
    const shownMs = Date.now() - goneAt;
    const text = await row.innerText();
    assert.match(text, /reconnecting/);
    assert.match(text, /since/);
    assert.ok((await page.getByTestId(`host-reason-${second}`).innerText()).trim().length > 0, 'a reason is given');
    await page.waitForFunction(
      (address) =>
        /0 of 2 phones ready/.test(document.querySelector(`[data-testid="host-${address}"]`)?.textContent ?? ''),
      second,
      { timeout: 5000 },
    );
    // The other host goes on.
    assert.equal(await page.getByTestId(`host-${first}`).getAttribute('data-state'), 'connected');
    assert.match(await page.getByTestId(`host-${first}`).innerText(), /2 of 2 phones ready/);
    const offline = lab.bridge.core.registry.list().filter((d) => d.adbServer === second);
    assert.ok(
      offline.every((d) => d.state === 'offline' && d.reason !== null),
      JSON.stringify(offline),
    );
    await page.screenshot({ path: join(SHOTS, 'settings-hosts-en.png'), fullPage: true });
    assert.ok(shownMs < 5000, `shown ${shownMs} ms after the host went away`);
    await page.context().close();
  });

  test('the same in Chinese', async () => {
    const page = await openHosts('zh-CN');
    const [first, second] = [lab.address(0), lab.address(1)];
    await page.waitForFunction(
      (address) => /正在重连/.test(document.querySelector(`[data-testid="host-${address}"]`)?.textContent ?? ''),
      second,
      { timeout: UI_MS },
    );
    assert.match(await page.locator('#hosts-heading').innerText(), /主机/);
    assert.match(await page.getByTestId(`host-${first}`).innerText(), /已连接/);
    assert.match(await page.getByTestId(`host-${first}`).innerText(), /2 台手机中 2 台就绪/);
    assert.match(await page.getByTestId(`host-${second}`).innerText(), /开始于/);
    await page.screenshot({ path: join(SHOTS, 'settings-hosts-zh.png'), fullPage: true });
    await page.context().close();
    assert.deepEqual(problems, []);
  });
});

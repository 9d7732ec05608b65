/**
 * The Devices view with a lab's many phones, in a real browser (Debian's Chromium via
 * playwright-core): 64 simulated phones on 4 private ADB servers, every phone's own serial
 * ending in 4F2A. All are listed (the compact list, past 12 phones) with labels unique within
 * the bridge; searching a serial shows that one phone, and answers in the page within a
 * frame; filtering by host shows that host's phones; a line opens its card in place. In
 * English and in Chinese. Figures (time to the full list, search time, JS heap) are printed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { labSerial, startLabRig, type LabRig } from '../helpers/lab-rig';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 10_000;
const SERVERS = 4;
const PER_SERVER = 16;
const TOTAL = SERVERS * PER_SERVER;

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string }>;

async function buildConsole(outDir: string): Promise<void> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href;
  const { buildRenderer } = (await import(url)) as { buildRenderer: BuildRenderer };
  await buildRenderer({ outDir, minify: false });
}

/** Rows of the compact list now. */
function rowCount(page: Page): Promise<number> {
  return page.locator('[data-testid^="device-row-dev_"]').count();
}

/**
 * Types into the search box inside the page and measures until the list shows the answer
 * (the next frame after the input event): what the person waits for, without the test
 * driver's round trips.
 */
async function timedSearch(page: Page, text: string, expectRows: number): Promise<number> {
  return page.evaluate(
    async ({ text, expectRows }) => {
      const input = document.querySelector<HTMLInputElement>('[data-testid="devices-search"]');
      if (!input) throw new Error('no search box');
      // React tracks the value it last set: the prototype's setter makes the change one React sees.
      const descriptor = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value');
      const started = performance.now();
      descriptor?.set?.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
      // No named helpers in here: the test's compiler would wrap them in a function the page lacks.
      while (document.querySelectorAll('[data-testid^="device-row-dev_"]').length !== expectRows) {
        if (performance.now() - started > 5000)
          throw new Error(
            `search did not show ${expectRows} rows within 5 s: ${document.querySelectorAll('[data-testid^="device-row-dev_"]').length} rows, box "${input.value}", ${document.querySelector('[data-testid="devices-shown"]')?.textContent ?? ''}`,
          );
        await new Promise((r) => requestAnimationFrame(() => r(undefined)));
      }
      return performance.now() - started;
    },
    { text, expectRows },
  );
}

describe('Devices with a lab of 64 phones on 4 hosts', { concurrency: 1 }, () => {
  let browser: Browser;
  let buildDir = '';
  let lab: LabRig;
  const problems: string[] = [];

  async function openDevices(locale: string): Promise<{ page: Page; listedMs: number }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${lab.bridge.url}/console/#token=${lab.bridge.adminToken}`);
    await page.getByTestId('nav-devices').waitFor({ timeout: UI_MS });
    // From here the console is loaded: what is measured is Devices showing every phone.
    const openedAt = Date.now();
    await page.getByTestId('nav-devices').click();
    await page.waitForFunction(
      (total) => document.querySelectorAll('[data-testid^="device-row-dev_"]').length === total,
      TOTAL,
      { timeout: UI_MS },
    );
    return { page, listedMs: Date.now() - openedAt };
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildDir = mkdtempSync(join(tmpdir(), 'console-lab-'));
    await buildConsole(buildDir);
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--no-first-run',
        '--disable-sync',
        '--enable-precise-memory-info',
      ],
    });
    lab = await startLabRig({ servers: SERVERS, phonesPerServer: PER_SERVER, bridge: { consoleDir: buildDir } });
  });
  after(async () => {
    await browser?.close();
    await lab?.stop();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  test('all listed with unique labels; a serial finds its one phone; a host filter shows its phones; a line opens its card (English)', async (t) => {
    const { page, listedMs } = await openDevices('en-US');
    t.diagnostic(`${TOTAL} phones listed ${listedMs} ms after the console was opened`);
    assert.match(await page.getByTestId('devices-shown').innerText(), new RegExp(`${TOTAL} of ${TOTAL} shown`));
    const names = await page.locator('[data-testid^="device-row-dev_"] td:first-child a').allInnerTexts();
    assert.equal(names.length, TOTAL);
    assert.equal(new Set(names).size, TOTAL, `labels unique: ${names.slice(0, 6).join(', ')} …`);

    // One phone by its own serial (the one printed on its back).
    const wanted = labSerial(2, 7);
    const searchMs = await timedSearch(page, wanted.toLowerCase(), 1);
    t.diagnostic(`search for a serial answered in ${searchMs.toFixed(1)} ms in the page`);
    const record = lab.bridge.core.registry.list().find((d) => d.hardwareSerial === wanted);
    assert.ok(record);
    assert.equal(await rowCount(page), 1);
    await page.getByTestId(`device-row-${record.deviceId}`).waitFor();
    assert.match(await page.getByTestId('devices-shown').innerText(), new RegExp(`1 of ${TOTAL} shown`));
    assert.ok(searchMs < 500, `search took ${searchMs} ms`);

    // The line opens the phone's card in place.
    await page.getByTestId(`device-row-card-${record.deviceId}`).click();
    await page.getByTestId(`device-${record.deviceId}`).waitFor({ timeout: UI_MS });
    assert.match(
      await page.getByTestId(`device-${record.deviceId}`).innerText(),
      new RegExp(lab.address(2).replace(/\./g, '\\.')),
    );

    // By host: that host's phones only.
    await timedSearch(page, '', TOTAL);
    await page.getByTestId('devices-filter-host').selectOption(lab.address(1));
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid^="device-row-dev_"]').length === n,
      PER_SERVER,
      { timeout: UI_MS },
    );
    const hosts = await page.locator('[data-testid^="device-row-dev_"] td:nth-child(4)').allInnerTexts();
    assert.deepEqual([...new Set(hosts)], [lab.address(1)]);
    // Host and words together: the Galaxies on that host.
    const galaxyMs = await timedSearch(page, 'galaxy', PER_SERVER / 2);
    t.diagnostic(`search for a model on one host answered in ${galaxyMs.toFixed(1)} ms`);
    const heap = await page.evaluate(
      () => (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
    );
    if (heap > 0) t.diagnostic(`page JS heap ${(heap / 1024 / 1024).toFixed(1)} MiB with ${TOTAL} phones`);
    await page.screenshot({ path: join(SHOTS, 'devices-lab-en.png') });
    await page.context().close();
  });

  test('the same in Chinese', async () => {
    const { page } = await openDevices('zh-CN');
    assert.match(await page.getByTestId('devices-shown').innerText(), new RegExp(`显示 ${TOTAL}/${TOTAL} 台`));
    assert.equal(
      await page.getByTestId('devices-search').getAttribute('placeholder'),
      '搜索名称、型号、序列号、使用者…',
    );
    await timedSearch(page, labSerial(3, 0), 1);
    assert.match(await page.getByTestId('devices-shown').innerText(), new RegExp(`显示 1/${TOTAL} 台`));
    await timedSearch(page, 'no such phone', 0);
    assert.match(await page.getByTestId('devices-no-match').innerText(), /没有匹配的手机/);
    await page.getByTestId('devices-no-match').getByRole('button').click();
    await page.waitForFunction(
      (total) => document.querySelectorAll('[data-testid^="device-row-dev_"]').length === total,
      TOTAL,
      { timeout: UI_MS },
    );
    assert.match(await page.locator('[data-testid="device-table"] thead').innerText(), /使用者/);
    await page.screenshot({ path: join(SHOTS, 'devices-lab-zh.png') });
    await page.context().close();
    assert.deepEqual(problems, []);
  });
});

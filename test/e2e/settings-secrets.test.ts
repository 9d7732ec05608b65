/**
 * Settings → Secrets in a real browser (Debian's Chromium driven by playwright-core) against
 * the headless bridge with one simulated phone behind a real adb server: a secret is added
 * for that phone with a password input, listed without its value, replaced, and deleted
 * after a confirm; a bad name is refused in the form; the section speaks Chinese too. The
 * admin API is asked what the console changed.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import type { Json } from '../helpers/acks';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 10_000;
const VALUE = 'console-typed P4ssw0rd!';
const NEW_VALUE = 'replaced P4ssw0rd?';

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string }>;

async function buildConsole(outDir: string): Promise<void> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href;
  const { buildRenderer } = (await import(url)) as { buildRenderer: BuildRenderer };
  await buildRenderer({ outDir, minify: false });
}

describe('Settings → Secrets in the web console', { concurrency: 1 }, () => {
  let browser: Browser;
  let buildDir = '';
  let rig: DeviceRig;
  let page: Page;
  let phone = '';
  const problems: string[] = [];

  async function listed(): Promise<Json[]> {
    const res = await rig.bridge.admin('GET', '/admin/api/secrets');
    assert.equal(res.status, 200);
    return res.body.secrets as Json[];
  }

  async function openSettings(locale: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, locale });
    const opened = await context.newPage();
    opened.on('pageerror', (error) => problems.push(error.message));
    await opened.goto(`${rig.bridge.url}/console/#token=${rig.bridge.adminToken}`);
    await opened.getByTestId('nav-settings').click();
    await opened.locator('#secrets-heading').waitFor({ timeout: UI_MS });
    return opened;
  }

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildDir = mkdtempSync(join(tmpdir(), 'console-secrets-'));
    await buildConsole(buildDir);
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-sync'],
    });
    rig = await startDeviceRig(1, { consoleDir: buildDir });
    phone = rig.device(0).deviceId;
    page = await openSettings('en-US');
  });
  after(async () => {
    await browser?.close();
    await rig?.stop();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  test('a bad name is refused in the form; nothing is stored', async () => {
    const section = page.getByTestId('secrets-section');
    assert.match(await section.innerText(), /No secrets kept/);
    await page.getByTestId('secret-name').fill('not a name');
    await page.getByTestId('secret-value').fill(VALUE);
    await page.getByTestId('secret-submit').click();
    await page
      .getByTestId('secret-error')
      .filter({ hasText: /letters, digits/ })
      .waitFor({ timeout: UI_MS });
    assert.deepEqual(await listed(), []);
  });

  test('a secret is added for one phone with a password input and listed without its value', async () => {
    assert.equal(await page.getByTestId('secret-value').getAttribute('type'), 'password');
    await page.getByTestId('secret-name').fill('lab-login');
    await page.getByTestId('secret-value').fill(VALUE);
    await page.getByTestId('secret-scope').selectOption('some');
    await page.getByTestId(`secret-phone-${phone}`).check();
    await page.getByTestId('secret-submit').click();
    const row = page.getByTestId('secret-lab-login');
    await row.waitFor({ timeout: UI_MS });
    assert.match(await row.innerText(), /Pixel 7/, 'the row names the phone');
    assert.equal(await page.getByTestId('secret-value').inputValue(), '', 'the value left the form');
    assert.ok(!(await page.content()).includes(VALUE), 'the value is nowhere in the page');
    const [stored] = await listed();
    assert.deepEqual({ name: stored?.name, devices: stored?.devices }, { name: 'lab-login', devices: [phone] });
    await page.getByTestId('secrets-section').screenshot({ path: join(SHOTS, 'settings-secrets.png') });
  });

  test('Replace fills the name and phones; saving replaces the value, still one secret', async () => {
    const before = (await listed())[0]?.updated_at as number;
    await page.getByTestId('secret-replace-lab-login').click();
    assert.equal(await page.getByTestId('secret-name').inputValue(), 'lab-login');
    assert.ok(await page.getByTestId(`secret-phone-${phone}`).isChecked());
    await page.getByTestId('secret-value').fill(NEW_VALUE);
    await page.getByTestId('secret-submit').click();
    await page.waitForFunction(
      () => document.querySelector<HTMLInputElement>('[data-testid="secret-value"]')?.value === '',
      undefined,
      { timeout: UI_MS },
    );
    const after = await listed();
    assert.equal(after.length, 1);
    assert.ok((after[0]?.updated_at as number) >= before);
    assert.ok(!(await page.content()).includes(NEW_VALUE));
  });

  test('the section speaks Chinese', async () => {
    const zh = await openSettings('zh-CN');
    try {
      assert.equal(await zh.locator('#secrets-heading').innerText(), '密钥');
      await zh.getByTestId('secret-delete-lab-login').click();
      assert.match(await zh.getByTestId('secrets-section').innerText(), /删除密钥“lab-login”？/);
      await zh.getByTestId('secret-delete-cancel-lab-login').click();
    } finally {
      await zh.context().close();
    }
  });

  test('Delete asks first; Cancel keeps the secret, confirming removes it', async () => {
    await page.getByTestId('secret-delete-lab-login').click();
    await page.getByTestId('secret-delete-cancel-lab-login').click();
    assert.equal((await listed()).length, 1);
    await page.getByTestId('secret-delete-lab-login').click();
    await page.getByTestId('secret-delete-confirm-lab-login').click();
    await page.getByTestId('secret-lab-login').waitFor({ state: 'detached', timeout: UI_MS });
    assert.deepEqual(await listed(), []);
    assert.match(await page.getByTestId('secrets-section').innerText(), /No secrets kept/);
    assert.deepEqual(problems, [], 'no script errors');
  });
});

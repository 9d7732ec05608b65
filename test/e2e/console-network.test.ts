/**
 * The console's view of the network setup, in Debian's Chromium: over https with the
 * self-signed certificate, Settings → Connect xAgent shows the fingerprint the bridge really
 * serves; a bridge on a LAN address in clear text shows the warning banner on every screen;
 * behind a TLS proxy with a path prefix (and remote admin allowed) the console works there.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { startReverseProxy } from '../helpers/reverse-proxy';
import { createTestCa } from '../helpers/test-ca';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 10_000;

let browser: Browser;
let buildDir = '';

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  buildDir = mkdtempSync(join(tmpdir(), 'console-network-e2e-'));
  const { buildRenderer } = (await import(pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href)) as {
    buildRenderer: (options: { outDir: string; minify?: boolean }) => Promise<unknown>;
  };
  await buildRenderer({ outDir: buildDir, minify: false });
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});

async function openConsole(page: Page, consoleUrl: string, token: string): Promise<void> {
  await page.goto(`${consoleUrl}/console/#token=${token}`);
  await page.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor({ timeout: UI_MS });
}

void describe('web console: network setup', () => {
  void test('over https with the self-signed certificate, Settings shows the fingerprint the bridge serves', async () => {
    const bridge: TestBridge = await startBridge({ consoleDir: buildDir, network: { tls: 'self-signed' } });
    // The browser is told to accept this one certificate, as a person would after comparing the fingerprint.
    const context = await browser.newContext({
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      ignoreHTTPSErrors: true,
    });
    try {
      const fingerprint = bridge.core.tls()?.fingerprint256 ?? '';
      assert.match(fingerprint, /^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
      const page = await context.newPage();
      await openConsole(page, bridge.url, bridge.adminToken);
      assert.ok(page.url().startsWith('https://'));
      await page.getByTestId('nav-settings').click();
      const shown = page.getByTestId('settings-tls-fingerprint');
      await shown.waitFor({ timeout: UI_MS });
      assert.equal(await shown.textContent(), `SHA-256 ${fingerprint}`);
      assert.match((await page.getByTestId('settings-tls').textContent()) ?? '', /https\/wss, self-signed certificate/);
      assert.match((await page.getByTestId('settings-base-url').textContent()) ?? '', /^https:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(await page.getByTestId('warning-banner').count(), 0);
      await page.getByTestId('settings-network').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(SHOTS, 'settings-network-tls.png') });
    } finally {
      await context.close();
      await bridge.stop();
    }
  });

  void test('a bridge on a LAN address in clear text shows the warning until it is fixed', async (t) => {
    const lan = Object.values(networkInterfaces())
      .flat()
      .find((entry) => entry && entry.family === 'IPv4' && !entry.internal)?.address;
    if (!lan) {
      t.skip('this machine has no non-loopback IPv4 address');
      return;
    }
    // The console is reached on the LAN address itself, so remote admin must be allowed here.
    const bridge = await startBridge({ consoleDir: buildDir, host: lan, allowRemoteAdmin: true });
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    try {
      const page = await context.newPage();
      await openConsole(page, bridge.url, bridge.adminToken);
      const banner = page.getByTestId('warning-banner');
      await banner.waitFor({ timeout: UI_MS });
      const text = (await banner.textContent()) ?? '';
      assert.match(text, new RegExp(`listens on ${lan.replace(/\./g, '\\.')} over plain HTTP`));
      assert.match(text, /system API key/);
      assert.match(text, /--tls self-signed/);
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-tls').waitFor({ timeout: UI_MS });
      assert.equal(await page.getByTestId('settings-tls').textContent(), 'off (plain http)');
      assert.equal(await banner.count(), 1, 'still shown on the next screen');
      await page.screenshot({ path: join(SHOTS, 'warning-clear-text.png') });
    } finally {
      await context.close();
      await bridge.stop();
    }
  });

  void test('behind a TLS proxy with the prefix /devices, the console at the public URL works (remote admin allowed)', async () => {
    const ca = await createTestCa();
    const issued = await ca.issue();
    const proxy = await startReverseProxy({ prefix: '/devices', cert: issued.certPem, key: issued.keyPem });
    const bridge = await startBridge({
      consoleDir: buildDir,
      allowRemoteAdmin: true,
      network: { publicUrl: proxy.url, trustProxy: ['127.0.0.1/32'] },
    });
    proxy.upstream = { host: '127.0.0.1', port: Number(new URL(bridge.url).port) };
    const context = await browser.newContext({
      locale: 'en-US',
      viewport: { width: 1280, height: 900 },
      ignoreHTTPSErrors: true,
    });
    try {
      const page = await context.newPage();
      // Without the trailing slash: the console's redirect must keep the prefix.
      await page.goto(`${proxy.url}/console#token=${bridge.adminToken}`);
      await page.getByTestId('live-status').filter({ hasText: 'Live' }).waitFor({ timeout: UI_MS });
      assert.ok(page.url().startsWith(`${proxy.url}/console/`), page.url());
      await page.getByTestId('nav-settings').click();
      await page.getByTestId('settings-public-url').waitFor({ timeout: UI_MS });
      assert.equal(await page.getByTestId('settings-base-url').textContent(), proxy.url);
      assert.equal(
        await page.getByTestId('settings-tls').textContent(),
        'off in the bridge; your proxy terminates TLS',
      );
    } finally {
      await context.close();
      await bridge.stop();
      await proxy.stop();
      ca.cleanup();
    }
  });
});

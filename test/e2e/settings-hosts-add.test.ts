/**
 * Settings → Hosts' form in a real browser (Debian's Chromium via playwright-core), against a
 * real OpenSSH server on loopback in front of a private ADB server with simulated phones: an
 * SSH host's key is shown for the person to compare before anything is trusted, and cancelling
 * trusts nothing; confirming it adds the host, whose phones arrive in its row; a host added
 * here is removed here. A plain HOST:PORT host is added and removed the same way. In Chinese
 * and in English.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { sshdMissing, startSshd, type SshdRig } from '../helpers/sshd';
import { startSimFarm, type SimFarm } from '../../main/sim/sim-farm';
import { createSimulatedPhone } from '../../main/sim/phone';
import { SSH_PINS_FILE } from '../../main/core/devices/ssh/ssh-tunnels';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const ROOT = resolve(__dirname, '..', '..');
const SHOTS = join(ROOT, 'test-artifacts', 'screenshots');
const UI_MS = 10_000;
const missing = sshdMissing();

type BuildRenderer = (options: { outDir: string; minify?: boolean }) => Promise<{ outDir: string }>;

async function buildConsole(outDir: string): Promise<void> {
  const url = pathToFileURL(join(ROOT, 'scripts', 'build-renderer.mjs')).href;
  const { buildRenderer } = (await import(url)) as { buildRenderer: BuildRenderer };
  await buildRenderer({ outDir, minify: false });
}

describe('Settings → Hosts: adding and removing a host', { concurrency: 1, skip: missing ?? false }, () => {
  let browser: Browser;
  let buildDir = '';
  let adb: AdbServerRig;
  let farm: SimFarm;
  let sshd: SshdRig;
  let bridge: TestBridge;
  const problems: string[] = [];

  const sshUrl = (): string => `ssh://${sshd.user}@127.0.0.1:${sshd.port}?adb_port=${adb.port}`;

  async function openHosts(locale: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1024, height: 900 }, locale });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${bridge.url}/console/#token=${bridge.adminToken}`);
    await page.getByTestId('nav-settings').click();
    await page.getByTestId('settings-part-hosts').click();
    await page.getByTestId('host-add-form').waitFor({ timeout: UI_MS });
    return page;
  }

  const rowText = (page: Page, address: string, pattern: RegExp): Promise<unknown> =>
    page.waitForFunction(
      ([a, source]) => new RegExp(source).test(document.querySelector(`[data-testid="host-${a}"]`)?.textContent ?? ''),
      [address, pattern.source] as const,
      { timeout: 20_000 },
    );

  const removeHost = async (page: Page, address: string): Promise<void> => {
    await page.getByTestId(`host-remove-${address}`).click();
    await page.getByTestId(`host-remove-confirm-${address}`).click();
    await page.getByTestId(`host-${address}`).waitFor({ state: 'detached', timeout: UI_MS });
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    buildDir = mkdtempSync(join(tmpdir(), 'console-hosts-add-'));
    await buildConsole(buildDir);
    assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is needed (apt-get install chromium, or set CHROMIUM_PATH)`);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-sync'],
    });
    adb = await startAdbServer();
    farm = await startSimFarm({
      count: 2,
      adb: { host: '127.0.0.1', port: adb.port },
      createPhone: (i) => createSimulatedPhone({ serial: `FORMHOST${i}9C1D`, model: 'Pixel 8', profile: 'instant' }),
    });
    sshd = await startSshd({ permitOpen: `127.0.0.1:${adb.port}` });
    bridge = await startBridge({
      consoleDir: buildDir,
      ssh: {
        privateKeyFile: sshd.userKey.privateKeyFile,
        knownHostsFile: join(buildDir, 'no-known-hosts'),
        keepaliveMs: 500,
        backoff: { firstMs: 100, maxMs: 1000 },
      },
    });
  });
  after(async () => {
    await browser?.close();
    await bridge?.stop();
    await sshd?.stop();
    await farm?.stop();
    await adb?.stop();
    if (buildDir) rmSync(buildDir, { recursive: true, force: true });
  });

  test('in Chinese: an empty address is refused; the SSH key is shown and cancelling trusts nothing; a plain host is added and removed', async () => {
    const page = await openHosts('zh-CN');
    assert.match(await page.locator('#host-add-heading').innerText(), /添加主机/);
    await page.getByTestId('host-add-submit').click();
    assert.match(await page.getByTestId('host-add-error').innerText(), /请输入主机地址/);

    await page.getByTestId('host-add-url').fill(sshUrl());
    await page.getByTestId('host-add-submit').click();
    const ask = page.getByTestId('host-confirm');
    await ask.waitFor({ timeout: UI_MS });
    assert.match(await ask.innerText(), /信任前请核对此主机密钥/);
    assert.equal(await page.getByTestId('host-confirm-key').innerText(), `ssh-ed25519 ${sshd.hostKey.fingerprint}`);
    await page.screenshot({ path: join(SHOTS, 'settings-hosts-confirm-zh.png'), fullPage: true });
    await page.getByTestId('host-confirm-cancel').click();
    await ask.waitFor({ state: 'detached', timeout: UI_MS });
    assert.equal(existsSync(join(bridge.dataDir, SSH_PINS_FILE)), false, 'nothing pinned');
    assert.equal(bridge.core.adbLinks.length, 1, 'nothing added');

    const plain = `127.0.0.1:${adb.port}`;
    await page.getByTestId('host-add-url').fill(plain);
    await page.getByTestId('host-add-submit').click();
    assert.match(await page.getByTestId('host-add-result').innerText(), /已添加 127\.0\.0\.1:\d+/);
    await rowText(page, plain, /2 台手机中 2 台就绪/);
    assert.match(await page.getByTestId(`host-${plain}`).innerText(), /在此添加/);
    await page.getByTestId(`host-remove-${plain}`).click();
    assert.match(await page.getByTestId(`host-${plain}`).innerText(), /移除 127\.0\.0\.1:\d+？它的手机将离线/);
    await page.getByTestId(`host-remove-confirm-${plain}`).click();
    await page.getByTestId(`host-${plain}`).waitFor({ state: 'detached', timeout: UI_MS });
    await page.context().close();
  });

  test('in English: the person compares the key and trusts it; the host’s phones arrive in its row; removed, its phones go offline', async (t) => {
    const page = await openHosts('en-US');
    await page.getByTestId('host-add-url').fill(sshUrl());
    await page.getByTestId('host-add-key').fill(sshd.userKey.privateKeyFile);
    await page.getByTestId('host-add-submit').click();
    await page.getByTestId('host-confirm').waitFor({ timeout: UI_MS });
    const words = await page.getByTestId('host-confirm').innerText();
    assert.match(words, /Check this host key before trusting it/);
    assert.match(words, /ssh-keygen -lf/);
    assert.equal(await page.getByTestId('host-confirm-key').innerText(), `ssh-ed25519 ${sshd.hostKey.fingerprint}`);
    await page.screenshot({ path: join(SHOTS, 'settings-hosts-confirm-en.png'), fullPage: true });
    const trustedAt = Date.now();
    await page.getByTestId('host-confirm-trust').click();
    assert.match(await page.getByTestId('host-add-result').innerText(), /Added ssh:\/\//);
    await rowText(page, sshUrl(), /2 of 2 phones ready/);
    t.diagnostic(`the row showed 2 ready phones ${Date.now() - trustedAt} ms after the key was trusted`);
    const row = page.getByTestId(`host-${sshUrl()}`);
    assert.equal(await row.getAttribute('data-state'), 'connected');
    assert.match(await row.innerText(), /added here/);
    assert.match(await row.innerText(), /SSH/);
    assert.equal(await page.getByTestId(`host-key-${sshUrl()}`).innerText(), `ssh-ed25519 ${sshd.hostKey.fingerprint}`);
    await page.screenshot({ path: join(SHOTS, 'settings-hosts-added-en.png'), fullPage: true });
    // The start host has no remove button: it was given at start.
    assert.equal(await page.getByTestId('host-remove-127.0.0.1:1').count(), 0);

    await removeHost(page, sshUrl());
    const phones = bridge.core.registry.list().filter((d) => d.adbServer === sshUrl());
    assert.ok(
      phones.length === 2 && phones.every((d) => d.state === 'offline' && /removed/.test(d.reason ?? '')),
      JSON.stringify(phones.map((d) => [d.state, d.reason])),
    );
    await page.context().close();
    assert.deepEqual(problems, []);
  });
});

if (missing) test(`Settings → Hosts form: skipped, ${missing}`, { skip: missing }, () => undefined);

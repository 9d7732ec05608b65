/**
 * The web console in two languages, end to end (Debian's Chromium through playwright-core,
 * no download): a Chinese browser (locale zh-CN) sees every screen in Chinese — nav, headings,
 * device card, pairing request, binding, approval card, activity table, settings — with
 * <html lang="zh-CN">; an English browser sees English; the Settings switch changes the
 * language live, on every open console, and it is remembered by the bridge after a reload.
 *
 * Every screen is saved in both languages under <os tmp>/xagent-console-i18n/<locale>/;
 * with UPDATE_SCREENSHOTS=1 (scripts/screenshots.mjs) also to docs/screenshots/<locale>/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser, eventually } from '../helpers/console-browser';
import { invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';

const ROOT = resolve(__dirname, '..', '..');
const TMP_SHOTS = join(tmpdir(), 'xagent-console-i18n');
const DOCS_SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'screenshots') : null;
/** The screens kept in docs/screenshots/<locale>/ (every screen goes to the temp folder). */
const DOC_SET = new Set([
  'connect',
  'devices',
  'lan',
  'pairings',
  'bindings',
  'approvals',
  'activity',
  'settings',
  'settings-policies',
]);
const VIEWPORT = { width: 1280, height: 860 };
const UI_MS = 10_000;
const CJK = /[\u4e00-\u9fff]/;

type Locale = 'en' | 'zh-CN';

async function shot(page: Page, locale: Locale, name: string): Promise<void> {
  await page.mouse.move(1, 1);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
  for (const dir of [TMP_SHOTS, DOC_SET.has(name) ? DOCS_SHOTS : null]) {
    if (!dir) continue;
    mkdirSync(join(dir, locale), { recursive: true });
    await page.screenshot({ path: join(dir, locale, `${name}.png`) });
  }
}

async function go(page: Page, area: string): Promise<void> {
  await page.getByTestId(`nav-${area}`).click();
  await page.locator(`#${area}-heading`).waitFor({ timeout: UI_MS });
}

/** The visible text of the main area, for language checks. */
const mainText = (page: Page): Promise<string> => page.locator('main').innerText();

/**
 * The main area's own words: without code, ids and what the bridge itself wrote (its error
 * messages and notes, phone names, the check's details), which are data, not the UI's text.
 */
const ownWords = (page: Page): Promise<string> =>
  page.locator('main').evaluate((main) => {
    const copy = main.cloneNode(true) as HTMLElement;
    const bridgeWords = '.error-detail, .error-text, [data-testid^="lan-discovered-note-"], [data-testid^="adb-down-"]';
    copy.querySelectorAll(`code, .mono, pre, ${bridgeWords}`).forEach((el) => el.remove());
    return copy.textContent ?? '';
  });

/** Latin words in `text` that are not names, ids, codes or units we keep in every language. */
function englishWords(text: string, allowed: readonly string[]): string[] {
  const kept = new Set([
    'ADB',
    'USB',
    'LAN',
    'TLS',
    'API',
    'URL',
    'xAgent',
    'Android',
    'Unicode',
    'Shell',
    'README',
    'For',
    'labs',
    'English',
    'HOST',
    'PORT',
    'ID',
    'ms',
    'MiB',
    'GiB',
    'https',
    'wss',
    'http',
    ...allowed,
  ]);
  return (text.match(/\b[A-Za-z]{3,}\b/g) ?? []).filter((word) => !kept.has(word));
}

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('console-i18n-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('the console in English and Simplified Chinese', { concurrency: 1 }, () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  const contexts: BrowserContext[] = [];
  const pages = new Map<Locale, Page>();
  let phone = '';
  let channelId = '';

  async function open(locale: Locale): Promise<Page> {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: locale === 'en' ? 'en-US' : 'zh-CN' });
    contexts.push(context);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    (page as Page & { problems?: string[] }).problems = problems;
    await page.goto(`${rig.bridge.url}/console/#token=${rig.bridge.adminToken}`);
    await page
      .getByTestId('live-status')
      .filter({ hasText: locale === 'en' ? 'Live' : '实时' })
      .waitFor({ timeout: UI_MS });
    return page;
  }

  /** Both pages, in turn. */
  async function each(fn: (page: Page, locale: Locale) => Promise<void>): Promise<void> {
    for (const [locale, page] of pages) await fn(page, locale);
  }

  before(async () => {
    rig = await startDeviceRig(1, { consoleDir: buildDir });
    phone = rig.device(0).deviceId;
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    pages.set('en', await open('en'));
    pages.set('zh-CN', await open('zh-CN'));
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await client?.close();
    await rig?.stop();
  });

  test('the browser language decides: <html lang>, the navigation and the page title', async () => {
    const en = pages.get('en')!;
    const zh = pages.get('zh-CN')!;
    assert.equal(await en.evaluate(() => document.documentElement.lang), 'en');
    assert.equal(await zh.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await en.getByTestId('nav-devices').innerText(), 'Devices');
    assert.equal(await zh.getByTestId('nav-devices').innerText(), '设备');
    assert.deepEqual(await zh.locator('nav .nav-item span').allInnerTexts(), [
      '连接 xAgent',
      '设备',
      '局域网手机',
      '绑定与租约',
      '配对请求',
      '审批',
      '活动记录',
      '设置',
    ]);
    assert.equal(await zh.title(), '设备桥');
    assert.equal(await en.title(), 'Device Bridge');
  });

  test('Devices and LAN phones', async () => {
    await each(async (page, locale) => {
      await page.getByTestId(`device-${phone}`).waitFor({ timeout: UI_MS });
      await eventually(
        async () => (await page.getByTestId(`device-thumb-${phone}`).locator('img').count()) > 0,
        'the thumbnail',
        15_000,
      );
      assert.equal(await page.getByTestId(`device-state-${phone}`).innerText(), locale === 'en' ? 'online' : '在线');
      assert.equal(await page.getByTestId(`device-lease-${phone}`).innerText(), locale === 'en' ? 'free' : '空闲');
      await page.getByTestId(`phone-check-${phone}`).waitFor({ timeout: UI_MS });
      await shot(page, locale, 'devices');
      // The guide an xAgent is connected with (README step 2).
      await go(page, 'connect');
      await page.getByTestId('connect-base-url').waitFor({ timeout: UI_MS });
      await shot(page, locale, 'connect');
      await go(page, 'lan');
      // Checked in the console first, in the console's language.
      await page.getByTestId('lan-add-input').fill('phone.local:99999');
      await page.getByTestId('lan-add-submit').click();
      const error = page.getByTestId('lan-add-error');
      await eventually(async () => /99999/.test(await error.innerText().catch(() => '')), 'the port check');
      assert.equal(
        await error.innerText(),
        locale === 'en'
          ? 'Port “99999” must be a number from 1 to 65535.'
          : '端口“99999”必须是 1 到 65535 之间的数字。',
      );
      // Refused by the bridge: the code unchanged, its explanation in the console's language, the bridge's words kept.
      await page.getByTestId('lan-add-input').fill('phone..local');
      await page.getByTestId('lan-add-submit').click();
      await eventually(
        async () => /invalid_address/.test(await error.innerText().catch(() => '')),
        'the bridge refusal',
      );
      const refused = await error.innerText();
      assert.match(refused, /\(invalid_address\)/);
      if (locale === 'zh-CN') assert.match(refused, /^地址无效。 \(invalid_address\) 桥接服务的原话：.*phone\.\.local/);
      else assert.match(refused, /^"phone\.\.local"/);
      await shot(page, locale, 'lan');
    });
    const zh = pages.get('zh-CN')!;
    assert.match(await mainText(zh), /按地址添加/);
    assert.deepEqual(englishWords(await ownWords(zh), []), [], 'no English left on the LAN screen');
    await go(zh, 'devices');
    // Names of things: the phone, the helper's package (appium-uiautomator2-server, Apache-2.0), ADB Keyboard,
    // the screen stream's program (minicap), the programs on the phone (scrcpy-server, agent-device's
    // snapshot helper, its package com.callstack.agentdevice.snapshothelper, the bridge's own xagent UI reader, ASCII), and the Android commands and fields the phone check quotes (uiautomator, mWakefulness=Awake, /data, adb shell).
    const names = [
      'Pixel',
      'Google',
      'appium',
      'uiautomator2',
      'server',
      'Apache',
      'minicap',
      'scrcpy',
      'agent',
      'device',
      'com',
      'callstack',
      'agentdevice',
      'snapshothelper',
      'xagent',
      'ASCII',
      'APK',
      'Keyboard',
      'uiautomator',
      'mWakefulness',
      'Awake',
      'data',
      'adb',
      'shell',
    ];
    assert.deepEqual(
      englishWords(await ownWords(zh), names),
      [],
      'no English left on the Devices screen, phone check included',
    );
    // A healthy phone says 就绪; its rows are there on demand, in Chinese too.
    assert.match(await zh.getByTestId(`phone-check-${phone}`).innerText(), /就绪/);
    assert.doesNotMatch(await zh.getByTestId(`phone-check-${phone}`).innerText(), /屏幕已亮起/);
    await zh.getByTestId(`phone-check-details-${phone}`).locator('summary').click();
    assert.match(await zh.getByTestId(`phone-check-${phone}`).innerText(), /屏幕已亮起/);
  });

  test('a pairing request, the binding and its lease', async () => {
    const opened = await client.openChannel('');
    channelId = String(opened.payload?.connector_channel_id);
    const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
    const sessionId = String(started.payload?.auth_session_id);
    await each(async (page, locale) => {
      await go(page, 'pairings');
      await page.getByTestId(`pairing-code-${sessionId}`).waitFor({ timeout: UI_MS });
      const card = await page.getByTestId(`pairing-${sessionId}`).innerText();
      assert.match(card, locale === 'en' ? /Phone to bind/ : /要绑定的手机/);
      await shot(page, locale, 'pairings');
    });
    // Approved in the Chinese console.
    const zh = pages.get('zh-CN')!;
    await zh.getByTestId(`pairing-device-${sessionId}`).selectOption(phone);
    await zh.getByTestId(`pairing-approve-${sessionId}`).click();
    await zh.getByTestId('pairings-empty').waitFor({ timeout: UI_MS });
    await invoke(client, channelId, 'android_device_status');
    await each(async (page, locale) => {
      await go(page, 'bindings');
      await eventually(
        async () =>
          (await page
            .getByTestId(`channel-status-${channelId}`)
            .innerText()
            .catch(() => '')) === (locale === 'en' ? 'connected' : '已连接'),
        'the binding',
      );
      await eventually(
        async () =>
          (locale === 'en' ? /^Read phone status · ok · / : /^读取手机状态 · 成功 · /).test(
            await page.getByTestId(`channel-last-action-${channelId}`).innerText(),
          ),
        'the last action',
      );
      const lastAction = await page.getByTestId(`channel-last-action-${channelId}`).innerText();
      assert.match(
        lastAction,
        locale === 'en' ? /(just now|s ago)/ : /(刚刚|秒前)/,
        'relative times follow the language',
      );
      await shot(page, locale, 'bindings');
    });
    const zhText = await mainText(zh);
    for (const words of ['租约结束', '空闲超时', '撤销']) assert.ok(zhText.includes(words), `Bindings shows ${words}`);
  });

  test('an approval card, approved in Chinese; Activity in both languages', async () => {
    const call = invoke(client, channelId, 'android_launch_app', { package: 'com.example.wallet' });
    let approvalId = '';
    await each(async (page, locale) => {
      await page.getByTestId('badge-approvals').waitFor({ timeout: UI_MS });
      await go(page, 'approvals');
      approvalId = await eventually(async () => {
        const ids = await page
          .locator('[data-testid^="approval-tool-"]')
          .evaluateAll((els) => els.map((e) => e.getAttribute('data-testid') ?? ''));
        return ids[0]?.replace('approval-tool-', '');
      }, 'the approval card');
      const card = page.getByTestId(`approval-${approvalId}`);
      assert.match(await card.innerText(), locale === 'en' ? /Approve once/ : /批准一次/);
      assert.match(
        await page.getByTestId(`approval-risk-${approvalId}`).innerText(),
        locale === 'en' ? /risk/ : /风险/,
      );
      await eventually(
        () =>
          page
            .getByTestId(`approval-screenshot-${approvalId}`)
            .evaluate(
              (el) =>
                el.tagName === 'IMG' && (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0,
            ),
        'the screenshot of the held call',
      );
      await shot(page, locale, 'approvals');
    });
    await pages.get('zh-CN')!.getByTestId(`approval-approve-once-${approvalId}`).click();
    const ack = await call;
    assert.equal(ack.type, 'tool.invoke.ack', JSON.stringify(ack.error));

    // A call that fails on the phone: its stable code is shown unchanged in both languages.
    const failed = await invoke(client, channelId, 'android_launch_app', { package: 'com.nope.app' });
    const code = String(failed.error?.code ?? '');
    assert.equal(code, 'app_not_found');
    await each(async (page, locale) => {
      await go(page, 'activity');
      await eventually(async () => (await page.locator('[data-testid^="activity-row-"]').count()) >= 3, 'audit rows');
      await eventually(
        async () => (await page.getByTestId('activity-table').innerText()).includes(code),
        'the failed call',
      );
      const table = await page.getByTestId('activity-table').innerText();
      assert.match(table, locale === 'en' ? /Outcome/ : /结果/);
      assert.match(table, locale === 'en' ? /\berror\b/ : /出错/);
      assert.match(table, /android_launch_app/);
      assert.match(table, new RegExp(code), 'the error code is shown unchanged');
      assert.match(
        await page.getByTestId('activity-privacy').innerText(),
        locale === 'en' ? /length and a hash/ : /长度和哈希/,
      );
      await shot(page, locale, 'activity');
    });
  });

  test('Settings in both languages; empty screens say what to do', async () => {
    await each(async (page, locale) => {
      await go(page, 'settings');
      await page.getByTestId('settings-base-url').waitFor({ timeout: UI_MS });
      await page.getByTestId('policy-table').waitFor({ timeout: UI_MS });
      assert.equal(await page.getByTestId('settings-language').inputValue(), 'system');
      await shot(page, locale, 'settings');
      // The rest of Settings scrolls inside the content area.
      await page.getByTestId('policy-table').scrollIntoViewIfNeeded({ timeout: UI_MS });
      await shot(page, locale, 'settings-policies');
      await page.locator('.content').evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await shot(page, locale, 'settings-limits');
      await go(page, 'approvals');
      await page.getByTestId('approvals-empty').waitFor({ timeout: UI_MS });
      await shot(page, locale, 'approvals-empty');
    });
    const zh = pages.get('zh-CN')!;
    await go(zh, 'settings');
    // Settings loads its sections separately: wait for the connect section and the policies both.
    await zh.getByTestId('settings-base-url').waitFor({ timeout: UI_MS });
    await zh.getByTestId('policy-table').waitFor({ timeout: UI_MS });
    const text = await mainText(zh);
    for (const words of ['连接 xAgent', '实验室访问码', '策略', '限制', '审批倒计时', '语言'])
      assert.ok(text.includes(words), `Settings shows ${words}`);
    // A wrong limit is refused next to its field, in Chinese, with Chinese units.
    await zh.getByTestId('limit-queue_max_depth').fill('0');
    await zh.getByTestId('limits-save').click();
    assert.equal(
      await zh.getByTestId('limit-queue_max_depth-error').innerText({ timeout: UI_MS }),
      '0 太小。请使用 1 到 1000。',
    );
    assert.equal(await zh.getByTestId('limit-approval_timeout_ms-unit').locator('option:checked').innerText(), '分钟');
    for (const [, page] of pages) {
      const problems = (page as Page & { problems?: string[] }).problems ?? [];
      assert.deepEqual(problems, [], 'no script errors');
    }
  });

  test('the Settings switch changes the language live, everywhere, and it is remembered after a reload', async () => {
    const en = pages.get('en')!;
    const zh = pages.get('zh-CN')!;
    await go(en, 'settings');
    await en.getByTestId('settings-language').selectOption('zh-CN');
    // Live: this console and the other one (another browser, other languages) switch.
    await en.getByTestId('nav-devices').filter({ hasText: '设备' }).waitFor({ timeout: UI_MS });
    assert.equal(await en.evaluate(() => document.documentElement.lang), 'zh-CN');
    assert.equal(await en.locator('#settings-heading').innerText(), '设置');
    const saved = await rig.bridge.admin('GET', '/admin/api/settings');
    assert.equal(saved.body.language, 'zh-CN', 'kept in the bridge settings');
    await en.reload();
    await en.getByTestId('live-status').filter({ hasText: '实时' }).waitFor({ timeout: UI_MS });
    assert.equal(await en.getByTestId('nav-settings').innerText(), '设置', 'remembered after a reload');

    // English chosen explicitly beats a Chinese browser.
    await go(zh, 'settings');
    await zh.getByTestId('settings-language').selectOption('en');
    await zh.getByTestId('nav-devices').filter({ hasText: 'Devices' }).waitFor({ timeout: UI_MS });
    await en.getByTestId('nav-devices').filter({ hasText: 'Devices' }).waitFor({ timeout: UI_MS });
    assert.equal(await zh.evaluate(() => document.documentElement.lang), 'en');
    // Back to following each browser.
    await zh.getByTestId('settings-language').selectOption('system');
    await zh.getByTestId('nav-devices').filter({ hasText: '设备' }).waitFor({ timeout: UI_MS });
    await en.getByTestId('nav-devices').filter({ hasText: 'Devices' }).waitFor({ timeout: UI_MS });
    // A bad value through the API is refused and changes nothing.
    const bad = await rig.bridge.admin('PATCH', '/admin/api/settings', { language: 'fr' });
    assert.equal(bad.status, 400);
    assert.equal((await rig.bridge.admin('GET', '/admin/api/state')).body.language, 'system');
  });

  test('the token screen follows the browser language', async () => {
    const context = await browser.newContext({ viewport: VIEWPORT, locale: 'zh-CN' });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(`${rig.bridge.url}/console/`);
    await page.getByTestId('token-screen').waitFor({ timeout: UI_MS });
    assert.match(await page.getByTestId('token-screen').innerText(), /控制台链接/);
    assert.ok(CJK.test(await page.getByTestId('token-screen').innerText()));
    await shot(page, 'zh-CN', 'token');
  });
});

/**
 * The device card's options, calm (issue #37 point 7), in English and Chinese at 1280 and
 * 390 px: each program on the phone is one line whose words open under "What is this?" (and
 * close again), the panel's switch has its own; and a phone check problem the programs fix —
 * Unicode typing without ADB Keyboard, the programs turned off — offers turning them back on
 * first, the ADB Keyboard fix after it, and one click mends the row.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { startDeviceRig, type DeviceRig } from '../helpers/device-rig';

const UI_MS = 10_000;
const PROGRAMS = ['scrcpy_input', 'snapshot_tree', 'ui_reader', 'uia2_server', 'minicap_stream'] as const;
const WORDS = {
  en: {
    lang: 'en-US',
    what: 'What is this?',
    hide: 'Hide',
    scrcpy: /taps, swipes, presses keys and types/,
    uia2: /without a password/,
    switch: /Turn off leaves this phone to the stock adb commands/,
    fastLane:
      /^Fix: turn the programs on this phone back on — scrcpy-server then types any text, nothing to install\. Turn on$/,
    or: /^Or: .*ADB Keyboard/,
  },
  'zh-CN': {
    lang: 'zh-CN',
    what: '这是什么？',
    hide: '收起',
    scrcpy: /负责点击、滑动、按键和输入/,
    uia2: /不用密码/,
    switch: /关闭后，这台手机改用常规 adb 命令/,
    fastLane: /^解决方法：重新开启“手机上的程序”——之后 scrcpy-server 可以输入任何文字，无需安装任何东西。 ?开启$/,
    or: /^或者：/,
  },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('card-options-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('the device card’s options', { concurrency: 1 }, () => {
  let rig: DeviceRig;
  let id = '';

  before(async () => {
    // A phone without ADB Keyboard, the programs on phones as outside tests.
    rig = await startDeviceRig(1, { consoleDir: buildDir, fastLane: { portless: true } }, { withAdbKeyboard: false });
    id = rig.device(0).deviceId;
  });
  after(async () => {
    await rig?.stop();
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    for (const width of [1280, 390]) {
      test(`${locale} at ${width} px: one line per program, its words under "What is this?"`, async () => {
        const w = WORDS[locale];
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: w.lang });
        const page = await context.newPage();
        try {
          await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
          const panel = page.getByTestId(`programs-${id}`);
          await panel.waitFor({ timeout: UI_MS });
          // Folded: no paragraph of explanation on the card until asked.
          assert.equal(await panel.locator('.what-is-this').count(), 0);
          for (const program of PROGRAMS) {
            const button = page.getByTestId(`program-${id}-${program}-what`);
            assert.equal(await button.innerText(), w.what);
            assert.equal(await button.getAttribute('aria-expanded'), 'false');
          }
          await page.getByTestId(`program-${id}-scrcpy_input-what`).click();
          assert.match(await page.getByTestId(`program-${id}-scrcpy_input-what-text`).innerText(), w.scrcpy);
          assert.equal(await page.getByTestId(`program-${id}-scrcpy_input-what`).innerText(), w.hide);
          await page.getByTestId(`program-${id}-uia2_server-what`).click();
          assert.match(await page.getByTestId(`program-${id}-uia2_server-what-text`).innerText(), w.uia2);
          await page.getByTestId(`programs-what-${id}`).click();
          assert.match(await page.getByTestId(`programs-what-${id}-text`).innerText(), w.switch);
          // Hide closes it again.
          await page.getByTestId(`program-${id}-scrcpy_input-what`).click();
          assert.equal(await page.getByTestId(`program-${id}-scrcpy_input-what-text`).count(), 0);
          const wide = await page.evaluate(() =>
            [...document.querySelectorAll('.device-card *')]
              .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1)
              .slice(0, 5)
              .map(
                (e) =>
                  `${e.tagName}.${e.className} ${e.getAttribute('data-testid') ?? ''} ${(e.textContent ?? '').slice(0, 60)}`,
              ),
          );
          assert.deepEqual(wide, [], 'nothing on the card reaches past the screen’s edge');
          const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
          assert.ok(sideways <= 0, `the page scrolls sideways by ${sideways} px`);
        } finally {
          await context.close();
        }
      });
    }
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: a problem the programs fix offers turning them on first; one click mends it`, async () => {
      const w = WORDS[locale];
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, locale: w.lang });
      const page = await context.newPage();
      try {
        const off = await rig.bridge.admin('POST', `/admin/api/devices/${id}/programs`, { action: 'disable' });
        assert.equal(off.status, 200, JSON.stringify(off.body));
        assert.equal((await rig.bridge.admin('GET', `/admin/api/devices/${id}/check`)).status, 200);
        await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
        const fastLane = page.getByTestId(`phone-check-fast-lane-${id}-unicode_typing`);
        await fastLane.waitFor({ timeout: UI_MS });
        assert.match((await fastLane.innerText()).replace(/\s+/g, ' ').trim(), w.fastLane);
        const other = page.getByTestId(`phone-check-fix-${id}-unicode_typing`);
        assert.match(await other.innerText(), w.or);
        // The programs' fix comes first.
        assert.ok(
          await fastLane.evaluate(
            (a, b) => Boolean(b && a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING),
            await other.elementHandle(),
          ),
        );
        await page.getByTestId(`phone-check-fast-lane-on-${id}-unicode_typing`).click();
        await page.locator(`[data-testid="programs-${id}"][data-enabled="true"]`).waitFor({ timeout: UI_MS });
        await eventually(
          async () => (await page.getByTestId(`phone-check-${id}-unicode_typing`).getAttribute('data-status')) === 'ok',
          'the Unicode row mended without a new check',
        );
        assert.equal(await fastLane.count(), 0);
      } finally {
        await context.close();
      }
    });
  }
});

/**
 * The console on a phone's screen (issue #37 point 4), 390 px wide with touch, in English and
 * Chinese: no section scrolls sideways or cuts its content (the page, and every box inside it,
 * measured: `scrollWidth` against the width shown); Activity's rows are read whole; taking a
 * phone over, the Back / Home / Recents keys stay clear of the Lease card, the banner speaks of
 * tapping and dragging (no wheel, no keyboard), and beside the drivable screen a finger still
 * finds page to scroll by. On a computer (1280 px) the banner keeps its mouse words.
 *
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/narrow-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
/** What a fingertip needs beside the drivable screen to scroll the page (a touch target's side). */
const FINGER_PX = 44;

const WORDS = {
  en: { lang: 'en-US', touch: /Tap the screen/, mouse: /Click the screen/, desk: /wheel|keyboard/i },
  'zh-CN': { lang: 'zh-CN', touch: /轻点屏幕/, mouse: /点击屏幕/, desk: /滚轮|键盘/ },
} as const;

const SECTIONS = ['connect', 'devices', 'lan', 'bindings', 'pairings', 'approvals', 'activity', 'settings'] as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('narrow-screen-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

/**
 * What scrolls sideways or sticks out on the page now: the page itself, any box that scrolls
 * sideways, and any box drawn past the window's right edge (cut, or reachable only by a sideways scroll).
 */
async function sideways(page: Page): Promise<string[]> {
  // A string: the test runner's compiled functions name their inner arrows with a helper the page lacks.
  return page.evaluate<string[]>(`(() => {
    const out = [];
    const name = (el) =>
      el.tagName.toLowerCase() + (el.getAttribute('data-testid') ? '[' + el.getAttribute('data-testid') + ']' : '') +
      '.' + String(el.className).split(' ')[0] + ' «' + (el.textContent || '').trim().slice(0, 40) + '»';
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) out.push('the page: ' + doc.scrollWidth + ' > ' + window.innerWidth);
    for (const el of document.querySelectorAll('#main *')) {
      const style = getComputedStyle(el);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && el.scrollWidth > el.clientWidth + 1)
        out.push(name(el) + ' scrolls: ' + el.scrollWidth + ' > ' + el.clientWidth);
      const box = el.getBoundingClientRect();
      if (box.width > 0 && box.height > 0 && box.right > window.innerWidth + 0.5 && style.visibility !== 'hidden')
        out.push(name(el) + ' ends at ' + Math.round(box.right) + ' px');
    }
    return out.slice(0, 12);
  })()`);
}

/** Activity's first line: its cells (tool, decision, outcome…) each end inside the window. */
async function wholeRows(page: Page): Promise<void> {
  const row = page.locator('[data-testid^="activity-row-"]').first();
  const cells = await row
    .locator('td')
    .evaluateAll((tds) =>
      tds.map((td) => ({ right: td.getBoundingClientRect().right, text: (td.textContent ?? '').trim() })),
    );
  assert.ok(cells.length >= 6, 'a row has its cells');
  for (const cell of cells) assert.ok(cell.right <= 390, `“${cell.text}” ends at ${cell.right} px`);
}

describe('the console on a 390 px touch screen', { concurrency: 1 }, () => {
  let bound: BoundRig;
  let deviceId = '';

  before(async () => {
    // Without ADB Keyboard the phone check's problem has a fix naming a long address (Devices).
    bound = await startBoundRig({ consoleDir: buildDir }, { withAdbKeyboard: false });
    deviceId = bound.rig.device(0).deviceId;
    // Activity has lines to show: a call that works and one that fails.
    await invoke(bound.client, bound.channel, 'android_device_status');
    await invoke(bound.client, bound.channel, 'android_tap', { element: { text: 'No such button anywhere' } });
  });
  after(async () => {
    await bound?.stop();
  });

  async function open(locale: keyof typeof WORDS, width: number, hash: string): Promise<Page> {
    const touch = width < 640;
    const context = await browser.newContext({
      viewport: { width, height: touch ? 844 : 900 },
      locale: WORDS[locale].lang,
      hasTouch: touch,
      isMobile: touch,
    });
    const page = await context.newPage();
    await page.goto(`${bound.rig.bridge.url}/console/#${hash}?token=${bound.rig.bridge.adminToken}`);
    return page;
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: no section scrolls sideways at 390 px; Activity's rows are whole`, async () => {
      const page = await open(locale, 390, '/devices');
      try {
        await page.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
        for (const section of SECTIONS) {
          await page.getByTestId(`nav-${section}`).click();
          await page.locator('#main h2').first().waitFor({ timeout: UI_MS });
          if (section === 'activity') await page.getByTestId('activity-table').waitFor({ timeout: UI_MS });
          // Everything folded is opened: what it hides must fit too (a fix's long address).
          await page.evaluate(() =>
            document.querySelectorAll<HTMLDetailsElement>('#main details').forEach((d) => (d.open = true)),
          );
          assert.deepEqual(await sideways(page), [], `${section} fits 390 px`);
          await page.screenshot({ path: shotPath(locale, `narrow-${section}`), fullPage: true });
          if (section === 'activity') await wholeRows(page);
        }
      } finally {
        await page.context().close();
      }
    });

    test(`${locale}: taken over at 390 px, the keys clear the Lease card, the banner says tap and drag, the page scrolls beside the screen`, async () => {
      const words = WORDS[locale];
      const page = await open(locale, 390, `/devices/${deviceId}`);
      try {
        await page.getByTestId('phone-view-takeover').click();
        const banner = page.getByTestId('phone-view-taken-over');
        await banner.waitFor({ timeout: UI_MS });
        const frame = page.locator('[data-testid="phone-view-frame"][data-drives="true"]');
        await frame.waitFor({ timeout: UI_MS });
        const text = await banner.innerText();
        assert.match(text, words.touch);
        assert.doesNotMatch(text, words.desk);

        // Scrolled so the keys sit where the Lease card would pass: they never share a pixel.
        const keys = page.getByTestId('phone-view-key-back').locator('..');
        const lease = page.getByTestId('phone-view-lease');
        for (const at of ['start', 'end'] as const) {
          await lease.evaluate((el, where) => el.scrollIntoView({ block: where }), at);
          const k = await keys.boundingBox();
          const l = await lease.boundingBox();
          assert.ok(k && l, 'keys and lease are drawn');
          const overlap = k.x < l.x + l.width && l.x < k.x + k.width && k.y < l.y + l.height && l.y < k.y + k.height;
          assert.equal(overlap, false, `keys ${JSON.stringify(k)} and lease ${JSON.stringify(l)} overlap`);
        }

        // Beside the screen, at its middle, a finger lands on the page, which scrolls (no touch-action: none).
        await frame.scrollIntoViewIfNeeded();
        const f = await frame.boundingBox();
        assert.ok(f, 'the screen is drawn');
        const free = await page.evaluate(
          ({ y, finger }) =>
            [finger / 2, window.innerWidth - finger / 2].some((x) => {
              const el = document.elementFromPoint(x, y);
              return el !== null && el.closest('.pv-drivable') === null && getComputedStyle(el).touchAction !== 'none';
            }),
          { y: f.y + Math.min(f.height, 400) / 2, finger: FINGER_PX },
        );
        assert.ok(free, `a ${FINGER_PX} px margin beside the screen (${JSON.stringify(f)})`);
        assert.deepEqual(await sideways(page), [], 'the phone view fits 390 px');
        await page.screenshot({ path: shotPath(locale, 'narrow-takeover'), fullPage: true });
      } finally {
        await handBack(page);
        await page.context().close();
      }
    });

    test(`${locale}: at 1280 px with a mouse the take-over banner keeps its click and wheel words`, async () => {
      const words = WORDS[locale];
      const page = await open(locale, 1280, `/devices/${deviceId}`);
      try {
        await page.getByTestId('phone-view-takeover').click();
        const banner = page.getByTestId('phone-view-taken-over');
        await banner.waitFor({ timeout: UI_MS });
        assert.match(await banner.innerText(), words.mouse);
        assert.deepEqual(await sideways(page), [], 'the phone view fits 1280 px');
      } finally {
        await handBack(page);
        await page.context().close();
      }
    });
  }

  async function handBack(page: Page): Promise<void> {
    const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
    const phone = (state.body.devices as Array<{ device_id: string; taken_over: unknown }>).find(
      (d) => d.device_id === deviceId,
    );
    if (phone?.taken_over) {
      await page.getByTestId('phone-view-takeover').click();
      await eventually(async () => (await page.getByTestId('phone-view-taken-over').count()) === 0, 'handed back');
    }
  }
});

function shotPath(locale: string, name: string): string {
  mkdirSync(join(SHOTS, locale), { recursive: true });
  return join(SHOTS, locale, `${name}.png`);
}

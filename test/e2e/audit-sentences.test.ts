/**
 * The person's own actions in words, everywhere (issue #37 point 5), in English and Chinese:
 * a lease in which the agent opens Notes and asks the person to take over, the person takes the
 * phone, taps it, types 6 characters and hands it back with a note, and the phone is reset when
 * the lease ends. Activity reads each of those lines as a sentence ("You tapped", "You typed 6
 * characters", "Handed back: “…”", "Phone reset after the lease: 1 app stopped"), never
 * `person_tap person_tap`; the phone view's timeline says the same of the take over, the taps,
 * the typing, the hand-back and the reset; and the
 * lease's evidence page, opened offline, tells the whole story in the order it began, the
 * person's part included.
 *
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/sentences-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
const NOTE = 'logged in as test@example.com';

const WORDS = {
  en: {
    lang: 'en-US',
    took: 'You took the phone over',
    tapped: 'You tapped',
    typed: 'You typed 6 characters',
    handedBack: `Handed back: “${NOTE}”`,
    reset: 'Phone reset after the lease: 1 app stopped',
    opened: 'Open an app',
    asked: 'Ask you to take over',
  },
  'zh-CN': {
    lang: 'zh-CN',
    took: '你接管了手机',
    tapped: '你点击了',
    typed: '你输入了 6 个字符',
    handedBack: `已交还：“${NOTE}”`,
    reset: '租约结束后已重置手机：停止了 1 个应用',
    opened: '打开应用',
    asked: '请你接管',
  },
} as const;

let browser: Browser;
let buildDir = '';
let saveDir = '';

before(async () => {
  ({ browser, buildDir } = await startConsoleBrowser('audit-sentences-e2e-'));
  saveDir = mkdtempSync(join(tmpdir(), 'audit-sentences-downloads-'));
});
after(async () => {
  await stopConsoleBrowser(browser, buildDir);
  if (saveDir) rmSync(saveDir, { recursive: true, force: true });
});

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`the person's part in words (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let deviceId = '';
    const words = WORDS[locale];

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      deviceId = bound.rig.device(0).deviceId;
      // This phone is reset after every lease (a person's own phone is not, by default).
      const put = await bound.rig.bridge.admin('PUT', '/admin/api/turnover', { devices: { [deviceId]: 'on' } });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    });
    after(async () => {
      await bound?.stop();
    });

    test('Activity, the phone view and the evidence page say what the person did, in order', async () => {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: words.lang,
        acceptDownloads: true,
      });
      const page = await context.newPage();
      try {
        result(await invoke(bound.client, bound.channel, 'android_launch_app', { package: 'com.example.notes' }));
        await page.goto(`${bound.rig.bridge.url}/console/#/devices?token=${bound.rig.bridge.adminToken}`);
        const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'log in' });
        await page.getByTestId('person-ask-take').click({ timeout: UI_MS });
        await page.getByTestId('phone-view-taken-over').waitFor({ timeout: UI_MS });

        // A tap on the live screen, then 6 characters typed at once (one input event, as an input method commits).
        const frame = page.locator('[data-testid="phone-view-frame"][data-drives="true"]');
        await frame.waitFor({ timeout: UI_MS });
        const box = await frame.boundingBox();
        assert.ok(box, 'the screen is drawn');
        await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.8);
        await page.keyboard.insertText('abc123');
        const timeline = page.getByTestId('pv-timeline');
        await eventually(async () => {
          const text = await timeline.innerText();
          return text.includes(words.tapped) && text.includes(words.typed);
        }, 'the phone view says what the person did');

        await page.getByTestId('phone-view-hand-back-note').fill(NOTE);
        await page.getByTestId('phone-view-takeover').click();
        assert.equal((await asked).error, undefined);
        assert.equal((await bound.client.request('auth.logout', {}, bound.channel)).payload?.status, 'ok');
        await waitUntil(
          () => bound.rig.bridge.core.adminState().devices[0]?.turnover?.state === 'done',
          UI_MS,
          'the reset after the lease',
        );

        // Activity: one sentence per line of the person and of the bridge, no ids for words.
        await page.getByTestId('nav-activity').click();
        const table = page.getByTestId('activity-table');
        const shown = await eventually(async () => {
          const text = await table.innerText();
          return text.includes(words.reset) ? text : undefined;
        }, 'the reset line in Activity');
        for (const sentence of [words.took, words.tapped, words.typed, words.handedBack, words.reset])
          assert.ok(shown.includes(sentence), `Activity says “${sentence}”:\n${shown}`);
        assert.doesNotMatch(shown, /person_tap|person_text|take_over|taken_over|hand_back|turnover/);
        mkdirSync(join(SHOTS, locale), { recursive: true });
        await page.screenshot({ path: join(SHOTS, locale, 'sentences-activity.png'), fullPage: true });

        // The phone view's timeline tells the same story: the take over, the hand-back and the reset as sentences.
        await page.evaluate((id) => (location.hash = `#/devices/${id}`), deviceId);
        const told = await eventually(async () => {
          const text = await page.getByTestId('pv-timeline').innerText();
          return text.includes(words.reset) ? text : undefined;
        }, 'the reset in the phone view');
        for (const sentence of [words.took, words.tapped, words.typed, words.handedBack, words.reset])
          assert.ok(told.includes(sentence), `the phone view says “${sentence}”:\n${told}`);
        assert.doesNotMatch(told, /take_over|hand_back|turnover/);
        const steps = await page.locator('[data-testid^="pv-action-person-"]').allInnerTexts();
        const newestFirst = [words.reset, words.handedBack, words.typed, words.tapped, words.took].map((w) =>
          steps.indexOf(w),
        );
        assert.deepEqual(
          newestFirst,
          [...newestFirst].sort((a, b) => a - b),
          `newest first: ${JSON.stringify(steps)}`,
        );

        // The evidence page: the whole story in the order it began.
        const row = page.getByTestId('pv-evidence-row').first();
        await row.waitFor({ timeout: UI_MS });
        const [download] = await Promise.all([
          page.waitForEvent('download', { timeout: UI_MS }),
          row.getByTestId('pv-evidence-html').click(),
        ]);
        const saved = join(saveDir, `${locale}-${download.suggestedFilename()}`);
        await download.saveAs(saved);
        const offline = await context.newPage();
        await offline.goto(pathToFileURL(saved).href);
        const story = await offline.locator('ol.timeline .tool').allInnerTexts();
        const at = (sentence: string): number => story.indexOf(sentence);
        const order = [words.opened, words.asked, words.took, words.tapped, words.typed, words.handedBack].map(at);
        assert.ok(
          order.every((i) => i >= 0),
          `every step is there: ${JSON.stringify(story)}`,
        );
        assert.deepEqual(
          order,
          [...order].sort((a, b) => a - b),
          `in the order it began: ${JSON.stringify(story)}`,
        );
        assert.equal(await offline.locator('#turnover .sentence').innerText(), words.reset);
        await offline.screenshot({ path: join(SHOTS, locale, 'sentences-bundle.png'), fullPage: true });
        await offline.close();
      } finally {
        await context.close();
      }
    });
  });
}

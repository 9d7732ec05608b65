/**
 * The phone view's evidence list end to end, in English and in Chinese: after a lease with a
 * tap ends, the phone's view lists it (told by the `evidence` event, no reload) and its page
 * downloads through the console; the saved file opens offline (file://) and shows the
 * timeline in the console's language. Times read one way in both: "2026-12-07 14:03:27" and
 * the zone named, the console's list in its computer's zone (here Asia/Shanghai, UTC+08:00),
 * the bundle in UTC. Screenshots: /tmp/xagent-evidence/<locale>/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';

const SHOTS = '/tmp/xagent-evidence';
const UI_MS = 10_000;

let browser: Browser | undefined;
let buildDir = '';
/** Where the downloads are saved. */
let saveDir = '';

before(async () => {
  ({ browser, buildDir } = await startConsoleBrowser('evidence-e2e-'));
  saveDir = mkdtempSync(join(tmpdir(), 'evidence-downloads-'));
});

after(async () => {
  await stopConsoleBrowser(browser, buildDir);
  if (saveDir) rmSync(saveDir, { recursive: true, force: true });
});

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`evidence in the phone view (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let context: BrowserContext;
    let page: Page;
    const words = <T>(en: T, zh: T): T => (locale === 'en' ? en : zh);

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      context = await browser!.newContext({
        viewport: { width: 1280, height: 900 },
        locale,
        timezoneId: 'Asia/Shanghai',
        acceptDownloads: true,
      });
      page = await context.newPage();
      const deviceId = bound.rig.device(0).deviceId;
      await page.goto(`${bound.rig.bridge.url}/console/#token=${bound.rig.bridge.adminToken}`);
      await page.getByTestId(`device-open-${deviceId}`).click({ timeout: UI_MS });
      await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('no lease has ended yet: the list says so', async () => {
      await page.getByTestId('pv-evidence-empty').waitFor({ timeout: UI_MS });
      assert.match(
        await page.getByTestId('phone-view-evidence').innerText(),
        words(/No lease on this phone has ended yet/, /这台手机还没有已结束的租用/),
      );
    });

    test('a lease that ended is listed, and its page downloads and opens offline in the console’s language', async () => {
      const tapped = await invoke(bound.client, bound.channel, 'android_tap', { x: 100, y: 200 });
      assert.equal(tapped.error, undefined);
      assert.equal((await bound.client.request('auth.logout', {}, bound.channel)).payload?.status, 'ok');
      const row = page.getByTestId('pv-evidence-row').first();
      await row.waitFor({ timeout: UI_MS });
      assert.match(await row.innerText(), words(/1 call/, /1 次调用/));
      // The bundle's form of a moment, in this computer's zone, the zone said once for the span.
      const span = /^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) – (?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC\+08:00 · /;
      const listed = span.exec(await row.innerText());
      assert.ok(listed, await row.innerText());
      assert.match(
        await page.getByTestId('pv-evidence-zone').innerText(),
        words(
          /this computer’s \(UTC\+08:00\); the bundle gives each in UTC/,
          /本机时区（UTC\+08:00）；证据包里的时间一律为 UTC/,
        ),
      );
      const panel = page.getByTestId('phone-view-evidence');
      await panel.scrollIntoViewIfNeeded();
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.screenshot({ path: join(SHOTS, locale, 'phone-view-evidence.png') });

      const [download] = await Promise.all([
        page.waitForEvent('download', { timeout: UI_MS }),
        row.getByTestId('pv-evidence-html').click(),
      ]);
      assert.match(download.suggestedFilename(), /^evidence-.+\.html$/);
      const saved = join(saveDir, `${locale}-${download.suggestedFilename()}`);
      await download.saveAs(saved);
      assert.match(readFileSync(saved, 'utf8'), /<meta http-equiv="Content-Security-Policy"/);

      const offline = await context.newPage();
      await offline.goto(pathToFileURL(saved).href);
      const tool = offline.locator('ol.timeline .tool').first();
      await tool.waitFor({ state: 'visible', timeout: UI_MS });
      assert.equal(await tool.innerText(), words('Tap', '点按'));
      assert.match(await offline.locator('h2').first().innerText(), words(/Timeline/, /时间线/));
      // The same form in UTC: the lease's start is the console's eight hours earlier.
      const utcStart = new Date(`${listed[1]!.replace(' ', 'T')}+08:00`).toISOString().replace('T', ' ');
      assert.ok((await offline.locator('dl.lease').innerText()).includes(`${utcStart.slice(0, 19)} UTC`));
      assert.match(
        await offline.locator('ol.timeline time').first().innerText(),
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
      );
      await offline.screenshot({ path: join(SHOTS, locale, 'bundle.png') });
      await offline.close();

      const [json] = await Promise.all([
        page.waitForEvent('download', { timeout: UI_MS }),
        row.getByTestId('pv-evidence-json').click(),
      ]);
      assert.match(json.suggestedFilename(), /^evidence-.+\.json$/);
      const parsed = JSON.parse(readFileSync(await json.path(), 'utf8')) as { calls: { tool_id: string }[] };
      assert.deepEqual(
        parsed.calls.map((c) => c.tool_id),
        ['android_tap'],
      );
    });
  });
}

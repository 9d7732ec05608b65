/**
 * Calm cards (issue #37 point 7, in part), in English and Chinese: the phone view's Stop is red
 * only while something runs or waits on the phone, and the agent's ask says once when it ends
 * unanswered ("Ends unanswered in 1:59", not "in in"); the refusal countdown of a two-minute
 * approval starts at 2:00, never 2:01.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { waitForApproval } from '../helpers/approvals';

const UI_MS = 10_000;
const WORDS = {
  en: { lang: 'en-US', expires: /^Ends unanswered in \d/ },
  'zh-CN': { lang: 'zh-CN', expires: /^无人回应则结束：\s*\d.*后$/ },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('calm-words-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('calm words and colours', { concurrency: 1 }, () => {
  let bound: BoundRig;
  let deviceId = '';

  before(async () => {
    bound = await startBoundRig({ consoleDir: buildDir });
    deviceId = bound.rig.device(0).deviceId;
  });
  after(async () => {
    await bound?.stop();
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: Stop is red only while the phone is busy; the ask's end is said once`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      try {
        await page.goto(`${bound.rig.bridge.url}/console/#/devices/${deviceId}?token=${bound.rig.bridge.adminToken}`);
        const stop = page.getByTestId('phone-view-stop');
        await stop.waitFor({ timeout: UI_MS });
        const red = async (): Promise<boolean> => (await stop.getAttribute('class'))?.includes('btn-danger') ?? false;
        assert.equal(await red(), false, 'an idle phone’s Stop is not red');

        const held = invoke(bound.client, bound.channel, 'android_launch_app', { package: 'com.example.wallet' });
        const approval = await waitForApproval(bound.rig.bridge, 'android_launch_app');
        await eventually(red, 'Stop turns red while a call waits');
        await bound.rig.bridge.admin('POST', `/admin/api/approvals/${String(approval.approval_id)}`, {
          decision: 'deny',
        });
        assert.equal((await held).error?.code, 'approval_denied');
        await eventually(async () => !(await red()), 'Stop calm again');

        const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'log in' });
        try {
          const expires = page.locator('.person-ask-expires');
          await expires.waitFor({ timeout: UI_MS });
          const said = (await expires.innerText()).trim();
          assert.match(said, WORDS[locale].expires);
          assert.doesNotMatch(said, /\bin in\b|于.*后/);
        } finally {
          await bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/ask/decline`, {});
          assert.equal((await asked).error?.code, 'person_declined');
        }
      } finally {
        await context.close();
      }
    });
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: a two-minute refusal countdown starts at 2:00, not 2:01`, async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      try {
        // Every text a countdown ever shows, caught as it is drawn (the first one lasts under a second).
        await page.addInitScript(`
          window.__countdowns = [];
          new MutationObserver(() => {
            for (const el of document.querySelectorAll('[data-testid=approval-banner-expires]')) window.__countdowns.push(el.textContent);
          }).observe(document, { subtree: true, childList: true, characterData: true });
        `);
        // The phone view ticks the lease's idle countdown, so the shared clock runs before the call is held.
        await page.goto(`${bound.rig.bridge.url}/console/#/devices/${deviceId}?token=${bound.rig.bridge.adminToken}`);
        await page.getByTestId('phone-view-stop').waitFor({ timeout: UI_MS });
        const held = invoke(bound.client, bound.channel, 'android_launch_app', { package: 'com.example.wallet' });
        const approval = await waitForApproval(bound.rig.bridge, 'android_launch_app');
        try {
          await page.getByTestId('approval-banner-expires').waitFor({ timeout: UI_MS });
          const seen = await page.evaluate<string[]>('window.__countdowns');
          const seconds = seen
            .map((text) => /^(\d+):(\d\d)$/.exec(text))
            .map((m) => (m ? Number(m[1]) * 60 + Number(m[2]) : NaN));
          assert.ok(
            seconds.length > 0 && seconds.every((n) => n > 0),
            `the countdown was drawn: ${JSON.stringify(seen)}`,
          );
          assert.ok(
            seconds.every((n) => n <= 120),
            `never past 2:00: ${JSON.stringify(seen)}`,
          );
        } finally {
          await bound.rig.bridge.admin('POST', `/admin/api/approvals/${String(approval.approval_id)}`, {
            decision: 'deny',
          });
          assert.equal((await held).error?.code, 'approval_denied');
        }
      } finally {
        await context.close();
      }
    });
  }
});

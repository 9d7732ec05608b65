/**
 * "The agent is waiting for you" cannot be missed (issue #37 point 3), in English and Chinese,
 * on a computer (1280 px) and on a phone (390 px, touch): a held call shows as a banner at the
 * top of every view with Approve / Deny on the first screen, the Approvals badge stays in sight
 * in the phone's sideways tab bar, the phone view's header counts what waits for the person
 * (not "1 running · 0 waiting"), and the agent's ask to take over is on the first screen too.
 *
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/waiting-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { waitForApproval } from '../helpers/approvals';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
const WALLET = 'com.example.wallet';

const WORDS = {
  en: {
    lang: 'en-US',
    title: 'The agent is waiting for you',
    approve: 'Approve once',
    deny: 'Deny',
    forYou: '1 waits for you',
    take: 'Take over',
  },
  'zh-CN': {
    lang: 'zh-CN',
    title: '智能体正在等你',
    approve: '批准一次',
    deny: '拒绝',
    forYou: '1 项等你处理',
    take: '接管',
  },
} as const;

const SCREENS = [
  { name: 'wide', width: 1280, height: 900, touch: false },
  { name: 'narrow', width: 390, height: 844, touch: true },
] as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('waiting-banner-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('what waits for the person is on the first screen of every view', { concurrency: 1 }, () => {
  let bound: BoundRig;
  let deviceId = '';

  before(async () => {
    bound = await startBoundRig({ consoleDir: buildDir });
    deviceId = bound.rig.device(0).deviceId;
  });
  after(async () => {
    await bound?.stop();
  });

  async function open(locale: keyof typeof WORDS, screen: (typeof SCREENS)[number], hash: string): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: screen.width, height: screen.height },
      locale: WORDS[locale].lang,
      hasTouch: screen.touch,
      isMobile: screen.touch,
    });
    const page = await context.newPage();
    await page.goto(`${bound.rig.bridge.url}/console/#${hash}?token=${bound.rig.bridge.adminToken}`);
    return page;
  }

  /** The element's box lies wholly within the window as it is now (nothing to scroll to reach it). */
  async function onFirstScreen(page: Page, testId: string): Promise<void> {
    const box = await page.getByTestId(testId).boundingBox();
    const size = page.viewportSize();
    assert.ok(box && size, `${testId} is drawn`);
    assert.ok(
      box.y >= 0 && box.y + box.height <= size.height && box.x >= 0 && box.x + box.width <= size.width,
      `${testId} at ${JSON.stringify(box)} lies within ${size.width}×${size.height}`,
    );
    // Not under the sticky tab bar or anything else: a tap at its middle reaches it.
    const reached = await page.evaluate(
      ({ x, y, id }) => document.elementFromPoint(x, y)?.closest(`[data-testid="${id}"]`) !== null,
      { x: box.x + box.width / 2, y: box.y + box.height / 2, id: testId },
    );
    assert.ok(reached, `${testId} is not covered`);
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    for (const screen of SCREENS) {
      test(`${locale}, ${screen.width} px: a held call is a banner atop Devices and the phone view, answered there; the badge stays in the tab bar`, async () => {
        const words = WORDS[locale];
        const page = await open(locale, screen, '/devices');
        const call = invoke(bound.client, bound.channel, 'android_launch_app', { package: WALLET });
        let answered = false;
        try {
          await waitForApproval(bound.rig.bridge, 'android_launch_app');
          const banner = page.getByTestId('approval-banner');
          await banner.waitFor({ timeout: UI_MS });
          assert.match(await banner.innerText(), new RegExp(words.title));
          assert.match(await page.getByTestId('approval-banner-sentence').innerText(), /Wallet/);
          assert.equal(await page.getByTestId('approval-banner-approve').innerText(), words.approve);
          assert.equal(await page.getByTestId('approval-banner-deny').innerText(), words.deny);
          // The banner comes before the view's own heading.
          const order = await page.evaluate(() => {
            const bannerEl = document.querySelector('[data-testid="approval-banner"]');
            const heading = document.querySelector('#main h2');
            return bannerEl && heading ? bannerEl.compareDocumentPosition(heading) : 0;
          });
          assert.ok(order & 4, 'the banner precedes the heading');
          await onFirstScreen(page, 'approval-banner-approve');
          await onFirstScreen(page, 'approval-banner-deny');
          // The Approvals badge is in sight in the tab bar, whatever section the bar shows.
          await onFirstScreen(page, 'badge-approvals');
          await page.screenshot({ path: shotPath(locale, `waiting-banner-devices-${screen.name}`) });

          await page.getByTestId('nav-settings').click();
          await page.locator('#main h2').first().waitFor({ timeout: UI_MS });
          await onFirstScreen(page, 'badge-approvals');
          await onFirstScreen(page, 'approval-banner-deny');

          // The phone view: the banner again, and the header counts the call as waiting for the person.
          await page.evaluate((id) => (location.hash = `#/devices/${id}`), deviceId);
          await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
          await onFirstScreen(page, 'approval-banner-deny');
          const waiting = page.getByTestId('phone-view-waiting');
          await waiting.waitFor({ timeout: UI_MS });
          assert.equal(await waiting.innerText(), words.forYou);
          assert.doesNotMatch(await page.getByTestId('phone-view-queue').innerText(), /1 running|1 个运行中/);
          await page.screenshot({ path: shotPath(locale, `waiting-banner-phone-${screen.name}`) });

          await page.getByTestId('approval-banner-deny').click();
          const ack = await call;
          answered = true;
          assert.equal(ack.error?.code, 'approval_denied');
          await eventually(async () => (await page.getByTestId('approval-banner').count()) === 0, 'the banner gone');
          await eventually(async () => (await page.getByTestId('phone-view-waiting').count()) === 0, 'no count left');
        } finally {
          await page.context().close();
          if (!answered) {
            const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
            for (const held of state.body.approvals as Array<{ approval_id: string }>)
              await bound.rig.bridge.admin('POST', `/admin/api/approvals/${held.approval_id}`, { decision: 'deny' });
            await call.catch(() => undefined);
          }
        }
      });
    }

    test(`${locale}, 390 px: the agent's ask to take over is on the first screen of Activity, and the phone view counts it`, async () => {
      const words = WORDS[locale];
      const page = await open(locale, SCREENS[1], '/activity');
      const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'log in to the test account' });
      try {
        await page.getByTestId(`person-ask-${deviceId}`).waitFor({ timeout: UI_MS });
        assert.equal(await page.getByTestId('person-ask-take').innerText(), words.take);
        await onFirstScreen(page, 'person-ask-take');
        await page.screenshot({ path: shotPath(locale, 'waiting-ask-activity-narrow') });
        await page.evaluate((id) => (location.hash = `#/devices/${id}`), deviceId);
        const waiting = page.getByTestId('phone-view-waiting');
        await waiting.waitFor({ timeout: UI_MS });
        assert.equal(await waiting.innerText(), words.forYou);
      } finally {
        await bound.rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/ask/decline`, {});
        assert.equal((await asked).error?.code, 'person_declined');
        await page.context().close();
      }
    });
  }
});

function shotPath(locale: string, name: string): string {
  mkdirSync(join(SHOTS, locale), { recursive: true });
  return join(SHOTS, locale, `${name}.png`);
}

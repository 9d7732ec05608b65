/**
 * After Approve (issue #37 point 7), in English and Chinese at 1280 and 390 px: an answered
 * pairing request or held call leaves its list, and the console says what happened and offers
 * the next step ("Pixel 7 ···4F2A is bound to xAgent." — Watch it, which opens the phone's
 * view). The pairing card and Bindings say in the console's language what the bridge told the
 * agent, never as "xAgent says:" and never as English under a Chinese label.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { waitForApproval } from '../helpers/approvals';
import { XAgentClient } from '../helpers/xagent-client';

const UI_MS = 10_000;
const WORDS = {
  en: {
    lang: 'en-US',
    shown: /^xAgent shows the person who asked: “Approve pairing code [A-Z0-9]{3}-[A-Z0-9]{3} in xAgent Device Bridge/,
    bound: (phone: string) => `${phone} is bound to xAgent.`,
    watch: 'Watch it',
    bindingShown: /^Approve pairing code [A-Z0-9]{3}-[A-Z0-9]{3} /,
    approved: (phone: string) => `Approved: the agent goes on with it on ${phone}.`,
  },
  'zh-CN': {
    lang: 'zh-CN',
    shown: /^xAgent 向发起请求的人显示：“请在.*批准配对码 [A-Z0-9]{3}-[A-Z0-9]{3}/,
    bound: (phone: string) => `${phone} 已绑定到 xAgent。`,
    watch: '查看',
    bindingShown: /^请在.*批准配对码 [A-Z0-9]{3}-[A-Z0-9]{3}/,
    approved: (phone: string) => `已批准：智能体在 ${phone} 上继续执行。`,
  },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('after-approve-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('after Approve', { concurrency: 1 }, () => {
  let rig: DeviceRig;
  let deviceId = '';
  let phone = '';
  before(async () => {
    rig = await startDeviceRig(1, { consoleDir: buildDir });
    deviceId = rig.device(0).deviceId;
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    phone = String((state.body.devices as Array<{ display_name: string }>)[0]?.display_name);
  });
  after(async () => {
    await rig?.stop();
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    for (const width of [1280, 390]) {
      test(`${locale} at ${width} px: the console says what Approve did and offers to watch`, async () => {
        const words = WORDS[locale];
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: words.lang });
        const page = await context.newPage();
        const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
        let channel = '';
        try {
          await client.hello();
          channel = String((await client.openChannel('')).payload?.connector_channel_id);
          const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channel);
          const sessionId = String(started.payload?.auth_session_id);

          // The pairing card: the bridge's words to the agent, in the console's language.
          await page.goto(`${rig.bridge.url}/console/#/pairings?token=${rig.bridge.adminToken}`);
          const shown = page.getByTestId(`pairing-shown-${sessionId}`);
          await shown.waitFor({ timeout: UI_MS });
          assert.match(await shown.innerText(), words.shown);
          assert.doesNotMatch(await page.getByTestId(`pairing-${sessionId}`).innerText(), /xAgent says|附言/);
          await page.getByTestId(`pairing-device-${sessionId}`).selectOption(deviceId);
          await page.getByTestId(`pairing-approve-${sessionId}`).click();
          const done = page.getByTestId('pairing-done');
          await done.waitFor({ timeout: UI_MS });
          assert.equal(await page.getByTestId('pairing-done-text').innerText(), words.bound(phone));
          const watch = page.getByTestId('pairing-done-next');
          assert.equal((await watch.innerText()).trim(), words.watch);
          assert.ok(await watch.isVisible());
          await watch.click();
          await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
          assert.ok(page.url().endsWith(`#/devices/${deviceId}`), page.url());

          // Bindings: what the agent was shown, in the console's language.
          await page.evaluate(() => (location.hash = '#/bindings'));
          const message = page.getByTestId(`binding-message-${channel}`);
          await message.waitFor({ timeout: UI_MS });
          assert.match(await message.innerText(), words.bindingShown);

          // A held call answered on Approvals: its card goes; what the answer did and Watch it stay.
          const held = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' });
          const approval = await waitForApproval(rig.bridge, 'android_launch_app');
          await page.evaluate(() => (location.hash = '#/approvals'));
          const id = String(approval.approval_id);
          await page.getByTestId(`approval-approve-once-${id}`).click({ timeout: UI_MS });
          assert.equal((await held).error, undefined);
          const note = page.getByTestId('approval-done-text');
          await note.waitFor({ timeout: UI_MS });
          assert.equal(await note.innerText(), words.approved(phone));
          await eventually(async () => (await page.getByTestId(`approval-${id}`).count()) === 0, 'the card gone');
          const next = page.getByTestId('approval-done-next');
          assert.ok(await next.isVisible());
          // No section scrolls sideways at 390 px.
          assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
          await next.click();
          await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });

          // The same from the banner atop another view.
          const again = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' });
          await waitForApproval(rig.bridge, 'android_launch_app');
          await page.getByTestId('approval-banner-approve').click({ timeout: UI_MS });
          assert.equal((await again).error, undefined);
          const bannerNote = page.getByTestId('approval-banner-done-text');
          await bannerNote.waitFor({ timeout: UI_MS });
          assert.equal(await bannerNote.innerText(), words.approved(phone));
          assert.equal((await client.request('auth.logout', {}, channel)).payload?.status, 'ok');
        } finally {
          // A failed step must not leave the phone bound for the next locale's pairing.
          await client.request('auth.logout', {}, channel).catch(() => undefined);
          await client.close();
          await context.close();
        }
      });
    }
  }
});

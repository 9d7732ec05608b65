/**
 * The agent asks the person to take the phone over (#26) in English and Chinese (Debian's
 * Chromium through playwright-core): the card shows the phone and the agent's words as a quote,
 * Take over opens the phone view, the Hand back offers a note for the agent, and the agent's call
 * returns that note; Decline sends the person's reason. Screenshots go to
 * <os tmp>/xagent-console-i18n/<locale>/ask-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('ask-person-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`the agent asks the person to take over (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let context: BrowserContext;
    let page: Page;
    let deviceId = '';
    const en = locale === 'en';

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      deviceId = bound.rig.device(0).deviceId;
      context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: en ? 'en-US' : 'zh-CN' });
      page = await context.newPage();
      await page.goto(`${bound.rig.bridge.url}/console/#/devices?token=${bound.rig.bridge.adminToken}`);
      await page.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('the card shows the agent’s words; Take over opens the phone view; Hand back with a note returns it to the agent', async () => {
      const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'log in to the test account' });
      const card = page.getByTestId(`person-ask-${deviceId}`);
      await card.waitFor({ timeout: UI_MS });
      const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
      const phone = String(
        (state.body.devices as Array<Record<string, unknown>>).find((d) => d.device_id === deviceId)?.display_name,
      );
      assert.equal(
        await card.locator('h3').innerText(),
        en ? `The agent asks you to take over ${phone}` : `智能体请你接管 ${phone}`,
      );
      assert.equal(await card.locator('figcaption').innerText(), en ? 'The agent asks you to:' : '智能体请你：');
      assert.equal(await card.getByTestId('person-ask-reason').innerText(), 'log in to the test account');
      assert.equal(await card.getByTestId('person-ask-take').innerText(), en ? 'Take over' : '接管');
      assert.equal(await card.getByTestId('person-ask-decline').innerText(), en ? 'Decline' : '拒绝');
      // The phone view's own choice, off unless ticked (#36): the agent sees nothing of what the person does.
      const watch = card.getByTestId('person-ask-agent-may-watch');
      assert.equal(await watch.isChecked(), false);
      assert.equal(
        (await card.locator('label.pv-may-watch').innerText()).trim(),
        en ? 'The agent may watch' : '允许智能体观看',
      );
      await card.screenshot({ path: shotPath('ask-card') });

      await card.getByTestId('person-ask-take').click();
      await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
      assert.ok(page.url().includes(`#/devices/${deviceId}`), page.url());
      const asking = page.getByTestId('phone-view-asked');
      await asking.waitFor({ timeout: UI_MS });
      assert.equal(
        (await asking.innerText()).trim(),
        en ? 'The agent asked you to: log in to the test account' : '智能体请你：log in to the test account',
      );
      await eventually(async () => (await page.getByTestId(`person-ask-${deviceId}`).count()) === 0, 'the card gone');
      assert.equal(bound.rig.bridge.core.adminState().devices[0]?.taken_over?.agent_may_watch, false);
      const note = page.getByTestId('phone-view-hand-back-note');
      await note.fill('logged in as test@example.com');
      const handBack = page.getByTestId('phone-view-takeover');
      assert.equal(await handBack.innerText(), en ? 'Hand back' : '交还');
      await page.screenshot({ path: shotPath('ask-hand-back') });
      await handBack.click();

      const answer = await asked;
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      const result = answer.payload?.result as Record<string, unknown>;
      assert.equal(result.status, 'handed_back');
      assert.equal(result.note, 'logged in as test@example.com');
      await eventually(async () => (await page.getByTestId('phone-view-taken-over').count()) === 0, 'the banner gone');
      assert.equal(await page.getByTestId('phone-view-hand-back-note').count(), 0, 'no note without an ask');
    });

    test('Decline with a reason: the agent gets person_declined with it, and the card goes', async () => {
      const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'solve the captcha' });
      const card = page.getByTestId(`person-ask-${deviceId}`);
      await card.waitFor({ timeout: UI_MS });
      await card.getByTestId('person-ask-decline').click();
      await card.getByTestId('person-ask-decline-reason').fill(en ? 'in a meeting' : '正在开会');
      await card.getByTestId('person-ask-decline-send').click();
      const answer = await asked;
      assert.equal(answer.error?.code, 'person_declined');
      assert.match(String(answer.error?.message), en ? /in a meeting/ : /正在开会/);
      await eventually(async () => (await page.getByTestId(`person-ask-${deviceId}`).count()) === 0, 'the card gone');
    });

    test('“The agent may watch” ticked on the card: the take over lets the agent watch, and the banner says so', async () => {
      const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'watch me log in' });
      const card = page.getByTestId(`person-ask-${deviceId}`);
      await card.waitFor({ timeout: UI_MS });
      await card.getByTestId('person-ask-agent-may-watch').check();
      await card.getByTestId('person-ask-take').click();
      const banner = page.getByTestId('phone-view-taken-over');
      await banner.waitFor({ timeout: UI_MS });
      assert.equal(bound.rig.bridge.core.adminState().devices[0]?.taken_over?.agent_may_watch, true);
      const watching = page.getByTestId('phone-view-watch');
      await eventually(
        async () => (await watching.getAttribute('data-watch')) === 'true',
        'the banner says the agent watches',
      );
      await page.getByTestId('phone-view-takeover').click();
      assert.equal((await asked).error, undefined);
      await eventually(async () => (await banner.count()) === 0, 'handed back');
    });

    test('the web console offers browser notifications, and notifies an ask once while the page is not in front', async () => {
      // The browser has not been asked yet: the sidebar offers it.
      const allow = page.getByTestId('notify-allow');
      await allow.waitFor({ timeout: UI_MS });
      assert.equal(await allow.innerText(), en ? 'Notify me' : '开启通知');
      await page.screenshot({ path: shotPath('ask-notify-offer') });

      // A page whose person allowed notifications and looks elsewhere. Headless Chromium shows no
      // notification, so the page's Notification records what the console asked the browser to show.
      const away = await context.newPage();
      // A string: the test runner's compiled functions may call helpers the page does not have.
      await away.addInitScript(`
        const shown = [];
        window.shownNotifications = shown;
        function RecordedNotification(title, options) {
          shown.push({ title, body: options.body, tag: options.tag });
          this.onclick = null;
          this.close = () => {};
        }
        RecordedNotification.permission = 'granted';
        RecordedNotification.requestPermission = () => Promise.resolve('granted');
        Object.defineProperty(window, 'Notification', { value: RecordedNotification, configurable: true });
        document.hasFocus = () => false;
      `);
      await away.goto(`${bound.rig.bridge.url}/console/#/devices?token=${bound.rig.bridge.adminToken}`);
      await away.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
      assert.equal(await away.getByTestId('notify-allow').count(), 0, 'nothing to offer once allowed');

      const asked = invoke(bound.client, bound.channel, 'android_ask_person', { reason: 'accept the consent screen' });
      await away.getByTestId(`person-ask-${deviceId}`).waitFor({ timeout: UI_MS });
      const shown = await eventually(async () => {
        const list = await away.evaluate(
          () => (window as unknown as { shownNotifications: Array<Record<string, string>> }).shownNotifications,
        );
        return list.length > 0 ? list : null;
      }, 'a notification');
      assert.equal(shown.length, 1);
      assert.equal(
        String(shown[0]?.title).startsWith(en ? 'The agent asks you to take over ' : '智能体请你接管 '),
        true,
      );
      assert.equal(
        shown[0]?.body,
        en ? 'The agent asks you to: accept the consent screen' : '智能体请你：accept the consent screen',
      );
      await decline(away);
      assert.equal((await asked).error?.code, 'person_declined');
      await away.close();
    });

    async function decline(on: Page): Promise<void> {
      const card = on.getByTestId(`person-ask-${deviceId}`);
      await card.getByTestId('person-ask-decline').click();
      await card.getByTestId('person-ask-decline-send').click();
    }

    function shotPath(name: string): string {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      return join(SHOTS, locale, `${name}.png`);
    }
  });
}

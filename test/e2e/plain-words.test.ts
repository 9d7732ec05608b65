/**
 * Issue #29 points 6 and 7 end to end, in English and in Chinese (Debian's Chromium through
 * playwright-core, no download) on the web console of a bridge with a simulated phone behind a
 * real adb server, while an xAgent client calls tools:
 *
 * - a call the phone refuses (a MIUI phone without "USB debugging (Security settings)":
 *   input_blocked) shows the explanation in the person's language in the phone view's timeline
 *   and in Activity, its code small beside it; arguments read as words, raw JSON behind Details;
 * - a long android_wait_for shows a spinner and what it waits for, the seconds counting;
 * - typing shows the text live in the phone view on this computer, and dots for a password;
 * - a binding shows how and when it bound and the words the agent was shown; a lab claim the
 *   name on the form; after revoke and sign-out they are under History with how they ended.
 *
 * Screenshots go to <os tmp>/xagent-console-i18n/<locale>/plain-words-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser, eventually } from '../helpers/console-browser';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import type { Packet } from '../helpers/xagent-client';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const VIEWPORT = { width: 1280, height: 900 };
const UI_MS = 10_000;
/** The command line that types ASCII text on the phone, as the bridge quotes it. */
const TYPING = "'input' 'text'";

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('plain-words-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`plain words in the timeline, Activity and Bindings (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let context: BrowserContext;
    let page: Page;
    let deviceId = '';
    let n = 0;
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);
    const call = (tool: string, args: Record<string, unknown> = {}): Promise<Packet> =>
      invoke(bound.client, bound.channel, tool, args, `call_words_${locale}_${process.pid}_${++n}`);
    const text = (testId: string): Promise<string> =>
      page
        .getByTestId(testId)
        .innerText({ timeout: 1_000 })
        .catch(() => '');

    async function shot(name: string): Promise<void> {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.mouse.move(1, 1);
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
      await page.screenshot({ path: join(SHOTS, locale, `plain-words-${name}.png`), fullPage: true });
    }

    async function go(area: string): Promise<void> {
      await page.getByTestId(`nav-${area}`).click();
      await page.locator(`#${area}-heading`).waitFor({ timeout: UI_MS });
    }

    async function openPhoneView(): Promise<void> {
      await go('devices');
      await page.getByTestId(`device-open-${deviceId}`).click({ timeout: UI_MS });
      await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
    }

    /** The newest timeline row of a tool (by its data-seq), optionally newer than a given seq. */
    async function newestRow(toolId: string, state?: string): Promise<string> {
      return eventually(
        async () => {
          const rows = await page
            .locator(`[data-testid^="pv-action-"][data-tool="${toolId}"]${state ? `[data-state="${state}"]` : ''}`)
            .evaluateAll((els) =>
              els.map((e) => ({
                id: (e.getAttribute('data-testid') ?? '').replace('pv-action-', ''),
                seq: Number(e.getAttribute('data-seq')),
              })),
            );
          rows.sort((a, b) => b.seq - a.seq);
          return rows[0]?.id;
        },
        `a ${state ?? ''} ${toolId} row`,
      );
    }

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      deviceId = bound.rig.device(0).deviceId;
      context = await browser.newContext({ viewport: VIEWPORT, locale: locale === 'en' ? 'en-US' : 'zh-CN' });
      page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      (page as Page & { problems?: string[] }).problems = problems;
      await page.goto(`${bound.rig.bridge.url}/console/#token=${bound.rig.bridge.adminToken}`);
      await page.getByTestId(`device-open-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('a refused tap: explained in words in the timeline and in Activity, its code small, raw JSON behind Details', async () => {
      await openPhoneView();
      bound.rig.phones[0]!.setQuirks(['inject-events-denied']);
      try {
        const refused = await call('android_tap', { x: 320, y: 640 });
        assert.equal(refused.error?.code, 'input_blocked', JSON.stringify(refused.error));
      } finally {
        bound.rig.phones[0]!.setQuirks([]);
      }
      // A dark screen: the call ends before the safety check, so nobody decided it.
      bound.rig.phones[0]!.setQuirks(['screen-off']);
      const dark = await call('android_tap', { x: 10, y: 20 });
      assert.equal(dark.error?.code, 'device_locked', JSON.stringify(dark.error));
      bound.rig.phones[0]!.setQuirks([]);
      assert.equal((await call('android_press_key', { key: 'wakeup' })).error, undefined);
      const pressed = await call('android_press_key', { key: 'home' });
      assert.equal(pressed.error, undefined, JSON.stringify(pressed.error));

      const refusedRow = page
        .locator('li[data-testid^="pv-action-"][data-tool="android_tap"]')
        .filter({ hasText: '320, 640' })
        .first();
      await refusedRow.waitFor({ timeout: UI_MS });
      const row = ((await refusedRow.getAttribute('data-testid')) ?? '').replace('pv-action-', '');
      const explanation = words(
        /The phone refuses taps and typing from the computer\./,
        /手机拒绝来自电脑的点按和输入。/,
      );
      await eventually(async () => explanation.test(await text(`pv-action-error-${row}`)), 'the explanation');
      assert.equal(await page.getByTestId(`pv-action-error-${row}`).getAttribute('data-code'), 'input_blocked');
      assert.match(await text(`pv-action-error-${row}`), /input_blocked/, 'the code stays, for support');
      assert.match(await text(`pv-action-status-${row}`), words(/^failed$/, /^失败$/));
      assert.doesNotMatch(await text(`pv-action-${row}`), /failed: input_blocked/);
      assert.match(await text(`pv-action-words-${row}`), words(/^at 320, 640$/, /^位置 320, 640$/));
      // The raw arguments and what the agent was told wait behind Details.
      const raw = page.getByTestId(`pv-action-args-${row}`);
      assert.equal(await raw.isVisible(), false);
      await page.getByTestId(`pv-action-details-${row}`).locator('summary').click();
      await raw.waitFor({ timeout: UI_MS });
      assert.match((await raw.textContent()) ?? '', /"x":320/);
      assert.match(await text(`pv-action-message-${row}`), /./);

      const key = await newestRow('android_press_key');
      await eventually(
        async () => words(/^Home$/, /^主屏幕$/).test(await text(`pv-action-words-${key}`)),
        'the key in words',
      );
      await shot('timeline-error');

      await go('activity');
      const activityError = page.locator('[data-testid^="activity-error-"][data-code="input_blocked"]').first();
      await activityError.waitFor({ timeout: UI_MS });
      assert.match(await activityError.innerText(), explanation);
      assert.match(await activityError.innerText(), /input_blocked/);
      // The dark-screen tap never reached the safety check: said in words, with no "· none" after it.
      const darkRow = page.locator('[data-testid^="activity-error-"][data-code="device_locked"]').first();
      await darkRow.waitFor({ timeout: UI_MS });
      const table = await page.getByTestId('activity-table').innerText();
      assert.match(table, words(/not checked \(ended before the safety check\)/, /未经检查（在安全检查前已结束）/));
      assert.doesNotMatch(table, /not_reached|· none|· 无/);
      await shot('activity-error');
    });

    test('a long wait shows a spinner and what it waits for, the seconds counting', async () => {
      await openPhoneView();
      const waiting = call('android_wait_for', { element: { text: 'Never there' }, timeout_ms: 20_000 });
      const row = await newestRow('android_wait_for', 'running');
      const line = words(
        /^Waiting for “Never there” to appear — (\d+) s of 20 s$/,
        /^正在等待“Never there”出现 — 已等 (\d+) 秒，最多 20 秒$/,
      );
      const first = await eventually(async () => line.exec(await text(`pv-action-wait-${row}`)), 'the wait in words');
      await eventually(async () => {
        const later = line.exec(await text(`pv-action-wait-${row}`));
        return later && Number(later[1]) > Number(first[1]);
      }, 'the seconds counting');
      assert.equal(await page.getByTestId(`pv-action-status-${row}`).locator('.pv-spinner').count(), 1);
      await shot('timeline-wait');
      await page.getByTestId('phone-view-stop').click();
      assert.equal((await waiting).error?.code, 'canceled');
      await eventually(
        async () => (await page.getByTestId(`pv-action-${row}`).getAttribute('data-state')) === 'done',
        'the wait ended',
      );
      assert.equal(await page.getByTestId(`pv-action-wait-${row}`).count(), 0);
    });

    test('typing shows the text live on this computer, and dots for a password', async () => {
      await openPhoneView();
      const phone = bound.rig.phones[0]!;
      assert.equal((await call('android_launch_app', { package: 'com.example.notes' })).error, undefined);
      await waitUntil(() => phone.foregroundPackage() === 'com.example.notes', 5_000, 'notes in front');
      const typed = 'lunch with Ada at 1';
      // The keystrokes hang on the phone, so the call stays running while we look.
      phone.setHang(TYPING, true);
      let typing: Promise<Packet>;
      try {
        typing = call('android_type_text', { element: { resource_id: 'note_text' }, text: typed });
        const row = await newestRow('android_type_text', 'running');
        await eventually(async () => (await text(`pv-typing-${row}`)).includes(typed), 'the text being typed');
        assert.match(await text(`pv-typing-${row}`), words(/Typing/, /正在输入/));
        await shot('typing-live');
      } finally {
        phone.setHang(TYPING, false);
      }
      await page.getByTestId('phone-view-stop').click();
      await typing;

      // A password field: the policy lets it through, the person sees dots, never the text.
      const policies = (await bound.rig.bridge.admin('GET', '/admin/api/policies')).body;
      const put = await bound.rig.bridge.admin('PUT', '/admin/api/policies', {
        ...policies,
        defaults: { ...(policies.defaults as Record<string, unknown>), password_field: 'allow' },
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.equal((await call('android_launch_app', { package: 'com.example.login' })).error, undefined);
      await waitUntil(() => phone.foregroundPackage() === 'com.example.login', 5_000, 'login in front');
      const password = 'hunter2-Secret';
      phone.setHang(TYPING, true);
      try {
        typing = call('android_type_text', { element: { resource_id: 'password' }, text: password });
        // The password row (the notes row before it may still show as running for a moment).
        const passwordRow = page
          .locator('li[data-testid^="pv-action-"][data-tool="android_type_text"]')
          .filter({ hasText: '“password”' })
          .first();
        await passwordRow.waitFor({ timeout: UI_MS });
        const row = ((await passwordRow.getAttribute('data-testid')) ?? '').replace('pv-action-', '');
        const dots = page.getByTestId(`pv-typing-${row}`).locator('[data-secret="true"]');
        await dots.waitFor({ timeout: UI_MS });
        // Past the gate (its verdict is what makes the text a secret), still dots.
        await eventually(async () => (await text(`pv-action-words-${row}`)).length > 0, 'the words');
        assert.ok(!(await page.getByTestId('pv-timeline').innerText()).includes(password));
        await shot('typing-secret');
      } finally {
        phone.setHang(TYPING, false);
      }
      await page.getByTestId('phone-view-stop').click();
      await typing;
      assert.ok(!(await page.getByTestId('pv-timeline').innerText()).includes(password));
      assert.equal((await bound.rig.bridge.admin('PUT', '/admin/api/policies', policies)).status, 200);
    });

    test('a binding shows how and when it bound and what the agent was shown; ended ones move to History', async () => {
      const channel = bound.channel;
      await go('bindings');
      await page.getByTestId(`channel-${channel}`).waitFor({ timeout: UI_MS });
      assert.match(
        await text(`binding-how-${channel}`),
        words(/You approved pairing code [A-Z0-9]{3}-[A-Z0-9]{3}/, /你批准了配对码 [A-Z0-9]{3}-[A-Z0-9]{3}/),
      );
      assert.match(await text(`binding-how-${channel}`), /\d{1,2}:\d{2}/, 'when it bound');
      // What the bridge told the agent, in the console's language (its English is the tooltip).
      assert.match(await text(`binding-message-${channel}`), words(/^Approve pairing code /, /^请在.*批准配对码 /));
      assert.match(await text(`binding-holder-${channel}`), words(/from 127\.0\.0\.1/, /来自 127\.0\.0\.1/));
      await shot('binding');

      // Revoked in the console: it leaves the active list for History.
      await page.getByTestId(`channel-revoke-${channel}`).click();
      await page.getByTestId(`channel-revoke-confirm-${channel}`).click();
      await eventually(
        async () => words(/^revoked$/, /^已撤销$/).test(await text(`binding-history-end-${channel}`)),
        'the revoked binding under History',
      );
      assert.equal(await page.getByTestId(`channel-${channel}`).count(), 0);

      // A lab claim with the form's name, then signed out by the agent.
      const code = 'lab-words-4821';
      assert.equal(
        (await bound.rig.bridge.admin('POST', '/admin/api/access-codes', { scope: deviceId, code })).status,
        200,
      );
      const opened = await bound.client.openChannel('');
      const claimed = String(opened.payload?.connector_channel_id);
      const started = await bound.client.request(
        'auth.start',
        {
          flow_id: 'device_claim',
          input: { device: bound.rig.device(0).serial, access_code: code, requester: 'Ada (QA)' },
        },
        claimed,
      );
      assert.equal(started.payload?.status, 'authenticated', JSON.stringify(started.payload));
      await page.getByTestId(`channel-${claimed}`).waitFor({ timeout: UI_MS });
      assert.match(await text(`binding-holder-${claimed}`), /Ada \(QA\)/);
      assert.match(await text(`binding-how-${claimed}`), words(/^Lab access code/, /^实验室访问码/));
      await shot('binding-claim');
      await bound.client.request('auth.logout', {}, claimed);
      await eventually(
        async () => words(/^signed out$/, /^已退出登录$/).test(await text(`binding-history-end-${claimed}`)),
        'the signed-out binding under History',
      );
      const first = await page.getByTestId('binding-history').locator('li').first().getAttribute('data-testid');
      assert.equal(first, `binding-history-${claimed}`, 'newest first');
      await shot('binding-history');
      assert.deepEqual((page as Page & { problems?: string[] }).problems, []);
    });
  });
}

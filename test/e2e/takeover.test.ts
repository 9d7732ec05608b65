/**
 * Take over and hand back (#26) in English and Chinese (Debian's Chromium through
 * playwright-core): in the phone view a person takes the phone over, the view says "you have
 * the phone — the agent waits" and the card "a person has it", the agent's tap is answered
 * human_in_control and never reaches the phone; handed back, the banner goes and the agent's tap
 * works again. "The agent may watch" is off for each take-over unless ticked, and the banner says
 * which: off, the agent's screenshot is refused; on, it is served. Screenshots go to
 * <os tmp>/xagent-console-i18n/<locale>/takeover-*.png.
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

before(async () => ({ browser, buildDir } = await startConsoleBrowser('takeover-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`take over and hand back (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let context: BrowserContext;
    let view: Page;
    let cards: Page;
    let deviceId = '';
    const en = locale === 'en';
    const taps = (): number =>
      bound.rig.phones[0]!.argvLog.filter((argv) => argv.join(' ').includes('input tap')).length;

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir });
      deviceId = bound.rig.device(0).deviceId;
      context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: en ? 'en-US' : 'zh-CN' });
      const token = bound.rig.bridge.adminToken;
      view = await context.newPage();
      await view.goto(`${bound.rig.bridge.url}/console/#/devices/${deviceId}?token=${token}`);
      await view.getByTestId('phone-view').waitFor({ timeout: UI_MS });
      cards = await context.newPage();
      await cards.goto(`${bound.rig.bridge.url}/console/#/devices?token=${token}`);
      await cards.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('Take over: the banner, the card says a person has it, the agent’s tap is refused and never sent', async () => {
      const button = view.getByTestId('phone-view-takeover');
      assert.equal(await button.innerText(), en ? 'Take over' : '接管');
      const mayWatch = view.getByTestId('phone-view-agent-may-watch');
      assert.equal(await mayWatch.isChecked(), false, 'the agent may not watch unless the person says so');
      assert.equal(
        (await view.locator('label.pv-may-watch').innerText()).trim(),
        en ? 'The agent may watch' : '允许智能体观看',
      );
      await button.click();
      const banner = view.getByTestId('phone-view-taken-over');
      await banner.waitFor({ timeout: UI_MS });
      assert.match(
        await banner.innerText(),
        en ? /^You have the phone — the agent waits\./ : /^手机现在由你操作，智能体正在等待。/,
      );
      const watch = view.getByTestId('phone-view-watch');
      assert.equal(await watch.getAttribute('data-watch'), 'false');
      assert.equal(
        await watch.innerText(),
        en
          ? 'The agent sees nothing of the screen until you hand the phone back.'
          : '在你交还手机之前，智能体看不到屏幕。',
      );
      const hidden = await invoke(bound.client, bound.channel, 'android_screenshot');
      assert.equal(hidden.error?.code, 'human_in_control', JSON.stringify(hidden));
      await eventually(async () => (await button.innerText()) === (en ? 'Hand back' : '交还'), 'the Hand back button');
      await view.screenshot({ path: shotPath('takeover-view') });

      const card = cards.getByTestId(`device-taken-over-${deviceId}`);
      await card.waitFor({ timeout: UI_MS });
      assert.equal(await card.innerText(), en ? 'a person has it — the agent waits' : '已由人接管，智能体等待中');
      await cards.getByTestId(`device-${deviceId}`).screenshot({ path: shotPath('takeover-card') });

      const before = taps();
      const refused = await invoke(bound.client, bound.channel, 'android_tap', { x: 200, y: 300 });
      assert.equal(refused.error?.code, 'human_in_control');
      assert.equal(taps(), before, 'the tap never reached the phone');
    });

    test('while taken: a click on the live screen taps that point of the phone, Home presses Home', async () => {
      const phone = bound.rig.phones[0]!;
      const frame = view.getByTestId('phone-view-frame');
      await eventually(async () => (await frame.getAttribute('data-drives')) === 'true', 'a drivable screen');
      const box = (await frame.boundingBox())!;
      // The picture is drawn inside its element with object-fit: contain (bars where the shapes differ).
      const scale = Math.min(box.width / 1080, box.height / 2400);
      const picture = { x: box.x + (box.width - 1080 * scale) / 2, y: box.y + (box.height - 2400 * scale) / 2 };
      const from = phone.argvLog.length;
      // A quarter across and three quarters down the picture.
      await view.mouse.click(picture.x + 1080 * scale * 0.25, picture.y + 2400 * scale * 0.75);
      const tapLine = await eventually(
        async () =>
          phone.argvLog
            .slice(from)
            .map((argv) => argv.join(' '))
            .find((line) => line.startsWith('input tap')),
        'the person’s tap on the phone',
      );
      const [x, y] = tapLine.split(' ').slice(2).map(Number) as [number, number];
      // The simulated phone is 1080 × 2400: the point scales from the picture, give or take a pixel of rounding.
      assert.ok(Math.abs(x - 1080 * 0.25) <= 3, tapLine);
      assert.ok(Math.abs(y - 2400 * 0.75) <= 3, tapLine);
      await view.getByTestId('phone-view-key-home').click();
      await eventually(
        async () => phone.argvLog.slice(from).some((argv) => argv.join(' ') === 'input keyevent 3'),
        'Home pressed',
      );
      assert.equal(await view.getByTestId('phone-view-key-home').innerText(), en ? 'Home' : '主屏幕');
    });

    test('Hand back: the banner goes and the agent’s tap works again', async () => {
      await view.getByTestId('phone-view-takeover').click();
      await eventually(async () => (await view.getByTestId('phone-view-taken-over').count()) === 0, 'the banner gone');
      await eventually(
        async () => (await view.getByTestId('phone-view-takeover').innerText()) === (en ? 'Take over' : '接管'),
        'the Take over button',
      );
      await eventually(async () => (await cards.getByTestId(`device-taken-over-${deviceId}`).count()) === 0, 'card');
      const before = taps();
      assert.equal((await invoke(bound.client, bound.channel, 'android_tap', { x: 200, y: 300 })).error, undefined);
      assert.equal(taps(), before + 1);
    });

    test('The agent may watch: the banner says so, the agent’s screenshot is served; the next take-over starts off again', async () => {
      const mayWatch = view.getByTestId('phone-view-agent-may-watch');
      await mayWatch.check();
      await view.getByTestId('phone-view-takeover').click();
      const watch = view.getByTestId('phone-view-watch');
      await watch.waitFor({ timeout: UI_MS });
      assert.equal(await watch.getAttribute('data-watch'), 'true');
      assert.equal(
        await watch.innerText(),
        en
          ? 'You let the agent watch: it sees the screen while you hold the phone.'
          : '你允许智能体观看：在你操作手机时它能看到屏幕。',
      );
      await view.getByTestId('phone-view-taken-over').screenshot({ path: shotPath('takeover-watching') });
      const shot = await invoke(bound.client, bound.channel, 'android_screenshot');
      assert.equal(shot.error, undefined, JSON.stringify(shot.error));
      assert.equal(
        (await invoke(bound.client, bound.channel, 'android_tap', { x: 200, y: 300 })).error?.code,
        'human_in_control',
      );

      await view.getByTestId('phone-view-takeover').click();
      await eventually(async () => (await view.getByTestId('phone-view-taken-over').count()) === 0, 'handed back');
      assert.equal(await view.getByTestId('phone-view-agent-may-watch').isChecked(), false, 'per take-over');
    });

    test('Activity says who held the phone when, and whether the agent could watch', async () => {
      const activity = await context.newPage();
      try {
        await activity.goto(`${bound.rig.bridge.url}/console/#/activity?token=${bound.rig.bridge.adminToken}`);
        const notes = activity.locator('[data-testid^="activity-hold-"]');
        await eventually(async () => (await notes.count()) >= 4 || undefined, 'the take-overs and hand-backs listed');
        const shown = await notes.allInnerTexts();
        const hidden = en
          ? 'The person at the computer held the phone; the agent saw nothing of the screen'
          : '电脑前的人操作手机；智能体看不到屏幕';
        const watched = en
          ? 'The person at the computer held the phone; the agent could watch the screen'
          : '电脑前的人操作手机；智能体可以观看屏幕';
        // Newest first: the watched take-over and its hand-back, then the first, unwatched one.
        assert.deepEqual(shown, [watched, watched, hidden, hidden]);
        await activity.screenshot({ path: shotPath('takeover-activity') });
      } finally {
        await activity.close();
      }
    });

    function shotPath(name: string): string {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      return join(SHOTS, locale, `${name}.png`);
    }
  });
}

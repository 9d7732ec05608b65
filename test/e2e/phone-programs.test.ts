/**
 * "Programs on this phone" in the web console (issue #35), in English and in Chinese: Debian's
 * Chromium (playwright-core, no download) on a bridge whose port-less programs are on, with a
 * simulated phone behind a real adb server. A lease's first call starts scrcpy-server and checks
 * the snapshot helper, and the card says so in words; a tap and a tree read count on the card
 * and the phone view's timeline names their lanes; a failed snapshot read shows its error and
 * when it is tried again; Turn off makes both "off" and the next tap
 * go the stock adb way; Turn on brings them back at the next call. The UI reader is left out
 * (`uiReader: false`, as a build without its jar) so that the snapshot helper reads the tree here;
 * its row says it is not available.
 *
 * Screenshots: <os tmp>/xagent-console-i18n/<locale>/phone-programs-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 15_000;

let browser: Browser;
let buildDir = '';
let bound: BoundRig;
let deviceId = '';
let n = 0;

before(async () => {
  ({ browser, buildDir } = await startConsoleBrowser('phone-programs-e2e-'));
  bound = await startBoundRig(
    { consoleDir: buildDir, fastLane: { portless: true, uiReader: false } },
    { withAdbKeyboard: false },
  );
  deviceId = bound.rig.device(0).deviceId;
});

after(async () => {
  await bound?.stop();
  await stopConsoleBrowser(browser, buildDir);
});

/** One call of the lease; answers the lane its result names. */
async function call(tool: string, args: Record<string, unknown> = {}): Promise<string | undefined> {
  const packet = await invoke(bound.client, bound.channel, tool, args, `call_programs_ui_${process.pid}_${++n}`);
  const lane = result(packet).lane;
  return typeof lane === 'string' ? lane : undefined;
}

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`programs on the phone's card (${locale})`, { concurrency: 1 }, () => {
    let context: BrowserContext;
    let page: Page;
    const problems: string[] = [];
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);
    const row = (program: string, state?: string): string =>
      `[data-testid="program-${deviceId}-${program}"]${state ? `[data-state="${state}"]` : ''}`;
    const both = async (state: string): Promise<void> => {
      await page.locator(row('scrcpy_input', state)).waitFor({ timeout: UI_MS });
      await page.locator(row('snapshot_tree', state)).waitFor({ timeout: UI_MS });
    };

    async function shot(name: string): Promise<void> {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.getByTestId(`programs-${deviceId}`).scrollIntoViewIfNeeded();
      await page.mouse.move(1, 1);
      await page
        .getByTestId(`device-${deviceId}`)
        .screenshot({ path: join(SHOTS, locale, `phone-programs-${name}.png`) });
    }

    /** The lane badges of a tool's timeline rows in the phone's view, newest first. */
    async function lanes(toolId: string, count: number): Promise<string[]> {
      return eventually(async () => {
        const rows = await page.locator(`[data-testid^="pv-action-"][data-tool="${toolId}"]`).evaluateAll((els) =>
          els.map((e) => ({
            lane: e.querySelector('[data-testid^="pv-action-lane-"]')?.textContent ?? '',
            seq: Number(e.getAttribute('data-seq')),
          })),
        );
        rows.sort((a, b) => b.seq - a.seq);
        const shown = rows.slice(0, count).map((r) => r.lane);
        return shown.length === count && shown.every(Boolean) ? shown : undefined;
      }, `the lanes of ${toolId}`);
    }

    before(async () => {
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${bound.rig.bridge.url}/console/#token=${bound.rig.bridge.adminToken}`);
      await page.getByTestId(`programs-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(() => context?.close());

    test('a lease call starts them; the card says what runs, how it is reached, and counts the calls', async () => {
      // The first locale sees them before anything ran; the second after Turn on (both idle).
      await both('idle');
      const idle = await page.getByTestId(`program-${deviceId}-scrcpy_input`).innerText();
      assert.match(idle, words(/not running; starts at a lease’s next call/, /未运行；租约中的下一次调用时启动/));
      await call('android_device_status');
      await both('ready');
      const panel = page.getByTestId(`programs-${deviceId}`);
      const text = (await panel.innerText()).replace(/\s+/g, ' ');
      assert.match(text, words(/Programs on this phone/i, /手机上的程序/));
      assert.match(text, /scrcpy-server version 3\.3\.1|scrcpy-server 版本 3\.3\.1/);
      assert.match(text, words(/agent-device snapshot helper/, /agent-device 快照助手/));
      assert.match(text, words(/running/, /运行中/));
      assert.match(text, words(/checked; runs for each read/, /已检查；每次读取时运行/));
      await page.locator(row('ui_reader', 'unavailable')).waitFor({ timeout: UI_MS });
      // What each option does is one "What is this?" away: the switch's, then each program's.
      await page.getByTestId(`programs-what-${deviceId}`).click();
      assert.match(
        (await page.getByTestId(`programs-what-${deviceId}-text`).innerText()).replace(/\s+/g, ' '),
        words(
          /scrcpy-server, the UI reader and the snapshot helper run only while an agent holds this phone’s lease, and are reached only through USB debugging \(adb\): nothing of theirs listens where an app or the network could reach it/,
          /scrcpy-server、界面读取器和快照助手只在智能体持有这台手机的租约期间运行，且只能通过 USB 调试（adb）访问/,
        ),
      );
      await page.getByTestId(`program-${deviceId}-scrcpy_input-what`).click();
      await page.getByTestId(`program-${deviceId}-snapshot_tree-what`).click();
      const more = (await panel.locator('.what-is-this').allInnerTexts()).join(' ').replace(/\s+/g, ' ');
      assert.match(more, words(/stopped at the lease’s end and after 5 min without use/, /闲置 5 分钟 后/));
      assert.match(more, /com\.callstack\.agentdevice\.snapshothelper/);
      assert.match(more, words(/text other than ASCII then needs ADB Keyboard/, /ADB Keyboard/));
      await shot('more');
      // Every program the bridge may run here is in the same list: UIA2 off until its own yes, minicap by the lab's default.
      await page.locator(row('uia2_server', 'off')).waitFor({ timeout: UI_MS });
      await page.locator(row('minicap_stream', 'off')).waitFor({ timeout: UI_MS });
      await page.getByTestId(`program-${deviceId}-uia2_server-what`).click();
      assert.match(
        await page.getByTestId(`program-${deviceId}-uia2_server-what-text`).innerText(),
        words(/without a password/, /不用密码/),
      );
      // Each closes again.
      for (const what of ['uia2_server', 'scrcpy_input', 'snapshot_tree'])
        await page.getByTestId(`program-${deviceId}-${what}-what`).click();
      await page.getByTestId(`programs-what-${deviceId}`).click();
      assert.equal(await panel.locator('.what-is-this').count(), 0);

      assert.equal(await call('android_ui_tree'), 'snapshot');
      assert.equal(await call('android_tap', { x: 540, y: 1200 }), 'scrcpy');
      await eventually(
        async () =>
          /[1-9]\d* (by it|次)/.test(await page.getByTestId(`program-${deviceId}-scrcpy_input-served`).innerText()),
        'the tap counted on the card',
      );
      assert.match(
        await page.getByTestId(`program-${deviceId}-snapshot_tree-served`).innerText(),
        words(/Calls: [1-9]\d* by it, \d+ by stock adb instead/, /调用：经由它 [1-9]\d* 次，改由常规 adb \d+ 次/),
      );
      await shot('running');
    });

    test('a failed snapshot read: the card shows the error and when it is tried again', async () => {
      const phone = bound.rig.phones[0]!;
      phone.setQuirks(['snapshot-helper-crash']);
      try {
        assert.equal(await call('android_ui_tree'), 'adb', 'the stock dump served the same call');
      } finally {
        phone.setQuirks([]);
      }
      await page.locator(row('snapshot_tree', 'failed')).waitFor({ timeout: UI_MS });
      assert.match(
        await page.getByTestId(`program-${deviceId}-snapshot_tree-error`).innerText(),
        words(/^Last error: .+ · tried again in (1 min )?\d+ s$/s, /^最近的错误：.+ · (1 分 )?\d+ 秒后重试$/s),
      );
      assert.match(
        await page.getByTestId(`program-${deviceId}-snapshot_tree-state`).innerText(),
        words(/failed; stock adb serves/, /失败；由常规 adb 处理/),
      );
      await shot('failed');
    });

    test('Turn off: both off, the next tap goes the stock way; the timeline names each lane', async () => {
      await page.getByTestId(`programs-disable-${deviceId}`).click();
      await both('off');
      await page.locator(`[data-testid="programs-${deviceId}"][data-enabled="false"]`).waitFor({ timeout: UI_MS });
      assert.match(
        await page.getByTestId(`program-${deviceId}-scrcpy_input-state`).innerText(),
        words(/^off$/, /^已关闭$/),
      );
      assert.equal(await call('android_tap', { x: 540, y: 1200 }), 'adb');
      await shot('off');
      await page.getByTestId(`device-open-${deviceId}`).click();
      await page.getByTestId('phone-view').waitFor({ timeout: UI_MS });
      assert.deepEqual(await lanes('android_tap', 2), ['adb', 'scrcpy']);
      assert.deepEqual(await lanes('android_ui_tree', 2), ['adb', locale === 'en' ? 'snapshot helper' : '快照助手']);
      await page.goBack();
      await page.getByTestId(`programs-${deviceId}`).waitFor({ timeout: UI_MS });
    });

    test('Turn on: the next call starts them again and taps go through scrcpy-server', async () => {
      await page.getByTestId(`programs-enable-${deviceId}`).click();
      await both('idle');
      await call('android_device_status');
      await both('ready');
      assert.equal(await call('android_tap', { x: 540, y: 1200 }), 'scrcpy');
      // Leave them idle for the next locale's first look.
      await page.getByTestId(`programs-disable-${deviceId}`).click();
      await both('off');
      await page.getByTestId(`programs-enable-${deviceId}`).click();
      await both('idle');
      assert.deepEqual(problems, []);
    });
  });
}

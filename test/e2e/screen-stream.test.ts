/**
 * The screen stream (minicap, #26) in the person's hands, in English and Chinese: Debian's
 * Chromium (playwright-core) on the console of a bridge with simulated Android 12L phones (SDK
 * 32: minicap's native files exist for it) on the `usb-phone` timing profile, behind a real adb
 * server. In the phone's view the person turns "Fast live screen" on: the live line says the
 * picture comes from minicap, the picture follows a screen that keeps changing with more
 * distinct frames than the screencap path gave the same changes just before, the switch's
 * state reads "running" with its frame rate and "for this view"; turned off, minicap leaves the
 * phone and the state reads "off". Settings → Screen stream (its own address) changes
 * `GET /admin/api/screen-stream`. A phone where minicap crashes says "failed" with why while the
 * view goes on from screencap; an Android 4.4 phone says minicap has no build for it. Each test
 * closes its pages: a phone view holds four connections open (three event streams and the live
 * frame's), and Chromium opens six to one host, so a second open view leaves a button's request
 * waiting. Screenshots under /tmp/xagent-screen-stream-shots/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { minicapOnPhone } from '../helpers/minicap-on-phone';
import { translate, type MessageKey } from '../../main/contract/i18n';
import type { SimulatedPhone } from '../../main/sim/phone';
import type { AdminPhoneProgram, AdminState } from '../../main/contract/admin-api';

const SHOTS = join(tmpdir(), 'xagent-screen-stream-shots');
const UI_MS = 15_000;
/** How long distinct frames are counted, with the phone's screen changing all the while. */
const COUNT_MS = 3_000;
/** A screen change this often: faster than screencap on a USB phone can follow, slower than minicap. */
const CHANGE_EVERY_MS = 100;
/**
 * A floor for minicap's distinct frames in COUNT_MS (2 a second), against a stream that barely
 * moves, and at least screencap's count of the same changes just before. The simulated phone
 * renders and encodes its frames on this computer's two cores, shared with other test files:
 * loaded, it gave 3.7–8 a second here (screencap 3–4), so the comparison is loose on purpose.
 */
const MINICAP_FLOOR = (2 * COUNT_MS) / 1000;

/**
 * Phones 0 and 1: one per language, so each starts with the stream off and nothing of minicap on it.
 * Phone 2: minicap crashes on it after a few frames (Galaxy S5 Neo class). Phone 3: Android 4.4, older than minicap.
 */
const PHONES: ReadonlyArray<{ sdk: number; androidVersion: string; quirks?: string[] }> = [
  { sdk: 32, androidVersion: '12' },
  { sdk: 32, androidVersion: '12' },
  { sdk: 32, androidVersion: '12', quirks: ['minicap-segfault'] },
  { sdk: 19, androidVersion: '4.4' },
];

let browser: Browser;
let buildDir = '';
let rig: DeviceRig;

/** The phone's minicap program, as the admin state lists it. */
function minicapOf(deviceId: string): AdminPhoneProgram | undefined {
  return rig.bridge.core
    .adminState()
    .devices.find((d) => d.device_id === deviceId)
    ?.programs?.find((p) => p.program === 'minicap_stream');
}

before(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ browser, buildDir } = await startConsoleBrowser('screen-stream-e2e-'));
  rig = await startDeviceRig(
    PHONES.length,
    { consoleDir: buildDir },
    { profile: 'usb-phone', perPhone: (i) => PHONES[i] ?? {} },
  );
});

after(async () => {
  await rig?.stop();
  await stopConsoleBrowser(browser, buildDir);
});

/**
 * Changes the phone's screen every CHANGE_EVERY_MS for `ms` (Home and the recent apps in turn,
 * each key a command of its own as `adb shell input` is), and counts the distinct frames the
 * page showed meanwhile.
 */
async function framesWhileChanging(page: Page, phone: SimulatedPhone, ms: number): Promise<number> {
  const frame = page.getByTestId('phone-view-frame');
  const shown = async (): Promise<number> => Number(await frame.getAttribute('data-shown'));
  const controller = new AbortController();
  const keys: Array<Promise<unknown>> = [];
  const from = await shown();
  const until = Date.now() + ms;
  for (let i = 0; Date.now() < until; i++) {
    const key = i % 2 === 0 ? 'KEYCODE_APP_SWITCH' : 'KEYCODE_HOME';
    keys.push(phone.exec(`input keyevent ${key}`, { signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, CHANGE_EVERY_MS));
  }
  const count = (await shown()) - from;
  controller.abort();
  await Promise.allSettled(keys);
  // Leave the phone on its home screen for the next count.
  await phone.exec('input keyevent KEYCODE_HOME', { signal: AbortSignal.timeout(10_000) });
  return count;
}

for (const [index, locale] of (['en', 'zh-CN'] as const).entries()) {
  describe(`the screen stream in the console (${locale})`, { concurrency: 1 }, () => {
    const t = (key: MessageKey, params?: Record<string, string | number>): string => translate(locale, key, params);
    let context: BrowserContext;
    let page: Page;
    let phone: SimulatedPhone;
    let deviceId = '';
    const problems: string[] = [];

    before(async () => {
      phone = rig.phones[index]!;
      deviceId = rig.device(index).deviceId;
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      page.on('pageerror', (error) => problems.push(error.message));
    });
    after(async () => {
      await context?.close();
    });

    test('turned on in the phone view: the picture comes from minicap and follows the screen; turned off, it is gone', async (tc) => {
      await page.goto(`${rig.bridge.url}/console/#/devices/${deviceId}?token=${rig.bridge.adminToken}`);
      const panel = page.getByTestId(`program-${deviceId}-minicap_stream`);
      const toggle = page.getByTestId(`program-${deviceId}-minicap_stream-toggle`);
      const state = page.getByTestId(`program-${deviceId}-minicap_stream-state`);
      const note = page.getByTestId('phone-view-screen-note');
      await page.getByTestId('phone-view-frame').waitFor({ timeout: UI_MS });
      await panel.waitFor({ timeout: UI_MS });

      // Before consent: off, and what would be copied where, in words.
      assert.equal(await toggle.isChecked(), false);
      assert.equal((await state.innerText()).trim(), t('programs.state.off'));
      assert.ok((await panel.innerText()).includes(t('stream.explain')), await panel.innerText());
      assert.equal(await note.innerText(), t('phone-view.screen.live'));
      assert.deepEqual(minicapOnPhone(phone), { running: false, files: [] });

      await panel.scrollIntoViewIfNeeded();
      await page.mouse.move(1, 1);
      await page.screenshot({ path: join(SHOTS, `${locale}-phone-view-off.png`) });

      // The screencap path first, with the same changes on the screen.
      const screencapFrames = await framesWhileChanging(page, phone, COUNT_MS);

      await toggle.click();
      await page
        .locator(`[data-testid="program-${deviceId}-minicap_stream"][data-state="ready"]`)
        .waitFor({ timeout: UI_MS });
      assert.equal(await toggle.isChecked(), true);
      await eventually(
        async () => (await note.innerText()) === t('phone-view.screen.liveMinicap'),
        'the live line saying the picture comes from minicap',
        UI_MS,
      );
      assert.equal(minicapOnPhone(phone).running, true, 'minicap runs on the phone');

      const minicapFrames = await framesWhileChanging(page, phone, COUNT_MS);
      tc.diagnostic(
        `distinct frames in ${COUNT_MS} ms with the screen changing every ${CHANGE_EVERY_MS} ms: ` +
          `screencap ${screencapFrames}, minicap ${minicapFrames}`,
      );
      assert.ok(
        minicapFrames >= screencapFrames && minicapFrames >= MINICAP_FLOOR,
        `minicap ${minicapFrames} frames, screencap ${screencapFrames} (floor ${MINICAP_FLOOR})`,
      );
      assert.equal(await note.innerText(), t('phone-view.screen.liveMinicap'), 'still from minicap');

      // The state in words: running, some frames a second, for this view (no lease here).
      const running = page.getByTestId(`program-${deviceId}-minicap_stream-stream`);
      assert.match(await state.innerText(), new RegExp(`^${t('programs.state.minicap_stream.ready')}`));
      await eventually(
        async () => {
          const text = await running.innerText();
          const fps = Number(/(\d+)/.exec(text)?.[1] ?? 0);
          return fps > 0 && text.includes(t('stream.for.view')) ? text : undefined;
        },
        'the frame rate and what the stream runs for',
        UI_MS,
      );
      await panel.scrollIntoViewIfNeeded();
      await page.mouse.move(1, 1);
      await page.screenshot({ path: join(SHOTS, `${locale}-phone-view.png`) });

      // The phone's card (Devices, in another tab while this view stays open) says the same, "for the live view".
      const devices = await context.newPage();
      devices.on('pageerror', (error) => problems.push(error.message));
      await devices.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
      const card = devices.locator(`[data-testid="program-${deviceId}-minicap_stream"][data-state="ready"]`);
      await card.waitFor({ timeout: UI_MS });
      assert.match(
        await devices.getByTestId(`program-${deviceId}-minicap_stream-state`).innerText(),
        new RegExp(`^${t('programs.state.minicap_stream.ready')}`),
      );
      await eventually(
        async () =>
          (await devices.getByTestId(`program-${deviceId}-minicap_stream-stream`).innerText()).includes(
            t('stream.for.liveView'),
          ),
        'the card saying what the stream runs for',
        UI_MS,
      );
      await card.scrollIntoViewIfNeeded();
      await devices.mouse.move(1, 1);
      await devices.screenshot({ path: join(SHOTS, `${locale}-device-card.png`) });
      await devices.close();

      // Turned off: stopped and removed from the phone at once, though the view stays open.
      await toggle.click();
      await page
        .locator(`[data-testid="program-${deviceId}-minicap_stream"][data-state="off"]`)
        .waitFor({ timeout: UI_MS });
      assert.equal(await toggle.isChecked(), false);
      assert.equal(await panel.getAttribute('data-enabled'), 'false');
      assert.equal((await state.innerText()).trim(), t('programs.state.off'));
      await waitUntil(() => !minicapOnPhone(phone).running, UI_MS, 'minicap stopped');
      assert.deepEqual(minicapOnPhone(phone), { running: false, files: [] });
      await eventually(
        async () => (await note.innerText()) === t('phone-view.screen.live'),
        'the live line back on the other ways',
        UI_MS,
      );
      const stream = minicapOf(deviceId);
      assert.deepEqual([stream?.enabled, stream?.state], [false, 'off']);
      assert.deepEqual(problems, []);
    });

    test('Settings → Screen stream has its own address, says what minicap is, and changes the lab-wide default', async () => {
      await page.goto(`${rig.bridge.url}/console/#/settings/screen-stream?token=${rig.bridge.adminToken}`);
      const section = page.getByTestId('settings-screen-stream');
      await section.waitFor({ timeout: UI_MS });
      assert.equal(await page.getByTestId('settings-part-screen-stream').getAttribute('aria-current'), 'page');
      assert.equal(await page.locator('#screen-stream-heading').innerText(), t('stream.settings.title'));
      const words = await section.innerText();
      for (const fact of ['minicap', 'Apache-2.0', '@u4/minicap-prebuilt', '/data/local/tmp/xagent-minicap', 'adb'])
        assert.ok(words.includes(fact), `${fact} in: ${words}`);
      assert.ok(words.includes(t('stream.settings.explain')));
      assert.equal(await page.getByTestId('settings-screen-stream-unavailable').count(), 0, 'this build has minicap');
      const select = page.getByTestId('settings-screen-stream-default');
      assert.equal(await select.inputValue(), 'ask');
      assert.equal((await rig.bridge.admin('GET', '/admin/api/screen-stream')).body.default, 'ask');
      await page.mouse.move(1, 1);
      await page.screenshot({ path: join(SHOTS, `${locale}-settings.png`) });

      await select.selectOption('on');
      await eventually(
        async () => (await rig.bridge.admin('GET', '/admin/api/screen-stream')).body.default === 'on',
        'the default saved as on',
      );
      await eventually(async () => (await select.inputValue()) === 'on', 'the list showing on');
      await select.selectOption('ask');
      await eventually(
        async () => (await rig.bridge.admin('GET', '/admin/api/screen-stream')).body.default === 'ask',
        'the default saved as ask',
      );
      assert.deepEqual(problems, []);
    });
  });
}

describe(
  'a phone minicap cannot serve says so in words, and the picture comes from the other ways',
  { concurrency: 1 },
  () => {
    const contexts = new Map<'en' | 'zh-CN', BrowserContext>();
    before(async () => {
      for (const locale of ['en', 'zh-CN'] as const)
        contexts.set(
          locale,
          await browser.newContext({
            viewport: { width: 1280, height: 900 },
            locale: locale === 'en' ? 'en-US' : 'zh-CN',
          }),
        );
    });
    after(async () => {
      for (const context of contexts.values()) await context.close();
    });

    /** The phone's view in `locale`, with its panel; the page's own errors collected. */
    async function openView(deviceId: string, locale: 'en' | 'zh-CN'): Promise<{ page: Page; problems: string[] }> {
      const page = await contexts.get(locale)!.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${rig.bridge.url}/console/#/devices/${deviceId}?token=${rig.bridge.adminToken}`);
      await page.getByTestId(`program-${deviceId}-minicap_stream`).waitFor({ timeout: UI_MS });
      return { page, problems };
    }

    test('minicap crashing twice: failed, with why, while the live view goes on from screencap', async () => {
      const deviceId = rig.device(2).deviceId;
      const { page, problems } = await openView(deviceId, 'en');
      await page.getByTestId('phone-view-frame').waitFor({ timeout: UI_MS });
      await page.getByTestId(`program-${deviceId}-minicap_stream-toggle`).click();
      // minicap sends a frame for each change on the screen; on this phone it dies after a few, twice.
      let key = 0;
      await eventually(
        async () => {
          if ((await page.getByTestId(`program-${deviceId}-minicap_stream`).getAttribute('data-state')) === 'failed')
            return true;
          const code = key++ % 2 === 0 ? 'KEYCODE_APP_SWITCH' : 'KEYCODE_HOME';
          await rig.phones[2]!.exec(`input keyevent ${code}`, { signal: AbortSignal.timeout(UI_MS) });
          return false;
        },
        'the stream failed twice',
        30_000,
      );
      const lastError = minicapOf(deviceId)?.last_error;
      assert.ok(lastError, 'the bridge kept why');
      assert.ok(
        (await page.getByTestId(`program-${deviceId}-minicap_stream-error`).innerText()).startsWith(
          translate('en', 'programs.lastError', { error: lastError }),
        ),
      );
      assert.equal(
        (await page.getByTestId(`program-${deviceId}-minicap_stream-state`).innerText()).trim(),
        translate('en', 'programs.state.failed'),
      );
      assert.equal(
        await page.getByTestId(`program-${deviceId}-minicap_stream-toggle`).isChecked(),
        true,
        'still the person’s choice',
      );
      await eventually(
        async () =>
          (await page.getByTestId('phone-view-screen-note').innerText()) === 'Live while this page is visible.',
        'the live view back on screencap',
        UI_MS,
      );
      await page.getByTestId(`program-${deviceId}-minicap_stream`).scrollIntoViewIfNeeded();
      await page.mouse.move(1, 1);
      await page.screenshot({ path: join(SHOTS, 'en-phone-view-failed.png') });
      // In Chinese, the same facts.
      const zh = await openView(deviceId, 'zh-CN');
      assert.ok(
        (
          await zh.page.getByTestId(`program-${deviceId}-minicap_stream-error`).innerText({ timeout: UI_MS })
        ).startsWith(translate('zh-CN', 'programs.lastError', { error: lastError })),
      );
      assert.equal(
        (await zh.page.getByTestId(`program-${deviceId}-minicap_stream-state`).innerText()).trim(),
        translate('zh-CN', 'programs.state.failed'),
      );
      await page.close();
      await zh.page.close();
      assert.deepEqual([...problems, ...zh.problems], []);
    });

    test('a phone older than minicap: not on this phone, in both languages', async () => {
      const deviceId = rig.device(3).deviceId;
      const { page, problems } = await openView(deviceId, 'en');
      await page.getByTestId(`program-${deviceId}-minicap_stream-toggle`).click();
      await page
        .locator(`[data-testid="program-${deviceId}-minicap_stream"][data-state="unavailable"]`)
        .waitFor({ timeout: UI_MS });
      assert.equal(
        await page.getByTestId(`program-${deviceId}-minicap_stream-unavailable`).innerText(),
        translate('en', 'programs.unavailable.phone'),
      );
      assert.equal(
        (await page.getByTestId(`program-${deviceId}-minicap_stream-state`).innerText()).trim(),
        translate('en', 'programs.state.unavailable'),
      );
      assert.deepEqual(minicapOnPhone(rig.phones[3]!), { running: false, files: [] });
      const zh = await openView(deviceId, 'zh-CN');
      assert.equal(
        await zh.page.getByTestId(`program-${deviceId}-minicap_stream-unavailable`).innerText({ timeout: UI_MS }),
        translate('zh-CN', 'programs.unavailable.phone'),
      );
      await page.close();
      await zh.page.close();
      assert.deepEqual([...problems, ...zh.problems], []);
    });

    test('a build without minicap’s files says so in Settings and on the phone, and offers no switch to turn on', async () => {
      const deviceId = rig.device(0).deviceId;
      // Whatever the tests before left: this phone's stream is off (a build without the files has nothing to run).
      await rig.bridge.admin('POST', `/admin/api/devices/${deviceId}/programs`, {
        action: 'disable',
        program: 'minicap_stream',
      });
      for (const locale of ['en', 'zh-CN'] as const) {
        const page = await contexts.get(locale)!.newPage();
        const problems: string[] = [];
        page.on('pageerror', (error) => problems.push(error.message));
        // The bridge's state as a build without the package answers it.
        await page.route('**/admin/api/state', async (route) => {
          const response = await route.fetch();
          const state = (await response.json()) as AdminState;
          if (state.screen_stream) state.screen_stream.available = false;
          for (const device of state.devices)
            for (const program of device.programs ?? [])
              if (program.program === 'minicap_stream') Object.assign(program, { state: 'unavailable', version: null });
          await route.fulfill({ response, json: state });
        });
        await page.goto(`${rig.bridge.url}/console/#/devices/${deviceId}?token=${rig.bridge.adminToken}`);
        const panel = page.getByTestId(`program-${deviceId}-minicap_stream`);
        await panel.waitFor({ timeout: UI_MS });
        assert.ok(
          (await panel.innerText()).includes(translate(locale, 'programs.unavailable.build')),
          await panel.innerText(),
        );
        assert.equal(await page.getByTestId(`program-${deviceId}-minicap_stream-toggle`).isDisabled(), true);
        await page.goto(`${rig.bridge.url}/console/#/settings/screen-stream`);
        const hint = page.getByTestId('settings-screen-stream-unavailable');
        assert.equal(await hint.innerText({ timeout: UI_MS }), translate(locale, 'stream.settings.unavailable'));
        assert.equal(await page.getByTestId('settings-screen-stream-default').isDisabled(), true);
        await page.close();
        assert.deepEqual(problems, []);
      }
    });
  },
);

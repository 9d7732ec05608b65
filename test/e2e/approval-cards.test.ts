/**
 * The approval card a person decides on, in English and Simplified Chinese (issue #29 point 2):
 * a simulated phone's wallet shows "Pay $25.00", an xAgent client taps it by its text, and
 * the card says so in one sentence in the person's language with the button's words and the
 * app's name, the reasons in words, the screenshot with the button marked where it is on the
 * phone's screen, the tool and its JSON only behind the details toggle, and Approve once
 * still lets the tap through.
 *
 * Screenshots of the card are saved under <os tmp>/xagent-approval-cards/<locale>/.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, waitUntil, type BoundRig } from '../helpers/device-rig';
import { parseUiXml } from '../../main/core/android/ui-xml';
import { extractHierarchyXml } from '../../main/core/android/ui-tree';

const SHOTS = join(tmpdir(), 'xagent-approval-cards');
const UI_MS = 15_000;
const WALLET = 'com.example.wallet';

type Locale = 'en' | 'zh-CN';

/** What each language must say on the card. */
const EXPECTED: Record<
  Locale,
  { sentence: string; bold: string[]; reasons: string[]; details: string; approveOnce: string; lang: string }
> = {
  en: {
    sentence: 'The agent wants to tap “Pay $25.00” in Wallet',
    bold: ['Pay $25.00', 'Wallet'],
    reasons: [
      'Wallet is a wallet app: it holds money and can pay',
      'It taps “Pay $25.00”, which can spend or move money',
    ],
    details: 'Details for developers',
    approveOnce: 'Approve once',
    lang: 'en-US',
  },
  'zh-CN': {
    sentence: '智能体想在 Wallet 中点按“Pay $25.00”',
    bold: ['Wallet', 'Pay $25.00'],
    reasons: ['Wallet 是钱包应用：里面有钱，也能付款', '会点按“Pay $25.00”，这可能会花钱或转账'],
    details: '技术细节',
    approveOnce: '批准一次',
    lang: 'zh-CN',
  },
};

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('approval-cards-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('the approval card in the person’s words', { concurrency: 1 }, () => {
  let bound: BoundRig;

  before(async () => {
    bound = await startBoundRig({ consoleDir: buildDir });
  });
  after(async () => {
    await bound?.stop();
  });

  /** Runs a command line on the phone itself, past the bridge: test setup, not a call under test. */
  async function phoneShell(line: string): Promise<string> {
    const out = await bound.rig.phones[0]!.exec(line, { signal: AbortSignal.timeout(10_000) });
    assert.equal(out.exitCode, 0, out.stderr.toString());
    return out.stdout.toString();
  }

  /** The wallet's home screen in front, with its Pay button. */
  async function walletHome(): Promise<void> {
    await phoneShell(`am force-stop ${WALLET}`);
    await phoneShell(`am start -n ${WALLET}/${WALLET}.WalletActivity`);
    const phone = bound.rig.phones[0]!;
    await waitUntil(
      () => phone.screenState().screen === 'home' && phone.foregroundPackage() === WALLET,
      5_000,
      'wallet home',
    );
  }

  /** Where the Pay button is on the phone's screen, read from the phone itself (not from the bridge). */
  async function payButton(): Promise<{ bounds: number[]; width: number; height: number }> {
    const size = /Physical size: (\d+)x(\d+)/.exec(await phoneShell('wm size'));
    assert.ok(size, 'wm size');
    const xml = extractHierarchyXml(await phoneShell('uiautomator dump /dev/tty'));
    assert.ok(xml, 'a UI dump');
    const pay = parseUiXml(xml).find((n) => n.text === 'Pay $25.00');
    assert.ok(pay, 'the wallet shows Pay $25.00');
    return { bounds: [...pay.bounds], width: Number(size[1]), height: Number(size[2]) };
  }

  async function openConsole(locale: Locale): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: EXPECTED[locale].lang });
    const page = await context.newPage();
    await page.goto(`${bound.rig.bridge.url}/console/#token=${bound.rig.bridge.adminToken}`);
    await page.getByTestId('nav-approvals').click();
    await page.locator('#approvals-heading').waitFor({ timeout: UI_MS });
    return page;
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: the sentence names the button and the app, the marker sits on the button, the JSON waits behind the toggle, approving works`, async () => {
      const expected = EXPECTED[locale];
      await walletHome();
      const pay = await payButton();
      const page = await openConsole(locale);
      const call = invoke(bound.client, bound.channel, 'android_tap', { element: { text: 'Pay $25.00' } });
      let answered = false;
      try {
        const sentence = page.locator('[data-testid^="approval-sentence-"]');
        await sentence.first().waitFor({ timeout: UI_MS });
        const id = ((await sentence.first().getAttribute('data-testid')) ?? '').replace('approval-sentence-', '');

        // One sentence in the person's language, the button's words and the app's name in bold.
        assert.equal(await sentence.innerText(), expected.sentence);
        assert.deepEqual(await sentence.locator('b').allInnerTexts(), expected.bold);
        const app = page.getByTestId(`approval-app-${id}`);
        assert.equal(await app.getAttribute('data-package'), WALLET);
        assert.match(await app.innerText(), /^W\s*Wallet\s*com\.example\.wallet$/);
        assert.deepEqual(
          await page.getByTestId(`approval-reasons-${id}`).locator('li').allInnerTexts(),
          expected.reasons,
        );
        assert.match(await page.getByTestId(`approval-${id}`).innerText(), new RegExp(expected.approveOnce));
        assert.doesNotMatch(await page.getByTestId(`approval-${id}`).innerText(), /android_tap|text_contains|\{"/);

        // The marker is drawn over the button, at its place on the phone's screen, scaled with the picture.
        const img = page.getByTestId(`approval-screenshot-${id}`);
        await waitUntilAsync(
          () => img.evaluate((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth > 0),
          'the screenshot',
        );
        const picture = await img.boundingBox();
        const box = await page.getByTestId(`approval-marker-box-${id}`).boundingBox();
        assert.ok(picture && box, 'picture and marker are drawn');
        const [left, top, right, bottom] = pay.bounds as [number, number, number, number];
        // Within 2.5 px of the button's edges (the box's 3 px line straddles its edge).
        const near = (
          actualPx: number,
          phonePx: number,
          phoneSide: number,
          pictureSide: number,
          what: string,
        ): void => {
          const expectedPx = (phonePx / phoneSide) * pictureSide;
          assert.ok(
            Math.abs(actualPx - expectedPx) < 2.5,
            `${what}: ${actualPx.toFixed(1)} px vs ${expectedPx.toFixed(1)} px`,
          );
        };
        near(box.x - picture.x, left, pay.width, picture.width, 'left edge');
        near(box.x + box.width - picture.x, right, pay.width, picture.width, 'right edge');
        near(box.y - picture.y, top, pay.height, picture.height, 'top edge');
        near(box.y + box.height - picture.y, bottom, pay.height, picture.height, 'bottom edge');
        assert.ok(
          Math.abs(picture.width / picture.height - pay.width / pay.height) < 0.01,
          'the picture keeps the screen’s proportions',
        );

        // The developer's view is there, closed until asked for.
        const json = page.getByTestId(`approval-arguments-${id}`);
        assert.equal(await json.isVisible(), false, 'the JSON is hidden at first');
        assert.equal(await page.getByTestId(`approval-tool-${id}`).isVisible(), false, 'the tool id too');
        await shot(page, locale, id);
        const summary = page.getByTestId(`approval-details-${id}`).locator('summary');
        assert.equal(await summary.innerText(), expected.details);
        await summary.click();
        assert.equal(await json.isVisible(), true, 'the toggle opens the JSON');
        assert.deepEqual(JSON.parse(await json.innerText()), { element: { text: 'Pay $25.00' } });
        assert.equal(await page.getByTestId(`approval-tool-${id}`).innerText(), 'android_tap');
        await page.getByTestId(`approval-${id}`).screenshot({ path: join(SHOTS, locale, 'approval-card-details.png') });

        // Approving still lets the tap through: the wallet asks to confirm the payment.
        await page.getByTestId(`approval-approve-once-${id}`).click();
        const ack = await call;
        answered = true;
        assert.equal(ack.type, 'tool.invoke.ack', JSON.stringify(ack.error));
        assert.equal(ack.error, undefined);
        await waitUntil(() => bound.rig.phones[0]!.screenState().screen === 'confirm', 5_000, 'the confirmation');
        await page.getByTestId('approvals-empty').waitFor({ timeout: UI_MS });
      } finally {
        await page.context().close();
        if (!answered) {
          // A failed check leaves the call held: refuse it so the client's request ends with the test.
          const state = await bound.rig.bridge.admin('GET', '/admin/api/state');
          for (const held of state.body.approvals as Array<{ approval_id: string }>)
            await bound.rig.bridge.admin('POST', `/admin/api/approvals/${held.approval_id}`, { decision: 'deny' });
          await call.catch(() => undefined);
        }
      }
    });
  }
});

async function waitUntilAsync(check: () => Promise<boolean>, what: string, timeoutMs = UI_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function shot(page: Page, locale: Locale, id: string): Promise<void> {
  mkdirSync(join(SHOTS, locale), { recursive: true });
  await page.mouse.move(1, 1);
  await page.screenshot({ path: join(SHOTS, locale, 'approvals.png') });
  await page.getByTestId(`approval-${id}`).screenshot({ path: join(SHOTS, locale, 'approval-card.png') });
}

/**
 * The person drives a taken-over phone from the live view (#26, docs/REFERENCE.md "Take
 * over"), in English and Chinese, in Debian's Chromium through playwright-core, against a
 * simulated phone behind a real adb server: a click lands as `input tap` within ±2 phone
 * pixels of the point clicked, in portrait and on a turned (landscape) phone, through the
 * picture's letterboxing and CSS scaling; a click on the bars beside the picture sends
 * nothing; press and hold shows its ring and lands as a long press; a drag as a swipe; a wheel
 * flick as one scroll; the keyboard types English, and Chinese through an input method's
 * composition, into the phone's field, with Enter and Backspace as the phone's keys. The
 * timeline says "You typed 6 characters" (never the text), and the lease says "paused". The
 * person lets the agent watch ("The agent may watch"), so the test finds the field and an icon
 * where the agent's tree says they are.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startBoundRig, type BoundRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { NOTES_PKG } from '../../main/sim/screen/app-notes';
import type { SimulatedPhone } from '../../main/sim/phone';

const UI_MS = 10_000;
const LIST = 'com.example.list';

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('takeover-drive-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

interface Picture {
  /** Where the phone's picture is drawn on the page (object-fit: contain inside the element). */
  left: number;
  top: number;
  width: number;
  height: number;
  /** The element's own box, bars included. */
  box: { x: number; y: number; width: number; height: number };
  screenWidth: number;
  screenHeight: number;
}

/** The drawn picture, from the element's box and the phone's screen shape (what the frame headers said). */
async function pictureOf(frame: Locator): Promise<Picture> {
  const box = (await frame.boundingBox())!;
  const screenWidth = Number(await frame.getAttribute('data-screen-width'));
  const screenHeight = Number(await frame.getAttribute('data-screen-height'));
  const scale = Math.min(box.width / screenWidth, box.height / screenHeight);
  const width = screenWidth * scale;
  const height = screenHeight * scale;
  return {
    left: box.x + (box.width - width) / 2,
    top: box.y + (box.height - height) / 2,
    width,
    height,
    box,
    screenWidth,
    screenHeight,
  };
}

/** A whole CSS pixel near a share of the picture, and the phone pixel it stands for. */
function spot(p: Picture, fx: number, fy: number): { cx: number; cy: number; x: number; y: number } {
  const cx = Math.round(p.left + p.width * fx);
  const cy = Math.round(p.top + p.height * fy);
  return { cx, cy, x: ((cx - p.left) / p.width) * p.screenWidth, y: ((cy - p.top) / p.height) * p.screenHeight };
}

/** The CSS point over a phone pixel. */
function cssOf(p: Picture, x: number, y: number): { cx: number; cy: number } {
  return { cx: p.left + ((x + 0.5) / p.screenWidth) * p.width, cy: p.top + ((y + 0.5) / p.screenHeight) * p.height };
}

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`driving a taken-over phone from the view (${locale})`, { concurrency: 1 }, () => {
    let bound: BoundRig;
    let phone: SimulatedPhone;
    let context: BrowserContext;
    let view: Page;
    let deviceId = '';
    const en = locale === 'en';
    const inputsSince = (from: number): string[] =>
      phone.argvLog
        .slice(from)
        .map((argv) => argv.join(' '))
        .filter((line) => line.startsWith('input ') || line.startsWith('am broadcast'));
    const frame = (): Locator => view.getByTestId('phone-view-frame');
    /** Waits until the view has had `count` more inputs answered than `sent`. */
    const answered = async (sent: number, count = 1, what = 'the input answered'): Promise<true> => {
      try {
        return await eventually(
          async () => Number(await frame().getAttribute('data-sent')) >= sent + count || undefined,
          what,
        );
      } catch (error) {
        const now = await frame().getAttribute('data-sent');
        throw new Error(
          `${String(error)}: ${sent} → ${now}; sent to the phone: ${phone.argvLog.slice(-5).join(' | ')}`,
          { cause: error },
        );
      }
    };
    const sentCount = async (): Promise<number> => Number(await frame().getAttribute('data-sent'));

    before(async () => {
      bound = await startBoundRig({ consoleDir: buildDir }, { withAdbKeyboard: true });
      phone = bound.rig.phones[0]!;
      deviceId = bound.rig.device(0).deviceId;
      result(await invoke(bound.client, bound.channel, 'android_launch_app', { package: NOTES_PKG }));
      // A viewport whose screen column is wider than a portrait phone's picture may be: bars beside it.
      context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: en ? 'en-US' : 'zh-CN' });
      view = await context.newPage();
      await view.goto(`${bound.rig.bridge.url}/console/#/devices/${deviceId}?token=${bound.rig.bridge.adminToken}`);
      await view.getByTestId('phone-view').waitFor({ timeout: UI_MS });
      await view.getByTestId('phone-view-agent-may-watch').check();
      await view.getByTestId('phone-view-takeover').click();
      await view.getByTestId('phone-view-taken-over').waitFor({ timeout: UI_MS });
      assert.equal(await view.getByTestId('phone-view-watch').getAttribute('data-watch'), 'true');
      await eventually(async () => (await frame().getAttribute('data-drives')) === 'true', 'a drivable screen');
    });
    after(async () => {
      await context?.close();
      await bound?.stop();
    });

    test('portrait: a click taps the phone pixel under it (±2 px); the bars beside the picture send nothing', async () => {
      const p = await pictureOf(frame());
      assert.deepEqual([p.screenWidth, p.screenHeight], [1080, 2400]);
      for (const [fx, fy] of [
        [0.25, 0.75],
        [0.9, 0.1],
        [0.5, 0.5],
      ] as const) {
        const at = spot(await pictureOf(frame()), fx, fy);
        const from = phone.argvLog.length;
        const sent = await sentCount();
        await view.mouse.click(at.cx, at.cy);
        await answered(sent);
        const taps = inputsSince(from);
        assert.equal(taps.length, 1, taps.join('\n'));
        const [x, y] = taps[0]!.split(' ').slice(2).map(Number) as [number, number];
        assert.match(taps[0]!, /^input tap \d+ \d+$/);
        assert.ok(Math.abs(x - at.x) <= 2 && Math.abs(y - at.y) <= 2, `${taps[0]} for ${at.x}, ${at.y}`);
      }
      const bar = p.left - p.box.x;
      if (bar >= 4) {
        const from = phone.argvLog.length;
        await view.mouse.click(p.box.x + bar / 2, p.top + p.height / 2);
        // Anything sent would be answered before this tap, which is on the picture.
        const sent = await sentCount();
        const at = spot(p, 0.5, 0.95);
        await view.mouse.click(at.cx, at.cy);
        await answered(sent);
        assert.equal(inputsSince(from).length, 1, `the bar sent nothing: ${inputsSince(from).join('\n')}`);
      }
    });

    test('press and hold shows its ring and lands as a long press; a drag is a swipe; a wheel flick is one scroll', async () => {
      const p = await pictureOf(frame());
      const at = spot(p, 0.3, 0.6);
      let from = phone.argvLog.length;
      let sent = await sentCount();
      await view.mouse.move(at.cx, at.cy);
      await view.mouse.down();
      const ring = view.getByTestId('phone-view-hold');
      await ring.waitFor({ timeout: UI_MS });
      await eventually(async () => (await ring.getAttribute('data-held')) === 'true', 'the ring held');
      await view.mouse.up();
      await answered(sent);
      assert.equal(await ring.count(), 0, 'the ring goes when the press ends');
      const hold = inputsSince(from);
      const m = /^input swipe (\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(hold[0] ?? '');
      assert.ok(m && hold.length === 1, hold.join('\n'));
      const [x1, y1, x2, y2, ms] = m.slice(1).map(Number) as [number, number, number, number, number];
      assert.ok(x1 === x2 && y1 === y2, 'a long press does not move');
      assert.ok(Math.abs(x1 - at.x) <= 2 && Math.abs(y1 - at.y) <= 2, hold[0]);
      assert.ok(ms >= 800 && ms <= 5000, hold[0]);

      // A drag upwards over a third of the picture: a swipe from the press to the release.
      const p2 = await pictureOf(frame());
      const start = spot(p2, 0.5, 0.7);
      const end = spot(p2, 0.5, 0.35);
      from = phone.argvLog.length;
      sent = await sentCount();
      await view.mouse.move(start.cx, start.cy);
      await view.mouse.down();
      await view.mouse.move(end.cx, end.cy, { steps: 8 });
      await view.mouse.up();
      await answered(sent);
      const drag = inputsSince(from);
      const d = /^input swipe (\d+) (\d+) (\d+) (\d+) \d+$/.exec(drag[0] ?? '');
      assert.ok(d && drag.length === 1, drag.join('\n'));
      const [dx1, dy1, dx2, dy2] = d.slice(1).map(Number) as [number, number, number, number];
      assert.ok(Math.abs(dx1 - start.x) <= 2 && Math.abs(dy1 - start.y) <= 2, drag[0]);
      assert.ok(Math.abs(dx2 - end.x) <= 2 && Math.abs(dy2 - end.y) <= 2, drag[0]);

      // A wheel flick of three notches down: one swipe, the finger moving up by 45 % of the height.
      // A real wheel event from the browser (so the page's own scroll is really tested), three notches at once.
      const middle = spot(await pictureOf(frame()), 0.5, 0.5);
      await view.mouse.move(middle.cx, middle.cy);
      const scrollOf = async (turn: () => Promise<void>): Promise<[number, number]> => {
        const before = phone.argvLog.length;
        const count = await sentCount();
        await turn();
        await answered(count);
        const scroll = inputsSince(before);
        const s = /^input swipe (\d+) (\d+) (\d+) (\d+) 250$/.exec(scroll[0] ?? '');
        assert.ok(s && scroll.length === 1, scroll.join('\n'));
        const [, sy1, , sy2] = s.slice(1).map(Number) as [number, number, number, number];
        return [sy1 - sy2, scroll.length];
      };
      const pageScroll = await view.evaluate(() => document.querySelector('.content')?.scrollTop ?? 0);
      assert.deepEqual(await scrollOf(() => view.mouse.wheel(0, 300)), [Math.round(2400 * 0.45), 1]);
      assert.equal(
        await view.evaluate(() => document.querySelector('.content')?.scrollTop ?? 0),
        pageScroll,
        'the page did not scroll',
      );
      // Three separate notches within one flick are gathered into that same one swipe. They are sent within one
      // browser task: a notch per CDP round trip can be spread wider than a flick on a loaded machine.
      const gatheredNotches = () =>
        view.evaluate(
          ([x, y]) => {
            const target = document.elementFromPoint(x, y);
            for (let i = 0; i < 3; i++) {
              target?.dispatchEvent(
                new WheelEvent('wheel', { deltaY: 100, clientX: x, clientY: y, bubbles: true, cancelable: true }),
              );
            }
          },
          [middle.cx, middle.cy] as const,
        );
      assert.deepEqual(await scrollOf(gatheredNotches), [Math.round(2400 * 0.45), 1]);
    });

    test('the keyboard types English and Chinese (input method) into the phone’s field; Enter and Backspace are keys', async () => {
      // The person let the agent watch: the field is where the agent's tree says.
      assert.equal(phone.foregroundPackage(), NOTES_PKG);
      const tree = result(await invoke(bound.client, bound.channel, 'android_ui_tree'));
      const field = (tree.nodes as Json[]).find((n) => String(n.resource_id).endsWith('/note_text'));
      assert.ok(field, JSON.stringify(tree.nodes));
      const p = await pictureOf(frame());
      const over = cssOf(p, ...(field.center as [number, number]));
      let sent = await sentCount();
      await view.mouse.click(over.cx, over.cy);
      await answered(sent);
      assert.ok(await view.getByTestId('phone-view-typing').isVisible(), 'the view says typing goes to the phone');

      const from = phone.argvLog.length;
      sent = await sentCount();
      await view.keyboard.type('hi you');
      await eventually(async () => phone.typedText('note_text') === 'hi you' || undefined, 'the English text typed');
      await answered(sent);
      // Gathered into requests as typed (how many depends on the typist's speed), in order, nothing else.
      const typedLines = inputsSince(from).filter((line) => line.startsWith('input text '));
      assert.equal(typedLines.map((line) => line.slice('input text '.length)).join(''), 'hi%syou');

      // An input method composes "nihao" and commits 你好: only the committed text reaches the phone.
      const cdp = await context.newCDPSession(view);
      await cdp.send('Input.imeSetComposition', { text: 'nihao', selectionStart: 5, selectionEnd: 5 });
      await cdp.send('Input.insertText', { text: '你好' });
      await eventually(
        async () => phone.typedText('note_text') === 'hi you你好' || undefined,
        'the Chinese text typed',
      );
      assert.ok(!inputsSince(from).some((line) => line.includes('nihao')), 'the composition never reached the phone');
      assert.ok(inputsSince(from).some((line) => line.startsWith('am broadcast -a ADB_INPUT_B64')));

      // The typed requests all answered first, so the count below is of the two keys alone.
      await answered(sent, typedLines.length + 1, 'the typed text answered');
      const keysFrom = phone.argvLog.length;
      sent = await sentCount();
      await view.keyboard.press('Backspace');
      await view.keyboard.press('Enter');
      await answered(sent, 2);
      assert.deepEqual(inputsSince(keysFrom), ['input keyevent 67', 'input keyevent 66']);
      // Enter in a multi-line note is a line break.
      assert.equal(phone.typedText('note_text'), 'hi you你\n');
    });

    test('the timeline has the person’s actions in words, never the text typed; the lease says paused', async () => {
      // "hi you" in one request or a few, as it was gathered; 你好 in one (an input method commits it whole).
      const words = en ? 'You typed 2 characters' : '你输入了 2 个字符';
      const timeline = view.getByTestId('pv-timeline');
      const all = [
        words,
        en ? 'You tapped' : '你点击了',
        en ? 'You pressed and held' : '你长按了',
        en ? 'You swiped' : '你滑动了',
        en ? 'You scrolled down' : '你向下滚动了',
        en ? 'You pressed Backspace' : '你按了退格',
        // The last action: once it is listed, every earlier one is.
        en ? 'You pressed Enter' : '你按了回车',
      ];
      const text = await eventually(
        async () => {
          const shown = await timeline.innerText();
          return all.every((w) => shown.includes(w)) ? shown : undefined;
        },
        `the timeline with ${all.join(', ')}`,
      );
      assert.ok(!text.includes('hi you') && !text.includes('你好'), 'no typed text in the timeline');
      assert.ok((await view.locator('[data-by="person"]').count()) >= 8);

      const lease = view.getByTestId('phone-view-lease');
      const paused = en ? 'paused — a person has the phone' : '已暂停 — 手机由人操作中';
      assert.ok((await lease.innerText()).includes(paused), await lease.innerText());
      assert.equal(await view.getByTestId('phone-view-lease-ends').count(), 0, 'no countdown runs');

      // Bindings says the same of this lease's timers.
      const bindings = await context.newPage();
      try {
        await bindings.goto(`${bound.rig.bridge.url}/console/#/bindings?token=${bound.rig.bridge.adminToken}`);
        const idle = bindings.getByTestId(`channel-idle-paused-${bound.channel}`);
        await idle.waitFor({ timeout: UI_MS });
        assert.equal(await idle.innerText(), paused);
        assert.equal(await bindings.getByTestId(`channel-idle-${bound.channel}`).count(), 0, 'no idle countdown');
      } finally {
        await bindings.close();
      }
    });

    test('landscape: the turned picture, a click taps its turned pixel (±2 px) and hits the element under it', async () => {
      const sentHome = await sentCount();
      await view.getByTestId('phone-view-key-home').click();
      await answered(sentHome, 1, 'Home answered');
      await eventually(async () => phone.foregroundPackage() !== NOTES_PKG || undefined, 'the home screen');
      phone.setQuirks(['landscape']);
      await eventually(async () => (await frame().getAttribute('data-screen-width')) === '2400' || undefined, 'turned');
      // The frame in the view is the turned one once it is wide.
      await eventually(async () => {
        const box = await frame().boundingBox();
        return box !== null && box.width > box.height;
      }, 'a wide picture');
      const p = await pictureOf(frame());
      assert.deepEqual([p.screenWidth, p.screenHeight], [2400, 1080]);

      // The launcher's "Long list" icon where the turned tree says it is: the sim opens the app it hits.
      const tree = result(await invoke(bound.client, bound.channel, 'android_ui_tree', { interactive_only: false }));
      const icon = (tree.nodes as Json[]).find((n) => n.text === 'Long list');
      assert.ok(icon, JSON.stringify(tree.nodes));
      const over = cssOf(p, ...(icon.center as [number, number]));
      let sent = await sentCount();
      await view.mouse.click(over.cx, over.cy);
      await answered(sent);
      await eventually(async () => phone.foregroundPackage() === LIST || undefined, 'the list app opened by the tap');

      for (const [fx, fy] of [
        [0.25, 0.75],
        [0.8, 0.2],
      ] as const) {
        const q = await pictureOf(frame());
        const at = spot(q, fx, fy);
        const from = phone.argvLog.length;
        sent = await sentCount();
        await view.mouse.click(at.cx, at.cy);
        await answered(sent);
        const tap = inputsSince(from);
        const [x, y] = (tap[0] ?? '').split(' ').slice(2).map(Number) as [number, number];
        assert.ok(
          tap.length === 1 && Math.abs(x - at.x) <= 2 && Math.abs(y - at.y) <= 2,
          `${tap.join()} for ${at.x}, ${at.y}`,
        );
      }
      phone.setQuirks([]);
    });
  });
}

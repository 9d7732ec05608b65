/**
 * Names instead of codes (issue #37 point 7), in English and Chinese: a simulated phone reads
 * as its own maker's ("samsung Galaxy S23", never "Google Galaxy S23") with a "simulated"
 * badge where a real phone says USB or LAN; the lease holder is named on the card and the phone
 * view (xAgent, or the name a lab claimant gave), not by its channel id; a tap the agent aimed
 * by a ref reads as the words on the element ("Tap on “Save”"), not "on element @yl3", in the
 * phone view and in Activity, whose line keeps the words from the call; an app opened or
 * closed by its package reads by the name the phone's launcher gives it ("Notes").
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { eventually, startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { bindChannel, invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';
import { XAgentClient } from '../helpers/xagent-client';
import { answerApproval, waitForApproval } from '../helpers/approvals';

const UI_MS = 10_000;
const WORDS = {
  en: {
    lang: 'en-US',
    onSave: 'on “Save”',
    openApp: 'Open an app',
    simulated: 'simulated',
    xagent: 'xAgent',
    claimant: 'Ada Lovelace (lab claim)',
  },
  'zh-CN': {
    lang: 'zh-CN',
    onSave: '点在“Save”上',
    openApp: '打开应用',
    simulated: '模拟',
    xagent: 'xAgent',
    claimant: 'Ada Lovelace（实验室认领）',
  },
} as const;

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('names-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

describe('names instead of codes', { concurrency: 1 }, () => {
  let rig: DeviceRig;

  before(async () => {
    // The programs on phones run, as by default outside tests: scrcpy-server tells the apps' names.
    rig = await startDeviceRig(2, { consoleDir: buildDir, fastLane: { portless: true } });
  });
  after(async () => {
    await rig?.stop();
  });

  for (const locale of ['en', 'zh-CN'] as const) {
    for (const width of [1280, 390]) {
      test(`${locale} at ${width} px: a simulated phone shows its own maker and a "simulated" badge`, async () => {
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: WORDS[locale].lang });
        const page = await context.newPage();
        try {
          await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
          const galaxy = rig.device(1).deviceId;
          const pixel = rig.device(0).deviceId;
          await page.getByTestId(`device-${galaxy}`).waitFor({ timeout: UI_MS });
          assert.match(await page.getByTestId(`device-summary-${galaxy}`).innerText(), /^samsung Galaxy S23 · /);
          assert.match(await page.getByTestId(`device-summary-${pixel}`).innerText(), /^Google Pixel 7 · /);
          for (const id of [galaxy, pixel]) {
            const badge = page.getByTestId(`device-transport-${id}`);
            assert.equal((await badge.innerText()).trim(), WORDS[locale].simulated);
            assert.ok(await badge.isVisible());
          }
        } finally {
          await context.close();
        }
      });
    }
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: the lease holder is named on the card and the phone view, not by its channel`, async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      const pixel = rig.device(0).deviceId;
      const galaxy = rig.device(1).deviceId;
      const channels: string[] = [];
      try {
        await client.hello();
        channels.push(await bindChannel(rig, client, pixel));
        // A lab claim with the claimant's name for the other phone (free, and its reset after the last one over).
        await waitUntil(
          () =>
            rig.bridge.core.bindings.leaseHolder(galaxy) === undefined &&
            rig.bridge.core.adminState().devices.find((d) => d.device_id === galaxy)?.turnover?.state !== 'running',
          UI_MS,
          'the phone free and reset',
        );
        assert.equal(
          (
            await rig.bridge.admin('POST', '/admin/api/access-codes', {
              scope: galaxy,
              code: 'names-code-1',
              require_approval: false,
            })
          ).status,
          200,
        );
        const claim = String((await client.openChannel('')).payload?.connector_channel_id);
        channels.push(claim);
        const state = await rig.bridge.admin('GET', '/admin/api/state');
        const label = String(
          (state.body.devices as Array<{ device_id: string; display_name: string }>).find((d) => d.device_id === galaxy)
            ?.display_name,
        );
        const ack = await client.request(
          'auth.start',
          { flow_id: 'device_claim', input: { device: label, access_code: 'names-code-1', requester: 'Ada Lovelace' } },
          claim,
        );
        assert.equal(ack.payload?.status, 'authenticated', JSON.stringify(ack.payload));

        await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
        const pixelHolder = page.getByTestId(`device-holder-${pixel}`);
        await pixelHolder.waitFor({ timeout: UI_MS });
        assert.equal(await pixelHolder.innerText(), WORDS[locale].xagent);
        await eventually(
          async () => (await page.getByTestId(`device-holder-${galaxy}`).count()) > 0,
          'the claim on the card',
        );
        assert.equal(await page.getByTestId(`device-holder-${galaxy}`).innerText(), WORDS[locale].claimant);
        await page.evaluate((id) => (location.hash = `#/devices/${id}`), galaxy);
        const viewHolder = page.getByTestId('phone-view-holder');
        await viewHolder.waitFor({ timeout: UI_MS });
        assert.equal(await viewHolder.innerText(), WORDS[locale].claimant);
      } finally {
        for (const channel of channels) await client.request('auth.logout', {}, channel).catch(() => undefined);
        await client.close();
        await context.close();
      }
    });
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: a tap aimed by a ref reads as the element's words in the phone view`, async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      const pixel = rig.device(0).deviceId;
      let channel = '';
      try {
        await client.hello();
        channel = await bindChannel(rig, client, pixel);
        result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
        const nodes = result(await invoke(client, channel, 'android_ui_tree')).nodes as Array<{
          text?: string;
          ref?: string;
        }>;
        const save = nodes.find((n) => n.text === 'Save');
        assert.ok(save?.ref, JSON.stringify(nodes));
        const tapped = result(await invoke(client, channel, 'android_tap', { ref: save.ref }));
        assert.equal(tapped.status, 'tapped');

        await page.goto(`${rig.bridge.url}/console/#/devices/${pixel}?token=${rig.bridge.adminToken}`);
        const row = page.locator('[data-tool="android_tap"]').first();
        await row.waitFor({ timeout: UI_MS });
        const words = await row.locator('[data-testid^="pv-action-words-"]').innerText();
        assert.equal(words, WORDS[locale].onSave);
        assert.ok(!words.includes(String(save.ref)), words);
      } finally {
        if (channel) await client.request('auth.logout', {}, channel).catch(() => undefined);
        await client.close();
        await context.close();
      }
    });
  }

  for (const locale of ['en', 'zh-CN'] as const) {
    test(`${locale}: an app opened by its package reads by its name; Activity keeps the element's words`, async () => {
      const context = await browser.newContext({ viewport: { width: 390, height: 900 }, locale: WORDS[locale].lang });
      const page = await context.newPage();
      const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      const pixel = rig.device(0).deviceId;
      let channel = '';
      try {
        await client.hello();
        channel = await bindChannel(rig, client, pixel);
        const launched = result(await invoke(client, channel, 'android_launch_app', { package: 'com.example.notes' }));
        // The agent is told the name too, as the phone's launcher shows it.
        assert.equal(launched.app_label, 'Notes');
        const listed = result(await invoke(client, channel, 'android_list_apps')).apps as Array<{
          package: string;
          label: string | null;
        }>;
        assert.deepEqual(
          listed.find((a) => a.package === 'com.example.wallet'),
          { package: 'com.example.wallet', label: 'Wallet' },
        );
        // A held call's card names the app as the phone does, too.
        const held = invoke(client, channel, 'android_grant_permission', {
          package: 'com.example.notes',
          permission: 'android.permission.CAMERA',
        });
        const approval = await waitForApproval(rig.bridge, 'android_grant_permission');
        assert.deepEqual(approval.app, { package: 'com.example.notes', label: 'Notes' });
        await answerApproval(rig.bridge, approval, 'deny');
        await held;
        const nodes = result(await invoke(client, channel, 'android_ui_tree')).nodes as Array<{
          text?: string;
          ref?: string;
        }>;
        const save = nodes.find((n) => n.text === 'Save');
        assert.ok(save?.ref, JSON.stringify(nodes));
        result(await invoke(client, channel, 'android_tap', { ref: save.ref }));

        await page.goto(`${rig.bridge.url}/console/#/devices/${pixel}?token=${rig.bridge.adminToken}`);
        const opened = page.locator('[data-tool="android_launch_app"]').first();
        await opened.waitFor({ timeout: UI_MS });
        assert.equal(await opened.locator('[data-testid^="pv-action-words-"]').innerText(), 'Notes');
        assert.ok(!(await opened.innerText()).includes('com.example.notes'));

        await page.evaluate(() => (location.hash = '#/activity'));
        const table = page.getByTestId('activity-table');
        await table.waitFor({ timeout: UI_MS });
        const audit = (await rig.bridge.admin('GET', '/admin/api/audit?limit=50')).body.entries as Array<{
          id: string;
          tool_id: string;
          target_label?: string | null;
        }>;
        const launchLine = audit.find((e) => e.tool_id === 'android_launch_app');
        const tapLine = audit.find((e) => e.tool_id === 'android_tap');
        assert.ok(launchLine && tapLine, JSON.stringify(audit));
        assert.equal(tapLine.target_label, 'Save');
        const launchRow = page.getByTestId(`activity-row-${launchLine.id}`);
        assert.match(await launchRow.innerText(), new RegExp(WORDS[locale].openApp));
        assert.equal(await page.getByTestId(`activity-words-${launchLine.id}`).innerText(), 'Notes');
        const tapWords = await page.getByTestId(`activity-words-${tapLine.id}`).innerText();
        assert.equal(tapWords, WORDS[locale].onSave);
        assert.ok(!tapWords.includes(String(save.ref)), tapWords);
        // Nothing on the narrow page scrolls sideways.
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
      } finally {
        if (channel) await client.request('auth.logout', {}, channel).catch(() => undefined);
        await client.close();
        await context.close();
      }
    });
  }
});

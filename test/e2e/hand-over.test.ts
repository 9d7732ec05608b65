/**
 * The hand-over on the console (#27), in English and in Chinese (Debian's Chromium through
 * playwright-core): after a lab claim's lease that pushed a file, the phone's card says in
 * words what the reset did; a reset that failed (an app gone behind the bridge's back) says
 * what failed on the card and keeps the phone until the person presses "I checked the phone";
 * a claim waiting in line shows on the card; Settings → Hand-over has its own address and
 * changes the policy. Screenshots go to <os tmp>/xagent-console-i18n/<locale>/hand-over-*.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startConsoleBrowser, stopConsoleBrowser } from '../helpers/console-browser';
import { invoke, startDeviceRig, waitUntil, type DeviceRig } from '../helpers/device-rig';
import { XAgentClient } from '../helpers/xagent-client';
import { result } from '../helpers/acks';

const SHOTS = join(tmpdir(), 'xagent-console-i18n');
const UI_MS = 10_000;
const CODE = 'hand-over-code-1';

let browser: Browser;
let buildDir = '';

before(async () => ({ browser, buildDir } = await startConsoleBrowser('hand-over-e2e-')));
after(() => stopConsoleBrowser(browser, buildDir));

for (const locale of ['en', 'zh-CN'] as const) {
  describe(`hand-over on the console (${locale})`, { concurrency: 1 }, () => {
    let rig: DeviceRig;
    let context: BrowserContext;
    let page: Page;
    let deviceId = '';
    let name = '';
    const clients: XAgentClient[] = [];
    const words = (en: RegExp, zh: RegExp): RegExp => (locale === 'en' ? en : zh);

    async function shot(label: string): Promise<void> {
      mkdirSync(join(SHOTS, locale), { recursive: true });
      await page.mouse.move(1, 1);
      await page.screenshot({ path: join(SHOTS, locale, `hand-over-${label}.png`), fullPage: true });
    }
    /** Free, and its reset after the last lease finished (a claim meanwhile would wait in line). */
    async function settled(): Promise<void> {
      await waitUntil(
        () =>
          rig.bridge.core.bindings.leaseHolder(deviceId) === undefined &&
          rig.bridge.core.adminState().devices[0]?.turnover?.state !== 'running',
        UI_MS,
        'the phone free and reset',
      );
    }
    async function claim(): Promise<{ client: XAgentClient; channel: string; status: string }> {
      const client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
      clients.push(client);
      await client.hello();
      const channel = String((await client.openChannel('')).payload?.connector_channel_id);
      const ack = await client.request(
        'auth.start',
        { flow_id: 'device_claim', input: { device: name, access_code: CODE } },
        channel,
      );
      return { client, channel, status: String(ack.payload?.status) };
    }
    async function pushFile(client: XAgentClient, channel: string, file: string): Promise<void> {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(Buffer.from('x'))], { type: 'text/plain' }), file);
      const res = await fetch(`${rig.bridge.url}/files/uploads`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${rig.bridge.apiKey}`, 'X-XAgent-Connector-Channel-ID': channel },
        body: form,
      });
      const ref = String(((await res.json()) as { file_ref: string }).file_ref);
      result(await invoke(client, channel, 'android_push_file', { file_ref: ref }));
    }

    before(async () => {
      rig = await startDeviceRig(1, { consoleDir: buildDir });
      deviceId = rig.device(0).deviceId;
      const state = await rig.bridge.admin('GET', '/admin/api/state');
      name = String((state.body.devices as Array<{ display_name: string }>)[0]?.display_name);
      assert.equal(
        (
          await rig.bridge.admin('POST', '/admin/api/access-codes', {
            scope: deviceId,
            code: CODE,
            require_approval: false,
          })
        ).status,
        200,
      );
      await rig.bridge.admin('PUT', '/admin/api/policies', {
        defaults: { push_file: 'allow' },
        per_device: {},
        sensitive_apps: [],
      });
      context = await browser.newContext({
        viewport: { width: 1280, height: 900 },
        locale: locale === 'en' ? 'en-US' : 'zh-CN',
      });
      page = await context.newPage();
      await page.goto(`${rig.bridge.url}/console/#/devices?token=${rig.bridge.adminToken}`);
      await page.getByTestId(`device-${deviceId}`).waitFor({ timeout: UI_MS });
    });
    after(async () => {
      for (const c of clients) await c.close().catch(() => undefined);
      await context?.close();
      await rig?.stop();
    });

    test('the card says what the reset did, and a claim waiting in line', async () => {
      const first = await claim();
      assert.equal(first.status, 'authenticated');
      await pushFile(first.client, first.channel, 'card.txt');
      const second = await claim();
      assert.equal(second.status, 'pending');
      const line = page.getByTestId(`device-claim-line-${deviceId}`);
      await line.waitFor({ timeout: UI_MS });
      assert.match(
        await line.innerText(),
        words(/^1 lab claim waiting for this phone$/, /^有 1 个实验室认领在排队等待这台手机$/),
      );
      await first.client.request('auth.logout', {}, first.channel);
      const done = page.getByTestId(`device-turnover-done-${deviceId}`);
      await done.waitFor({ timeout: UI_MS });
      assert.match(
        await done.innerText(),
        words(
          /^Reset \d+\.\d s after the last lease: no apps removed, 1 file deleted\.$/,
          /^上一次租约结束后已重置，用时 \d+\.\d s：未移除应用，删除了 1 个文件。$/,
        ),
      );
      await shot('card');
      await second.client.request('auth.logout', {}, second.channel);
      await settled();
    });

    test('a failed reset says what failed and keeps the phone until the person checked it', async () => {
      const first = await claim();
      assert.equal(first.status, 'authenticated');
      await pushFile(first.client, first.channel, 'kept.txt');
      // The file goes behind the bridge's back as a folder in its place: rm -f cannot delete it.
      const phone = rig.phones[0]!;
      const signal = new AbortController().signal;
      await phone.exec('rm /sdcard/Download/kept.txt', { signal });
      await phone.exec('mkdir /sdcard/Download/kept.txt', { signal });
      await first.client.request('auth.logout', {}, first.channel);
      const failed = page.getByTestId(`device-turnover-failed-${deviceId}`);
      await failed.waitFor({ timeout: UI_MS });
      assert.match(
        await failed.innerText(),
        words(/Resetting the phone after the last lease failed/, /上一次租约结束后重置手机失败/),
      );
      assert.match(await failed.innerText(), /delete \/sdcard\/Download\/kept\.txt/);
      await shot('failed');
      const blocked = await claim();
      assert.equal(blocked.status, 'pending', 'the phone is kept: a claim waits');
      await page.getByTestId(`device-turnover-dismiss-${deviceId}`).click();
      await waitUntil(() => rig.bridge.core.bindings.leaseHolder(deviceId) === blocked.channel, UI_MS, 'bound');
      await blocked.client.request('auth.logout', {}, blocked.channel);
      await settled();
    });

    test('Settings → Hand-over has its own address and changes the policy', async () => {
      await page.goto(`${rig.bridge.url}/console/#/settings/hand-over`);
      const section = page.getByTestId('settings-hand-over');
      await section.waitFor({ timeout: UI_MS });
      assert.match(await section.locator('h3').innerText(), words(/^Hand-over$/, /^交接$/));
      const approvals = page.getByTestId('settings-hand-over-approvals');
      assert.equal(await approvals.isChecked(), false);
      assert.equal(await page.getByTestId('settings-hand-over-claims').isChecked(), true);
      // The box follows the bridge's answer (a controlled input): click, then wait for the saved policy.
      await approvals.click();
      await waitUntil(() => rig.bridge.core.adminState().turnover_policy?.approvals === true, UI_MS, 'saved');
      await page.getByTestId('settings-hand-over-apps').fill('com.example.notes\ncom.example.shop');
      await page.getByTestId('settings-hand-over-save').click();
      await waitUntil(
        () =>
          rig.bridge.core.adminState().turnover_policy?.clear_data.join(',') === 'com.example.notes,com.example.shop',
        UI_MS,
        'apps saved',
      );
      await shot('settings');
    });
  });
}

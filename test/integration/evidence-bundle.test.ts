/**
 * A lease's evidence bundle through the real adb server and a simulated phone: bind, tap, a
 * screenshot, text typed, a call held for a person and approved, a logcat read, then logout.
 * The admin API lists the lease and serves its page and JSON as downloads; the page opens
 * offline in Chromium (file://) and shows the timeline with the tools' names; neither file
 * holds the API key, the admin token or the typed text. The turnover's report joins the
 * bundle once it ran. Screenshot of the opened page: /tmp/xagent-evidence/bundle.png.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM, eventually } from '../helpers/console-browser';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result, type Json } from '../helpers/acks';
import { answerApproval, waitForApproval } from '../helpers/approvals';
import { XAgentClient } from '../helpers/xagent-client';
import type { EvidenceBundle, EvidenceSummary } from '../../main/contract/evidence';

const SHOTS = '/tmp/xagent-evidence';
const TYPED = 'meet Anna at the pier';

describe('a lease’s evidence bundle', () => {
  let rig: DeviceRig;
  let client: XAgentClient;
  let browser: Browser | undefined;
  let dir: string;
  let summary: EvidenceSummary;
  let channel: string;

  const call = async (toolId: string, args: Json = {}): Promise<Json> =>
    result(await invoke(client, channel, toolId, args));
  const download = async (path: string): Promise<Response> =>
    fetch(`${rig.bridge.url}${path}`, { headers: { Authorization: `Bearer ${rig.bridge.adminToken}` } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'evidence-e2e-'));
    rig = await startDeviceRig(1);
    // The person's own phone gets a turnover too, so its report is in the bundle.
    assert.equal((await rig.bridge.admin('PUT', '/admin/api/turnover', { approvals: true })).status, 200);
    client = await XAgentClient.connect(rig.bridge.url, rig.bridge.apiKey);
    await client.hello();
    channel = await bindChannel(rig, client, rig.device(0).deviceId);

    await call('android_launch_app', { package: 'com.example.notes' });
    await call('android_tap', { element: { resource_id: 'note_text' } });
    await call('android_type_text', { text: TYPED });
    const shot = await call('android_screenshot');
    assert.match(String(shot.file_ref), /^file_/);
    // Opening the wallet is held for a person; approved, it runs.
    const held = invoke(client, channel, 'android_launch_app', { package: 'com.example.wallet' });
    await answerApproval(rig.bridge, await waitForApproval(rig.bridge, 'android_launch_app'), 'approve');
    assert.equal((await held).error, undefined);
    const pid = rig.phones[0]!.logcat.pidOf('com.example.notes')!;
    rig.phones[0]!.logcat.write('main', pid, pid, 'I', 'Evil', '<script>alert(1)</script>');
    await call('android_logcat', { max_lines: 50 });
    // A person holds the phone a while, not letting the agent watch.
    const takeover = `/admin/api/devices/${encodeURIComponent(rig.device(0).deviceId)}/takeover`;
    assert.equal((await rig.bridge.admin('POST', takeover, { action: 'take' })).status, 200);
    assert.equal((await rig.bridge.admin('POST', takeover, { action: 'hand_back' })).status, 200);
    assert.equal((await client.request('auth.logout', {}, channel)).payload?.status, 'ok');

    const deviceId = rig.device(0).deviceId;
    summary = await eventually(async () => {
      const res = await rig.bridge.admin('GET', `/admin/api/evidence?device_id=${encodeURIComponent(deviceId)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return (res.body.evidence as EvidenceSummary[])[0];
    }, 'the lease in the evidence list after the logout');
  });

  after(async () => {
    await browser?.close();
    await client?.close();
    await rig?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the list names the lease: phone, channel, times, how it ended', () => {
    assert.equal(summary.device_id, rig.device(0).deviceId);
    assert.equal(summary.connector_channel_id, channel);
    assert.equal(summary.end_reason, 'logout');
    assert.ok(summary.ended_at >= summary.started_at);
    assert.ok(summary.calls >= 6, JSON.stringify(summary));
    assert.ok(summary.bytes > 0);
  });

  test('the JSON has the calls, the approval with its screenshot, the screenshot, the log and the turnover; no secret', async () => {
    // The turnover runs after the lease; its report is added when it finished.
    const { bundle, text } = await eventually(
      async () => {
        const res = await download(`/admin/api/evidence/${summary.lease_id}?format=json`);
        assert.equal(res.status, 200);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="evidence-.+\.json"$/);
        assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
        const body = await res.text();
        const parsed = JSON.parse(body) as EvidenceBundle;
        return parsed.turnover !== null ? { bundle: parsed, text: body } : undefined;
      },
      'the turnover report in the bundle',
      20_000,
    );
    const tools = bundle.calls.map((c) => c.tool_id);
    for (const tool of [
      'android_tap',
      'android_type_text',
      'android_screenshot',
      'android_launch_app',
      'android_logcat',
    ])
      assert.ok(tools.includes(tool), `${tool} in ${tools.join(', ')}`);
    assert.equal(bundle.approvals.length, 1);
    assert.equal(bundle.approvals[0]?.decided_by, 'admin', 'approved at the console');
    assert.ok(bundle.approvals[0]?.screenshot?.base64, 'the approver’s screenshot is kept');
    assert.equal(bundle.screenshots.length, 1);
    assert.ok(bundle.screenshots[0]?.image, 'the screenshot still in the cache is kept');
    assert.ok(bundle.logcat && bundle.logcat.lines.length > 0);
    assert.ok(bundle.turnover, 'the turnover report arrived');
    assert.equal(bundle.turnover_expected, true);
    // Who held the phone when: the person, unwatched, from the take-over to the hand-back.
    assert.equal(bundle.person_holds?.length, 1, JSON.stringify(bundle.person_holds));
    const hold = bundle.person_holds?.[0];
    assert.ok(hold);
    assert.deepEqual([hold.by, hold.agent_may_watch], ['person at the computer', false]);
    assert.ok(
      hold.until !== null && hold.since >= summary.started_at && hold.until >= hold.since,
      JSON.stringify(hold),
    );
    assert.match(String(bundle.lease.holder?.client_address), /127\.0\.0\.1/, 'who asked for the phone');
    assert.ok(!text.includes(TYPED), 'typed text never in plain');
    assert.ok(!text.includes(rig.bridge.apiKey));
    assert.ok(!text.includes(rig.bridge.adminToken));
  });

  test('the page downloads as an attachment and opens offline in Chromium with the timeline in words', async () => {
    const res = await download(`/admin/api/evidence/${summary.lease_id}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="evidence-.+\.html"$/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    const html = await res.text();
    assert.ok(!html.includes(TYPED));
    assert.ok(!html.includes(rig.bridge.apiKey) && !html.includes(rig.bridge.adminToken));
    const file = join(dir, 'evidence.html');
    writeFileSync(file, html);

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(file).href);
    const rows = page.locator('ol.timeline > li.call');
    await rows.first().waitFor({ state: 'visible', timeout: 10_000 });
    assert.ok((await rows.count()) >= 6);
    const names = await page.locator('ol.timeline .tool').allInnerTexts();
    // A call reads by its tool's name and, where its line kept them, the words of what it acted on.
    for (const name of ['Open an app', 'Tap', 'Type text', 'Take a screenshot', 'Read the phone log'])
      assert.ok(
        names.some((n) => n === name || n.startsWith(`${name} `)),
        `${name} in ${names.join(', ')}`,
      );
    // The tap on the note's field: a text field's text is what someone typed (its hint here, the
    // note later), so the line keeps no words of it and the page names the tool alone.
    assert.ok(names.includes('Tap'), names.join(', '));
    assert.ok(!names.some((n) => n.includes('Write a note')), names.join(', '));
    assert.ok(await page.locator('#approvals img').first().isVisible(), 'the approver’s screenshot shows');
    assert.ok(await page.locator('#screenshots img').first().isVisible());
    assert.ok(await page.locator('#turnover dl').isVisible());
    assert.match(
      await page.locator('#holds li').innerText(),
      /person at the computer · the agent saw nothing of the screen/,
    );
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: join(SHOTS, 'bundle.png') });
    // The log is folded; the <script> a phone app logged is text, and nothing ran.
    const log = page.locator('#logcat pre');
    assert.equal(await log.isVisible(), false);
    await page.locator('#logcat summary').click();
    assert.match(await log.innerText(), /I Evil {4}: <script>alert\(1\)<\/script>|Evil.*<script>alert\(1\)<\/script>/);
    assert.equal(await page.locator('#logcat pre script').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(
      requests.filter((u) => !u.startsWith('file:') && !u.startsWith('data:')),
      [],
      'the page loads nothing from anywhere',
    );
    await page.screenshot({ path: join(SHOTS, 'bundle-full.png'), fullPage: true });
  });

  test('an unknown lease is not found; a bad format is refused', async () => {
    const missing = await rig.bridge.admin('GET', '/admin/api/evidence/ev_AAAAAAAAAAAAAAAA');
    assert.equal(missing.status, 404);
    assert.equal((missing.body.error as Json).code, 'file_not_found');
    const bad = await rig.bridge.admin('GET', `/admin/api/evidence/${summary.lease_id}?format=pdf`);
    assert.equal(bad.status, 400);
  });
});

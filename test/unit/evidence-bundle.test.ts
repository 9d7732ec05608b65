/**
 * A lease's evidence bundle: the offline page shows every section and escapes whatever the
 * phone or the agent put in the data (a `<script>` in an argument or a log line is text); the
 * store keeps bundles within their count, bytes and TTL; the recorder builds a bundle from the
 * audit lines, the files the calls returned and the rolling log, and adds the turnover later.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AdminTurnover, AuditEntry } from '../../main/contract/admin-api';
import { EVIDENCE_FORMAT, type EvidenceBundle } from '../../main/contract/evidence';
import { buildEvidenceHtml, escapeHtml, jsonForScriptBlock } from '../../main/core/evidence/evidence-html';
import { EvidenceStore } from '../../main/core/evidence/evidence-store';
import { EvidenceRecorder, type EvidenceRecorderDeps } from '../../main/core/evidence/evidence-recorder';
import { silentLogger } from '../../main/core/logging/logger';
import type { ToolCall } from '../../main/core/tools/tool-call';

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 0xff, 0xd9]);
const EVIL = '</script><script>alert(1)</script><img src=x onerror=alert(2)>';

function bundle(extra: Partial<EvidenceBundle> = {}): EvidenceBundle {
  return {
    format: EVIDENCE_FORMAT,
    lease: {
      lease_id: 'ev_AAAAAAAAAAAAAAAA',
      device_id: 'emulator-5554',
      phone_name: 'Pixel <b>7</b>',
      connector_channel_id: 'ch_1',
      bound_via: 'device_claim',
      holder: { requester: 'Ana <QA>', claimed_as: null, client_address: '10.0.0.7' },
      started_at: T0,
      ended_at: T0 + 60_000,
      end_reason: 'logout',
    },
    generated_at: T0 + 61_000,
    calls: [
      {
        time: T0 + 1000,
        tool_id: 'android_tap',
        arguments: { x: 10, y: 20 },
        decision: 'allow',
        decided_by: 'policy',
        outcome: 'ok',
        error_code: null,
        duration_ms: 120,
        reasons: [],
        risk: 'low',
        approval_id: null,
      },
      {
        time: T0 + 2000,
        tool_id: 'android_type_text',
        arguments: { text: EVIL },
        decision: 'deny',
        decided_by: 'admin',
        outcome: 'error',
        error_code: 'approval_denied',
        duration_ms: 3000,
        reasons: ['a <b>password</b> field'],
        risk: 'high',
        approval_id: 'apr_1',
      },
    ],
    calls_truncated: false,
    approvals: [
      {
        approval_id: 'apr_1',
        time: T0 + 2000,
        tool_id: 'android_type_text',
        decision: 'deny',
        decided_by: 'person',
        screenshot: { mime_type: 'image/jpeg', base64: JPEG.toString('base64') },
      },
    ],
    person_holds: [
      { since: T0 + 4000, until: T0 + 64_000, by: `person ${EVIL}`, agent_may_watch: false },
      { since: T0 + 70_000, until: null, by: 'person at the computer', agent_may_watch: true },
    ],
    screenshots: [
      {
        file_ref: 'file_' + 'a'.repeat(32),
        time: T0 + 3000,
        tool_id: 'android_screenshot',
        image: null,
        missing: 'evicted',
      },
    ],
    recordings: [],
    crashes: [
      {
        package: 'com.x',
        kind: 'crash',
        at: '01-01 00:00:01.000',
        first_lines: [EVIL],
        tool_id: 'android_tap',
        time: T0,
      },
    ],
    logcat: { lines: [`01-01 00:00:01.000  1  1 I Tag: ${EVIL}`], dropped_lines: 3, bytes: 100 },
    turnover: null,
    turnover_expected: true,
    ...extra,
  };
}

void describe('evidence page', () => {
  void test('shows each section, the tool names in words and the error explained', () => {
    const html = buildEvidenceHtml(bundle());
    for (const id of [
      'timeline',
      'holds',
      'approvals',
      'screenshots',
      'crashes',
      'recordings',
      'turnover',
      'logcat',
      'data',
    ])
      assert.match(html, new RegExp(`<section id="${id}">`), id);
    assert.match(html, /<span class="tool">Tap<\/span>/);
    assert.match(html, /<span class="tool">Type text<\/span>/);
    assert.match(html, /The agent signed out/);
    assert.match(html, /a lab access code/);
    assert.match(html, /<dt>Held by<\/dt><dd>Ana &#60;QA&#62; · from 10\.0\.0\.7<\/dd>/);
    assert.match(html, /<code>approval_denied<\/code> /);
    assert.match(html, /done · 120 ms · allow, decided by policy/);
    assert.match(html, /failed · 3\.0 s · deny, decided by the person at the console · approval apr_1/);
    assert.match(html, /Already gone from the file cache/);
    assert.match(html, /The turnover had not finished/);
    assert.match(html, /<details><summary>1 line; open to read<\/summary>/);
    assert.match(html, /3 older lines were dropped/);
    assert.match(html, /<img alt="Approvals" src="data:image\/jpeg;base64,/);
    assert.match(html, /2026-01-01 00:00:01 UTC/);
    // Who held the phone when, and whether the agent saw the screen meanwhile.
    assert.match(html, /<li data-watch="false"><time>[^<]+<\/time> – <time>[^<]+<\/time> · person &#60;/);
    assert.match(html, /the agent saw nothing of the screen<\/li>/);
    assert.match(
      html,
      /<li data-watch="true"><time>[^<]+<\/time> – still held when the lease ended · person at the computer · the person let the agent watch the screen<\/li>/,
    );
  });

  void test('a <script> in an argument, a reason, a crash or a log line is text, and no script may run', () => {
    const html = buildEvidenceHtml(bundle());
    // The only <script> element is the JSON data block; the attack text is there escaped.
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script type="application\/json" id="evidence-json">/);
    assert.ok(!html.includes('<img src=x'));
    assert.ok(!html.includes('<b>'), 'markup in phone names and reasons is shown as text');
    assert.ok(html.includes(escapeHtml(EVIL)));
    assert.match(html, /Content-Security-Policy" content="default-src &#39;none&#39;; img-src data:/);
    // The data block parses back to the bundle's words.
    const block = /<script type="application\/json" id="evidence-json">([^]*?)<\/script>/.exec(html)?.[1] ?? '';
    const parsed = JSON.parse(block) as EvidenceBundle;
    assert.equal(parsed.calls[1]?.arguments.text, EVIL);
    assert.equal(parsed.approvals[0]?.screenshot?.base64, '', 'pictures stay out of the data block');
  });

  void test('the JSON block cannot be closed from inside', () => {
    const text = jsonForScriptBlock({ a: '</script><!-- \u2028' });
    assert.ok(!text.includes('<') && !text.includes('\u2028'));
    assert.deepEqual(JSON.parse(text), { a: '</script><!-- \u2028' });
  });

  void test('only JPEG, PNG and WebP pictures in base64 are shown', () => {
    const html = buildEvidenceHtml(
      bundle({
        approvals: [
          {
            approval_id: 'apr_2',
            time: T0,
            tool_id: 'android_tap',
            decision: 'allow',
            decided_by: 'person',
            screenshot: { mime_type: 'text/html', base64: 'PHNjcmlwdD4=' },
          },
          {
            approval_id: 'apr_3',
            time: T0,
            tool_id: 'android_tap',
            decision: 'allow',
            decided_by: 'person',
            screenshot: { mime_type: 'image/png', base64: '" onerror="x' },
          },
        ],
      }),
    );
    assert.ok(!html.includes('data:text/html'));
    assert.ok(!html.includes('onerror="x'));
  });

  void test('in Chinese, and the turnover report when it came', () => {
    const turnover: AdminTurnover = {
      state: 'failed',
      started_at: T0 + 60_500,
      duration_ms: 900,
      lease_end: 'logout',
      stopped_apps: ['com.x'],
      removed_apps: [],
      deleted_files: ['/sdcard/Download/a.txt'],
      cleared_apps: [],
      restored_permissions: [],
      clipboard_cleared: true,
      home_pressed: true,
      problems: ['uninstall failed: <Failure>'],
    };
    const html = buildEvidenceHtml(bundle({ turnover }), 'zh-CN');
    assert.match(html, /<html lang="zh-CN">/);
    assert.match(html, /<span class="tool">点按<\/span>/);
    assert.match(html, /时间线/);
    assert.match(html, /谁拿着手机/);
    assert.match(html, /智能体看不到屏幕<\/li>/);
    assert.match(html, /\/sdcard\/Download\/a\.txt/);
    assert.match(html, /uninstall failed: &#60;Failure&#62;/);
  });
});

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'evidence-'));
}

void describe('evidence store', () => {
  void test('keeps the newest within the count and the bytes; drops past the TTL; forgets strays at start', async () => {
    const dir = tempDir();
    try {
      let now = T0 + 100_000;
      const store = new EvidenceStore({ dir, clock: () => now, limits: { maxLeases: 2, ttlMs: 50_000 } });
      const ids = ['ev_AAAAAAAAAAAAAAA1', 'ev_AAAAAAAAAAAAAAA2', 'ev_AAAAAAAAAAAAAAA3'];
      for (const [i, id] of ids.entries()) {
        const b = bundle();
        await store.save({ ...b, lease: { ...b.lease, lease_id: id, ended_at: T0 + 60_000 + i * 10_000 } });
      }
      assert.deepEqual(
        store.list().map((s) => s.lease_id),
        [ids[2], ids[1]],
      );
      assert.ok(!existsSync(join(dir, `${ids[0]}.json`)), 'the oldest file is deleted');
      assert.equal((await store.read(ids[2]!))?.lease.lease_id, ids[2]);
      assert.equal(await store.read('../index'), undefined);
      assert.equal(store.list('emulator-5554').length, 2);
      assert.equal(store.list('other').length, 0);

      now = T0 + 60_000 + 10_000 + 50_001;
      assert.deepEqual(
        store.list().map((s) => s.lease_id),
        [ids[2]],
      );
      assert.equal(await store.read(ids[1]!), undefined, 'past the TTL it is not served');

      // A file no index names (a crash between the two writes) is deleted at the next start.
      const stray = join(dir, 'ev_BBBBBBBBBBBBBBBB.json');
      const { writeFileSync } = await import('node:fs');
      writeFileSync(stray, '{}');
      const again = new EvidenceStore({ dir, clock: () => now, limits: { maxLeases: 2, ttlMs: 50_000 } });
      assert.ok(!existsSync(stray));
      assert.deepEqual(
        again.list().map((s) => s.lease_id),
        [ids[2]],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('bytes: a bundle that would pass the total pushes out the oldest', async () => {
    const dir = tempDir();
    try {
      const one = Buffer.byteLength(JSON.stringify(bundle()));
      const store = new EvidenceStore({
        dir,
        clock: () => T0 + 100_000,
        limits: { maxBytes: Math.floor(one * 1.5) + 100, maxBundleBytes: one + 100 },
      });
      const b = bundle();
      await store.save({ ...b, lease: { ...b.lease, lease_id: 'ev_AAAAAAAAAAAAAAA1', ended_at: T0 + 1 } });
      await store.save({ ...b, lease: { ...b.lease, lease_id: 'ev_AAAAAAAAAAAAAAA2', ended_at: T0 + 2 } });
      assert.deepEqual(
        store.list().map((s) => s.lease_id),
        ['ev_AAAAAAAAAAAAAAA2'],
      );
      assert.deepEqual(readdirSync(dir).sort(), ['ev_AAAAAAAAAAAAAAA2.json', 'index.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('refuses limits that are not positive integers', () => {
    assert.throws(
      () => new EvidenceStore({ dir: tempDir(), clock: Date.now, limits: { maxLeases: 0 } }),
      /evidence maxLeases must be a positive integer \(got 0\)/,
    );
  });
});

void describe('evidence recorder', () => {
  void test('a lease’s calls, approvals, screenshots (kept or evicted), crashes, log and later its turnover', async () => {
    const dir = tempDir();
    try {
      let now = T0;
      const store = new EvidenceStore({ dir, clock: () => now });
      const kept = 'file_' + 'k'.repeat(32);
      const evicted = 'file_' + 'e'.repeat(32);
      const video = 'file_' + 'v'.repeat(32);
      const inCache = new Map<string, { kind: string; data: Buffer }>([
        [kept, { kind: 'screenshot', data: JPEG }],
        [evicted, { kind: 'screenshot', data: JPEG }],
        [video, { kind: 'recording', data: Buffer.from('mp4') }],
      ]);
      const audit: AuditEntry[] = [];
      const deps: EvidenceRecorderDeps = {
        store,
        clock: () => now,
        activeLease: () => undefined,
        auditLines: (channelId) => Promise.resolve(audit.filter((e) => e.connector_channel_id === channelId).reverse()),
        auditScreenshot: (name) => Promise.resolve(name === 'shot_approved1' ? JPEG : undefined),
        fileInfo: (ref) => {
          const f = inCache.get(ref);
          return f
            ? {
                kind: f.kind,
                mimeType: 'image/jpeg',
                filename: `${ref}.bin`,
                byteSize: f.data.length,
                expiresAt: T0 + 600_000,
              }
            : undefined;
        },
        readFile: (ref) => Promise.resolve(inCache.get(ref)?.data),
        secrets: () => ['SECRET-API-KEY-123'],
        logger: silentLogger,
      };
      const recorder = new EvidenceRecorder(deps);
      recorder.noteLease('ch_1', {
        deviceId: 'dev_1',
        phoneName: 'Pixel',
        boundAt: T0,
        flowId: 'device_claim',
        holder: null,
      });
      const call = (tool: string, at: number): ToolCall =>
        ({
          channelId: 'ch_1',
          device: { deviceId: 'dev_1' },
          tool: { id: tool },
          receivedAt: at,
        }) as unknown as ToolCall;
      const line = (i: number, extra: Partial<AuditEntry>): AuditEntry => ({
        id: `aud_${i}`,
        time: T0 + i * 1000,
        connector_channel_id: 'ch_1',
        device_id: 'dev_1',
        tool_id: 'android_tap',
        arguments: { x: i },
        decision: 'allow',
        decided_by: 'policy',
        outcome: 'ok',
        error_code: null,
        duration_ms: 5,
        reasons: [],
        screenshot_ref: null,
        ...extra,
      });
      audit.push(line(-5, { tool_id: 'before_the_lease' }));
      audit.push(line(1, {}));
      audit.push(line(2, { tool_id: 'android_screenshot' }));
      audit.push(line(3, { approval_id: 'apr_1', decided_by: 'person', screenshot_ref: 'shot_approved1' }));
      audit.push(line(4, { tool_id: 'android_logcat', arguments: { tags: ['SECRET-API-KEY-123'] } }));
      recorder.record(call('android_tap', T0 + 1000), {
        outcome: 'ok',
        errorCode: null,
        durationMs: 5,
        result: { crashes: [{ package: 'com.x', kind: 'crash', at: '01-01', pid: 3, first_lines: ['FATAL'] }] },
      });
      recorder.record(call('android_screenshot', T0 + 2000), {
        outcome: 'ok',
        errorCode: null,
        durationMs: 5,
        result: { file_ref: kept, download_url: 'x' },
      });
      recorder.record(call('android_screenshot', T0 + 2500), {
        outcome: 'ok',
        errorCode: null,
        durationMs: 5,
        result: { file_ref: evicted },
      });
      recorder.record(call('android_screen_record', T0 + 2600), {
        outcome: 'ok',
        errorCode: null,
        durationMs: 5,
        result: { chunks: [{ file_ref: video }] },
      });
      inCache.delete(evicted);
      now = T0 + 10_000;
      const built = await recorder.leaseEnded('ch_1', {
        deviceId: 'dev_1',
        reason: 'logout',
        log: { lines: ['I Tag: hello'], dropped_lines: 0, bytes: 13 },
        turnoverExpected: true,
      });
      assert.ok(built);
      assert.deepEqual(
        built.calls.map((c) => c.tool_id),
        ['android_tap', 'android_screenshot', 'android_tap', 'android_logcat'],
      );
      assert.deepEqual(built.calls[3]?.arguments, { tags: ['[redacted]'] }, 'the bridge’s own secrets are filtered');
      assert.equal(built.approvals.length, 1);
      assert.equal(built.approvals[0]?.screenshot?.base64, JPEG.toString('base64'));
      assert.deepEqual(
        built.screenshots.map((s) => [s.file_ref, s.image !== null, s.missing]),
        [
          [kept, true, null],
          [evicted, false, 'evicted'],
        ],
      );
      assert.deepEqual(
        built.recordings.map((r) => [r.file_ref, r.in_cache]),
        [[video, true]],
      );
      assert.equal(built.crashes[0]?.package, 'com.x');
      assert.deepEqual(built.logcat?.lines, ['I Tag: hello']);
      assert.equal(built.turnover, null);
      assert.equal(store.list()[0]?.calls, 4);

      // A call after the lease ended is not part of it.
      recorder.record(call('android_screenshot', now), {
        outcome: 'ok',
        errorCode: null,
        durationMs: 5,
        result: { file_ref: kept },
      });

      const report: AdminTurnover = {
        state: 'done',
        started_at: now,
        duration_ms: 200,
        lease_end: 'logout',
        stopped_apps: [],
        removed_apps: ['com.installed'],
        deleted_files: [],
        cleared_apps: [],
        restored_permissions: [],
        clipboard_cleared: true,
        home_pressed: true,
        problems: [],
      };
      await recorder.turnoverFinished('dev_1', report);
      const saved = await store.read(built.lease.lease_id);
      assert.deepEqual(saved?.turnover?.removed_apps, ['com.installed']);
      assert.equal(saved?.screenshots.length, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The audit trail on disk: append-only JSON lines, rotation by size into a bounded number of
 * files, newest-first reads with filters, oldest-first export, a last secret filter on every
 * line, and a bounded folder of kept screenshots.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEntry } from '../../main/contract/admin-api';
import { silentLogger } from '../../main/core/logging/logger';
import { AuditLog } from '../../main/core/safety/audit-log';

function entry(i: number, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: `aud_${String(i).padStart(6, '0')}`,
    time: 1_700_000_000_000 + i,
    connector_channel_id: i % 2 === 0 ? 'ch_even' : 'ch_odd',
    device_id: i % 3 === 0 ? 'dev_a' : 'dev_b',
    tool_id: 'android_tap',
    arguments: { x: i, y: 1 },
    decision: 'allow',
    decided_by: 'policy',
    outcome: 'ok',
    error_code: null,
    duration_ms: 3,
    reasons: [],
    screenshot_ref: null,
    ...extra,
  };
}

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'audit-test-'));
  try {
    await run(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('audit log', () => {
  test('rotates by size and keeps at most maxFiles files; reads newest first with filters; exports oldest first', async () => {
    await withDir(async (dir) => {
      const log = new AuditLog({
        dir,
        limits: { maxFileBytes: 2_000, maxFiles: 3 },
        secrets: () => [],
        logger: silentLogger,
      });
      for (let i = 0; i < 200; i++) log.append(entry(i));
      await log.flush();
      const files = readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort();
      assert.deepEqual(files, ['audit.1.jsonl', 'audit.2.jsonl', 'audit.jsonl']);
      for (const f of files) assert.ok(statSync(join(dir, f)).size <= 2_000, `${f} within the cap`);
      const all = await log.read({}, 1000);
      assert.ok(all.length > 10 && all.length < 200, `bounded: ${all.length} kept`);
      assert.equal(all[0]!.id, 'aud_000199', 'newest first');
      const ids = all.map((e) => e.id);
      assert.deepEqual(ids, [...ids].sort().reverse(), 'strictly in order, none lost in between');
      assert.equal(Number(ids.at(-1)!.slice(4)) + all.length, 200, 'a contiguous tail of the trail');
      const page = await log.read({ deviceId: 'dev_a', channelId: 'ch_even' }, 3);
      assert.equal(page.length, 3);
      assert.ok(page.every((e) => e.device_id === 'dev_a' && e.connector_channel_id === 'ch_even'));
      const exported: string[] = [];
      for await (const line of log.exportLines({})) exported.push(line);
      assert.deepEqual(
        exported.map((l) => (JSON.parse(l) as AuditEntry).id),
        [...ids].reverse(),
      );
      const filtered: string[] = [];
      for await (const line of log.exportLines({ channelId: 'ch_odd' })) filtered.push(line);
      assert.ok(
        filtered.length > 0 && filtered.every((l) => (JSON.parse(l) as AuditEntry).connector_channel_id === 'ch_odd'),
      );
      await log.close();
    });
  });

  test('lines queued while a write runs all land, in order, and flush waits for the last of them', async () => {
    await withDir(async (dir) => {
      const log = new AuditLog({
        dir,
        limits: { maxFileBytes: 1_000_000, maxFiles: 2 },
        secrets: () => [],
        logger: silentLogger,
      });
      // Appends arrive while earlier ones are being written (each burst after a turn of the event loop).
      for (let burst = 0; burst < 20; burst++) {
        for (let i = 0; i < 25; i++) log.append(entry(burst * 25 + i));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      log.append(entry(500));
      await log.flush();
      const ids = readFileSync(join(dir, 'audit.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as AuditEntry).id);
      assert.deepEqual(
        ids,
        Array.from({ length: 501 }, (_v, i) => `aud_${String(i).padStart(6, '0')}`),
      );
      await log.close();
    });
  });

  test('appends across restarts and never writes a live secret or a URL signature', async () => {
    await withDir(async (dir) => {
      const secret = 'super-secret-api-key-0123456789';
      const first = new AuditLog({ dir, secrets: () => [secret], logger: silentLogger });
      first.append(
        entry(1, {
          reasons: [`typed ${secret}`],
          arguments: { url: 'https://h/files/refs/x?exp=1&sig=ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopq' },
        }),
      );
      await first.close();
      const second = new AuditLog({ dir, secrets: () => [secret], logger: silentLogger });
      second.append(entry(2));
      await second.flush();
      const text = readFileSync(join(dir, 'audit.jsonl'), 'utf8');
      assert.equal(text.trim().split('\n').length, 2);
      assert.ok(!text.includes(secret));
      assert.ok(!text.includes('ABCDEFGHIJKLMNOP'));
      assert.deepEqual(
        (await second.read({}, 10)).map((e) => e.id),
        ['aud_000002', 'aud_000001'],
      );
      await second.close();
    });
  });

  test('kept screenshots are bounded by count and names are checked', async () => {
    await withDir(async (dir) => {
      const log = new AuditLog({ dir, limits: { maxScreenshots: 3 }, secrets: () => [], logger: silentLogger });
      for (let i = 0; i < 6; i++)
        await log.keepScreenshot(`shot_appr_${String(i).padStart(10, '0')}.jpg`, Buffer.from([0xff, 0xd8, i]));
      const kept = readdirSync(join(dir, 'screens')).sort();
      assert.equal(kept.length, 3);
      assert.ok(kept.includes('shot_appr_0000000005.jpg'), 'the newest is kept');
      assert.equal(log.screenshotPath('../state.json'), undefined);
      assert.equal(
        log.screenshotPath('shot_appr_0000000005.jpg') !== undefined &&
          existsSync(log.screenshotPath('shot_appr_0000000005.jpg')!),
        true,
      );
      await assert.rejects(log.keepScreenshot('../../evil.jpg', Buffer.alloc(1)));
      assert.throws(
        () => new AuditLog({ dir, limits: { maxFiles: 0 }, secrets: () => [], logger: silentLogger }),
        /maxFiles must be a positive integer/,
      );
    });
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatBytes,
  formatClock,
  formatCountdown,
  formatDuration,
  formatLimit,
  formatRelative,
  formatSecondsLeft,
  shortId,
} from '../../renderer/src/lib/time-format';
import { formatStamp, formatStampRange, stampParts } from '../../main/contract/i18n';

void describe('countdowns in the UI', () => {
  void test('under an hour reads m:ss and never shows 0:00 while time is left', () => {
    assert.equal(formatCountdown(59_000), '0:59');
    assert.equal(formatCountdown(245_000), '4:05');
    assert.equal(formatCountdown(1), '0:01');
    assert.equal(formatCountdown(999), '0:01');
    assert.equal(formatCountdown(3_599_000), '59:59');
  });

  void test('hours and days switch to words', () => {
    assert.equal(formatCountdown(3_600_000), '1 h 00 min');
    assert.equal(formatCountdown(5_460_000), '1 h 31 min');
    assert.equal(formatCountdown(27 * 3_600_000), '1 d 3 h');
  });

  void test('a passed deadline says expired, never a negative time', () => {
    assert.equal(formatCountdown(0), 'expired');
    assert.equal(formatCountdown(-5_000), 'expired');
    assert.equal(formatCountdown(Number.NaN), '—');
  });

  void test('seconds-left form for reconnect attempts', () => {
    assert.equal(formatSecondsLeft(4_200), 'in 5 s');
    assert.equal(formatSecondsLeft(70_000), 'in 1 min 10 s');
    assert.equal(formatSecondsLeft(0), 'now');
  });
});

void describe('relative times and durations', () => {
  const now = 1_700_000_000_000;
  void test('past and future relative times', () => {
    assert.equal(formatRelative(now - 3_000, now), 'just now');
    assert.equal(formatRelative(now - 45_000, now), '45 s ago');
    assert.equal(formatRelative(now - 5 * 60_000, now), '5 min ago');
    assert.equal(formatRelative(now - 2 * 3_600_000, now), '2 h ago');
    assert.equal(formatRelative(now - 3 * 86_400_000, now), '3 d ago');
    assert.equal(formatRelative(now + 10 * 60_000, now), 'in 10 min');
  });

  void test('durations of actions', () => {
    assert.equal(formatDuration(85), '85 ms');
    assert.equal(formatDuration(1_234), '1.2 s');
    assert.equal(formatDuration(125_000), '2 min 05 s');
    assert.equal(formatDuration(-1), '—');
  });

  void test('limits: largest two units, null is none', () => {
    assert.equal(formatLimit(null), 'none');
    assert.equal(formatLimit(3_600_000), '1 h');
    assert.equal(formatLimit(5_400_000), '1 h 30 min');
    assert.equal(formatLimit(90_061_000), '1 d 1 h');
    assert.equal(formatLimit(30_000), '30 s');
  });

  void test('bytes in binary units', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(200 * 1024 * 1024), '200 MiB');
    assert.equal(formatBytes(1024 * 1024 * 1024), '1 GiB');
  });

  void test('clock shows the date only for other days', () => {
    const today = new Date(2024, 4, 1, 14, 3, 27).getTime();
    assert.equal(formatClock(today, today + 60_000), '14:03:27');
    assert.equal(formatClock(today, today + 2 * 86_400_000), '2024-05-01 14:03');
  });

  void test('short ids keep both ends', () => {
    assert.equal(shortId('ch_123'), 'ch_123');
    assert.equal(shortId('ch_8f2a0000000000091c0'), 'ch_8f2a…91c0');
  });
});

void test('a moment of the evidence: one form, its zone named (UTC in a bundle, the computer’s zone in the console)', () => {
  const at = Date.UTC(2026, 11, 7, 22, 3, 27);
  assert.equal(formatStamp(at, 'utc'), '2026-12-07 22:03:27 UTC');
  const zone = process.env.TZ;
  try {
    process.env.TZ = 'Asia/Shanghai';
    assert.deepEqual(stampParts(at, 'local'), { date: '2026-12-08', time: '06:03:27', zone: 'UTC+08:00' });
    // The end's date only when it is another day; the zone said once.
    assert.equal(formatStampRange(at - 60_000, at, 'local'), '2026-12-08 06:02:27 – 06:03:27 UTC+08:00');
    assert.equal(
      formatStampRange(at - 7 * 3_600_000, at, 'local'),
      '2026-12-07 23:03:27 – 2026-12-08 06:03:27 UTC+08:00',
    );
    process.env.TZ = 'America/New_York';
    assert.equal(stampParts(at, 'local').zone, 'UTC-05:00');
    process.env.TZ = 'UTC';
    assert.equal(formatStamp(at, 'local'), '2026-12-07 22:03:27 UTC');
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

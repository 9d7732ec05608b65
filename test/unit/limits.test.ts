/**
 * The limits people may change: the shared definitions' checks (every limit below its
 * minimum, above its maximum, of the wrong type, and unknown keys), the duration and size
 * parsers of the CLI and env, and where a live value comes from at start (start option >
 * saved > default; a damaged saved value is reported and ignored).
 */
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LIMIT_DEFINITIONS,
  LIMIT_KEYS,
  checkLimitsPatch,
  defaultLimitValues,
  formatLimitValue,
  limitValueProblem,
} from '../../main/contract/limits';
import { parseByteSize, parseDuration, parseLimitText } from '../../main/core/config/limit-text';
import { LiveLimits } from '../../main/core/config/live-limits';
import { DEFAULTS, startLimits } from '../../main/core/config/core-options';
import { DEFAULT_FILE_CACHE_LIMITS } from '../../main/core/files/file-cache';
import { StateStore } from '../../main/core/store/state-store';

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'limits-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

void describe('limit definitions', () => {
  void test('defaults agree with the core defaults and each default is in its own range', () => {
    const d = defaultLimitValues();
    assert.equal(d.approval_timeout_ms, DEFAULTS.approvalTimeoutMs);
    assert.equal(d.lease_max_duration_ms, DEFAULTS.lease.maxDurationMs);
    assert.equal(d.lease_idle_timeout_ms, DEFAULTS.lease.idleTimeoutMs);
    assert.equal(d.lease_disconnect_grace_ms, DEFAULTS.lease.disconnectGraceMs);
    assert.equal(d.queue_max_depth, DEFAULTS.queue.maxDepth);
    assert.equal(d.file_cache_ttl_ms, DEFAULT_FILE_CACHE_LIMITS.ttlMs);
    assert.equal(d.file_cache_max_bytes, DEFAULT_FILE_CACHE_LIMITS.maxBytes);
    assert.equal(d.file_cache_max_files, DEFAULT_FILE_CACHE_LIMITS.maxFiles);
    for (const key of LIMIT_KEYS) {
      assert.equal(limitValueProblem(key, d[key]), null, key);
      assert.ok(LIMIT_DEFINITIONS[key].min < LIMIT_DEFINITIONS[key].max, key);
      assert.match(LIMIT_DEFINITIONS[key].flag, /^--[a-z-]+$/);
      assert.match(LIMIT_DEFINITIONS[key].env, /^DEVICE_BRIDGE_[A-Z_]+$/);
    }
  });

  void test('values are written in their units', () => {
    assert.equal(formatLimitValue('duration', 90_000), '1 min 30 s');
    assert.equal(formatLimitValue('duration', 8 * 3_600_000), '8 h');
    assert.equal(formatLimitValue('bytes', 256 * 1024 * 1024), '256 MiB');
    assert.equal(formatLimitValue('bytes', 1536), '1.5 KiB');
    assert.equal(formatLimitValue('count', 32), '32');
    assert.equal(formatLimitValue('duration', null), 'none');
  });
});

void describe('PATCH settings limits check', () => {
  for (const key of LIMIT_KEYS) {
    const d = LIMIT_DEFINITIONS[key];
    void test(`${key}: the bounds pass; below min, above max, wrong types and fractions are refused naming the field`, () => {
      assert.deepEqual(checkLimitsPatch({ [key]: d.min }), { ok: true, value: { [key]: d.min } });
      assert.deepEqual(checkLimitsPatch({ [key]: d.max }), { ok: true, value: { [key]: d.max } });
      const field = `limits.${key}`;
      const refused = (value: unknown, pattern: RegExp): void => {
        const result = checkLimitsPatch({ [key]: value });
        assert.equal(result.ok, false, `${key}=${JSON.stringify(value)} passed`);
        if (result.ok) return;
        assert.equal(result.field, field);
        assert.ok(result.message.startsWith(field), result.message);
        assert.match(result.message, pattern);
      };
      refused(d.min - 1, /below its minimum/);
      refused(d.max + 1, /above its maximum/);
      refused(String(d.min), /must be a whole number/);
      refused(true, /must be a whole number/);
      refused({ value: d.min }, /must be a whole number/);
      refused(d.min + 0.5, /must be a whole number/);
      refused(Number.NaN, /must be a whole number/);
      if (d.nullable) assert.deepEqual(checkLimitsPatch({ [key]: null }), { ok: true, value: { [key]: null } });
      else refused(null, /cannot be null/);
    });
  }

  void test('unknown keys and a non-object are refused; several limits at once pass together', () => {
    const unknown = checkLimitsPatch({ approval_timeout_ms: 2000, approvalTimeoutMs: 2000 });
    assert.equal(unknown.ok, false);
    if (!unknown.ok) {
      assert.equal(unknown.field, 'limits.approvalTimeoutMs');
      assert.match(unknown.message, /is not a limit that can be set \(known: approval_timeout_ms, /);
    }
    for (const raw of [null, 5, 'x', [1]]) {
      const result = checkLimitsPatch(raw);
      assert.equal(result.ok, false);
      if (!result.ok) assert.equal(result.field, 'limits');
    }
    assert.deepEqual(checkLimitsPatch({ approval_timeout_ms: 2000, queue_max_depth: 1, lease_max_duration_ms: null }), {
      ok: true,
      value: { approval_timeout_ms: 2000, queue_max_depth: 1, lease_max_duration_ms: null },
    });
    // The message says the range in the unit and in raw numbers.
    assert.equal(
      limitValueProblem('approval_timeout_ms', 10, 'limits.approval_timeout_ms'),
      'limits.approval_timeout_ms is below its minimum: it must be a whole number of milliseconds from 1000 (1 s) to 3600000 (1 h)',
    );
  });
});

void describe('duration and size text (CLI flags, env)', () => {
  void test('durations', () => {
    const ok: Array<[string, number]> = [
      ['2m', 120_000],
      ['90s', 90_000],
      ['1h30m', 5_400_000],
      ['1h 30m', 5_400_000],
      ['1.5h', 5_400_000],
      ['1500ms', 1_500],
      ['8H', 28_800_000],
      ['2min', 120_000],
      ['1d', 86_400_000],
    ];
    for (const [text, ms] of ok) assert.deepEqual(parseDuration(text), { ok: true, value: ms }, text);
    const bad: Array<[string, RegExp]> = [
      ['banana', /"banana" is not a duration/],
      ['', /is not a duration/],
      ['120', /has no unit; write it as 120s, 120m or 120ms/],
      ['2 weeks', /unknown unit "weeks"/],
      ['-5m', /is not a duration/],
      ['1h30', /is not a duration/],
    ];
    for (const [text, pattern] of bad) {
      const result = parseDuration(text);
      assert.equal(result.ok, false, text);
      if (!result.ok) assert.match(result.message, pattern, text);
    }
  });

  void test('sizes', () => {
    const ok: Array<[string, number]> = [
      ['256MiB', 256 * 1024 ** 2],
      ['256 MiB', 256 * 1024 ** 2],
      ['1GiB', 1024 ** 3],
      ['1g', 1024 ** 3],
      ['500MB', 500_000_000],
      ['1048576', 1_048_576],
      ['0.5GiB', 512 * 1024 ** 2],
    ];
    for (const [text, bytes] of ok) assert.deepEqual(parseByteSize(text), { ok: true, value: bytes }, text);
    for (const text of ['big', '12 parsecs', 'MiB', '-1MiB']) {
      const result = parseByteSize(text);
      assert.equal(result.ok, false, text);
      if (!result.ok) assert.match(result.message, /is not a size|unknown unit/, text);
    }
  });

  void test('one limit: unit, none where allowed, range — with the flag named', () => {
    assert.deepEqual(parseLimitText('approval_timeout_ms', '2m', '--approval-timeout'), { ok: true, value: 120_000 });
    assert.deepEqual(parseLimitText('lease_max_duration_ms', 'none', '--lease-max'), { ok: true, value: null });
    assert.deepEqual(parseLimitText('lease_max_duration_ms', '8h', '--lease-max'), { ok: true, value: 28_800_000 });
    assert.deepEqual(parseLimitText('file_cache_max_bytes', '64MiB', '--cache-size'), {
      ok: true,
      value: 64 * 1024 ** 2,
    });
    assert.deepEqual(parseLimitText('queue_max_depth', '8', '--queue-depth'), { ok: true, value: 8 });
    const refused = (key: Parameters<typeof parseLimitText>[0], text: string, name: string, message: string): void => {
      assert.deepEqual(parseLimitText(key, text, name), { ok: false, message });
    };
    refused(
      'approval_timeout_ms',
      'banana',
      '--approval-timeout',
      '--approval-timeout: "banana" is not a duration (e.g. 90s, 2m, 1h30m, 8h)',
    );
    refused(
      'approval_timeout_ms',
      '500ms',
      '--approval-timeout',
      '--approval-timeout: 500 ms is out of range; approval countdown must be from 1 s to 1 h',
    );
    refused(
      'approval_timeout_ms',
      'none',
      'DEVICE_BRIDGE_APPROVAL_TIMEOUT',
      'DEVICE_BRIDGE_APPROVAL_TIMEOUT: "none" is not allowed here; approval countdown must be from 1 s to 1 h',
    );
    refused(
      'lease_idle_timeout_ms',
      '10s',
      '--lease-idle',
      '--lease-idle: 10 s is out of range; idle timeout must be from 1 min to 7 d, or none (no cap)',
    );
    refused(
      'file_cache_max_bytes',
      '1MiB',
      '--cache-size',
      '--cache-size: 1 MiB is out of range; cache size must be from 16 MiB to 64 GiB',
    );
    refused('queue_max_depth', '3.5', '--queue-depth', '--queue-depth: "3.5" is not a whole number');
    refused(
      'queue_max_depth',
      '0',
      '--queue-depth',
      '--queue-depth: 0 is out of range; queue depth must be from 1 to 1000',
    );
  });
});

void describe('LiveLimits', () => {
  void test('start options win over saved values, saved over defaults; a change applies, is saved and is announced', (t) => {
    const dir = tempDir(t);
    const warnings: string[] = [];
    const first = new LiveLimits({
      store: new StateStore(dir),
      start: {},
      startNames: {},
      warn: (m) => warnings.push(m),
    });
    assert.deepEqual(first.values(), defaultLimitValues());
    assert.deepEqual(first.sources().approval_timeout_ms, { from: 'default', start_option: null });
    const heard: unknown[] = [];
    first.on('changed', (changed) => heard.push(changed));
    first.update({ approval_timeout_ms: 2000, queue_max_depth: 32, lease_max_duration_ms: 3_600_000 });
    // queue_max_depth kept its value: saved, but not announced as a change.
    assert.deepEqual(heard, [{ approval_timeout_ms: 2000, lease_max_duration_ms: 3_600_000 }]);
    assert.equal(first.get('approval_timeout_ms'), 2000);
    assert.equal(first.sources().queue_max_depth.from, 'saved');

    const start = startLimits({
      dataDir: dir,
      approvalTimeoutMs: 5000,
      limitOrigins: { approval_timeout_ms: '--approval-timeout' },
      lease: { idleTimeoutMs: null },
    });
    assert.deepEqual(start, {
      values: { approval_timeout_ms: 5000, lease_idle_timeout_ms: null },
      names: { approval_timeout_ms: '--approval-timeout', lease_idle_timeout_ms: 'lease.idleTimeoutMs' },
    });
    const second = new LiveLimits({
      store: new StateStore(dir),
      start: start.values,
      startNames: start.names,
      warn: (m) => warnings.push(m),
    });
    assert.equal(second.get('approval_timeout_ms'), 5000);
    assert.deepEqual(second.sources().approval_timeout_ms, { from: 'start', start_option: '--approval-timeout' });
    assert.equal(second.get('lease_idle_timeout_ms'), null);
    assert.equal(second.get('lease_max_duration_ms'), 3_600_000);
    assert.deepEqual(second.sources().lease_max_duration_ms, { from: 'saved', start_option: null });
    // A change of a limit a start option set applies now; the option sets it again at the next start.
    second.update({ approval_timeout_ms: 7000 });
    assert.deepEqual(second.sources().approval_timeout_ms, { from: 'saved', start_option: '--approval-timeout' });
    assert.deepEqual(warnings, []);
  });

  void test('damaged saved values are reported and ignored; the rest of the state file stays', (t) => {
    const dir = tempDir(t);
    writeFileSync(
      join(dir, 'state.json'),
      JSON.stringify({
        version: 1,
        connector: { connectorId: 'conn_kept', lastSeenAt: null },
        channels: {},
        settings: { limits: { approval_timeout_ms: 'soon', queue_max_depth: 4, file_cache_max_bytes: -1, mystery: 1 } },
      }),
    );
    const warnings: string[] = [];
    const store = new StateStore(dir, () => assert.fail('the state file must not be set aside'));
    const limits = new LiveLimits({ store, start: {}, startNames: {}, warn: (m) => warnings.push(m) });
    assert.equal(store.get().connector.connectorId, 'conn_kept');
    assert.equal(limits.get('queue_max_depth'), 4);
    assert.equal(limits.get('approval_timeout_ms'), defaultLimitValues().approval_timeout_ms);
    assert.equal(limits.get('file_cache_max_bytes'), defaultLimitValues().file_cache_max_bytes);
    assert.equal(warnings.length, 3, warnings.join('\n'));
    assert.match(
      warnings[0] ?? '',
      /^Saved limit approval_timeout_ms must be .*; the bridge uses the default instead\.$/,
    );
    assert.match(warnings.join('\n'), /Saved limit "mystery" is not one this bridge knows/);
  });

  void test('a settings section of the wrong shape does not set the state file aside', (t) => {
    const dir = tempDir(t);
    for (const settings of [5, { limits: 'x' }, { limits: [1, 2] }]) {
      writeFileSync(
        join(dir, 'state.json'),
        JSON.stringify({
          version: 1,
          connector: { connectorId: 'conn_kept', lastSeenAt: null },
          channels: {},
          settings,
        }),
      );
      const store = new StateStore(dir, () => assert.fail(`set aside for ${JSON.stringify(settings)}`));
      assert.equal(store.get().connector.connectorId, 'conn_kept');
      const limits = new LiveLimits({ store, start: {}, startNames: {}, warn: () => undefined });
      assert.deepEqual(limits.values(), defaultLimitValues());
    }
  });
});

/**
 * Settings → Limits editor logic: values shown in everyday units, drafts read back with the
 * bridge's own ranges, only changed limits sent, and where a value came from said plainly.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultLimitValues } from '../../main/contract/limits';
import { draftFor, draftsFor, limitsToSave, readDraft, sourceNote } from '../../renderer/src/lib/limit-edit';

void describe('limits editor', () => {
  void test('values are shown in the largest unit that holds them whole', () => {
    assert.deepEqual(draftFor('approval_timeout_ms', 120_000), { amount: '2', unit: 'min', none: false });
    assert.deepEqual(draftFor('approval_timeout_ms', 2000), { amount: '2', unit: 's', none: false });
    assert.deepEqual(draftFor('approval_timeout_ms', 1500), { amount: '1.5', unit: 's', none: false });
    assert.deepEqual(draftFor('lease_max_duration_ms', 8 * 3_600_000), { amount: '8', unit: 'h', none: false });
    assert.deepEqual(draftFor('lease_max_duration_ms', null), { amount: '1', unit: 'min', none: true });
    assert.deepEqual(draftFor('lease_idle_timeout_ms', null), { amount: '30', unit: 'min', none: true });
    assert.deepEqual(draftFor('file_cache_max_bytes', 256 * 1024 ** 2), { amount: '256', unit: 'MiB', none: false });
    assert.deepEqual(draftFor('file_cache_max_bytes', 2 * 1024 ** 3), { amount: '2', unit: 'GiB', none: false });
    assert.deepEqual(draftFor('queue_max_depth', 32), { amount: '32', unit: '', none: false });
  });

  void test('drafts are read back in their unit and checked against the range', () => {
    assert.deepEqual(readDraft('approval_timeout_ms', { amount: '3', unit: 'min', none: false }), {
      ok: true,
      value: 180_000,
    });
    assert.deepEqual(readDraft('approval_timeout_ms', { amount: '1,5', unit: 's', none: false }), {
      ok: true,
      value: 1500,
    });
    assert.deepEqual(readDraft('lease_max_duration_ms', { amount: '', unit: 'h', none: true }), {
      ok: true,
      value: null,
    });
    assert.deepEqual(readDraft('approval_timeout_ms', { amount: '0.5', unit: 's', none: true }), {
      ok: false,
      message: '500 ms is too low. Use 1 s to 1 h.',
    });
    assert.deepEqual(readDraft('approval_timeout_ms', { amount: '2', unit: 'h', none: false }), {
      ok: false,
      message: '2 h is too high. Use 1 s to 1 h.',
    });
    assert.deepEqual(readDraft('lease_idle_timeout_ms', { amount: 'soon', unit: 'min', none: false }), {
      ok: false,
      message: '“soon” is not a number. Use 1 min to 7 d, or tick No cap.',
    });
    assert.deepEqual(readDraft('queue_max_depth', { amount: '2.5', unit: '', none: false }), {
      ok: false,
      message: 'Use a whole number. Use 1 to 1000.',
    });
    assert.deepEqual(readDraft('file_cache_max_bytes', { amount: '', unit: 'MiB', none: false }), {
      ok: false,
      message: 'Enter a value. Use 16 MiB to 64 GiB.',
    });
  });

  void test('Save sends only what changed, or every wrong field', () => {
    const current = defaultLimitValues();
    const drafts = draftsFor(current);
    assert.deepEqual(limitsToSave(current, drafts), { ok: true, patch: {} });
    drafts.approval_timeout_ms = { amount: '3', unit: 'min', none: false };
    drafts.lease_max_duration_ms = { amount: '8', unit: 'h', none: false };
    assert.deepEqual(limitsToSave(current, drafts), {
      ok: true,
      patch: { approval_timeout_ms: 180_000, lease_max_duration_ms: 28_800_000 },
    });
    drafts.queue_max_depth = { amount: '0', unit: '', none: false };
    drafts.file_cache_ttl_ms = { amount: 'x', unit: 'min', none: false };
    const refused = limitsToSave(current, drafts);
    assert.equal(refused.ok, false);
    if (!refused.ok) assert.deepEqual(Object.keys(refused.errors).sort(), ['file_cache_ttl_ms', 'queue_max_depth']);
  });

  void test('a value a start flag set says so', () => {
    assert.equal(sourceNote({ from: 'default', start_option: null }), null);
    assert.equal(sourceNote({ from: 'saved', start_option: null }), null);
    assert.equal(
      sourceNote({ from: 'start', start_option: '--lease-max' }),
      'Set at start by --lease-max; a change here lasts until the bridge restarts.',
    );
    assert.equal(
      sourceNote({ from: 'saved', start_option: '--lease-max' }),
      'Changed here; --lease-max sets it again when the bridge restarts.',
    );
  });
});

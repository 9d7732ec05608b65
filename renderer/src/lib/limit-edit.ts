/**
 * Settings → Limits editor logic: each limit is edited as an amount in a unit people use
 * (seconds, minutes, hours, days; MiB, GiB; a plain count), "none" where no cap is allowed,
 * and checked against the bridge's own definitions (main/contract/limits.ts) before it is
 * sent, so the message appears next to the field. Pure functions, unit-tested in Node.
 */
import type { AdminLimitSource, AdminState } from '../../../main/contract/admin-api';
import {
  LIMIT_DEFINITIONS,
  LIMIT_KEYS,
  formatLimitValue,
  type LimitKey,
  type LimitUnit,
  type LimitValues,
} from '../../../main/contract/limits';
import { translator, type Translate } from '../../../main/contract/i18n';

const ENGLISH = translator('en');

/** A value in the limit's own unit, in the UI's words: "2 min" / "2 分钟", "256 MiB", "32". */
export function limitValueText(unit: LimitUnit, value: number, t: Translate = ENGLISH): string {
  if (unit !== 'duration') return formatLimitValue(unit, value);
  const parts: string[] = [];
  let rest = value;
  const sizes = [
    ['common.time.d', 86_400_000],
    ['common.time.h', 3_600_000],
    ['common.time.min', 60_000],
    ['common.time.s', 1000],
    ['common.time.ms', 1],
  ] as const;
  for (const [key, size] of sizes) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(t(key, { n: count }));
    rest -= count * size;
  }
  return parts.length > 0 ? parts.join(' ') : t('common.time.ms', { n: 0 });
}

export interface LimitDraft {
  /** What the person typed, in `unit`. */
  amount: string;
  unit: string;
  /** "No cap" ticked (nullable limits only). */
  none: boolean;
}

export type LimitDrafts = Record<LimitKey, LimitDraft>;

const UNITS: Record<LimitUnit, ReadonlyArray<readonly [string, number]>> = {
  duration: [
    ['s', 1000],
    ['min', 60_000],
    ['h', 3_600_000],
    ['d', 86_400_000],
  ],
  bytes: [
    ['MiB', 1024 ** 2],
    ['GiB', 1024 ** 3],
  ],
  count: [['', 1]],
};

/** The units a limit can be typed in (name, size in ms / bytes / items). */
export function unitsFor(key: LimitKey): ReadonlyArray<readonly [string, number]> {
  return UNITS[LIMIT_DEFINITIONS[key].unit];
}

function unitSize(key: LimitKey, unit: string): number {
  const units = unitsFor(key);
  return (units.find(([name]) => name === unit) ?? units[0] ?? ['', 1])[1];
}

function trim(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(3)));
}

/** How a value is shown for editing: in the largest unit that holds it whole ("2 min", "256 MiB"). */
export function draftFor(key: LimitKey, value: number | null): LimitDraft {
  const units = unitsFor(key);
  const smallest = units[0] ?? ['', 1];
  if (value === null) {
    const fallback = LIMIT_DEFINITIONS[key].default ?? LIMIT_DEFINITIONS[key].min;
    return { ...draftFor(key, fallback), none: true };
  }
  const whole = [...units].reverse().find(([, size]) => value >= size && value % size === 0);
  const [unit, size] = whole ?? smallest;
  return { amount: trim(value / size), unit, none: false };
}

export function draftsFor(values: LimitValues): LimitDrafts {
  const out = {} as LimitDrafts;
  for (const key of LIMIT_KEYS) out[key] = draftFor(key, values[key]);
  return out;
}

/** The live limits of GET state, by their contract keys. */
export function limitValuesFromState(limits: AdminState['limits']): LimitValues {
  return {
    approval_timeout_ms: limits.approval_timeout_ms,
    lease_max_duration_ms: limits.lease.max_duration_ms,
    lease_idle_timeout_ms: limits.lease.idle_timeout_ms,
    lease_disconnect_grace_ms: limits.lease.disconnect_grace_ms,
    file_cache_ttl_ms: limits.file_cache.ttl_ms,
    file_cache_max_bytes: limits.file_cache.max_bytes,
    file_cache_max_files: limits.file_cache.max_files,
    queue_max_depth: limits.queue.max_depth,
    fast_lane_idle_stop_ms: limits.fast_lane.idle_stop_ms,
    runtime_grace_ms: limits.runtime_grace_ms,
  };
}

/** The accepted range as the editor says it: "Use 1 s to 1 h." / "…, or tick No cap." */
export function rangeText(key: LimitKey, t: Translate = ENGLISH): string {
  const d = LIMIT_DEFINITIONS[key];
  const bounds = { min: limitValueText(d.unit, d.min, t), max: limitValueText(d.unit, d.max, t) };
  return d.nullable ? t('settings.limits.rangeNullable', bounds) : t('settings.limits.range', bounds);
}

/** The value a draft stands for, or the message to show next to its field. */
export function readDraft(
  key: LimitKey,
  draft: LimitDraft,
  t: Translate = ENGLISH,
): { ok: true; value: number | null } | { ok: false; message: string } {
  const d = LIMIT_DEFINITIONS[key];
  const range = rangeText(key, t);
  if (draft.none && d.nullable) return { ok: true, value: null };
  const text = draft.amount.trim().replace(',', '.');
  if (text === '') return { ok: false, message: t('settings.limits.enterValue', { range }) };
  if (!/^\d+(\.\d+)?$/.test(text))
    return { ok: false, message: t('settings.limits.notNumber', { text: draft.amount.trim().slice(0, 20), range }) };
  const amount = Number(text);
  if (d.unit === 'count' && !Number.isInteger(amount))
    return { ok: false, message: t('settings.limits.wholeNumber', { range }) };
  const value = Math.round(amount * unitSize(key, draft.unit));
  if (value < d.min)
    return { ok: false, message: t('settings.limits.tooLow', { value: limitValueText(d.unit, value, t), range }) };
  if (value > d.max)
    return { ok: false, message: t('settings.limits.tooHigh', { value: limitValueText(d.unit, value, t), range }) };
  return { ok: true, value };
}

/** What Save sends (only limits whose value changed), or the message per field that is wrong. */
export function limitsToSave(
  current: LimitValues,
  drafts: LimitDrafts,
  t: Translate = ENGLISH,
): { ok: true; patch: Partial<LimitValues> } | { ok: false; errors: Partial<Record<LimitKey, string>> } {
  const errors: Partial<Record<LimitKey, string>> = {};
  const patch: Partial<Record<LimitKey, number | null>> = {};
  for (const key of LIMIT_KEYS) {
    const read = readDraft(key, drafts[key], t);
    if (!read.ok) errors[key] = read.message;
    else if (read.value !== current[key]) patch[key] = read.value;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, patch: patch as Partial<LimitValues> };
}

/** Where a value came from, when the person needs to know (a start flag sets it again at restart). */
export function sourceNote(source: AdminLimitSource | undefined, t: Translate = ENGLISH): string | null {
  if (!source?.start_option) return null;
  return t(source.from === 'start' ? 'settings.limits.setAtStart' : 'settings.limits.changedHere', {
    option: source.start_option,
  });
}

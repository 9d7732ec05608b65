/**
 * Times, durations and sizes as the UI writes them, in the chosen locale. Units come from
 * the catalogue (common area: "5 min ago" / "5 分钟前"); calendar dates and clock times from
 * Intl.DateTimeFormat, so the order and the words follow the language.
 */
import type { Locale } from './define';
import { translate } from './catalogue';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Time left until a deadline: "0:42", "4:05", "1 h 05 min", "2 d 3 h"; "expired" at ≤ 0. */
export function formatCountdown(locale: Locale, remainingMs: number): string {
  if (!Number.isFinite(remainingMs)) return '—';
  if (remainingMs <= 0) return translate(locale, 'common.time.expired');
  // Round up so "0:00" is never shown while time is still left.
  const totalSeconds = Math.ceil(remainingMs / SECOND);
  if (totalSeconds < 3600) return `${Math.floor(totalSeconds / 60)}:${pad2(totalSeconds % 60)}`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 24 * 60) {
    return translate(locale, 'common.time.hoursMinutes', {
      h: Math.floor(totalMinutes / 60),
      m: pad2(totalMinutes % 60),
    });
  }
  const hours = Math.floor(totalMinutes / 60);
  return translate(locale, 'common.time.daysHours', { d: Math.floor(hours / 24), h: hours % 24 });
}

/** "just now", "45 s ago", "5 min ago", "2 h ago", "3 d ago"; future times read "in …". */
export function formatRelative(locale: Locale, thenMs: number, nowMs: number): string {
  const delta = nowMs - thenMs;
  const abs = Math.abs(delta);
  if (abs < 10 * SECOND) return translate(locale, 'common.time.justNow');
  let text: string;
  if (abs < MINUTE) text = translate(locale, 'common.time.s', { n: Math.floor(abs / SECOND) });
  else if (abs < HOUR) text = translate(locale, 'common.time.min', { n: Math.floor(abs / MINUTE) });
  else if (abs < DAY) text = translate(locale, 'common.time.h', { n: Math.floor(abs / HOUR) });
  else text = translate(locale, 'common.time.d', { n: Math.floor(abs / DAY) });
  return translate(locale, delta >= 0 ? 'common.time.ago' : 'common.time.in', { time: text });
}

/** An action's duration: "85 ms", "1.2 s", "2 min 05 s". */
export function formatDuration(locale: Locale, ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < SECOND) return translate(locale, 'common.time.ms', { n: Math.round(ms) });
  if (ms < MINUTE) return translate(locale, 'common.time.secondsDecimal', { n: (ms / SECOND).toFixed(1) });
  const seconds = Math.round(ms / SECOND);
  return translate(locale, 'common.time.minutesSeconds', { m: Math.floor(seconds / 60), s: pad2(seconds % 60) });
}

/** A configured limit: "none" for null, otherwise the largest two whole units ("1 h 30 min"). */
export function formatLimit(locale: Locale, ms: number | null): string {
  if (ms === null) return translate(locale, 'common.time.none');
  if (ms <= 0) return '0';
  const parts: string[] = [];
  let rest = ms;
  const units = [
    ['common.time.d', DAY],
    ['common.time.h', HOUR],
    ['common.time.min', MINUTE],
    ['common.time.s', SECOND],
    ['common.time.ms', 1],
  ] as const;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(translate(locale, unit, { n: count }));
    rest -= count * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** A short wait in whole seconds ("in 5 s", "in 1 min 10 s"); "now" once it is due. */
export function formatSecondsLeft(locale: Locale, remainingMs: number): string {
  if (!Number.isFinite(remainingMs)) return '—';
  if (remainingMs <= 0) return translate(locale, 'common.time.now');
  const seconds = Math.ceil(remainingMs / SECOND);
  const time =
    seconds < 60
      ? translate(locale, 'common.time.s', { n: seconds })
      : translate(locale, 'common.time.minutesSeconds', { m: Math.floor(seconds / 60), s: seconds % 60 });
  return translate(locale, 'common.time.in', { time });
}

const dateFormats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(locale: Locale, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const id = `${locale}|${JSON.stringify(options)}`;
  let format = dateFormats.get(id);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    dateFormats.set(id, format);
  }
  return format;
}

/**
 * A wall-clock time for tables: the time with seconds today ("14:03:27"), else the date and
 * minutes. English keeps the sortable "2024-05-01 14:03"; Chinese writes "2024年5月1日 14:03".
 */
export function formatClock(locale: Locale, timeMs: number, nowMs: number): string {
  const date = new Date(timeMs);
  const hms = `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
  if (date.toDateString() === new Date(nowMs).toDateString()) return hms;
  if (locale === 'en') {
    return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${hms.slice(0, 5)}`;
  }
  return `${dateFormat(locale, { year: 'numeric', month: 'long', day: 'numeric' }).format(date)} ${hms.slice(0, 5)}`;
}

/** A moment's date, time and zone, as formatStamp writes them. */
export interface StampParts {
  /** "2026-12-07" */
  date: string;
  /** "14:03:27" */
  time: string;
  /** "UTC", or the local zone as its offset: "UTC+08:00", "UTC-05:00". */
  zone: string;
}

/**
 * A moment as the evidence is dated, in one form wherever it is shown: "2026-12-07 14:03:27"
 * and its zone, named. A bundle is read anywhere, later, so it is in UTC; the console's list of
 * bundles is read here and now, so in this computer's zone, with the zone said (its offset:
 * the same in every language, and the link to the bundle's UTC is plain arithmetic).
 */
export function stampParts(timeMs: number, zone: 'utc' | 'local'): StampParts {
  const offset = zone === 'utc' ? 0 : -new Date(timeMs).getTimezoneOffset();
  const shifted = new Date(timeMs + offset * 60_000);
  const date = `${shifted.getUTCFullYear()}-${pad2(shifted.getUTCMonth() + 1)}-${pad2(shifted.getUTCDate())}`;
  const time = `${pad2(shifted.getUTCHours())}:${pad2(shifted.getUTCMinutes())}:${pad2(shifted.getUTCSeconds())}`;
  const name =
    zone === 'utc' || offset === 0
      ? 'UTC'
      : `UTC${offset > 0 ? '+' : '-'}${pad2(Math.floor(Math.abs(offset) / 60))}:${pad2(Math.abs(offset) % 60)}`;
  return { date, time, zone: name };
}

/** "2026-12-07 14:03:27 UTC" (see stampParts). */
export function formatStamp(timeMs: number, zone: 'utc' | 'local'): string {
  const p = stampParts(timeMs, zone);
  return `${p.date} ${p.time} ${p.zone}`;
}

/**
 * A span in that form, the zone said once: "2026-12-07 14:03:27 – 14:10:05 UTC+08:00", the end's
 * date written only when it is another day.
 */
export function formatStampRange(fromMs: number, toMs: number, zone: 'utc' | 'local'): string {
  const from = stampParts(fromMs, zone);
  const to = stampParts(toMs, zone);
  return `${from.date} ${from.time} – ${to.date === from.date ? '' : `${to.date} `}${to.time} ${to.zone}`;
}

/** A full date and time in the locale's own words: "May 1, 2024, 2:03 PM" / "2024年5月1日 14:03". */
export function formatDateTime(locale: Locale, timeMs: number): string {
  return dateFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(timeMs));
}

/** A number with the locale's grouping: "12,345". */
export function formatNumber(locale: Locale, value: number): string {
  return value.toLocaleString(locale);
}

/** The formatters bound to one locale (what the renderer's useT() hands out). */
export interface Formatters {
  countdown(remainingMs: number): string;
  relative(thenMs: number, nowMs: number): string;
  duration(ms: number): string;
  limit(ms: number | null): string;
  secondsLeft(remainingMs: number): string;
  clock(timeMs: number, nowMs: number): string;
  dateTime(timeMs: number): string;
  number(value: number): string;
}

export function formatters(locale: Locale): Formatters {
  return {
    countdown: (ms) => formatCountdown(locale, ms),
    relative: (then, now) => formatRelative(locale, then, now),
    duration: (ms) => formatDuration(locale, ms),
    limit: (ms) => formatLimit(locale, ms),
    secondsLeft: (ms) => formatSecondsLeft(locale, ms),
    clock: (time, now) => formatClock(locale, time, now),
    dateTime: (time) => formatDateTime(locale, time),
    number: (value) => formatNumber(locale, value),
  };
}

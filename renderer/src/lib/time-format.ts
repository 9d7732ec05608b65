/**
 * How the UI writes times: countdowns ("4:05", "1 h 05 min"), relative times ("5 min ago"),
 * durations, limits, sizes and ids. The words come from the catalogue's formatters
 * (main/contract/i18n/format.ts) in the given locale, English by default; components get
 * them bound to the UI's language from useT().format. Pure functions, unit-tested in Node.
 */
import {
  formatClock as clock,
  formatCountdown as countdown,
  formatDuration as duration,
  formatLimit as limit,
  formatRelative as relative,
  formatSecondsLeft as secondsLeft,
  type Locale,
} from '../../../main/contract/i18n';

/** Time left until a deadline: "0:42", "4:05", "1 h 05 min", "2 d 3 h"; "expired" at ≤ 0. */
export function formatCountdown(remainingMs: number, locale: Locale = 'en'): string {
  return countdown(locale, remainingMs);
}

/** "just now", "45 s ago", "5 min ago", "2 h ago", "3 d ago"; future times read "in …". */
export function formatRelative(thenMs: number, nowMs: number, locale: Locale = 'en'): string {
  return relative(locale, thenMs, nowMs);
}

/** An action's duration: "85 ms", "1.2 s", "2 min 05 s". */
export function formatDuration(ms: number, locale: Locale = 'en'): string {
  return duration(locale, ms);
}

/** A configured limit: "none" for null, otherwise the largest whole units ("1 h 30 min"). */
export function formatLimit(ms: number | null, locale: Locale = 'en'): string {
  return limit(locale, ms);
}

/** Bytes in binary units: "512 B", "1.5 KiB", "200 MiB" (the same in every language). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = unit === 0 || value >= 100 ? String(Math.round(value)) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${units[unit] ?? 'B'}`;
}

/** A wall-clock time for tables: "14:03:27" today, "2024-05-01 14:03" (English) otherwise. */
export function formatClock(timeMs: number, nowMs: number, locale: Locale = 'en'): string {
  return clock(locale, timeMs, nowMs);
}

/** Long ids (channels) stay recognisable but short: "ch_8f2a…91c0". */
export function shortId(id: string): string {
  return id.length <= 14 ? id : `${id.slice(0, 7)}…${id.slice(-4)}`;
}

/** A short wait in whole seconds ("in 5 s", "in 1 min 10 s"); "now" once it is due. */
export function formatSecondsLeft(remainingMs: number, locale: Locale = 'en'): string {
  return secondsLeft(locale, remainingMs);
}

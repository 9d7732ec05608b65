/**
 * How the UI writes times: countdowns ("4:05", "1 h 05 min"), relative times ("5 min ago"),
 * durations and limits. Pure functions so they are unit-tested in Node.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Time left until a deadline: "0:42", "4:05", "1 h 05 min", "2 d 3 h"; "expired" at ≤ 0. */
export function formatCountdown(remainingMs: number): string {
  if (!Number.isFinite(remainingMs)) return '—';
  if (remainingMs <= 0) return 'expired';
  // Round up so "0:00" is never shown while time is still left.
  const totalSeconds = Math.ceil(remainingMs / SECOND);
  if (totalSeconds < 3600) {
    return `${Math.floor(totalSeconds / 60)}:${pad2(totalSeconds % 60)}`;
  }
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes < 24 * 60) {
    return `${Math.floor(totalMinutes / 60)} h ${pad2(totalMinutes % 60)} min`;
  }
  const hours = Math.floor(totalMinutes / 60);
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

/** "just now", "45 s ago", "5 min ago", "2 h ago", "3 d ago"; future times read "in …". */
export function formatRelative(thenMs: number, nowMs: number): string {
  const delta = nowMs - thenMs;
  const abs = Math.abs(delta);
  if (abs < 10 * SECOND) return 'just now';
  let text: string;
  if (abs < MINUTE) text = `${Math.floor(abs / SECOND)} s`;
  else if (abs < HOUR) text = `${Math.floor(abs / MINUTE)} min`;
  else if (abs < DAY) text = `${Math.floor(abs / HOUR)} h`;
  else text = `${Math.floor(abs / DAY)} d`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/** An action's duration: "85 ms", "1.2 s", "2 min 05 s". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < SECOND) return `${Math.round(ms)} ms`;
  if (ms < MINUTE) return `${(ms / SECOND).toFixed(1)} s`;
  const seconds = Math.round(ms / SECOND);
  return `${Math.floor(seconds / 60)} min ${pad2(seconds % 60)} s`;
}

/** A configured limit: "none" for null, otherwise the largest whole units ("1 h 30 min"). */
export function formatLimit(ms: number | null): string {
  if (ms === null) return 'none';
  if (ms <= 0) return '0';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['d', DAY], ['h', HOUR], ['min', MINUTE], ['s', SECOND], ['ms', 1]] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${unit}`);
    rest -= count * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** Bytes in binary units: "512 B", "1.5 KiB", "200 MiB". */
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

/** A wall-clock time for tables: "14:03:27" today, "2024-05-01 14:03" otherwise. */
export function formatClock(timeMs: number, nowMs: number): string {
  const date = new Date(timeMs);
  const now = new Date(nowMs);
  const hms = `${pad2(date.getHours())}:${pad2(date.getMinutes())}:${pad2(date.getSeconds())}`;
  if (date.toDateString() === now.toDateString()) return hms;
  return `${date.getFullYear()}-${pad2(date.getMonth() + 1)}-${pad2(date.getDate())} ${hms.slice(0, 5)}`;
}

/** Long ids (channels) stay recognisable but short: "ch_8f2a…91c0". */
export function shortId(id: string): string {
  return id.length <= 14 ? id : `${id.slice(0, 7)}…${id.slice(-4)}`;
}

/** A short wait in whole seconds ("in 5 s", "in 1 min 10 s"); "now" once it is due. */
export function formatSecondsLeft(remainingMs: number): string {
  if (!Number.isFinite(remainingMs)) return '—';
  if (remainingMs <= 0) return 'now';
  const seconds = Math.ceil(remainingMs / SECOND);
  if (seconds < 60) return `in ${seconds} s`;
  return `in ${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/**
 * Limits as people write them on the command line and in env variables: durations ("90s",
 * "2m", "1h30m", "1500ms", "none") and sizes ("256MiB", "1GiB", "500MB", "1048576"), checked
 * against the shared definitions of main/contract/limits.ts with messages that say what was
 * wrong and what would do.
 */
import { LIMIT_DEFINITIONS, describeLimitRange, formatLimitValue, type LimitKey } from '../../contract/limits';

export type TextParse = { ok: true; value: number } | { ok: false; message: string };

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  sec: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tib: 1024 ** 4,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  tb: 1000 ** 4,
};

const NONE_WORDS = new Set(['none', 'off', 'never', 'unlimited']);

/** "90s", "2m", "1h30m", "1.5h", "1500ms" → milliseconds. A bare number is refused (which unit?). */
export function parseDuration(text: string): TextParse {
  const trimmed = text.trim().toLowerCase();
  if (/^\d+(?:\.\d+)?$/.test(trimmed)) {
    return { ok: false, message: `"${text}" has no unit; write it as ${trimmed}s, ${trimmed}m or ${trimmed}ms` };
  }
  const part = /(\d+(?:\.\d+)?)\s*([a-z]+)\s*/gy;
  let total = 0;
  let consumed = 0;
  for (let match = part.exec(trimmed); match; match = part.exec(trimmed)) {
    const size = DURATION_UNITS[match[2] ?? ''];
    if (size === undefined)
      return {
        ok: false,
        message: `"${text}" has an unknown unit "${match[2]}" (use ms, s, m, h or d, e.g. 90s, 2m, 1h30m)`,
      };
    total += Number(match[1]) * size;
    consumed = part.lastIndex;
  }
  if (trimmed === '' || consumed !== trimmed.length)
    return { ok: false, message: `"${text}" is not a duration (e.g. 90s, 2m, 1h30m, 8h)` };
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) return { ok: false, message: `"${text}" is too long` };
  return { ok: true, value: ms };
}

/** "256MiB", "1GiB", "256m" (binary), "500MB" (decimal), "1048576" (bytes) → bytes. */
export function parseByteSize(text: string): TextParse {
  const match = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  if (!match) return { ok: false, message: `"${text}" is not a size (e.g. 256MiB, 1GiB, 500MB)` };
  const unit = (match[2] ?? '').toLowerCase();
  const size = unit === '' ? 1 : SIZE_UNITS[unit];
  if (size === undefined)
    return { ok: false, message: `"${text}" has an unknown unit "${match[2]}" (use B, KiB, MiB, GiB, or KB, MB, GB)` };
  const bytes = Math.round(Number(match[1]) * size);
  if (!Number.isSafeInteger(bytes)) return { ok: false, message: `"${text}" is too large` };
  return { ok: true, value: bytes };
}

function parseCount(text: string): TextParse {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return { ok: false, message: `"${text}" is not a whole number` };
  return { ok: true, value: Number(trimmed) };
}

/**
 * One limit as a person wrote it (`name` is the flag or env variable, for the message):
 * parsed in its unit, "none" where the limit allows no cap, then checked against its range.
 */
export function parseLimitText(
  key: LimitKey,
  text: string,
  name: string,
): { ok: true; value: number | null } | { ok: false; message: string } {
  const d = LIMIT_DEFINITIONS[key];
  const range = `${d.label.toLowerCase()} must be ${describeLimitRange(key)}`;
  if (NONE_WORDS.has(text.trim().toLowerCase())) {
    return d.nullable
      ? { ok: true, value: null }
      : { ok: false, message: `${name}: "${text}" is not allowed here; ${range}` };
  }
  const parsed =
    d.unit === 'duration' ? parseDuration(text) : d.unit === 'bytes' ? parseByteSize(text) : parseCount(text);
  if (!parsed.ok) return { ok: false, message: `${name}: ${parsed.message}` };
  if (parsed.value < d.min || parsed.value > d.max) {
    return { ok: false, message: `${name}: ${formatLimitValue(d.unit, parsed.value)} is out of range; ${range}` };
  }
  return parsed;
}

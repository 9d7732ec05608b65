/**
 * Fills a message's placeholders. Two forms, a small subset of ICU MessageFormat:
 *   {name}                                   the parameter as text (numbers in the locale's digits)
 *   {count, plural, one {# phone} other {# phones}}   a branch chosen by Intl.PluralRules,
 *                                            `=0 {…}` exact matches first, `#` is the number
 * Unknown parameters stay visible as {name}, so a missing value shows in review, never crashes.
 */
import type { Locale } from './define';

export type MessageParams = Readonly<Record<string, string | number>>;

const pluralRulesCache = new Map<Locale, Intl.PluralRules>();
function pluralRules(locale: Locale): Intl.PluralRules {
  let rules = pluralRulesCache.get(locale);
  if (!rules) {
    rules = new Intl.PluralRules(locale);
    pluralRulesCache.set(locale, rules);
  }
  return rules;
}

/** Index of the `}` closing the `{` at `open`, counting nested braces; -1 when unbalanced. */
function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i += 1) {
    const c = text[i];
    if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

function formatNumber(locale: Locale, value: number): string {
  return Number.isInteger(value) ? String(value) : value.toLocaleString(locale);
}

/** The plural branches of `one {…} other {…}` as a map from selector to text. */
function pluralBranches(body: string): Map<string, string> {
  const branches = new Map<string, string>();
  let i = 0;
  while (i < body.length) {
    const open = body.indexOf('{', i);
    if (open < 0) break;
    const selector = body.slice(i, open).trim();
    const close = matchingBrace(body, open);
    if (close < 0) break;
    branches.set(selector, body.slice(open + 1, close));
    i = close + 1;
  }
  return branches;
}

export function interpolate(locale: Locale, message: string, params: MessageParams = {}): string {
  let out = '';
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('{', i);
    if (open < 0) {
      out += message.slice(i);
      break;
    }
    out += message.slice(i, open);
    const close = matchingBrace(message, open);
    if (close < 0) {
      out += message.slice(open);
      break;
    }
    const inner = message.slice(open + 1, close);
    const comma = inner.indexOf(',');
    const name = (comma < 0 ? inner : inner.slice(0, comma)).trim();
    const value = params[name];
    if (comma < 0) {
      out += value === undefined ? `{${name}}` : typeof value === 'number' ? formatNumber(locale, value) : value;
    } else {
      const rest = inner.slice(comma + 1);
      const kindEnd = rest.indexOf(',');
      const kind = rest.slice(0, kindEnd < 0 ? rest.length : kindEnd).trim();
      const n = typeof value === 'number' ? value : Number(value);
      if (kind !== 'plural' || kindEnd < 0 || value === undefined || !Number.isFinite(n)) {
        out += `{${name}}`;
      } else {
        const branches = pluralBranches(rest.slice(kindEnd + 1));
        const chosen =
          branches.get(`=${n}`) ?? branches.get(pluralRules(locale).select(n)) ?? branches.get('other') ?? '';
        out += interpolate(locale, chosen.replaceAll('#', formatNumber(locale, n)), params);
      }
    }
    i = close + 1;
  }
  return out;
}

/** The parameter names a message uses ({name} and {name, plural, …}), for the catalogue test. */
export function placeholderNames(message: string): Set<string> {
  const names = new Set<string>();
  let i = 0;
  while (i < message.length) {
    const open = message.indexOf('{', i);
    if (open < 0) break;
    const close = matchingBrace(message, open);
    if (close < 0) break;
    const inner = message.slice(open + 1, close);
    const comma = inner.indexOf(',');
    names.add((comma < 0 ? inner : inner.slice(0, comma)).trim());
    if (comma >= 0) {
      for (const branch of pluralBranches(inner.slice(inner.indexOf(',', comma + 1) + 1)).values()) {
        for (const nested of placeholderNames(branch)) names.add(nested);
      }
    }
    i = close + 1;
  }
  return names;
}

/**
 * Policy editor logic: the sensitive-app list is edited as text (one package per line) and
 * checked before it is sent, so the person sees which line is wrong.
 */
import type { AdminPolicies, PolicyDecision } from '../../../main/contract/admin-api';
import { translator, type Translate } from '../../../main/contract/i18n';
import { RISK_CLASSES, isRiskClass, riskClassWords } from '../../../main/contract/risk-classes';

const ENGLISH = translator('en');

export const POLICY_DECISIONS: readonly PolicyDecision[] = ['allow', 'ask', 'deny'];

// Android package names: dot-separated segments of letters, digits and underscores,
// each starting with a letter (e.g. com.example.bank).
const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;

export interface ParsedPackageList {
  packages: string[];
  /** Lines that are not package names, 1-based line numbers. */
  invalid: Array<{ line: number; text: string }>;
}

/** One package per line; blank lines and `#` comments ignored; duplicates dropped. */
export function parsePackageList(text: string): ParsedPackageList {
  const packages: string[] = [];
  const invalid: ParsedPackageList['invalid'] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!PACKAGE_RE.test(line)) invalid.push({ line: index + 1, text: line });
    else if (!packages.includes(line)) packages.push(line);
  });
  return { packages, invalid };
}

export function formatPackageList(packages: readonly string[]): string {
  return packages.join('\n');
}

/** A copy of `policies` with one default changed; other fields untouched. */
export function withDefault(policies: AdminPolicies, riskClass: string, decision: PolicyDecision): AdminPolicies {
  return { ...policies, defaults: { ...policies.defaults, [riskClass]: decision } };
}

/** "payment_app" → "Payment app". */
export function riskLabel(riskClass: string): string {
  const words = riskClass.replace(/[_-]+/g, ' ').trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1) : riskClass;
}

/**
 * The classes present in `defaults`: the contract's (main/contract/risk-classes.ts) in its
 * order with their words, then any a newer bridge adds (sorted), named from their id.
 */
export function orderedRiskClasses(
  defaults: Record<string, unknown>,
  t: Translate = ENGLISH,
): Array<{ id: string; label: string; hint: string | null }> {
  const present = new Set(Object.keys(defaults));
  const known = RISK_CLASSES.filter((id) => present.has(id)).map((id) => {
    const words = riskClassWords(id);
    return { id, label: t(words.label), hint: t(words.hint) };
  });
  const unknown = [...present]
    .filter((id) => !isRiskClass(id))
    .sort()
    .map((id) => ({ id, label: riskLabel(id), hint: null }));
  return [...known, ...unknown];
}

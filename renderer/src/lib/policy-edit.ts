/**
 * Policy editor logic: the sensitive-app list is edited as text (one package per line) and
 * checked before it is sent, so the person sees which line is wrong.
 */
import type { AdminPolicies, PolicyDecision } from '../../../main/contract/admin-api';
import { hasMessage, translator, type Translate } from '../../../main/contract/i18n';

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
 * The risk classes of main/core/safety/risk-classes.ts the editor knows, in the order it
 * lists them (everyday work first, then the high-risk classes); each has a label and a hint
 * in the catalogue (`settings.risk.<id>`, `settings.risk.<id>.hint`). Classes the bridge adds
 * later still show, after these, with a label made from their name.
 */
export const KNOWN_RISK_CLASSES: readonly string[] = [
  'observation',
  'control',
  'unreadable_screen',
  'install_app',
  'push_file',
  'clipboard_read',
  'permission_change',
  'clear_app_data',
  'non_web_url',
  'sensitive_app',
  'password_field',
  'sensitive_screen',
  'secure_screen',
];

/** The classes present in `defaults`, known ones in KNOWN_RISK_CLASSES order, unknown ones after (sorted). */
export function orderedRiskClasses(
  defaults: Record<string, unknown>,
  t: Translate = ENGLISH,
): Array<{ id: string; label: string; hint: string | null }> {
  const present = new Set(Object.keys(defaults));
  const known = KNOWN_RISK_CLASSES.filter((id) => present.has(id)).map((id) => {
    const label = `settings.risk.${id}`;
    const hint = `${label}.hint`;
    return { id, label: hasMessage(label) ? t(label) : riskLabel(id), hint: hasMessage(hint) ? t(hint) : null };
  });
  const unknown = [...present]
    .filter((id) => !KNOWN_RISK_CLASSES.includes(id))
    .sort()
    .map((id) => ({ id, label: riskLabel(id), hint: null }));
  return [...known, ...unknown];
}

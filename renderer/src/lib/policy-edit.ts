/**
 * Policy editor logic: the sensitive-app list is edited as text (one package per line) and
 * checked before it is sent, so the person sees which line is wrong.
 */
import type { AdminPolicies, PolicyDecision } from '../../../main/contract/admin-api';

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
 * What each risk class of main/core/safety/risk-classes.ts means, in the order the editor
 * lists them (everyday work first, then the high-risk classes). Classes the bridge adds
 * later still show, after these, with a label made from their name.
 */
export const RISK_CLASS_INFO: ReadonlyArray<{ id: string; label: string; hint: string }> = [
  { id: 'observation', label: 'Reading the phone', hint: 'Status, screenshots, UI tree, app list' },
  { id: 'control', label: 'Ordinary control', hint: 'Tap, type, swipe, keys, launching apps' },
  { id: 'unreadable_screen', label: 'Screen could not be read', hint: 'The UI could not be read, so the screen checks were skipped' },
  { id: 'install_app', label: 'Installing an app', hint: 'An APK the agent uploaded' },
  { id: 'push_file', label: 'Copying a file onto the phone', hint: 'A file the agent uploaded' },
  { id: 'non_web_url', label: 'Opening app links', hint: 'market:, tel:, sms: and other non-web URLs' },
  { id: 'sensitive_app', label: 'Sensitive apps', hint: 'Payments, banking, wallets, app stores, security settings' },
  { id: 'password_field', label: 'Password fields', hint: 'Typing into a password field' },
  { id: 'sensitive_screen', label: 'Sensitive buttons', hint: 'Pay, transfer, delete account, factory reset…' },
  { id: 'secure_screen', label: 'Protected screens', hint: 'Windows that block screenshots' },
];

/** The classes present in `defaults`, known ones in RISK_CLASS_INFO order, unknown ones after (sorted). */
export function orderedRiskClasses(defaults: Record<string, unknown>): Array<{ id: string; label: string; hint: string | null }> {
  const present = new Set(Object.keys(defaults));
  const known = RISK_CLASS_INFO.filter((info) => present.has(info.id));
  const unknown = [...present]
    .filter((id) => !RISK_CLASS_INFO.some((info) => info.id === id))
    .sort()
    .map((id) => ({ id, label: riskLabel(id), hint: null }));
  return [...known, ...unknown];
}

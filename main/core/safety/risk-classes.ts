/**
 * The risk classes the policy engine sorts every tool call into, their built-in decisions
 * and their levels. A call can fall into several classes at once (e.g. a tap on a wallet's
 * pay button: `control`, `sensitive_app`, `sensitive_screen`); the strictest decision wins.
 */
import type { PolicyDecision } from '../../contract/admin-api';

export const RISK_CLASSES = [
  /** Reading the phone (status, screenshot, UI tree …). */
  'observation',
  /** Any ordinary control action (tap, type, swipe, keys, launching apps). */
  'control',
  /** android_install_apk. */
  'install_app',
  /** android_push_file. */
  'push_file',
  /** Reading the phone's clipboard: it may hold a password or a one-time code. */
  'clipboard_read',
  /** Granting or revoking an app's runtime permission (camera, location, contacts …). */
  'permission_change',
  /** Erasing an app's data (its accounts, settings and files; its permissions are reset too). */
  'clear_app_data',
  /** android_open_url with a scheme other than http(s): market:, tel:, sms:, custom app links. */
  'non_web_url',
  /** The app in front or being launched is on the sensitive-app list (payments, banking, wallets, app stores, password managers, security/account settings). */
  'sensitive_app',
  /** Typing into (or pasting into) a focused or targeted password field. */
  'password_field',
  /** Payment / transfer / delete-account / factory-reset words on what the action touches. */
  'sensitive_screen',
  /** The window in front is FLAG_SECURE (its screenshots are black). */
  'secure_screen',
  /** The screen could not be read, so the screen-based classes could not be checked. */
  'unreadable_screen',
] as const;

export type RiskClass = (typeof RISK_CLASSES)[number];

export function isRiskClass(value: string): value is RiskClass {
  return (RISK_CLASSES as readonly string[]).includes(value);
}

/** High-risk classes ask a person by default; ordinary work is allowed. */
export const DEFAULT_DECISIONS: Readonly<Record<RiskClass, PolicyDecision>> = Object.freeze({
  observation: 'allow',
  control: 'allow',
  install_app: 'ask',
  push_file: 'ask',
  clipboard_read: 'ask',
  permission_change: 'ask',
  clear_app_data: 'ask',
  non_web_url: 'ask',
  sensitive_app: 'ask',
  password_field: 'ask',
  sensitive_screen: 'ask',
  secure_screen: 'ask',
  // Fail-open by default: a phone whose UI cannot be dumped (some games, animations) would
  // otherwise need a person for every tap. Labs that prefer fail-closed set it to `ask`.
  unreadable_screen: 'allow',
});

export const HIGH_RISK: ReadonlySet<RiskClass> = new Set<RiskClass>([
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
]);

export type RiskLevel = 'low' | 'medium' | 'high';

export function riskLevel(classes: readonly RiskClass[]): RiskLevel {
  if (classes.some((c) => HIGH_RISK.has(c))) return 'high';
  if (classes.includes('unreadable_screen')) return 'medium';
  return 'low';
}

const ORDER: Record<PolicyDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** The strictest of several decisions (deny > ask > allow). */
export function strictest(decisions: readonly PolicyDecision[]): PolicyDecision {
  let out: PolicyDecision = 'allow';
  for (const d of decisions) if (ORDER[d] > ORDER[out]) out = d;
  return out;
}

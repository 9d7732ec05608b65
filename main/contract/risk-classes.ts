/**
 * The risk classes the safety policy sorts every tool call into (main/core/safety/), once, in
 * the order people read them in the policy editor: everyday work first, then the classes that
 * ask a person by default. With each, the catalogue's words for it (a name and a hint), typed
 * so a class without its words does not compile.
 */
import type { MessageKey } from './i18n';

/** Everyday work: allowed by default. */
const EVERYDAY_CLASSES = [
  /** Reading the phone (status, screenshot, UI tree …). */
  'observation',
  /** Any ordinary control action (tap, type, swipe, keys, launching apps). */
  'control',
  /**
   * The screen could not be read, so the screen-based classes could not be checked. Allowed by
   * default (fail-open): a phone whose UI cannot be dumped (some games, animations) would
   * otherwise need a person for every tap. Labs that prefer fail-closed set it to `ask`.
   */
  'unreadable_screen',
] as const;

/** The high-risk classes: each asks a person by default. */
export const HIGH_RISK_CLASSES = [
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
] as const;

export const RISK_CLASSES = [...EVERYDAY_CLASSES, ...HIGH_RISK_CLASSES] as const;

export type RiskClass = (typeof RISK_CLASSES)[number];

export function isRiskClass(value: string): value is RiskClass {
  return (RISK_CLASSES as readonly string[]).includes(value);
}

/**
 * What the console calls a class, and the hint under it. The keys are built from the class's
 * name, so a class whose two words are missing from the catalogue does not compile here.
 */
export function riskClassWords(riskClass: RiskClass): { label: MessageKey; hint: MessageKey } {
  return { label: `settings.risk.${riskClass}`, hint: `settings.risk.${riskClass}.hint` };
}

/**
 * The risk classes the safety policy sorts every tool call into (main/core/safety/), once, in
 * the order people read them in the policy editor: everyday work first, then the classes that
 * ask a person by default. With each, the catalogue's words for it (a name and a hint), typed
 * so a class without its words does not compile.
 */
import type { MessageKey } from './i18n';

export const RISK_CLASSES = [
  /** Reading the phone (status, screenshot, UI tree …). */
  'observation',
  /** Any ordinary control action (tap, type, swipe, keys, launching apps). */
  'control',
  /** The screen could not be read, so the screen-based classes could not be checked. */
  'unreadable_screen',
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

export type RiskClass = (typeof RISK_CLASSES)[number];

export function isRiskClass(value: string): value is RiskClass {
  return (RISK_CLASSES as readonly string[]).includes(value);
}

/** What the console calls each class, and the hint under it. */
export const RISK_CLASS_WORDS: Readonly<Record<RiskClass, { label: MessageKey; hint: MessageKey }>> = {
  observation: { label: 'settings.risk.observation', hint: 'settings.risk.observation.hint' },
  control: { label: 'settings.risk.control', hint: 'settings.risk.control.hint' },
  unreadable_screen: { label: 'settings.risk.unreadable_screen', hint: 'settings.risk.unreadable_screen.hint' },
  install_app: { label: 'settings.risk.install_app', hint: 'settings.risk.install_app.hint' },
  push_file: { label: 'settings.risk.push_file', hint: 'settings.risk.push_file.hint' },
  clipboard_read: { label: 'settings.risk.clipboard_read', hint: 'settings.risk.clipboard_read.hint' },
  permission_change: { label: 'settings.risk.permission_change', hint: 'settings.risk.permission_change.hint' },
  clear_app_data: { label: 'settings.risk.clear_app_data', hint: 'settings.risk.clear_app_data.hint' },
  non_web_url: { label: 'settings.risk.non_web_url', hint: 'settings.risk.non_web_url.hint' },
  sensitive_app: { label: 'settings.risk.sensitive_app', hint: 'settings.risk.sensitive_app.hint' },
  password_field: { label: 'settings.risk.password_field', hint: 'settings.risk.password_field.hint' },
  sensitive_screen: { label: 'settings.risk.sensitive_screen', hint: 'settings.risk.sensitive_screen.hint' },
  secure_screen: { label: 'settings.risk.secure_screen', hint: 'settings.risk.secure_screen.hint' },
};

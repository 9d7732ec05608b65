/**
 * The built-in decisions and levels of the risk classes (main/contract/risk-classes.ts) the
 * policy engine sorts every tool call into. A call can fall into several classes at once (e.g. a tap on a wallet's
 * pay button: `control`, `sensitive_app`, `sensitive_screen`); the strictest decision wins.
 */
import type { PolicyDecision } from '../../contract/admin-api';
import type { RiskClass } from '../../contract/risk-classes';

export { RISK_CLASSES, isRiskClass, type RiskClass } from '../../contract/risk-classes';

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

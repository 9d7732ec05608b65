/**
 * The built-in decisions and levels of the risk classes (main/contract/risk-classes.ts) the
 * policy engine sorts every tool call into. A call can fall into several classes at once (e.g. a tap on a wallet's
 * pay button: `control`, `sensitive_app`, `sensitive_screen`); the strictest decision wins.
 */
import type { PolicyDecision } from '../../contract/admin-api';
import { HIGH_RISK_CLASSES, RISK_CLASSES, type RiskClass } from '../../contract/risk-classes';

export { RISK_CLASSES, isRiskClass, type RiskClass } from '../../contract/risk-classes';

export const HIGH_RISK: ReadonlySet<RiskClass> = new Set<RiskClass>(HIGH_RISK_CLASSES);

type Decisions = Record<RiskClass, PolicyDecision>;

/** High-risk classes ask a person by default; the rest are allowed (contract/risk-classes.ts says why for each). */
export const DEFAULT_DECISIONS: Readonly<Decisions> = Object.freeze(
  Object.fromEntries(RISK_CLASSES.map((c) => [c, HIGH_RISK.has(c) ? 'ask' : 'allow'])) as Decisions,
);

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

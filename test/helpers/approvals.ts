/**
 * Human approvals as a test drives them through the admin API: the held calls the admin
 * state lists, waiting until a call shows up there, and answering it as the person would.
 */
import assert from 'node:assert/strict';
import type { AdminApprovalReason } from '../../main/contract/admin-api';
import { reasonText } from '../../main/contract/approval-wording';
import { translator } from '../../main/contract/i18n';
import type { Json } from './acks';
import type { TestBridge } from './bridge';
import { untilAnnounced } from './until-announced';

export type ApprovalDecision = 'approve' | 'approve_for_lease' | 'deny';

/** The held calls the admin state lists now. */
export async function pendingApprovals(bridge: TestBridge): Promise<Json[]> {
  const state = await bridge.admin('GET', '/admin/api/state');
  return state.body.approvals as Json[];
}

/**
 * Resolves once the admin state lists a call of `toolId` (matching `also`, when given) as held
 * for approval; read again on each 'approval' announcement, as the console is told of it.
 */
export async function waitForApproval(
  bridge: TestBridge,
  toolId: string,
  also: (approval: Json) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<Json> {
  const held = (list: Json[]): Json | undefined => list.find((a) => a.tool_id === toolId && also(a));
  const list = await untilAnnounced(
    bridge,
    'approval',
    () => pendingApprovals(bridge),
    (l) => held(l) !== undefined,
    `an approval for ${toolId}`,
    timeoutMs,
  );
  return held(list)!;
}

/** Answers a held call as the person at the computer would; the answer must be accepted. */
export async function answerApproval(
  bridge: TestBridge,
  approval: Json | string,
  decision: ApprovalDecision,
): Promise<void> {
  const id = typeof approval === 'string' ? approval : String(approval.approval_id);
  const res = await bridge.admin('POST', `/admin/api/approvals/${encodeURIComponent(id)}`, { decision });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** Waits until a call of `toolId` is held, answers it, and returns what was shown to the person. */
export async function decideApproval(bridge: TestBridge, toolId: string, decision: ApprovalDecision): Promise<Json> {
  const approval = await waitForApproval(bridge, toolId);
  await answerApproval(bridge, approval, decision);
  return approval;
}

/** The codes of an approval's reasons, in order. */
export function reasonCodes(approval: Json): string[] {
  return (approval.reasons as AdminApprovalReason[]).map((r) => r.code);
}

/** An approval's reasons as the English console shows them (and the agent hears them). */
export function reasonWords(approval: Json): string[] {
  const en = translator('en');
  return (approval.reasons as AdminApprovalReason[]).map((r) => reasonText(en, r));
}

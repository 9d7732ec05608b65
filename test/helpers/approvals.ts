/**
 * Human approvals as a test drives them through the admin API: the held calls the admin
 * state lists, waiting until a call shows up there, and answering it as the person would.
 */
import assert from 'node:assert/strict';
import type { Json } from './acks';
import type { TestBridge } from './bridge';

export type ApprovalDecision = 'approve' | 'approve_for_lease' | 'deny';

/** The held calls the admin state lists now. */
export async function pendingApprovals(bridge: TestBridge): Promise<Json[]> {
  const state = await bridge.admin('GET', '/admin/api/state');
  return state.body.approvals as Json[];
}

/** Polls the admin state until a call of `toolId` (matching `also`, when given) is held for approval. */
export async function waitForApproval(bridge: TestBridge, toolId: string, also: (approval: Json) => boolean = () => true, timeoutMs = 15_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = (await pendingApprovals(bridge)).find((a) => a.tool_id === toolId && also(a));
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no approval for ${toolId} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Answers a held call as the person at the computer would; the answer must be accepted. */
export async function answerApproval(bridge: TestBridge, approval: Json | string, decision: ApprovalDecision): Promise<void> {
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

/**
 * The safety gate's contract with the tool runtime: what the runtime tells the gate about a
 * call (CallInfo), what the gate decides (GateDecision), and the sink told about every
 * finished call (the audit trail). The gate decides with these types, so they live on the
 * safety side; the runtime imports them (STYLE.md 5b).
 */
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { UiNode } from '../android/ui-tree';
import type { BatchStep, ToolDefinition } from './tool-definition';

export interface GateDecision {
  decision: 'allow' | 'deny';
  by: string;
  reasons: string[];
  errorCode?: 'approval_denied' | 'approval_timeout' | 'policy_denied' | 'canceled';
  /** Shown to the agent in the result (`result.safety`): decision, who made it, risk, reasons. */
  safety?: Record<string, unknown>;
}

export interface CallInfo {
  channelId: string;
  device: DeviceRecord;
  tool: ToolDefinition<unknown>;
  args: Record<string, unknown>;
  argsHash: string;
  shell: DeviceShell;
  signal: AbortSignal;
  progress: (status: string, message: string) => void;
  /** The channel's last UI tree (what `index` selectors refer to). */
  lastTree?: () => { nodes: UiNode[]; signature: string } | undefined;
  /** Reads the screen's tree through the fast lane (helper or stock dump); absent: the stock dump. */
  readTree?: (window: Promise<{ token: string | null; package: string | null } | null>) => Promise<UiNode[]>;
  /** True while the fast lane's helper runs on the phone: a tree read costs the phone nothing. */
  cheapTree?: boolean;
  /**
   * Reads the screen again once this call's action has ended: the focused window and the
   * helper's tree (never the stock dump), as observation work that waits behind no agent call.
   * Null when no usable tree came. Present only while the fast lane's helper runs.
   */
  screenAfter?: () => Promise<{ token: string | null; nodes: UiNode[] } | null>;
}

/** The safety gate (policy + approvals); the runtime allows everything until one is installed. */
export interface SafetyGate {
  decide(call: CallInfo): Promise<GateDecision>;
  /**
   * Before a later step of a batch: what the earlier steps put on the screen may need a
   * decision the batch did not get (a password field that appeared). Throws to stop the batch.
   */
  checkStep?(call: CallInfo, step: BatchStep): Promise<void>;
}

/** Told about every finished call (the audit trail); `args` is the object the gate saw. */
export interface CallRecordSink {
  record(entry: {
    time: number;
    channelId: string;
    deviceId: string;
    toolId: string;
    args: Record<string, unknown>;
    decision: GateDecision | null;
    outcome: 'ok' | 'error';
    errorCode: string | null;
    durationMs: number;
  }): void;
}

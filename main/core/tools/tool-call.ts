/**
 * One `tool.invoke`, as a record made once at the edge (invoke-handler.ts) after its
 * arguments passed the tool's strict schema, and handed along the whole path: the phone's
 * queue, the safety gate, the tool, the journal, the audit sink and the phone view's
 * timeline (call-pipeline.ts). Nothing after validation sees the packet's raw arguments, and
 * what the gate learns about the call is written on the record, not kept beside it.
 *
 * The safety side decides with these types, so they live here, on the tools side, and
 * safety imports them (STYLE.md 5b; no circle between the folders).
 */
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { UiNode } from '../android/ui-tree';
import type { WindowFacts } from '../android/screen-probe';
import type { ErrorCode } from '../errors';
import type { RememberedTree } from './element-refs';
import type { BatchStep, ToolDefinition } from './tool-definition';

export interface ToolCall {
  /** The channel plus `context.tool_call_id` (else the request id): the exactly-once key. */
  readonly key: string;
  /** The packet id the progress pushes and the ack refer to. */
  readonly requestId: string;
  readonly tool: ToolDefinition<unknown>;
  /** The arguments as the tool's schema accepted them (strict: no unknown keys). */
  readonly args: Readonly<Record<string, unknown>>;
  /** Keyed hash of the tool id and arguments (a retry with other arguments is a conflict). */
  readonly argsHash: string;
  readonly channelId: string;
  readonly device: DeviceRecord;
  /** The phone's shell, sent to the display in use (tools/phone-shells.ts). */
  readonly shell: DeviceShell;
  /** When the bridge took the call (its duration counts from here). */
  readonly receivedAt: number;
  /**
   * The call's cancel: the Stop button, the lease's end, the bridge stopping. The phone's
   * queue aborts it (it is the queue slot's signal), every command of the call listens to it.
   */
  readonly signal: AbortSignal;
  /** Tells the agent where the call is (`tool.progress.push`). */
  progress(status: string, message: string, fraction?: number): void;
  /** The gate holds the call for a person: tells the agent (`waiting_approval`) and the phone view. */
  hold(message: string): void;
  /** The channel's last UI tree (what `index` selectors and element refs refer to). */
  lastTree(): RememberedTree | undefined;
  /** Set when the queue slot begins, from the fast lane (absent: the stock dump). */
  lanesAtSlot?: CallLanes;
  /** The phone view's watch on the call (below), from when it enters the queue. */
  observed?: ObservedCall | undefined;
  /** What the safety gate learned and decided; null until it decided (or when it never ran). */
  verdict: CallVerdict | null;
}

/** The fast lane's ways to read the screen, as the gate may use them for this call. */
export interface CallLanes {
  /** Reads the screen's tree through the fast lane (helper or stock dump). */
  readTree: (window: Promise<{ token: string | null; package: string | null } | null>) => Promise<UiNode[]>;
  /** True while the fast lane's helper runs on the phone: a tree read costs the phone nothing. */
  cheapTree: boolean;
  /**
   * Reads the screen again once this call's action has ended: the focused window and the
   * helper's tree (never the stock dump), as observation work that waits behind no agent call.
   * Null when no usable tree came. Control calls only, while the helper runs.
   */
  screenAfter?: () => Promise<ScreenRead | null>;
}

/** A read of the screen: the window in front, the tree, and when the read ran (performance.now()). */
export interface ScreenRead {
  window: WindowFacts;
  nodes: UiNode[];
  span: { startedAt: number; endedAt: number };
}

/** What the gate learned about a call: the audit line, the timeline and the next call's screen check read it. */
export interface CallVerdict {
  decision: 'allow' | 'deny';
  decidedBy: string;
  reasons: string[];
  risk: string;
  riskClasses: readonly string[];
  /** The arguments as a person and the audit trail may see them. */
  redactedArgs: Record<string, unknown>;
  approvalId: string | null;
  screenshotRef: string | null;
  /** The focused window the gate read before a control call (null: not read). */
  windowBefore: string | null;
  /** The raw UI tree the gate read afresh before the call (null: not read, or a cached tree stood in); element refs are checked against it. */
  treeRead: readonly UiNode[] | null;
}

export interface GateDecision {
  decision: 'allow' | 'deny';
  by: string;
  reasons: string[];
  errorCode?: Extract<ErrorCode, 'approval_denied' | 'approval_timeout' | 'policy_denied' | 'canceled'>;
  /** Shown to the agent in the result (`result.safety`): decision, who made it, risk, reasons. */
  safety?: Record<string, unknown>;
}

/** The safety gate (policy + approvals), asked inside the call's queue slot before it acts. */
export interface SafetyGate {
  decide(call: ToolCall): Promise<GateDecision>;
  /**
   * Before a later step of a batch: what the earlier steps put on the screen may need a
   * decision the batch did not get (a password field that appeared). Throws to stop the batch.
   */
  checkStep?(call: ToolCall, step: BatchStep): Promise<void>;
  /**
   * The tree read after this channel's last action (the fast lane's read while the agent
   * thinks), when the phone's screen stream vouches that the screen has not changed since:
   * a tool may use it instead of reading again. Null otherwise.
   */
  screenStill?(call: ToolCall): Promise<UiNode[] | null>;
}

/** How a call ended, as the audit trail records it. */
export interface CallOutcome {
  outcome: 'ok' | 'error';
  errorCode: ErrorCode | null;
  durationMs: number;
  /** The lane the result names (`adb`, `helper`), when the tool chose one. */
  lane?: string;
  /** The result the agent got, on success (what the call left on the phone: handover/lease-effects.ts). */
  result?: Readonly<Record<string, unknown>>;
}

/** Told about every finished call as its ack is sent, before any later packet is read: what the next call relies on (counts, what the lease left). */
export interface CallRecordSink {
  record(call: ToolCall, outcome: CallOutcome): void;
}

/**
 * What follows a call's ack, each told once the ack is on its way, in the order of the
 * fields (call-pipeline.ts `acked`). None may throw or hold the next: each starts its own
 * work and returns.
 */
export interface AfterAck {
  /** 1. The audit line (safety/safety-service.ts): only records. */
  audit?: { recordCall(call: ToolCall, outcome: CallOutcome): void };
  /** 2. The screen history's read of the screen the action left (safety/screen-history.ts, the fast lane). */
  screenHistory?: { readScreenAfter(call: ToolCall, outcome: 'ok' | 'error'): void };
}

// ---- the phone view's watch on calls ---------------------------------------------------------
// The phone view's timeline (phone-view/action-timeline.ts) observes each call while it
// happens: queued, running, held for approval, about to act on the screen, finished. The
// pipeline decides when each moment is, so the interface lives on this side. An observer never
// changes a call's outcome: its hooks do not throw, and `beforeAction` resolves within its own
// short deadline.

/** One call as it goes through the phone's queue. */
export interface ObservedCall {
  /** Its queue slot began. */
  running(): void;
  /** The safety gate holds it for a person's answer. */
  held(): void;
  /** The gate allowed it and it is about to act; may look at the screen first (inside the slot). */
  beforeAction(shell: DeviceShell, signal: AbortSignal): Promise<void>;
  /** The tool told the agent where it is (`tool.progress.push`: a wait's seconds, a batch's step). */
  progress(status: string, message: string, fraction?: number): void;
  /** Its ack: the result payload on success, else the error's code and the bridge's words. */
  finished(
    ack: { result?: Record<string, unknown>; errorCode?: string; errorMessage?: string },
    durationMs: number,
  ): void;
}

export interface CallObserver {
  /** A validated call is about to enter the phone's queue. */
  queued(call: ToolCall): ObservedCall;
}

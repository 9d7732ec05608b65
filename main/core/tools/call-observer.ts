/**
 * What the tool runtime tells an observer about each call while it happens (queued, running,
 * held for approval, about to act on the screen, finished). The phone view's timeline is the
 * observer (phone-view/action-timeline.ts); the runtime decides when each moment is, so the
 * interface lives on this side (STYLE.md 5b). An observer never changes a call's outcome: its
 * hooks do not throw, and `beforeAction` resolves within its own short deadline.
 */
import type { DeviceShell } from '../devices/device-shell';
import type { ToolKind } from './tool-definition';

export interface ObservedCallStart {
  deviceId: string;
  channelId: string;
  toolId: string;
  kind: ToolKind;
  /** The object the safety gate will see (redaction looks it up by identity). */
  args: Record<string, unknown>;
}

/** One call as it goes through the phone's queue. */
export interface ObservedCall {
  /** Its queue slot began. */
  running(): void;
  /** The safety gate holds it for a person's answer. */
  held(): void;
  /** The gate allowed it and it is about to act; may look at the screen first (inside the slot). */
  beforeAction(shell: DeviceShell, signal: AbortSignal): Promise<void>;
  /** Its ack: the result payload on success, else the error code. */
  finished(ack: { result?: Record<string, unknown>; errorCode?: string }, durationMs: number): void;
}

export interface CallObserver {
  /** A validated call is about to enter the phone's queue. */
  queued(call: ObservedCallStart): ObservedCall;
}

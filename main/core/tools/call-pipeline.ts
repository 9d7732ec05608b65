/**
 * The path of one validated call, top to bottom: the phone's queue (control calls one at a
 * time, observation beside them), the screen-lock guard, the safety gate, the journal, the
 * tool itself, then what the bridge remembers of the screen. It always answers with one ack;
 * nothing reaches the phone unless the gate allowed it. What follows the ack (the journal's
 * "done" line, the sinks, the audit line, the fast lane's read of the new screen, the timeline,
 * the events) is this file's too: one ordered list per call, run in the turn in which the edge
 * sends the ack (`acked`), so no later packet is read before it ran.
 */
import { BridgeError, isBridgeError, toWireError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import type { DeviceQueue } from '../queue/device-queue';
import { probeScreen } from '../android/screen-probe';
import type { AppFailure } from '../android/logcat';
import { errorAck, type ExactlyOnce } from './exactly-once';
import type { StoredAck } from './idempotency-journal';
import type { PhoneMemory } from './phone-memory';
import type { PhoneShells } from './phone-shells';
import { scrubSecrets, type SecretSource } from './secret-text';
import { mayWake, needsUnlockedScreen } from './screen-lock-guard';
import { refsIn, refTarget } from './targets';
import type {
  AfterAck,
  CallLanes,
  CallObserver,
  CallOutcome,
  CallRecordSink,
  GateDecision,
  SafetyGate,
  ScreenRead,
  ToolCall,
} from './tool-call';
import type { ToolLanes } from './tool-definition';
import type { ToolServicesFactory } from './tool-services';
import { TOASTS_NOT_WATCHED, toastFields, watchesToasts } from './toast-window';
import type { LeaseLogCaptures } from './lease-log-capture';
import { redactLogLines } from './log-redaction';

/** The queue channel of the fast lane's screen reads after an action (the bridge's own work, not counted by Stop). */
const SCREEN_AFTER_CHANNEL = 'fast-lane';

export interface CallPipelineOptions {
  queue: DeviceQueue;
  shells: PhoneShells;
  memory: PhoneMemory;
  exactlyOnce: ExactlyOnce;
  services: ToolServicesFactory;
  /** Policy and approvals; absent, every call is allowed (unit tests of the tools alone). */
  gate?: SafetyGate | undefined;
  /** The fast lane (helper/fast-lane.ts): tools use the helper on the phone when it runs. */
  lanes?:
    | {
        forCall(deviceId: string, shell: DeviceShell): ToolLanes;
        /** A running UI reader lets go of the phone's one UiAutomation connection (stock dumps need it). */
        releaseUiAutomation?(deviceId: string): Promise<void>;
      }
    | undefined;
  /** Told about every finished call as its ack is sent, before any later packet is read (what the next call relies on). */
  sinks: readonly CallRecordSink[];
  /** Told about every finished call after its ack is sent: the audit line, the screen history's read (see finish). */
  afterAck?: AfterAck | undefined;
  /** Told about each call while it happens (the phone view's timeline; `finished` after the ack). */
  observer?: CallObserver | undefined;
  /** The tools marked on a phone may have changed (a refusal, or a success that clears one). */
  marksChanged: (deviceId: string) => void;
  /** Something the console shows changed (a channel's last action). */
  stateChanged: () => void;
  commandTimeoutMs: number;
  clock: () => number;
  logger: Logger;
  /** The lab's named secrets: every ack is scrubbed of their values (secret-text.ts). */
  secrets?: Pick<SecretSource, 'values'>;
  /** Per leased phone, the resident log stream whose crashes and ANRs ride on results (lease-log-capture.ts). */
  captures?: LeaseLogCaptures;
  /**
   * A person holds the phone (takeover/takeover.ts): the refusal for the agent's control calls
   * on it, or null while the agent has it. Observation calls never ask.
   */
  heldByPerson?: (deviceId: string) => BridgeError | null;
  /**
   * A person holds or held the phone since `since` without letting the agent watch: the
   * refusal for a screen read (ToolFacts `seesScreen`) over that time, else null.
   */
  screenHidden?: (deviceId: string, since: number) => BridgeError | null;
}

const ALLOW_ALL: SafetyGate = { decide: async () => ({ decision: 'allow', by: 'policy', reasons: [] }) };

export class CallPipeline {
  private readonly gate: SafetyGate;
  /** Finished calls whose ack is not sent yet: what follows it, in order (see finish). */
  private readonly followUps = new Map<ToolCall, Array<() => void>>();
  /** The agent's screen reads queued or running, per phone: a person's unwatched take-over stops them. */
  private readonly screenReads = new Map<string, Set<AbortController>>();

  constructor(private readonly o: CallPipelineOptions) {
    this.gate = o.gate ?? ALLOW_ALL;
  }

  /** Runs the call on its phone and answers its ack (never throws). */
  async run(call: ToolCall, controller: AbortController): Promise<StoredAck> {
    const deviceId = call.device.deviceId;
    call.observed = this.o.observer?.queued(call);
    let ack: StoredAck;
    const reads = call.tool.facts.seesScreen ? this.noteScreenRead(deviceId, controller) : undefined;
    try {
      // Refused at once, not queued behind a running call: the person may hold the phone for minutes
      // (control calls, and screen reads unless the person lets the agent watch).
      this.refuseIfHeld(call);
      ack = await this.o.queue.submit(deviceId, call.tool.kind, call.channelId, () => this.inSlot(call), controller);
      // A read that a person's unwatched hold overlapped (a recording, a wait) shows what they
      // did: its answer is dropped, whenever the hold began.
      if (call.tool.facts.seesScreen) {
        const hidden = this.o.screenHidden?.(deviceId, call.receivedAt) ?? null;
        if (hidden) throw hidden;
      }
      if (ack.error || mayWake(call.tool.id, call.args)) this.o.memory.screenLock.forget(deviceId);
    } catch (error) {
      this.o.memory.screenLock.forget(deviceId);
      if (!isBridgeError(error))
        this.o.logger.error('tool failed', {
          tool: call.tool.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      ack = { error: toWireError(error) };
    } finally {
      reads?.();
    }
    // Before anything keeps or sends it: a field showing a typed secret shows in later trees too.
    if (this.o.secrets) ack = scrubSecrets(ack, this.o.secrets.values());
    return this.finish(call, ack);
  }

  /**
   * Stops the screen reads queued or running on a phone with `refusal`: the queue answers each
   * at once and its commands are cut (a recording's stream closes, so the phone stops it, and
   * its file is removed there). Answers how many.
   */
  stopScreenReads(deviceId: string, refusal: BridgeError): number {
    let stopped = 0;
    for (const controller of this.screenReads.get(deviceId) ?? []) {
      if (controller.signal.aborted) continue;
      controller.abort(refusal);
      stopped++;
    }
    return stopped;
  }

  private noteScreenRead(deviceId: string, controller: AbortController): () => void {
    const reads = this.screenReads.get(deviceId) ?? new Set<AbortController>();
    this.screenReads.set(deviceId, reads);
    reads.add(controller);
    return () => {
      reads.delete(controller);
      if (reads.size === 0 && this.screenReads.get(deviceId) === reads) this.screenReads.delete(deviceId);
    };
  }

  private refuseIfHeld(call: ToolCall): void {
    const deviceId = call.device.deviceId;
    const refusal =
      call.tool.kind === 'control'
        ? (this.o.heldByPerson?.(deviceId) ?? null)
        : call.tool.facts.seesScreen
          ? (this.o.screenHidden?.(deviceId, call.receivedAt) ?? null)
          : null;
    if (refusal) throw refusal;
  }

  /** Inside the phone's queue slot: guard, gate, journal, then the tool. */
  private async inSlot(call: ToolCall): Promise<StoredAck> {
    const { tool, device, shell, signal, observed } = call;
    const deviceId = device.deviceId;
    // A call queued before the person took the phone over is refused when its turn comes.
    this.refuseIfHeld(call);
    observed?.running();
    // The helper works on display 0 only: a phone driven on another display keeps the stock lane.
    const onDefaultDisplay = this.o.shells.displayInUse(deviceId) === 0;
    const lanes = onDefaultDisplay ? this.o.lanes?.forCall(deviceId, shell) : undefined;
    // Another display's reads are stock dumps: a UI reader an earlier call started would hold
    // the UiAutomation connection they need.
    if (!onDefaultDisplay) await this.o.lanes?.releaseUiAutomation?.(deviceId);
    if (lanes) call.lanesAtSlot = this.callLanes(call, lanes);
    // A ref that no longer holds is refused before the screen is read or a person is asked (the
    // tool checks it again against the gate's read, targets.ts).
    if (tool.kind === 'control') {
      for (const ref of refsIn(call.args))
        refTarget(ref, this.o.memory.lastTree(call.channelId), { deviceId, actions: this.o.memory.actions(deviceId) });
    }
    // A dark or locked screen refuses input before anyone is asked (screen-lock-guard.ts).
    if (tool.kind === 'control' && needsUnlockedScreen(tool.id, call.args)) {
      await this.o.memory.screenLock.assertUsable(deviceId, shell, { timeoutMs: this.o.commandTimeoutMs, signal });
    }
    // What needs no person is checked before the gate may hold the call for one: a call that
    // cannot run is refused now with its code, never shown for approval (tool-definition.ts `check`).
    if (tool.check) await tool.check(this.o.services.contextFor(call), call.args);
    const decision: GateDecision = await this.gate.decide(call);
    if (decision.decision === 'deny') {
      // A refusal is this call's answer: a retry of the same tool_call_id gets it again
      // without asking twice (a stop is not an answer; that call may be asked again).
      if (decision.errorCode !== 'canceled') this.o.exactlyOnce.started(call);
      return errorAck(
        decision.errorCode ?? 'policy_denied',
        decision.reasons.length ? `not run: ${decision.reasons.join('; ')}` : 'not run',
      );
    }
    await observed?.beforeAction(shell, signal);
    this.o.exactlyOnce.started(call);
    const context = this.o.services.contextFor(call);
    if (lanes) context.lanes = lanes;
    const gate = this.gate;
    if (gate.checkStep) context.checkStep = (step) => gate.checkStep!(call, step);
    if (gate.screenStill) context.screenStill = () => gate.screenStill!(call);
    this.o.shells.beginCall(deviceId);
    // Its typed texts are redacted from the phone's log from now on (log-redaction.ts).
    this.o.memory.noteTyping(call);
    // The lease's log stream runs before the tool acts, so a crash it causes is seen (opened once per lease).
    const capture = this.o.captures?.of(deviceId);
    await capture?.start(call.channelId, shell);
    const toastsFrom = lanes?.toastMark() ?? 0;
    let ran: Record<string, unknown>;
    try {
      ran = await tool.run(context, call.args);
    } finally {
      // Whatever the outcome, the call may have acted: refs read before now expire (element-refs.ts).
      if (tool.kind === 'control') this.o.memory.acted(deviceId);
    }
    // Toasts ride on the screen read after the action, so they come when the call asked for it (toast-window.ts).
    const toasts =
      watchesToasts(tool.facts) && call.args.observe === true ? this.toastsAfter(call, lanes, toastsFrom) : {};
    // A phone with several displays: the result says which one was used.
    const shown = tool.facts.usesDisplay ? this.o.shells.displayShown(deviceId) : null;
    const crashes = capture ? this.crashesFor(call, capture.takeFailures()) : [];
    const result = {
      ...ran,
      ...toasts,
      ...(shown ? { display: shown } : {}),
      ...(crashes.length > 0 ? { crashes } : {}),
    };
    return { payload: { tool_id: tool.id, result: decision.safety ? { ...result, safety: decision.safety } : result } };
  }

  /**
   * The toasts the helper's reads begun since the call's first input reported: the `observe`
   * read after the action is one of them. Without the helper the result says why none were watched.
   */
  private toastsAfter(call: ToolCall, lanes: ToolLanes | undefined, from: number): Record<string, unknown> {
    if (!lanes || !lanes.helperRunning()) {
      const otherDisplay = this.o.lanes !== undefined && this.o.shells.displayInUse(call.device.deviceId) !== 0;
      return toastFields({
        watched: false,
        why: otherDisplay ? TOASTS_NOT_WATCHED.otherDisplay : TOASTS_NOT_WATCHED.noHelper,
      });
    }
    // Reads a tool made before its first input (finding the element to tap) saw the screen before the action.
    const actionAt = lanes.actionMark() ?? from;
    const report = lanes.toastsSince(actionAt, actionAt);
    if (report.watched) return toastFields({ watched: true, toasts: report.toasts });
    return toastFields({ watched: false, why: TOASTS_NOT_WATCHED.failedRead, toasts: report.toasts });
  }

  /**
   * Crashes and ANRs the lease's log stream saw since the previous call took them: during this
   * call, or after the previous one answered. Their lines are redacted like any log line.
   */
  private crashesFor(call: ToolCall, failures: readonly AppFailure[]): Record<string, unknown>[] {
    const redaction = { secrets: this.o.secrets?.values() ?? [], typed: this.o.memory.typedTexts(call.channelId) };
    return failures.map((f) => ({
      package: f.package,
      kind: f.kind,
      at: f.at,
      pid: f.pid,
      first_lines: redactLogLines(f.first_lines, redaction),
    }));
  }

  /** The gate's screen reads take the fast lane too (a sparse or stale helper tree falls back to the dump). */
  private callLanes(call: ToolCall, lanes: ToolLanes): CallLanes {
    const read = { timeoutMs: this.o.commandTimeoutMs, signal: call.signal };
    const cheapTree = lanes.helperRunning();
    return {
      readTree: async (window) => (await lanes.tree(read, window)).nodes,
      cheapTree,
      // After an action, a tree read other than the stock dump starts at once (the UI reader and
      // the snapshot helper cost the phone a read, not a new connection), so the next call's gate
      // finds it ready.
      ...(call.tool.kind === 'control' && lanes.fastTreeReady()
        ? { screenAfter: () => this.screenAfter(call.device.deviceId, call.shell, lanes) }
        : {}),
    };
  }

  /**
   * The screen after a control call's action, read by the fast lane's helper (CallLanes.screenAfter):
   * observation work on the phone's queue, so it waits behind no agent call and a Stop ends it.
   */
  private screenAfter(deviceId: string, shell: DeviceShell, lanes: ToolLanes): Promise<ScreenRead | null> {
    return this.o.queue.submit(deviceId, 'observation', SCREEN_AFTER_CHANNEL, async (signal) => {
      const read = { timeoutMs: this.o.commandTimeoutMs, signal };
      const startedAt = performance.now();
      const screen = await probeScreen(shell, {
        withTree: true,
        ...read,
        readTree: async (window) => {
          const nodes = await lanes.fastTree(read, window);
          if (!nodes) throw new BridgeError('helper_unavailable', 'no usable tree but the stock dump');
          return nodes;
        },
      });
      const span = { startedAt, endedAt: performance.now() };
      return screen.window && screen.nodes ? { window: screen.window, nodes: screen.nodes, span } : null;
    });
  }

  /**
   * Before the ack: what the phone's memory says of the call (the marks the next call is judged
   * on). Everything else is kept for `acked`, in one list, in its order, and runs in the same
   * turn as the ack's send (invoke-handler.ts), before the bridge reads any next packet: a retry
   * or the next call still finds the journal's last word and the sinks' records. Only the agent's
   * answer no longer waits for them.
   */
  private finish(call: ToolCall, ack: StoredAck): StoredAck {
    const durationMs = this.o.clock() - call.receivedAt;
    const marksChanged = this.o.memory.noteFinished(call, ack);
    const result = (ack.payload as { result?: Record<string, unknown> } | undefined)?.result;
    const outcome: CallOutcome = {
      outcome: ack.error ? 'error' : 'ok',
      errorCode: ack.error?.code ?? null,
      durationMs,
      ...(typeof result?.lane === 'string' ? { lane: result.lane } : {}),
      ...(result ? { result } : {}),
    };
    const after = this.o.afterAck ?? {};
    // What follows the ack, in order. The journal's "done" line (with the ack a retry is given)
    // and the sinks first, what a later packet relies on; then the audit line (it is written
    // even if a later step fails); then the fast lane's read of the screen the action left (it
    // starts while the agent reads the answer); then the timeline, which shows the call done;
    // last the events the console and the Descriptor hear (the state above is already set, so
    // whatever they ask for after the ack says the same). None holds up the agent's answer.
    this.followUps.set(call, [
      () => this.o.exactlyOnce.settle(call, ack),
      ...this.o.sinks.map((sink) => () => sink.record(call, outcome)),
      () => after.audit?.recordCall(call, outcome),
      () => after.screenHistory?.readScreenAfter(call, outcome.outcome),
      () =>
        call.observed?.finished(
          {
            ...(result ? { result } : {}),
            ...(ack.error ? { errorCode: ack.error.code, errorMessage: ack.error.message } : {}),
          },
          durationMs,
        ),
      () => {
        if (marksChanged) this.o.marksChanged(call.device.deviceId);
        // The UI shows each channel's last action; the hub coalesces bursts of calls.
        this.o.stateChanged();
      },
    ]);
    return ack;
  }

  /**
   * The call's ack is on its way (invoke-handler.ts sent it): its follow-ups run now, in
   * order, each once. A follow-up that throws is logged; the next still runs.
   */
  acked(call: ToolCall): void {
    const steps = this.followUps.get(call);
    if (!steps) return;
    this.followUps.delete(call);
    for (const step of steps) {
      try {
        step();
      } catch (error) {
        this.o.logger.error('a step after the ack failed', {
          tool: call.tool.id,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
      }
    }
  }

  /** The bridge is stopping: calls that finished but whose ack was never sent still get their follow-ups (the audit line). */
  flush(): void {
    for (const call of [...this.followUps.keys()]) this.acked(call);
  }
}

/**
 * The call pipeline (main/core/tools/call-pipeline.ts) with fakes around it: a real queue,
 * journal and phone memory, a gate and a tool the test drives. What an agent relies on: the
 * tool runs only after the gate allowed it, with the validated arguments and the call's own
 * cancel; a refusal is the call's answer and a retry gets it again without asking twice; a
 * Stop reaches a held call through the signal made at the edge; the audit sink hears every
 * call before its ack, with the gate's verdict on the record; the phone view sees each moment.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { silentLogger } from '../../main/core/logging/logger';
import { DeviceQueue } from '../../main/core/queue/device-queue';
import { CallPipeline } from '../../main/core/tools/call-pipeline';
import { ExactlyOnce } from '../../main/core/tools/exactly-once';
import { PhoneMemory } from '../../main/core/tools/phone-memory';
import type { PhoneShells } from '../../main/core/tools/phone-shells';
import type { CallOutcome, GateDecision, SafetyGate, ToolCall } from '../../main/core/tools/tool-call';
import type { ToolContext, ToolDefinition } from '../../main/core/tools/tool-definition';
import type { ToolServicesFactory } from '../../main/core/tools/tool-services';
import { fakeToolCall } from '../helpers/tool-calls';

/** A control tool like android_launch_app, whose run the test sees. */
function recordingTool(ran: Array<{ args: unknown; signal: AbortSignal }>): ToolDefinition<unknown> {
  return {
    id: 'android_launch_app',
    title: 'Launch',
    description: 'test tool',
    kind: 'control',
    sideEffect: true,
    facts: { policy: 'launch' },
    args: z.strictObject({ package: z.string() }),
    output: {},
    run: async (ctx: ToolContext, args: unknown) => {
      ran.push({ args, signal: ctx.signal });
      return { status: 'launched' };
    },
  };
}

/** A gate that answers what the test says, when the test says (or at once). */
class ScriptedGate implements SafetyGate {
  readonly asked: ToolCall[] = [];
  private answer: ((d: GateDecision) => void) | undefined;
  constructor(private readonly decision: GateDecision | 'hold') {}
  decide(call: ToolCall): Promise<GateDecision> {
    this.asked.push(call);
    if (this.decision !== 'hold') {
      call.verdict = {
        decision: this.decision.decision,
        decidedBy: this.decision.by,
        reasons: this.decision.reasons,
        risk: 'high',
        riskClasses: ['sensitive_app'],
        redactedArgs: { ...call.args },
        approvalId: null,
        screenshotRef: null,
        windowBefore: null,
        treeRead: null,
      };
      return Promise.resolve(this.decision);
    }
    call.hold('waiting for a person');
    return new Promise((resolve, reject) => {
      this.answer = resolve;
      call.signal.addEventListener('abort', () => reject(call.signal.reason), { once: true });
    });
  }
  release(decision: GateDecision): void {
    this.answer?.(decision);
  }
}

describe('call pipeline', () => {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  function pipeline(gate: SafetyGate) {
    const dir = mkdtempSync(join(tmpdir(), 'call-pipeline-'));
    dirs.push(dir);
    const queue = new DeviceQueue({ maxDepth: 8, observationConcurrency: 2 });
    const memory = new PhoneMemory(Date.now);
    const exactlyOnce = new ExactlyOnce({
      dataDir: dir,
      windowMs: 60_000,
      hashKey: Buffer.alloc(32, 1),
      clock: Date.now,
    });
    const audited: Array<{ call: ToolCall; outcome: CallOutcome; verdictDecision: string | null }> = [];
    const moments: string[] = [];
    let heldNow: () => void = () => undefined;
    /** Resolves when the phone view is told a call is held. */
    const held = new Promise<void>((resolve) => (heldNow = resolve));
    // Only the display bookkeeping of the shells is used by the pipeline itself.
    const shells = {
      displayInUse: () => 0,
      beginCall: () => undefined,
      displayShown: () => null,
    } as unknown as PhoneShells;
    const services = {
      contextFor: (call: ToolCall) => ({ signal: call.signal }) as ToolContext,
    } as unknown as ToolServicesFactory;
    const p = new CallPipeline({
      queue,
      shells,
      memory,
      exactlyOnce,
      services,
      gate,
      sinks: [
        { record: (call, outcome) => audited.push({ call, outcome, verdictDecision: call.verdict?.decision ?? null }) },
      ],
      observer: {
        queued: () => {
          moments.push('queued');
          return {
            running: () => moments.push('running'),
            held: () => {
              moments.push('held');
              heldNow();
            },
            beforeAction: async () => void moments.push('before_action'),
            finished: (ack) => moments.push(`finished:${ack.errorCode ?? 'ok'}`),
          };
        },
      },
      marksChanged: () => undefined,
      stateChanged: () => undefined,
      commandTimeoutMs: 5_000,
      clock: Date.now,
      logger: silentLogger,
    });
    return { p, queue, exactlyOnce, audited, moments, held };
  }

  /** The watchers hear after the ack (setImmediate); this lets them. */
  const afterAck = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  test('an allowed call runs the tool with its validated arguments and its own signal; the audit hears it before the ack', async () => {
    const ran: Array<{ args: unknown; signal: AbortSignal }> = [];
    const gate = new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [], safety: { decision: 'allow' } });
    const { p, audited, moments } = pipeline(gate);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool(ran),
      args: { package: 'com.example' },
      signal: controller.signal,
    });
    const ack = await p.run(call, controller);
    assert.deepEqual(ack.payload, {
      tool_id: 'android_launch_app',
      result: { status: 'launched', safety: { decision: 'allow' } },
    });
    assert.deepEqual(
      ran.map((r) => r.args),
      [{ package: 'com.example' }],
    );
    assert.equal(ran[0]?.signal, controller.signal, 'the tool gets the signal made at the edge');
    assert.equal(gate.asked[0], call, 'the gate sees the same record');
    assert.equal(audited.length, 1, 'audited before the ack');
    assert.equal(audited[0]?.call, call);
    assert.equal(audited[0]?.verdictDecision, 'allow');
    assert.equal(audited[0]?.outcome.outcome, 'ok');
    await afterAck();
    assert.deepEqual(moments, ['queued', 'running', 'before_action', 'finished:ok']);
  });

  test('a refusal runs nothing, and is the answer to a retry of the same call without asking again', async () => {
    const ran: Array<{ args: unknown; signal: AbortSignal }> = [];
    const gate = new ScriptedGate({
      decision: 'deny',
      by: 'policy',
      reasons: ['wallet apps are denied'],
      errorCode: 'policy_denied',
    });
    const { p, exactlyOnce, audited } = pipeline(gate);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool(ran),
      args: { package: 'com.example.wallet' },
      signal: controller.signal,
    });
    const first = await exactlyOnce.run(call.key, call.argsHash, true, () => p.run(call, controller));
    assert.equal(first.error?.code, 'policy_denied');
    assert.match(first.error?.message ?? '', /wallet apps are denied/);
    const retry = await exactlyOnce.run(call.key, call.argsHash, true, () => p.run(call, controller));
    assert.deepEqual(retry, first);
    assert.equal(gate.asked.length, 1, 'asked once');
    assert.equal(ran.length, 0, 'nothing reached the phone');
    assert.equal(audited[0]?.outcome.errorCode, 'policy_denied');
    assert.equal(audited[0]?.verdictDecision, 'deny');
  });

  test('Stop on the phone reaches a held call through its signal: canceled, nothing run, held shown on the way', async () => {
    const ran: Array<{ args: unknown; signal: AbortSignal }> = [];
    const gate = new ScriptedGate('hold');
    const { p, queue, audited, moments, held } = pipeline(gate);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool(ran),
      args: { package: 'com.example' },
      signal: controller.signal,
    });
    const answered = p.run(call, controller);
    await held;
    assert.deepEqual(call.progressed, ['waiting_approval']);
    assert.equal(queue.cancelDevice('phone-1', 'stopped at the computer'), 1);
    assert.equal(call.signal.aborted, true, 'the record’s own signal fired');
    const ack = await answered;
    assert.equal(ack.error?.code, 'canceled');
    gate.release({ decision: 'allow', by: 'admin', reasons: [] });
    assert.equal(ran.length, 0);
    assert.equal(audited[0]?.outcome.errorCode, 'canceled');
    await afterAck();
    assert.deepEqual(moments, ['queued', 'running', 'held', 'finished:canceled']);
  });

  test('a tool that fails unexpectedly answers internal_error, never its stack', async () => {
    const tool: ToolDefinition<unknown> = {
      ...recordingTool([]),
      run: () => Promise.reject(new Error('at secret/path.ts:12')),
    };
    const { p } = pipeline(new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [] }));
    const controller = new AbortController();
    const ack = await p.run(
      fakeToolCall({ toolId: 'android_launch_app', tool, args: { package: 'x' }, signal: controller.signal }),
      controller,
    );
    assert.deepEqual(ack.error, { code: 'internal_error', message: 'internal error' });
  });
});

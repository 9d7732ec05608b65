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
import { CallPipeline, type CallPipelineOptions } from '../../main/core/tools/call-pipeline';
import { ExactlyOnce } from '../../main/core/tools/exactly-once';
import { PhoneMemory } from '../../main/core/tools/phone-memory';
import type { PhoneShells } from '../../main/core/tools/phone-shells';
import type { CallOutcome, GateDecision, SafetyGate, ToolCall } from '../../main/core/tools/tool-call';
import type { ToolContext, ToolDefinition } from '../../main/core/tools/tool-definition';
import type { ToolServicesFactory } from '../../main/core/tools/tool-services';
import { fakeToolCall } from '../helpers/tool-calls';
import { FakeDeviceShell } from '../helpers/fake-device-shell';
import { FastLanes } from '../../main/core/helper/fast-lane';
import type { HelperManager, HelperSession } from '../../main/core/helper/helper-manager';

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

  function pipeline(gate: SafetyGate, lanes?: CallPipelineOptions['lanes'], display = 0) {
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
      displayInUse: () => display,
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
        {
          record: (call, outcome) => {
            moments.push(`sink:${outcome.outcome}`);
            audited.push({ call, outcome, verdictDecision: call.verdict?.decision ?? null });
          },
        },
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
            progress: () => undefined,
            finished: (ack) => moments.push(`finished:${ack.errorCode ?? 'ok'}`),
          };
        },
      },
      afterAck: {
        audit: { recordCall: (_call, outcome) => moments.push(`audit_line:${outcome.outcome}`) },
        screenHistory: { readScreenAfter: (_call, outcome) => moments.push(`screen_after:${outcome}`) },
      },
      marksChanged: () => undefined,
      stateChanged: () => moments.push('state_event'),
      commandTimeoutMs: 5_000,
      clock: Date.now,
      logger: silentLogger,
      ...(lanes ? { lanes } : {}),
    });
    return { p, queue, exactlyOnce, audited, moments, held };
  }

  test('a call on another display: no lanes, and a running UI reader lets go of UiAutomation first (that display reads with the stock dump)', async () => {
    const released: string[] = [];
    const lanes = {
      forCall: (): never => assert.fail('the lanes serve display 0 only'),
      releaseUiAutomation: async (deviceId: string) => void released.push(deviceId),
    };
    const ran: Array<{ args: unknown; signal: AbortSignal }> = [];
    const gate = new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [], safety: { decision: 'allow' } });
    const { p } = pipeline(gate, lanes, 1);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool(ran),
      args: {},
      signal: controller.signal,
    });
    await p.run(call, controller);
    assert.equal(ran.length, 1);
    assert.deepEqual(released, [call.device.deviceId]);
  });

  test('an allowed call runs the tool with its validated arguments and its own signal; the sinks hear it first after the ack', async () => {
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
    const result = (ack.payload as { result: Record<string, unknown> }).result;
    assert.deepEqual(
      result,
      { status: 'launched', safety: { decision: 'allow' } },
      'no toast fields: it did not observe',
    );
    assert.deepEqual(
      ran.map((r) => r.args),
      [{ package: 'com.example' }],
    );
    assert.equal(ran[0]?.signal, controller.signal, 'the tool gets the signal made at the edge');
    assert.equal(gate.asked[0], call, 'the gate sees the same record');
    assert.equal(audited.length, 0, 'the agent’s answer does not wait for the sinks');
    // The edge sent the ack (invoke-handler.ts), in the same turn: the sinks and watchers hear now.
    p.acked(call);
    assert.equal(audited.length, 1);
    assert.equal(audited[0]?.call, call);
    assert.equal(audited[0]?.verdictDecision, 'allow');
    assert.equal(audited[0]?.outcome.outcome, 'ok');
    assert.deepEqual(moments, [
      'queued',
      'running',
      'before_action',
      'sink:ok',
      'audit_line:ok',
      'screen_after:ok',
      'finished:ok',
      'state_event',
    ]);
  });

  test('what follows the ack runs only once the edge says it is sent, in one order, each once, and a failing step stops none after it', async () => {
    const gate = new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [] });
    const { p, moments } = pipeline(gate);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool([]),
      args: { package: 'com.example' },
      signal: controller.signal,
    });
    const ack = await p.run(call, controller);
    assert.equal(ack.error, undefined);
    assert.deepEqual(moments, ['queued', 'running', 'before_action'], 'nothing of the follow-ups before the ack');
    // A timeline that throws is logged; the events after it still go out.
    const observed = call.observed;
    assert.ok(observed);
    observed.finished = () => {
      moments.push('timeline_threw');
      throw new Error('boom');
    };
    p.acked(call);
    p.acked(call);
    p.flush();
    assert.deepEqual(moments.slice(3), [
      'sink:ok',
      'audit_line:ok',
      'screen_after:ok',
      'timeline_threw',
      'state_event',
    ]);
  });

  test('a call whose ack was never sent (the bridge stopping) still gets its audit line at the flush', async () => {
    const gate = new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [] });
    const { p, moments } = pipeline(gate);
    const controller = new AbortController();
    const call = fakeToolCall({
      toolId: 'android_launch_app',
      tool: recordingTool([]),
      args: { package: 'com.example' },
      signal: controller.signal,
    });
    await p.run(call, controller);
    p.flush();
    assert.ok(moments.includes('audit_line:ok'));
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
    // As the edge does (invoke-handler.ts): the ack, then in the same turn what follows it.
    const first = await exactlyOnce.run(call.key, call.argsHash, true, () => p.run(call, controller));
    p.acked(call);
    assert.equal(first.error?.code, 'policy_denied');
    assert.match(first.error?.message ?? '', /wallet apps are denied/);
    const retry = await exactlyOnce.run(call.key, call.argsHash, true, () => p.run(call, controller));
    p.acked(call);
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
    p.acked(call);
    assert.equal(ack.error?.code, 'canceled');
    gate.release({ decision: 'allow', by: 'admin', reasons: [] });
    assert.equal(ran.length, 0);
    assert.equal(audited[0]?.outcome.errorCode, 'canceled');
    assert.deepEqual(moments, [
      'queued',
      'running',
      'held',
      'sink:error',
      'audit_line:error',
      'screen_after:error',
      'finished:canceled',
      'state_event',
    ]);
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

  describe('toasts after a control call (toast-window.ts)', () => {
    const SOURCE_HEAD =
      '<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?>\r\n<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">';
    const WINDOW =
      '\r\n  <android.widget.FrameLayout index="0" package="com.example.notes" class="android.widget.FrameLayout" text="" bounds="[0,0][1080,2400]" displayed="true">\r\n    <android.widget.Button index="0" package="com.example.notes" class="android.widget.Button" text="Save" clickable="true" bounds="[700,900][1040,1030]" displayed="true" />\r\n  </android.widget.FrameLayout>';
    /** The helper's page source with the toasts its listener keeps (UiElementSnapshot.addToastMsg). */
    const source = (toasts: readonly string[]): string =>
      SOURCE_HEAD +
      WINDOW +
      toasts
        .map(
          (t, i) =>
            `\r\n  <android.widget.Toast index="${i + 1}" package="com.android.settings" class="android.widget.Toast" text="${t}" displayed="true" />`,
        )
        .join('') +
      '\r\n</hierarchy>';

    /** A phone whose helper runs (or not), what it keeps of toasts, and when each request came. */
    function helperPhone(o: { running?: boolean } = {}) {
      const phone = { toasts: [] as string[], tappedAt: 0, sourceAt: [] as number[] };
      const session: HelperSession = {
        version: '10.6.6',
        call: async (_method, path) => {
          if (path === '/actions') {
            phone.tappedAt = Date.now();
            return null;
          }
          phone.sourceAt.push(Date.now());
          return source(phone.toasts);
        },
      };
      const running = o.running ?? true;
      const manager = {
        acquire: async () => (running ? session : null),
        noteLane: () => undefined,
        helperFailed: async () => undefined,
        isRunning: () => running,
        pause: async () => undefined,
      } as unknown as HelperManager;
      const shell = new FakeDeviceShell()
        .on(['dumpsys', 'window'], {
          stdout: '  mCurrentFocus=Window{1c2d3e4 u0 com.example.notes/com.example.notes.MainActivity}\n',
          exitCode: 0,
        })
        .on(['input'], { stdout: '', exitCode: 0 });
      return { phone, lanes: new FastLanes(manager), shell };
    }

    /**
     * android_tap as far as toasts go: optionally reads the tree first (to find its element),
     * taps, and with `observe` reads the screen after the tap (as targets.ts observeAfter does).
     */
    function tapTool(o: { readFirst?: boolean; onTap?: () => void } = {}): ToolDefinition<unknown> {
      return {
        id: 'android_tap',
        title: 'Tap',
        description: 'test tool',
        kind: 'control',
        sideEffect: true,
        facts: { policy: 'point', screenInput: true },
        args: z.strictObject({ observe: z.boolean().optional() }),
        output: {},
        run: async (ctx: ToolContext, args: unknown) => {
          const read = { timeoutMs: 5_000, signal: ctx.signal };
          if (o.readFirst) await ctx.lanes!.tree(read);
          const lane = await ctx.lanes!.tap(10, 20);
          o.onTap?.();
          if ((args as { observe?: boolean }).observe) await ctx.lanes!.tree(read);
          return { status: 'tapped', lane };
        },
      };
    }

    async function tap(
      lanes: FastLanes,
      shell: FakeDeviceShell,
      tool: ToolDefinition<unknown>,
      args: Record<string, unknown> = { observe: true },
    ) {
      const { p, queue } = pipeline(new ScriptedGate({ decision: 'allow', by: 'policy', reasons: [] }), lanes);
      const controller = new AbortController();
      const call = fakeToolCall({ toolId: 'android_tap', tool, args, signal: controller.signal, shell });
      const ack = await p.run(call, controller);
      return { result: (ack.payload as { result: Record<string, unknown> }).result, queue };
    }

    test('a toast the action brought is in the result of a call that observes: from its read after the action', async () => {
      const { phone, lanes, shell } = helperPhone();
      const { result } = await tap(lanes, shell, tapTool({ onTap: () => (phone.toasts = ['Note saved']) }));
      assert.equal(result.toasts_watched, true);
      const toasts = result.toasts as Array<{ text: string; at: string }>;
      assert.deepEqual(
        toasts.map((t) => t.text),
        ['Note saved'],
      );
      assert.ok(Date.parse(toasts[0]!.at) >= phone.tappedAt, 'seen by a read begun after the tap');
      assert.equal(phone.sourceAt.length, 1, 'one read: the observe read after the action');
    });

    test('a toast a read before the action already showed is marked seen_before (it may be that one, still kept)', async () => {
      const { phone, lanes, shell } = helperPhone();
      phone.toasts = ['Welcome back'];
      const { result } = await tap(lanes, shell, tapTool({ readFirst: true }));
      assert.deepEqual(
        (result.toasts as Array<Record<string, unknown>>).map((t) => [t.text, t.seen_before]),
        [['Welcome back', true]],
      );
      assert.equal(result.toasts_watched, true);
      assert.equal(phone.sourceAt.length, 2, 'the tool’s own read before the tap, then the read after it');
    });

    test('a call that does not observe carries no toast fields and nothing reads the screen for them', async () => {
      const { phone, lanes, shell } = helperPhone();
      const { result } = await tap(lanes, shell, tapTool({ onTap: () => (phone.toasts = ['Note saved']) }), {});
      assert.deepEqual([result.toasts, result.toasts_watched, result.toasts_note], [undefined, undefined, undefined]);
      assert.deepEqual(phone.sourceAt, [], 'no read after the action');
    });

    test('no helper read came back after the action: the result says toasts were not watched', async () => {
      const { lanes, shell } = helperPhone();
      const tool = tapTool();
      const { result } = await tap(lanes, shell, {
        ...tool,
        run: async (ctx: ToolContext) => ({ status: 'tapped', lane: await ctx.lanes!.tap(10, 20) }),
      });
      assert.equal(result.toasts_watched, false);
      assert.match(String(result.toasts_note), /no read of the screen .* came back after the action/);
    });

    test('without a running helper the result of an observing call says toasts were not watched', async () => {
      const { phone, lanes, shell } = helperPhone({ running: false });
      const { result } = await tap(lanes, shell, {
        ...tapTool(),
        run: async (ctx: ToolContext) => ({ status: 'tapped', lane: await ctx.lanes!.tap(10, 20) }),
      });
      assert.equal(result.lane, 'adb');
      assert.equal(result.toasts_watched, false);
      assert.match(String(result.toasts_note), /not running on this phone/);
      assert.deepEqual(phone.sourceAt, []);
    });
  });
});

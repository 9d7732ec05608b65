/**
 * ToolRuntime: `tool.invoke` from validation to ack. Checks the tool, the channel's binding
 * and the phone's state, validates arguments, applies exactly-once semantics for side
 * effects, asks the safety gate, queues the work on the phone (control FIFO, observation
 * concurrent), reports progress, and always ends with one `tool.invoke.ack`.
 */
import { createHmac } from 'node:crypto';
import { join } from 'node:path';
import type { CoreOptions } from '../config/core-options';
import { publicHref } from '../config/network-options';
import { BridgeError, isBridgeError, toWireError, type ErrorCode } from '../errors';
import type { DeviceRegistry, DeviceRecord } from '../devices/device-registry';
import type { AdbServerLink } from '../devices/adb-server-link';
import type { DeviceShell } from '../devices/device-shell';
import type { FileCache } from '../files/file-cache';
import type { UrlSigner } from '../files/signed-url';
import type { Logger } from '../logging/logger';
import type { EventHub } from '../events/event-hub';
import type { DataPlane, UserPacketContext } from '../server/data-plane';
import type { CardTool } from '../protocol/card';
import { readOrientedScreenSize } from '../android/device-info';
import { ScreenSizeCache } from './screen-size-cache';
import { DisplayTracker } from './display-tracker';
import { displayRef, type DisplayTarget } from '../android/displays';
import { mayWake, needsUnlockedScreen, ScreenLockGuard } from './screen-lock-guard';
import { detectUnicodeIme } from '../android/text-input';
import type { UiNode } from '../android/ui-tree';
import type { CallInfo, CallRecordSink, GateDecision, SafetyGate } from './safety-gate';
import { probeScreen } from '../android/screen-probe';
import { DeviceQueue } from '../queue/device-queue';
import { IdempotencyJournal, type StoredAck } from './idempotency-journal';
import { ackAtRest, typedTextDigest, typedTexts } from './typed-text';
import { TOOLS } from './catalogue';
import type { LastCaptureStore } from './screenshot-pipeline';
import type { CallObserver } from './call-observer';
import { toCardTool, type CaptureTimings, type StoredFileInfo, type ToolContext, type ToolDefinition, type ToolFacts, type ToolLanes } from './tool-definition';

export interface ToolRuntimeOptions {
  dataDir: string;
  /** Keys the hashes kept at rest: call arguments and typed text in the journal (typed-text.ts). */
  hashKey: Buffer;
  registry: DeviceRegistry;
  links: AdbServerLink[];
  files: FileCache;
  signer: UrlSigner;
  options: CoreOptions;
  logger: Logger;
  hub: EventHub;
  clock: () => number;
  activeDeviceFor: (channelId: string) => string | undefined;
  bindingStatus: (channelId: string) => string;
  touch: (channelId: string) => void;
  progress: (channelId: string, payload: Record<string, unknown>) => boolean;
}

/**
 * The oriented size changes when the phone rotates: younger than 3 s it is used as is, up to
 * 60 s it is used while a background read refreshes it (a point outside it is checked against
 * a size read now), older it is read first. See screen-size-cache.ts.
 */
const SCREEN_SIZE_FRESH_MS = 3_000;
const SCREEN_SIZE_USABLE_MS = 60_000;
/** A phone with one display is read again after this long (the phone check reads it on attach). */
const SINGLE_DISPLAY_FRESH_MS = 10 * 60_000;
/** A phone with several displays is read at each call's first screen command, and otherwise after this long. */
const MULTI_DISPLAY_FRESH_MS = 2_000;
/** Tools that look at or act on the screen: on a phone with several displays their result names the display. */
/** How long a read screen state (awake, locked) is believed before the next control call reads it again. */
const SCREEN_LOCK_FRESH_MS = 5_000;

/** A call on a phone refused with a code: when, what the phone said, and its fix in words when it has one. */
export interface Refusal {
  at: number;
  message: string;
  fix: string | null;
}

/** Refusals that mark tools in the Descriptor (tool-marks.ts). */
const MARKING_REFUSALS: ReadonlySet<ErrorCode> = new Set(['input_blocked', 'install_blocked']);

/** The refusal a success of this tool shows no longer holds (the person changed the setting). */
function clearedBySuccess(facts: ToolFacts): ErrorCode | undefined {
  if (facts.policy === 'install') return 'install_blocked';
  if (facts.screenInput && facts.policy !== 'batch') return 'input_blocked';
  return undefined;
}

/** The queue channel of the fast lane's screen reads after an action (the bridge's own work, not counted by Stop). */
const SCREEN_AFTER_CHANNEL = 'fast-lane';

export class ToolRuntime {
  readonly queue: DeviceQueue;
  private readonly tools: readonly ToolDefinition<unknown>[];
  private readonly byId: Map<string, ToolDefinition<unknown>>;
  private readonly journal: IdempotencyJournal;
  private readonly inFlight = new Map<string, { argsHash: string; promise: Promise<StoredAck> }>();
  private readonly screenSizes: ScreenSizeCache;
  private readonly displays: DisplayTracker;
  private readonly lockGuard: ScreenLockGuard;
  private readonly trees = new Map<string, { nodes: UiNode[]; signature: string }>();
  private readonly imeCache = new Map<string, { value: boolean; at: number }>();
  private readonly strategies = new Map<string, CaptureTimings>();
  private readonly lastCaptures: LastCaptureStore = new Map();
  private readonly lastActions = new Map<string, { toolId: string; at: number; outcome: string }>();
  /** Per phone, the last refusal of each error code (the phone check shows input_blocked from here). */
  private readonly lastRefusals = new Map<string, Map<ErrorCode, Refusal>>();
  private readonly treeReadAt = new Map<string, number>();
  private gate: SafetyGate = { decide: async () => ({ decision: 'allow', by: 'policy', reasons: [] }) };
  private sinks: CallRecordSink[] = [];
  private lanes: { forCall(deviceId: string, shell: DeviceShell): ToolLanes } | undefined;
  private observer: CallObserver | undefined;
  private compactTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: ToolRuntimeOptions) {
    this.queue = new DeviceQueue(o.options.queue);
    this.tools = TOOLS;
    this.byId = new Map(this.tools.map((t) => [t.id, t]));
    this.journal = new IdempotencyJournal(join(o.dataDir, 'tool-calls.jsonl'), o.options.idempotencyWindowMs, o.clock);
    this.lockGuard = new ScreenLockGuard({ clock: o.clock, freshMs: SCREEN_LOCK_FRESH_MS });
    this.screenSizes = new ScreenSizeCache({
      read: (shell, options) => readOrientedScreenSize(shell, options),
      clock: o.clock,
      freshMs: SCREEN_SIZE_FRESH_MS,
      usableMs: SCREEN_SIZE_USABLE_MS,
      refreshTimeoutMs: o.options.adbCommandTimeoutMs,
    });
    this.displays = new DisplayTracker({
      clock: o.clock,
      singleDisplayFreshMs: SINGLE_DISPLAY_FRESH_MS,
      multiDisplayFreshMs: MULTI_DISPLAY_FRESH_MS,
      onFrame: (deviceId, size) => this.screenSizes.observe(deviceId, size),
      onRotation: (deviceId, rotation) => this.screenSizes.observeRotation(deviceId, rotation),
    });
  }

  /** The display calls act on (0 unless a phone with several displays is driven on another). */
  displayInUse(deviceId: string): number {
    return this.displays.current(deviceId)?.display.id ?? 0;
  }

  /** A phone check read the phone's displays (`dumpsys display`): calls act on that display. */
  noteDisplays(deviceId: string, target: DisplayTarget | null): void {
    this.displays.set(deviceId, target);
  }

  start(): void {
    this.compactTimer = setInterval(() => this.journal.compact(), 10 * 60 * 1000);
    this.compactTimer.unref();
  }

  async stop(): Promise<void> {
    if (this.compactTimer) clearInterval(this.compactTimer);
    this.queue.cancelAll('the bridge is stopping');
    await Promise.allSettled([...this.inFlight.values()].map((f) => f.promise));
    this.journal.close();
  }

  setGate(gate: SafetyGate): void {
    this.gate = gate;
  }

  /** The fast lane (main/core/helper/fast-lane.ts): tools use the helper on the phone when it runs. */
  setLanes(lanes: { forCall(deviceId: string, shell: DeviceShell): ToolLanes }): void {
    this.lanes = lanes;
  }

  addSink(sink: CallRecordSink): void {
    this.sinks.push(sink);
  }

  /** Told about each call while it happens (the phone view's timeline). */
  setObserver(observer: CallObserver): void {
    this.observer = observer;
  }

  toolIds(): string[] {
    return this.tools.map((t) => t.id);
  }

  tool(id: string): ToolDefinition<unknown> | undefined {
    return this.byId.get(id);
  }

  cardTools(): CardTool[] {
    return this.tools.map(toCardTool);
  }

  /** The next control call on this phone reads its screen state again (a phone check just looked). */
  forgetScreenState(deviceId: string): void {
    this.lockGuard.forget(deviceId);
  }

  /** When a tool call last read this phone's UI tree (tool-marks.ts), or null. */
  lastTreeRead(deviceId: string): number | null {
    return this.treeReadAt.get(deviceId) ?? null;
  }

  /** Told when a refusal or a success may change which tools are marked on a phone. */
  onMarksChanged: ((deviceId: string) => void) | undefined;

  /** The last call on this phone refused with `code`, if any. */
  lastRefusal(deviceId: string, code: ErrorCode): Refusal | null {
    return this.lastRefusals.get(deviceId)?.get(code) ?? null;
  }

  lastAction(channelId: string): { toolId: string; at: number; outcome: string } | undefined {
    return this.lastActions.get(channelId);
  }

  shellFor(device: DeviceRecord): DeviceShell {
    const link = this.o.links.find((l) => l.address === device.adbServer);
    if (!link) throw new BridgeError('device_not_found', 'the phone’s ADB server is not configured');
    // screencap and input go to the display in use (display-tracker.ts).
    return this.displays.shellFor(device.deviceId, device.sdk, link.shell(device.serial));
  }

  onBindingEnded(channelId: string, deviceId: string, reason: string): void {
    const n = this.queue.cancelChannel(deviceId, channelId, `the lease ended (${reason})`);
    if (n > 0) this.o.logger.info('canceled queued work after lease end', { channel: channelId, count: n });
    this.trees.delete(channelId);
    this.lastCaptures.delete(channelId);
  }

  /**
   * The stop button: cancels queued and running work on a phone at once, the bridge's own
   * reads too (a phone view's frame, the phone check); answers how many of the agents' calls.
   */
  stopDevice(deviceId: string): number {
    return this.queue.cancelDevice(deviceId, 'stopped at the computer', (channelId) => this.o.activeDeviceFor(channelId) !== undefined);
  }

  registerHandlers(plane: DataPlane): void {
    plane.on('tool.invoke', (ctx) => this.invoke(ctx));
  }

  private async invoke(ctx: UserPacketContext): Promise<void> {
    const toolId = typeof ctx.payload.tool_id === 'string' ? ctx.payload.tool_id : '';
    const ackError = (code: ErrorCode, message: string): void => {
      ctx.connection.reply(ctx.packet, 'tool.invoke.ack', { error: { code, message } });
    };
    const tool = this.byId.get(toolId);
    if (!tool) return ackError('unknown_tool', `no tool ${JSON.stringify(toolId.slice(0, 80))} in this connector’s Card`);
    const rawArgs = ctx.payload.arguments ?? {};
    if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) return ackError('invalid_arguments', 'arguments must be an object');
    const { connector_channel_id: _ignored, ...args } = rawArgs as Record<string, unknown>;
    const context = typeof ctx.payload.context === 'object' && ctx.payload.context !== null ? (ctx.payload.context as Record<string, unknown>) : {};
    const callId = typeof context.tool_call_id === 'string' && context.tool_call_id ? context.tool_call_id : (ctx.packet.request_id ?? ctx.packet.packet_id);
    const key = `${ctx.channel.id}\n${callId}`;
    const argsHash = hashArgs(toolId, args, this.o.hashKey);

    const ack = await this.runOnce(key, argsHash, tool, () => this.execute(ctx, tool, args, argsHash, key));
    if (ack.error) ctx.connection.reply(ctx.packet, 'tool.invoke.ack', { error: ack.error });
    else ctx.connection.reply(ctx.packet, 'tool.invoke.ack', { payload: ack.payload ?? { tool_id: toolId, result: {} } });
  }

  /** Exactly-once: stored ack for a finished call, join a running one, refuse a changed one. */
  private async runOnce(key: string, argsHash: string, tool: ToolDefinition<unknown>, work: () => Promise<StoredAck>): Promise<StoredAck> {
    const running = this.inFlight.get(key);
    if (running) {
      if (running.argsHash !== argsHash) return conflict();
      return running.promise;
    }
    if (tool.sideEffect) {
      const record = this.journal.get(key);
      if (record) {
        if (record.argsHash !== argsHash) return conflict();
        if (record.state === 'done' && record.ack) return record.ack;
        return {
          error: {
            code: 'outcome_unknown',
            message: 'this call was in progress when the bridge stopped; whether it took effect is unknown, so it is not run again. Look at the screen, then use a new tool_call_id.',
          },
        };
      }
    }
    const promise = work();
    this.inFlight.set(key, { argsHash, promise });
    try {
      return await promise;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async execute(ctx: UserPacketContext, tool: ToolDefinition<unknown>, args: Record<string, unknown>, argsHash: string, key: string): Promise<StoredAck> {
    const started = this.o.clock();
    const channelId = ctx.channel.id;
    const deviceId = this.o.activeDeviceFor(channelId);
    if (!deviceId) return errorAck('not_bound', this.o.bindingStatus(channelId) === 'revoked' ? 'the lease of this channel was revoked; authenticate again' : 'no phone is bound to this channel; authenticate first');
    const device = this.o.registry.get(deviceId);
    if (!device || device.state === 'gone') return errorAck('device_offline', 'the bound phone is not connected');
    if (device.state === 'unauthorized') return errorAck('device_unauthorized', 'the phone has not accepted this computer’s USB debugging key');
    if (device.state !== 'device') return errorAck('device_offline', 'the bound phone is offline');
    const bound = this.o.bindingStatus(channelId);
    if (bound === 'error') return errorAck('not_bound', 'a different phone now answers where the bound phone was; authenticate again');
    if (bound !== 'connected') return errorAck('device_offline', 'the bound phone is being verified; try again in a moment');

    const parsed = tool.args.safeParse(args);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? issue.path.join('.') : 'arguments';
      return errorAck('invalid_arguments', `${where}: ${issue?.message ?? 'invalid'}`.slice(0, 300));
    }
    this.o.touch(channelId);
    const shell = this.shellFor(device);
    const progress = (status: string, message: string, fraction?: number): void => {
      this.o.progress(channelId, { tool_id: tool.id, status, message, ...(fraction !== undefined ? { progress: fraction } : {}), request_id: ctx.packet.request_id ?? ctx.packet.packet_id });
    };

    let decision: GateDecision | null = null;
    const observed = this.observer?.queued({ deviceId, channelId, toolId: tool.id, kind: tool.kind, args });
    const finish = (ack: StoredAck): StoredAck => {
      const outcome = ack.error ? 'error' : 'ok';
      const result = (ack.payload as { result?: Record<string, unknown> } | undefined)?.result;
      const durationMs = this.o.clock() - started;
      this.lastActions.set(channelId, { toolId: tool.id, at: this.o.clock(), outcome: ack.error?.code ?? 'ok' });
      let marksChanged = false;
      if (ack.error) {
        const refusals = this.lastRefusals.get(deviceId) ?? new Map<ErrorCode, Refusal>();
        refusals.set(ack.error.code, { at: this.o.clock(), message: ack.error.message, fix: ack.error.fix ?? null });
        this.lastRefusals.set(deviceId, refusals);
        marksChanged = MARKING_REFUSALS.has(ack.error.code);
      } else {
        // It works again (the person changed the setting): forget the refusal it replaces.
        const cleared = clearedBySuccess(tool.facts);
        const refusals = this.lastRefusals.get(deviceId);
        if (cleared && refusals?.delete(cleared)) marksChanged = true;
        if (tool.facts.readsTree) {
          this.treeReadAt.set(deviceId, this.o.clock());
          marksChanged = true;
        }
      }
      // The gate's history the next call is judged on is settled now (the sinks build their
      // audit lines later themselves).
      for (const sink of this.sinks) {
        sink.record({ time: started, channelId, deviceId, toolId: tool.id, args, decision, outcome, errorCode: ack.error?.code ?? null, durationMs });
      }
      // What only watchers need (the phone view's timeline, a Descriptor push, the UI) waits
      // until the ack is on its way: the state above is already set, so a Descriptor asked
      // for after the ack says the same, and the agent's answer is not held up by packets it
      // did not ask for. setImmediate runs after the reply, which is sent as this call's
      // promise settles.
      setImmediate(() => {
        observed?.finished({ ...(result ? { result } : {}), ...(ack.error ? { errorCode: ack.error.code } : {}) }, durationMs);
        if (marksChanged) this.onMarksChanged?.(deviceId);
        // The UI shows each channel's last action; the hub coalesces bursts of calls.
        this.o.hub.publish('state');
      });
      return ack;
    };

    try {
      const ack = await this.queue.submit(deviceId, tool.kind, channelId, async (signal) => {
        observed?.running();
        const call: CallInfo = {
          channelId,
          device,
          tool,
          args,
          argsHash,
          shell,
          signal,
          progress: (s, m) => {
            if (s === 'waiting_approval') observed?.held();
            progress(s, m);
          },
          lastTree: () => this.trees.get(channelId),
        };
        // The helper works on display 0 only: a phone driven on another display keeps the stock lane.
        const lanes = this.displayInUse(deviceId) === 0 ? this.lanes?.forCall(deviceId, shell) : undefined;
        // The gate's screen read takes the fast lane too (a sparse or stale helper tree falls back to the dump).
        if (lanes) {
          call.readTree = async (window) => (await lanes.tree({ timeoutMs: this.o.options.adbCommandTimeoutMs, signal }, window)).nodes;
          call.cheapTree = lanes.helperRunning();
          if (tool.kind === 'control' && call.cheapTree) call.screenAfter = () => this.screenAfter(deviceId, shell, lanes);
        }
        // A dark or locked screen refuses input before anyone is asked (screen-lock-guard.ts).
        if (tool.kind === 'control' && needsUnlockedScreen(tool.id, args)) await this.lockGuard.assertUsable(deviceId, shell, { timeoutMs: this.o.options.adbCommandTimeoutMs, signal });
        decision = await this.gate.decide(call);
        if (decision.decision === 'deny') {
          // A refusal is this call's answer: a retry of the same tool_call_id gets it again
          // without asking twice (a stop is not an answer; that call may be asked again).
          if (tool.sideEffect && decision.errorCode !== 'canceled') this.journal.started(key, argsHash);
          return errorAck(decision.errorCode ?? 'policy_denied', decision.reasons.length ? `not run: ${decision.reasons.join('; ')}` : 'not run');
        }
        await observed?.beforeAction(shell, signal);
        if (tool.sideEffect) this.journal.started(key, argsHash);
        const context = this.context(channelId, device, shell, signal, progress);
        if (lanes) context.lanes = lanes;
        const gate = this.gate;
        if (gate.checkStep) context.checkStep = (step) => gate.checkStep!(call, step);
        this.displays.beginCall(deviceId);
        const ran = await tool.run(context, parsed.data);
        // A phone with several displays: the result says which one was used.
        const shown = tool.facts.usesDisplay ? this.displays.current(deviceId) : null;
        const result = shown ? { ...ran, display: displayRef(shown) } : ran;
        return { payload: { tool_id: tool.id, result: decision.safety ? { ...result, safety: decision.safety } : result } };
      });
      this.settleJournal(tool, key, args, argsHash, ack);
      if (ack.error || mayWake(tool.id, args)) this.lockGuard.forget(deviceId);
      return finish(ack);
    } catch (error) {
      this.lockGuard.forget(deviceId);
      const wire = toWireError(error);
      if (!isBridgeError(error)) this.o.logger.error('tool failed', { tool: tool.id, error: error instanceof Error ? error.stack ?? error.message : String(error) });
      const ack: StoredAck = { error: wire };
      this.settleJournal(tool, key, args, argsHash, ack);
      return finish(ack);
    }
  }

  /**
   * A side-effecting call that reached the phone (journaled `started`) records its final ack;
   * the file keeps it without observed screens and with the call's typed text replaced by its
   * length and keyed hash (typed-text.ts ackAtRest).
   */
  private settleJournal(tool: ToolDefinition<unknown>, key: string, args: Record<string, unknown>, argsHash: string, ack: StoredAck): void {
    if (!tool.sideEffect || !this.journal.get(key)) return;
    const atRest = ackAtRest(ack, typedTexts(tool.id, args), (text) => typedTextDigest(text, this.o.hashKey));
    this.journal.done(key, argsHash, ack, atRest);
  }

  /**
   * The screen after a control call's action, read by the fast lane's helper (CallInfo.screenAfter):
   * observation work on the phone's queue, so it waits behind no agent call and a Stop ends it.
   */
  private screenAfter(deviceId: string, shell: DeviceShell, lanes: ToolLanes): Promise<{ token: string | null; nodes: UiNode[] } | null> {
    return this.queue.submit(deviceId, 'observation', SCREEN_AFTER_CHANNEL, async (signal) => {
      const read = { timeoutMs: this.o.options.adbCommandTimeoutMs, signal };
      const screen = await probeScreen(shell, {
        withTree: true,
        ...read,
        readTree: async (window) => {
          const nodes = await lanes.helperTree(read, window);
          if (!nodes) throw new BridgeError('helper_unavailable', 'no usable helper tree');
          return nodes;
        },
      });
      return screen.window && screen.nodes ? { token: screen.window.token, nodes: screen.nodes } : null;
    });
  }

  private context(channelId: string, device: DeviceRecord, shell: DeviceShell, signal: AbortSignal, progress: ToolContext['progress']): ToolContext {
    const timeoutMs = this.o.options.adbCommandTimeoutMs;
    return {
      channelId,
      device,
      shell,
      signal,
      timeoutMs,
      progress,
      screenSize: async (accepts) => {
        const size = await this.screenSizes.get(device.deviceId, shell, { timeoutMs, signal }, accepts);
        if (!size) throw new BridgeError('command_failed', 'could not read the screen size');
        return size;
      },
      lastTree: () => this.trees.get(channelId),
      rememberTree: (nodes, signature) => this.trees.set(channelId, { nodes, signature }),
      services: {
        lastCaptures: this.lastCaptures,
        storeFile: async (input) => {
          const file = await this.o.files.put({ ...input, channelId });
          return this.signed(file);
        },
        findUnchangedRef: (fileRef) => {
          const file = this.o.files.get(fileRef);
          return file && file.channelId === channelId ? this.signed(file) : undefined;
        },
        uploadedFile: (fileRef) => {
          const file = this.o.files.get(fileRef);
          if (!file || file.kind !== 'upload') throw new BridgeError('file_not_found', 'no uploaded file with that file_ref (it may have expired)');
          if (file.channelId !== channelId) throw new BridgeError('permission_denied', 'that file was uploaded for another channel');
          const path = this.o.files.path(fileRef);
          if (!path) throw new BridgeError('file_not_found', 'the uploaded file is gone');
          return { path, filename: file.filename, byteSize: file.byteSize };
        },
        unicodeIme: async () => {
          const cached = this.imeCache.get(device.deviceId);
          if (cached && this.o.clock() - cached.at < 60_000) return cached.value;
          const value = await detectUnicodeIme(shell, { timeoutMs, signal });
          this.imeCache.set(device.deviceId, { value, at: this.o.clock() });
          return value;
        },
        screenshotStrategy: {
          get: (id) => this.strategies.get(id),
          set: (id, timings) => this.strategies.set(id, timings),
        },
      },
    };
  }

  private signed(file: { fileRef: string; mimeType: string; byteSize: number; expiresAt: number; sha256: string }): StoredFileInfo {
    const url = this.o.signer.sign(file.fileRef, this.o.options.downloadUrlTtlMs, file.expiresAt);
    return {
      file_ref: file.fileRef,
      // Absolute under --public-url (a proxy's path prefix survives); else relative, resolved by xAgent against its base URL.
      download_url: publicHref(this.o.options.network.publicUrl, url.path),
      mime_type: file.mimeType,
      byte_size: file.byteSize,
      expires_at: url.expiresAt,
      sha256: file.sha256,
    };
  }
}

function errorAck(code: ErrorCode, message: string): StoredAck {
  return { error: { code, message } };
}

function conflict(): StoredAck {
  return errorAck('idempotency_conflict', 'this tool_call_id was already used with other arguments; use a new tool_call_id');
}

/**
 * Stable hash of a call: tool id plus arguments with keys sorted at every level. Keyed, as it
 * is kept in the journal and a plain hash of a short typed text could be reversed by guessing.
 */
export function hashArgs(toolId: string, args: unknown, key: Buffer): string {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value as Record<string, unknown>)
          .sort()
          .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
      );
    }
    return value;
  };
  return createHmac('sha256', key).update(toolId).update('\n').update(JSON.stringify(canonical(args))).digest('hex');
}

/**
 * ToolRuntime: the tools as the rest of the bridge sees them. It puts together the edge of a
 * call (invoke-handler.ts), its path through the queue, the gate and the tool
 * (call-pipeline.ts), exactly-once (exactly-once.ts) and what is remembered between calls
 * (phone-memory.ts), and answers the console, the bindings and the phone check about them.
 * The queue and the phones' shells are made in create-core and handed in; so are the gate,
 * the audit sinks, the fast lane and the phone view's timeline.
 */
import type { CoreOptions } from '../config/core-options';
import type { BridgeError, ErrorCode } from '../errors';
import type { DeviceRegistry, DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { FileCache } from '../files/file-cache';
import type { UrlSigner } from '../files/signed-url';
import type { Logger } from '../logging/logger';
import type { DataPlane } from '../server/data-plane';
import type { CardTool } from '../protocol/card';
import type { DeviceQueue } from '../queue/device-queue';
import { TOOLS } from './catalogue';
import { CallPipeline } from './call-pipeline';
import { ExactlyOnce } from './exactly-once';
import { InvokeHandler } from './invoke-handler';
import { PhoneMemory, type LastAction, type Refusal } from './phone-memory';
import type { PhoneShells } from './phone-shells';
import type { SecretSource } from './secret-text';
import type { AfterAck, CallObserver, CallRecordSink, SafetyGate } from './tool-call';
import { toCardTool, type ToolDefinition, type ToolLanes } from './tool-definition';
import { ToolServicesFactory, type PersonAskBackend, type ToolServicesOptions } from './tool-services';
import { LeaseLogCaptures } from './lease-log-capture';
import { redactLogLines } from './log-redaction';

export type { Refusal } from './phone-memory';

export interface ToolRuntimeOptions {
  dataDir: string;
  /** Keys the hashes kept at rest: call arguments and typed text in the journal (typed-text.ts). */
  hashKey: Buffer;
  registry: DeviceRegistry;
  queue: DeviceQueue;
  shells: PhoneShells;
  files: FileCache;
  signer: UrlSigner;
  options: CoreOptions;
  logger: Logger;
  clock: () => number;
  /** Policy and approvals, asked inside each call's queue slot; absent, everything is allowed. */
  gate?: SafetyGate;
  /** Told about every finished call as its ack is sent, before any later packet is read (counts, evidence, what the lease left). */
  sinks?: readonly CallRecordSink[];
  /** Told about every finished call once its ack is sent, in the pipeline's order (call-pipeline.ts). */
  afterAck?: AfterAck;
  /** The fast lane (helper/fast-lane.ts): tools use the helper on the phone when it runs. */
  lanes?: { forCall(deviceId: string, shell: DeviceShell): ToolLanes } | undefined;
  /** Told about each call while it happens (the phone view's timeline). */
  observer?: CallObserver;
  /** The lab's named secrets, typed by name (secret-text.ts); absent, none can be typed. */
  secrets?: SecretSource;
  /** The tools marked on a phone may have changed (bindings/tool-marks.ts). */
  marksChanged: (deviceId: string) => void;
  /** Something the console shows changed. */
  stateChanged: () => void;
  activeDeviceFor: (channelId: string) => string | undefined;
  /** The channel's active lease by its phone and start (part of the exactly-once key). */
  leaseKeyFor: (channelId: string) => string | undefined;
  /** While the bound phone is away: when its lease ends unless it comes back. */
  awayLeaseEnd?: (deviceId: string) => number | null;
  bindingStatus: (channelId: string) => string;
  touch: (channelId: string) => void;
  progress: (channelId: string, payload: Record<string, unknown>) => boolean;
  /** A person holds the phone (takeover/takeover.ts): the refusal for the agent's control calls, or null. */
  heldByPerson?: (deviceId: string) => BridgeError | null;
  /** The end of the phone's last take-over the agent could not watch: log reads start there (takeover/takeover.ts). */
  logHiddenUntil?: (deviceId: string) => number | null;
  /** A person holds or held the phone since then, unwatched: the refusal of a screen read (call-pipeline.ts). */
  screenHidden?: (deviceId: string, since: number) => BridgeError | null;
  /** Asks to the person at the computer (takeover/person-asks.ts); absent: nobody can be asked. */
  asks?: PersonAskBackend;
  /** The phone's screen stream for screenshots (stream/screen-streams.ts); absent: none. */
  /** Each phone's pictures of its screen (screen/wire.ts); absent: screencap only. */
  screens?: ToolServicesOptions['screens'];
  /** Reads a phone's app names (phone-programs/); absent: apps are named by their package. */
  appLabels?: ToolServicesOptions['appLabels'];
}

export class ToolRuntime {
  readonly queue: DeviceQueue;
  private readonly byId: Map<string, ToolDefinition<unknown>>;
  private readonly memory: PhoneMemory;
  private readonly exactlyOnce: ExactlyOnce;
  private readonly handler: InvokeHandler;
  private readonly pipeline: CallPipeline;
  private readonly services: ToolServicesFactory;
  /** Per leased phone, its log stream: crashes in results, the lease's rolling log (lease-log-capture.ts). */
  readonly captures = new LeaseLogCaptures();

  constructor(private readonly o: ToolRuntimeOptions) {
    this.queue = o.queue;
    this.byId = new Map(TOOLS.map((t) => [t.id, t]));
    this.memory = new PhoneMemory(o.clock);
    this.exactlyOnce = new ExactlyOnce({
      dataDir: o.dataDir,
      windowMs: o.options.idempotencyWindowMs,
      hashKey: o.hashKey,
      clock: o.clock,
    });
    const services = (this.services = new ToolServicesFactory({
      files: o.files,
      signer: o.signer,
      memory: this.memory,
      shells: o.shells,
      commandTimeoutMs: o.options.adbCommandTimeoutMs,
      downloadUrlTtlMs: o.options.downloadUrlTtlMs,
      publicUrl: o.options.network.publicUrl,
      ...(o.secrets ? { secrets: o.secrets } : {}),
      ...(o.asks ? { asks: o.asks } : {}),
      ...(o.logHiddenUntil ? { logHiddenUntil: o.logHiddenUntil } : {}),
      ...(o.screens ? { screens: o.screens } : {}),
      ...(o.appLabels ? { appLabels: o.appLabels } : {}),
    }));
    const pipeline = (this.pipeline = new CallPipeline({
      queue: o.queue,
      shells: o.shells,
      memory: this.memory,
      exactlyOnce: this.exactlyOnce,
      services,
      gate: o.gate,
      lanes: o.lanes,
      observer: o.observer,
      sinks: o.sinks ?? [],
      afterAck: o.afterAck,
      marksChanged: o.marksChanged,
      stateChanged: o.stateChanged,
      commandTimeoutMs: o.options.adbCommandTimeoutMs,
      clock: o.clock,
      logger: o.logger,
      ...(o.secrets ? { secrets: o.secrets } : {}),
      captures: this.captures,
      ...(o.heldByPerson ? { heldByPerson: o.heldByPerson } : {}),
      ...(o.screenHidden ? { screenHidden: o.screenHidden } : {}),
    }));
    this.handler = new InvokeHandler({
      tools: this.byId,
      registry: o.registry,
      shells: o.shells,
      memory: this.memory,
      exactlyOnce: this.exactlyOnce,
      pipeline,
      activeDeviceFor: o.activeDeviceFor,
      leaseKeyFor: o.leaseKeyFor,
      ...(o.awayLeaseEnd ? { awayLeaseEnd: o.awayLeaseEnd } : {}),
      bindingStatus: o.bindingStatus,
      touch: o.touch,
      progress: o.progress,
      clock: o.clock,
      ...(o.secrets ? { secrets: o.secrets } : {}),
    });
  }

  start(): void {
    this.exactlyOnce.start();
  }

  /** Cancels all queued and running work, waits for the calls to answer, closes the journal. */
  async stop(): Promise<void> {
    this.queue.cancelAll('the bridge is stopping');
    this.captures.stopAll();
    await this.exactlyOnce.stop();
    // Calls that finished as the bridge stopped still get their audit line (the safety stops after the tools).
    this.pipeline.flush();
  }

  registerHandlers(plane: DataPlane): void {
    this.handler.register(plane);
  }

  /** The name a phone's launcher gives a package, as the phone last told it (app-labels.ts); no phone is asked. */
  knownAppLabel(deviceId: string, pkg: string): string | null {
    return this.services.labels.known(deviceId, pkg);
  }

  toolIds(): string[] {
    return TOOLS.map((t) => t.id);
  }

  tool(id: string): ToolDefinition<unknown> | undefined {
    return this.byId.get(id);
  }

  cardTools(): CardTool[] {
    return TOOLS.map(toCardTool);
  }

  shellFor(device: DeviceRecord): DeviceShell {
    return this.o.shells.shellFor(device);
  }

  /** The next control call on this phone reads its screen state again (a phone check just looked). */
  forgetScreenState(deviceId: string): void {
    this.memory.screenLock.forget(deviceId);
  }

  /** When a tool call last read this phone's UI tree (tool-marks.ts), or null. */
  lastTreeRead(deviceId: string): number | null {
    return this.memory.lastTreeRead(deviceId);
  }

  /** The last call on this phone refused with `code`, if any. */
  lastRefusal(deviceId: string, code: ErrorCode): Refusal | null {
    return this.memory.lastRefusal(deviceId, code);
  }

  lastAction(channelId: string): LastAction | undefined {
    return this.memory.lastAction(channelId);
  }

  /**
   * The lease's rolling log on its phone, redacted as android_logcat's answer is (the lab's
   * secrets, the texts typed during the lease, secret-shaped values); null when no log ran for
   * it. Read before onBindingEnded, which forgets the lease's typed texts.
   */
  leaseLog(channelId: string, deviceId: string): { lines: string[]; dropped_lines: number; bytes: number } | null {
    const capture = this.captures.of(deviceId);
    if (capture.leaseId() !== channelId) return null;
    const log = capture.read();
    const redaction = { secrets: this.o.secrets?.values() ?? [], typed: this.memory.typedTexts(channelId) };
    return { ...log, lines: redactLogLines(log.lines, redaction) };
  }

  /**
   * A person held the phone without letting the agent watch: the crashes and ANRs its log saw
   * meanwhile are theirs, not the next result's (android_logcat hides that span likewise).
   */
  forgetFailuresSeen(deviceId: string): void {
    this.captures.of(deviceId).takeFailures();
  }

  onBindingEnded(channelId: string, deviceId: string, reason: string): void {
    const n = this.queue.cancelChannel(deviceId, channelId, `the lease ended (${reason})`);
    if (n > 0) this.o.logger.info('canceled queued work after lease end', { channel: channelId, count: n });
    this.captures.leaseEnded(deviceId, channelId);
    this.memory.forgetChannel(channelId);
  }

  /**
   * What the agents' calls have running and waiting on a phone, as its card shows it: the
   * bridge's own reads (a phone view's frames, the phone check, the fast lane's read after an
   * action) are not the agent's work.
   */
  agentQueueStats(deviceId: string): { running: number; queued: number } {
    return this.queue.stats(deviceId, this.isAgentChannel);
  }

  /**
   * The stop button: cancels queued and running work on a phone at once, the bridge's own
   * reads too (a phone view's frame, the phone check); answers how many of the agents' calls.
   */
  stopDevice(deviceId: string): number {
    return this.queue.cancelDevice(deviceId, 'stopped at the computer', this.isAgentChannel);
  }

  /**
   * A person took the phone without letting the agent watch: the agent's screen reads running
   * on it (a recording, a wait, a log read) stop now and answer `refusal`; how many.
   */
  stopScreenReads(deviceId: string, refusal: BridgeError): number {
    return this.pipeline.stopScreenReads(deviceId, refusal);
  }

  /** A channel bound to a phone is an agent's; the bridge's own work (phone-view, phone-check, fast-lane) is not. */
  private readonly isAgentChannel = (channelId: string): boolean => this.o.activeDeviceFor(channelId) !== undefined;
}

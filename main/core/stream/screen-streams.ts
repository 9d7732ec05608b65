/**
 * The screen stream of each phone (minicap), run only while someone needs it: while the phone
 * is leased (the agent's screenshots come from it) or its live view is watched, and only on
 * phones whose person agreed (lab-wide or per phone, like the fast lane). When neither need
 * remains, minicap is stopped and its files removed: an unwatched, unleased phone runs nothing.
 *
 * - Lifecycle: minicap on each phone is one ProgramLifecycle (program-lifecycle/program-lifecycle.ts),
 *   like every program the bridge runs on a phone: one state, changed in one place; this file
 *   says when it is needed and how it starts. Health: minicap ending on its own (a crash, the
 *   phone's own limits) is restarted once; a second failure within FAILURE_WINDOW_MS leaves
 *   the phone on its other ways (the fast lane's MJPEG, or screencap) for COOL_DOWN_MS, and
 *   the reason is shown in words.
 * - Rotation: minicap keeps the orientation it was started with, so the rotation is read after
 *   every control action and every ROTATION_POLL_MS while it runs, and minicap is restarted
 *   with the new one when it changed (as STF does).
 * - Freshness: `agentFrame` answers only with what the screen showed after the last control
 *   action (see there); otherwise null, and the caller takes a screenshot the stock way in the
 *   same call.
 */
import type { AdminPhoneProgram, AdminScreenStreamSettings } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { orientedSize, parseWmSize, readRotation, type Rotation } from '../android/device-info';
import { runText } from '../devices/shell-quote';
import { pauseFor, SHORT_COMMAND_MS } from '../devices/deadline';
import type { Logger } from '../logging/logger';
import {
  installMinicapFiles,
  minicapPackageVersion,
  minicapPrebuiltRoot,
  planMinicapFiles,
  removeMinicapFiles,
  startMinicap,
  type MinicapFilePlan,
  type RunningMinicap,
} from './minicap-process';
import type { MinicapFrame } from './minicap-wire';
import {
  consentAllows,
  ProgramLifecycle,
  withChoice,
  type ProgramConsentStore,
} from '../program-lifecycle/program-lifecycle';

export type StreamDefault = 'ask' | 'on';
export interface ScreenStreamsOptions {
  /** The one consent type: the lab's default (`ask` is `off`) and each phone's word. */
  consent: ProgramConsentStore;
  /** The phone's shell on display 0, or undefined when it is not connected. */
  shellFor(deviceId: string): DeviceShell | undefined;
  /** True while the phone has an active lease. */
  leased(deviceId: string): boolean;
  /** True while someone watches the phone's live view. */
  watched(deviceId: string): boolean;
  /** The display the bridge's tools act on (minicap shows display 0 only). */
  displayInUse(deviceId: string): number;
  /** When control work last ended on the phone (performance.now()), and whether some runs or waits now. */
  lastControlEndedAt(deviceId: string): number | undefined;
  controlLoad(deviceId: string): number;
  logger: Logger;
  changed(): void;
  /** How often needs are re-checked (streams started and stopped). */
  reconcileMs?: number;
  startTimeoutMs?: number;
  /** The least wait after an action (above STREAM_LATENCY_MIN_MS), for phones (or simulators on a busy computer) slower than they seem. */
  latencyFloorMs?: number;
}

/**
 * Before a phone's answers to actions are measured: how late minicap reports a change, in its
 * own frames, with room (the frame in flight, the change's own frame, one more).
 */
export const LATENCY_FRAMES = 3;
/**
 * Never sooner than this: a phone at 60 frames a second has a change on its way within two
 * frames (with `-S` at most the frame in flight is ahead of the change's own) and the link's time.
 */
export const STREAM_LATENCY_MIN_MS = 50;
/** The link's time (USB or Wi-Fi, and the bridge's own turn) on top of the slower recent answers. */
export const LINK_MARGIN_MS = 10;
/** A phone's measured time per frame is taken at most as this (a phone slower still gets its minicap's worst). */
const FRAME_COST_CAP_MS = 250;
const INTERVAL_COUNTED_MS = 1_000;
const INTERVALS_KEPT = 50;

/**
 * The phone's time per frame: the shortest recent gap between two frames (while the screen
 * changes faster than minicap can send, it sends a frame as soon as the last is out, so no gap
 * is shorter than its cost; a screen that changes seldom only makes it look slower); 33 ms
 * until measured, FRAME_COST_CAP_MS at most.
 */
export function frameCostMs(intervals: readonly number[]): number {
  if (intervals.length < 3) return 33;
  return Math.min(FRAME_COST_CAP_MS, Math.max(1, Math.min(...intervals)));
}

const RESPONSES_KEPT = 20;
/** The answer to an action usually comes within the median; this much more covers the slower ones. */
const RESPONSE_HEADROOM = 1.5;
const LATENCY_CAP_MS = 1_000;

/**
 * How long after a control action the stream has surely shown what the action did, from how
 * soon the first frame came after the phone's recent actions (its own answer plus minicap's
 * delay): 1.5 times the usual answer, and no sooner than the slower ones (the 90th percentile)
 * plus the link's time. Before three are measured, LATENCY_FRAMES of its time per frame.
 * Never below STREAM_LATENCY_MIN_MS nor `floorMs` (a configured floor, for phones slower than
 * they seem); never above LATENCY_CAP_MS.
 */
export function streamLatencyMs(floorMs: number, responses: readonly number[], intervals: readonly number[]): number {
  let estimate = LATENCY_FRAMES * frameCostMs(intervals);
  if (responses.length >= 3) {
    const sorted = [...responses].sort((a, b) => a - b);
    const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
    estimate = Math.max(at(0.5) * RESPONSE_HEADROOM, at(0.9) + LINK_MARGIN_MS);
  }
  return Math.min(LATENCY_CAP_MS, Math.max(floorMs, STREAM_LATENCY_MIN_MS, Math.round(estimate)));
}
export const ROTATION_POLL_MS = 2_000;
/** A live view that stopped asking for frames keeps its phone's stream this long (a page reloaded, a tab back). */
export const STREAM_VIEW_GRACE_MS = 15_000;
const RECONCILE_MS = 1_000;
const START_TIMEOUT_MS = 10_000;
/** Room in the lifecycle's deadline for the reads and the copy before minicap's own start deadline. */
const START_ROOM_MS = 30_000;
const FAILURE_WINDOW_MS = 5 * 60_000;
const COOL_DOWN_MS = 60_000;
const FPS_WINDOW_MS = 2_000;

interface PhoneStream {
  deviceId: string;
  /** minicap's one lifecycle on this phone: what runs (`life.running`), its state, failures and consent. */
  life: ProgramLifecycle<RunningMinicap>;
  stopping?: Promise<void> | undefined;
  plan?: MinicapFilePlan | null;
  sdk?: number;
  natural?: { width: number; height: number };
  /** The rotation minicap was started with. */
  rotation: number;
  /** The latest rotation read: when the read started (performance.now()) and what it said. */
  rotationRead?: { startedAt: number; rotation: number };
  rotationReading?: Promise<void> | undefined;
  rotationAgain: boolean;
  frameTimes: number[];
  /** The latest gaps between frames that came back to back (the screen changing), for frameCostMs. */
  intervals: number[];
  /** How long after recent control actions their first frame came (the phone's answer and the stream's delay). */
  responses: number[];
  /** A control action ended then and no frame has come since. */
  awaitingResponseSince?: number | undefined;
  /** When the running minicap began sending (performance.now()): a read older than that cannot be vouched for. */
  runSince?: number | undefined;
  /** When its newest frame arrived (performance.now()), kept past the fps window. */
  lastFrameAt?: number | undefined;
  filesOnPhone: boolean;
}

export class ScreenStreams {
  private readonly phones = new Map<string, PhoneStream>();
  /** Phones that left while minicap's files were on them: removed when they come back. */
  private readonly leftOnPhone = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;
  private readonly latencyFloorMs: number;

  constructor(private readonly o: ScreenStreamsOptions) {
    this.latencyFloorMs = o.latencyFloorMs ?? 0;
    this.timer = setInterval(() => this.reconcileAll(), o.reconcileMs ?? RECONCILE_MS);
    this.timer.unref();
  }

  // ---- consent ----------------------------------------------------------------------------

  settings(): AdminScreenStreamSettings {
    return {
      default: this.o.consent.get().default === 'on' ? 'on' : 'ask',
      available: minicapPrebuiltRoot() !== null,
      version: minicapPackageVersion(),
    };
  }

  setDefault(mode: StreamDefault): void {
    this.o.consent.set({ ...this.o.consent.get(), default: mode === 'on' ? 'on' : 'off' });
    for (const phone of this.phones.values()) void phone.life.consentChanged();
    this.reconcileAll();
    this.o.changed();
  }

  enabled(deviceId: string): boolean {
    return consentAllows(this.o.consent.get(), deviceId);
  }

  /** The person's choice for one phone; off stops its stream at once (and removes minicap's files). */
  async choose(deviceId: string, choice: 'on' | 'off'): Promise<AdminPhoneProgram> {
    this.o.consent.set(withChoice(this.o.consent.get(), deviceId, choice));
    const phone = this.phone(deviceId);
    if (choice === 'off') await this.stop(deviceId, null);
    await phone.life.consentChanged();
    if (choice === 'on') this.reconcile(deviceId);
    this.o.changed();
    return this.programView(deviceId);
  }

  // ---- what the phone view and the tools use -----------------------------------------------

  /** Someone needs this phone's stream now (a viewer asked): starts it when allowed. */
  want(deviceId: string): void {
    this.reconcile(deviceId);
  }

  /** The running stream of a phone for the live view (its pictures are `scale` times the screen), or null. */
  live(deviceId: string): { reader: RunningMinicap['reader']; scale: number } | null {
    const phone = this.phones.get(deviceId);
    const run = phone?.life.running;
    if (!phone || !run || run.reader.closed || !phone.natural) return null;
    return { reader: run.reader, scale: run.scale };
  }

  /**
   * A frame for the agent's screenshot that shows the screen after the phone's last control
   * action: the newest frame once the stream's latency bound has passed since that action
   * ended (streamLatencyMs: how soon this phone's actions usually show, with headroom, and never
   * sooner than any change can arrive: minicap sends every change),
   * from a stream whose orientation was read after that action. Right away when the action
   * ended longer ago than that. Null when the stream cannot answer (not running, broken, turned):
   * the caller then takes the screenshot the stock way in the same call. Only on phones where
   * minicap's pictures hide secure windows as screencap does (Android 12+): on older ones
   * minicap's display may show what an app keeps out of screenshots. `onCandidate` is given
   * the newest frame and each that arrives during the wait (the caller may start encoding).
   */
  async agentFrame(
    deviceId: string,
    signal?: AbortSignal,
    onCandidate?: (frame: MinicapFrame, screen: { width: number; height: number }) => void,
  ): Promise<{ frame: MinicapFrame; screen: { width: number; height: number } } | null> {
    const stopping = this.phones.get(deviceId)?.stopping;
    if (stopping) await stopping;
    this.reconcile(deviceId);
    const phone = this.phones.get(deviceId);
    if (!phone) return null;
    await phone.life.starting?.catch(() => undefined);
    const run = phone.life.running;
    if (!run || run.reader.closed || (phone.sdk ?? 0) < 31) return null;
    const screenNow = (): { width: number; height: number } =>
      orientedSize(
        phone.natural ?? { width: run.banner.realWidth, height: run.banner.realHeight },
        phone.rotation as Rotation,
      );
    // The newest frame and each that arrives during the wait may be the answer: the caller may start on them.
    const stopOffering = onCandidate ? run.reader.onFrame((frame) => onCandidate(frame, screenNow())) : undefined;
    try {
      if (onCandidate && run.reader.latest) onCandidate(run.reader.latest, screenNow());
      return await this.freshFrame(phone, run, screenNow, signal);
    } finally {
      stopOffering?.();
    }
  }

  /** agentFrame's wait: the newest frame once the latency bound has passed since the last action, from a confirmed orientation. */
  private async freshFrame(
    phone: PhoneStream,
    run: RunningMinicap,
    screenNow: () => { width: number; height: number },
    signal: AbortSignal | undefined,
  ): Promise<{ frame: MinicapFrame; screen: { width: number; height: number } } | null> {
    const { deviceId } = phone;
    const now = performance.now();
    const ended = this.o.lastControlEndedAt(deviceId);
    const barrier = this.o.controlLoad(deviceId) > 0 ? now : (ended ?? 0);
    const latency = streamLatencyMs(this.latencyFloorMs, phone.responses, phone.intervals);
    const answerAt = barrier > 0 ? barrier + latency : 0;
    const until = Math.max(now, answerAt) + latency;
    // The orientation: a read that started after the barrier (one starts after every action).
    if (!phone.rotationRead || phone.rotationRead.startedAt < barrier) this.readRotationSoon(phone);
    let confirmed: { startedAt: number; rotation: number } | undefined;
    for (;;) {
      const read = phone.rotationRead;
      if (read && read.startedAt >= barrier) {
        confirmed = read;
        break;
      }
      if (performance.now() >= until || !phone.rotationReading) return null;
      await Promise.race([phone.rotationReading, pauseUntil(until, signal)]);
    }
    if (confirmed.rotation !== phone.rotation || phone.life.running !== run) return null;
    if (performance.now() < answerAt) await pauseUntil(answerAt, signal);
    let frame = run.reader.latest;
    if (!frame) {
      try {
        frame = await run.reader.next(0, Math.max(1, until - performance.now()), signal);
      } catch (error) {
        if (isBridgeError(error) && error.code === 'canceled') throw error;
        return null;
      }
    }
    if (run.reader.closed || phone.life.running !== run) return null;
    return { frame: run.reader.latest ?? frame, screen: screenNow() };
  }

  /**
   * Whether the screen still shows what a read taken from `startedAt` to `endedAt`
   * (performance.now()) saw, as the stream tells it: minicap sends a frame for every change
   * SurfaceFlinger composes, so no frame since the read means no change since — except one
   * within the latency bound (streamLatencyMs) before now, whose frame may be on its way, which
   * is about the window read's own round trip that it stands in for. A frame that arrived
   * within that bound before the read ended may show a change the read missed, so it counts as
   * a change too. False whenever the stream cannot vouch: not running, restarted (or turned)
   * since the read began, or a change seen; then the caller reads the screen again.
   */
  screenUnchangedSince(deviceId: string, read: { startedAt: number; endedAt: number }): boolean {
    const phone = this.phones.get(deviceId);
    const run = phone?.life.running;
    if (!phone || !run || run.reader.closed || phone.runSince === undefined) return false;
    if (phone.runSince > read.startedAt) return false;
    const latency = streamLatencyMs(this.latencyFloorMs, phone.responses, phone.intervals);
    return phone.lastFrameAt === undefined || phone.lastFrameAt <= read.endedAt - latency;
  }

  /**
   * minicap on this phone as one of its programs (`devices[].programs`, the console's "Programs
   * on this phone"): the lifecycle's view, and the stream's own facts — how it runs, distinct
   * frames a second lately, what it runs for now.
   */
  programView(deviceId: string): AdminPhoneProgram {
    const phone = this.phone(deviceId);
    const now = performance.now();
    const recent = phone.frameTimes.filter((t) => now - t <= FPS_WINDOW_MS);
    const purposes: Array<'lease' | 'view'> = [];
    const run = phone.life.running;
    if (run) {
      if (this.o.leased(deviceId)) purposes.push('lease');
      if (this.o.watched(deviceId)) purposes.push('view');
    }
    return {
      program: 'minicap_stream',
      name: 'minicap',
      version: minicapPackageVersion(),
      ...phone.life.view(),
      stream: {
        way: run?.way ?? phone.plan?.way ?? null,
        fps: Math.round((recent.length / (FPS_WINDOW_MS / 1000)) * 10) / 10,
        for: purposes,
      },
    };
  }

  /**
   * The phone left (unplugged, offline): its stream is gone with it (adbd ends minicap with its
   * shell). Its files could not be removed now: that is done when it comes back (`deviceReady`).
   */
  forget(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (!phone) return;
    phone.life.phoneGone();
    if (phone.filesOnPhone) this.leftOnPhone.add(deviceId);
    this.phones.delete(deviceId);
  }

  /** The phone is (back) online: files a stream left when it went away are removed, unless a stream is wanted now. */
  deviceReady(deviceId: string): void {
    const left = this.leftOnPhone.delete(deviceId);
    if (!left || this.needed(deviceId)) {
      // Wanted again at once: its files are the new stream's, removed when that one stops.
      if (left) this.phone(deviceId).filesOnPhone = true;
      return this.reconcile(deviceId);
    }
    const shell = this.o.shellFor(deviceId);
    if (!shell) return;
    void this.removeFiles(deviceId, shell);
  }

  /** Removes minicap's folder from the phone; true when done (a failure is logged, the files stay). */
  private removeFiles(deviceId: string, shell: DeviceShell): Promise<boolean> {
    return removeMinicapFiles(shell).then(
      () => true,
      (error: unknown) => {
        this.o.logger.warn('could not remove minicap from the phone', {
          device: deviceId,
          message: error instanceof Error ? error.message : String(error),
        });
        return false;
      },
    );
  }

  /** The phone's lease ended: its stream stops now unless someone watches it. */
  leaseEnded(deviceId: string): void {
    this.reconcile(deviceId);
  }

  /** Stops every stream and removes minicap from every phone (the bridge is stopping). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await Promise.all([...this.phones.keys()].map((deviceId) => this.stop(deviceId, null)));
    await Promise.all([...this.phones.values()].map((phone) => phone.life.dispose()));
  }

  // ---- inside -------------------------------------------------------------------------------

  private phone(deviceId: string): PhoneStream {
    const known = this.phones.get(deviceId);
    if (known) return known;
    const life: ProgramLifecycle<RunningMinicap> = new ProgramLifecycle<RunningMinicap>({
      deviceId,
      name: 'minicap',
      allowed: () => this.enabled(deviceId),
      carried: () => minicapPrebuiltRoot() !== null,
      // minicap's own deadline (its words say what did not happen) comes first; the room is for the reads before it.
      startTimeoutMs: (this.o.startTimeoutMs ?? START_TIMEOUT_MS) + START_ROOM_MS,
      freeRetries: 1,
      windowMs: FAILURE_WINDOW_MS,
      retryMs: COOL_DOWN_MS,
      endedError: (output) => {
        const text = typeof output === 'string' ? output.trim() : '';
        const why = phone.life.running?.reader.endedBecause ?? 'minicap ended';
        return new BridgeError(
          'command_failed',
          `minicap stopped on its own${text ? `: ${text.split('\n').at(-1)?.slice(0, 160)}` : ` (${why})`}`,
        );
      },
      clock: Date.now,
      logger: this.o.logger,
      onChange: () => {
        this.o.changed();
        // A failure forgiven (the first) leaves it idle with its error: started again at once.
        if (life.state === 'idle' && life.view().last_error !== null) setImmediate(() => this.reconcile(deviceId));
      },
    });
    const phone: PhoneStream = {
      deviceId,
      life,
      rotation: 0,
      rotationAgain: false,
      frameTimes: [],
      intervals: [],
      responses: [],
      filesOnPhone: false,
    };
    this.phones.set(deviceId, phone);
    return phone;
  }

  private needed(deviceId: string): boolean {
    return (
      !this.closed &&
      this.enabled(deviceId) &&
      // A phone that is not connected runs nothing (its files are seen to when it comes back).
      this.o.shellFor(deviceId) !== undefined &&
      this.o.displayInUse(deviceId) === 0 &&
      (this.o.leased(deviceId) || this.o.watched(deviceId))
    );
  }

  private reconcileAll(): void {
    for (const deviceId of this.phones.keys()) this.reconcile(deviceId);
  }

  /** Starts or stops one phone's stream to match what is needed; a running one has its rotation checked. */
  private reconcile(deviceId: string): void {
    const needed = this.needed(deviceId);
    const phone = needed ? this.phone(deviceId) : this.phones.get(deviceId);
    if (!phone) return;
    if (!needed) {
      if (phone.life.running || phone.life.starting || phone.filesOnPhone) void this.stop(deviceId, null);
      return;
    }
    if (phone.stopping) {
      // A stop under way (the last lease's end): started again once it is done.
      void phone.stopping.then(() => this.reconcile(deviceId));
      return;
    }
    const run = phone.life.running;
    if (run && !run.reader.closed) {
      if (!phone.rotationRead || performance.now() - phone.rotationRead.startedAt >= ROTATION_POLL_MS)
        this.readRotationSoon(phone);
      return;
    }
    // Not before its cool-down, not while starting, never where it is unavailable (the lifecycle's rules).
    if (!phone.life.mayStart()) return;
    void this.start(phone);
  }

  /** Control work on the phone ended: its rotation may have changed. */
  controlEnded(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (!phone?.life.running) return;
    phone.awaitingResponseSince = performance.now();
    this.readRotationSoon(phone);
  }

  private readRotationSoon(phone: PhoneStream): void {
    if (phone.rotationReading) {
      // The read under way started before this moment: another follows it.
      phone.rotationAgain = true;
      return;
    }
    const shell = this.o.shellFor(phone.deviceId);
    if (!shell) return;
    const startedAt = performance.now();
    phone.rotationReading = readRotation(shell, { timeoutMs: SHORT_COMMAND_MS })
      .then((rotation) => {
        const now = rotation ?? 0;
        phone.rotationRead = { startedAt, rotation: now };
        if (phone.life.running && now !== phone.rotation) {
          this.o.logger.info('screen stream follows a rotation', { device: phone.deviceId, rotation: now });
          void this.restart(phone);
        }
      })
      .catch(() => undefined)
      .finally(() => {
        phone.rotationReading = undefined;
        if (phone.rotationAgain) {
          phone.rotationAgain = false;
          this.readRotationSoon(phone);
        }
      });
  }

  private async restart(phone: PhoneStream): Promise<void> {
    await phone.life.stop();
    this.reconcile(phone.deviceId);
  }

  private start(phone: PhoneStream): Promise<RunningMinicap | null> {
    return phone.life.start({
      verify: (signal) => this.verifyFiles(phone, signal),
      run: (signal) => this.startNow(phone, signal),
    });
  }

  /**
   * The lifecycle's verify step, before every start: what minicap needs read once (which build
   * fits), then its files on the phone checked by hash (a missing or tampered one copied again;
   * one that still differs is never run).
   */
  private async verifyFiles(phone: PhoneStream, signal: AbortSignal): Promise<void> {
    const shell = this.o.shellFor(phone.deviceId);
    if (!shell) throw new BridgeError('device_offline', 'the phone is not connected');
    const options = { timeoutMs: SHORT_COMMAND_MS, signal };
    if (phone.plan === undefined || phone.sdk === undefined || !phone.natural) {
      const [abis, sdk, size] = await Promise.all([
        runText(shell, ['getprop', 'ro.product.cpu.abilist'], options),
        runText(shell, ['getprop', 'ro.build.version.sdk'], options),
        runText(shell, ['wm', 'size'], options),
      ]);
      const abiList = abis.text.trim().split(',').filter(Boolean);
      if (abiList.length === 0) {
        const single = (await runText(shell, ['getprop', 'ro.product.cpu.abi'], options)).text.trim();
        if (single) abiList.push(single);
      }
      phone.sdk = Number(sdk.text.trim());
      phone.plan = planMinicapFiles(abiList, phone.sdk);
      const natural = parseWmSize(size.text);
      if (!natural) throw new BridgeError('command_failed', 'the phone did not say its screen size (wm size)');
      phone.natural = natural;
    }
    if (!phone.plan)
      throw new BridgeError(
        'tool_unavailable',
        `minicap has no build for this phone (Android SDK ${phone.sdk ?? '?'})`,
      );
    phone.filesOnPhone = true;
    await installMinicapFiles(shell, phone.plan, signal);
  }

  /** How minicap starts on this phone, its files checked just before (`verifyFiles`). */
  private async startNow(phone: PhoneStream, signal: AbortSignal): Promise<RunningMinicap> {
    const shell = this.o.shellFor(phone.deviceId);
    if (!shell) throw new BridgeError('device_offline', 'the phone is not connected');
    if (!phone.plan || !phone.natural) throw new BridgeError('internal_error', 'minicap’s files were not checked');
    const rotationStartedAt = performance.now();
    const rotation = (await readRotation(shell, { timeoutMs: SHORT_COMMAND_MS, signal })) ?? 0;
    phone.rotationRead = { startedAt: rotationStartedAt, rotation };
    const run = await startMinicap(shell, {
      plan: phone.plan,
      natural: phone.natural,
      rotation,
      timeoutMs: this.o.startTimeoutMs ?? START_TIMEOUT_MS,
      signal,
    });
    if (signal.aborted || this.closed) {
      await run.stop();
      signal.throwIfAborted();
    }
    phone.rotation = rotation;
    phone.frameTimes = [];
    phone.intervals = [];
    phone.responses = [];
    phone.awaitingResponseSince = undefined;
    phone.runSince = performance.now();
    phone.lastFrameAt = undefined;
    const unsubscribe = run.reader.onFrame((frame) => {
      phone.lastFrameAt = frame.receivedAt;
      const since = phone.awaitingResponseSince;
      if (since !== undefined) {
        phone.awaitingResponseSince = undefined;
        if (frame.receivedAt - since < INTERVAL_COUNTED_MS) {
          phone.responses.push(frame.receivedAt - since);
          if (phone.responses.length > RESPONSES_KEPT) phone.responses.shift();
        }
      }
      const previous = phone.frameTimes.at(-1);
      if (previous !== undefined && frame.receivedAt - previous < INTERVAL_COUNTED_MS) {
        phone.intervals.push(frame.receivedAt - previous);
        if (phone.intervals.length > INTERVALS_KEPT) phone.intervals.shift();
      }
      phone.frameTimes.push(frame.receivedAt);
      while (phone.frameTimes.length > 0 && frame.receivedAt - (phone.frameTimes[0] ?? 0) > FPS_WINDOW_MS)
        phone.frameTimes.shift();
    });
    this.o.logger.info('screen stream started', { device: phone.deviceId, way: run.way, rotation });
    // The lifecycle stops it through this: the frame bookkeeping ends with it.
    return {
      ...run,
      stop: async () => {
        unsubscribe();
        await run.stop();
      },
    };
  }

  /** Stops minicap and removes its files; `why` (when given) is kept as the last error. */
  private stop(deviceId: string, why: string | null): Promise<void> {
    const phone = this.phones.get(deviceId);
    if (!phone) return Promise.resolve();
    if (phone.stopping) return phone.stopping;
    const work = (async () => {
      await phone.life.stop(why ? { error: new BridgeError('command_failed', why) } : {});
      const shell = this.o.shellFor(deviceId);
      if (shell && phone.filesOnPhone && (await this.removeFiles(deviceId, shell))) phone.filesOnPhone = false;
    })().finally(() => {
      phone.stopping = undefined;
      this.o.changed();
    });
    phone.stopping = work;
    return work;
  }
}

/** Waits until `until` (performance.now()); a canceled call stops waiting at once with `canceled`. */
async function pauseUntil(until: number, signal?: AbortSignal): Promise<void> {
  await pauseFor(Math.max(0, until - performance.now()), signal);
  if (signal?.aborted) throw new BridgeError('canceled', 'the call was canceled');
}

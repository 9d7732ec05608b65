/**
 * The fast lane's helper, per phone: consent, install, start, health, restart, stop, remove.
 *
 * - A per-phone opt-in, off on every phone by default, with no lab-wide "on": nothing is
 *   installed or started on a phone until a person turns on "appium-uiautomator2-server (open
 *   ports)" for it (device card, admin API with `accept_open_ports: true`), in words that say
 *   what it exposes: while it runs, any app on that phone and any computer on its network can
 *   control the phone through its ports 6790 and 7810, with no password. Disable stops it;
 *   Remove uninstalls both APKs.
 * - A program of the one lifecycle (program-lifecycle.ts): its state, start deadline, idle
 *   stop, failures and consent live there, one per phone (phone-helper.ts); this class holds
 *   the person's choices and answers the rest of the bridge. Its own steps: install
 *   (helper-install.ts, when enabled), the check of its files before every start (the
 *   lifecycle's verify: helper-exposure.ts), the run from `am instrument` to its stop
 *   (helper-process.ts) and the guard against exposure, watching from the moment
 *   `am instrument` starts (helper-exposure.ts).
 * - Runs only while the phone is leased; stopped when the lease ends, after HELPER_IDLE_STOP_MS
 *   without use, after a sparse or stale tree (then not started again for HELPER_PAUSE_MS),
 *   and when the bridge stops. A crash is forgiven once within HELPER_CRASH_FORGIVEN_MS; a
 *   second leaves it failed until enabled again, as anything the guard stops it for does.
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import {
  consentAllows,
  ProgramLifecycle,
  withChoice,
  type ProgramConsent,
  type StartSteps,
} from '../program-lifecycle/program-lifecycle';
import { openMjpegStream, type MjpegStream } from './mjpeg-stream';
import type { HelperApks } from './helper-apks';
import { installHelper, uninstallHelper } from './helper-install';
import { verifyHelper, type HelperAlert } from './helper-exposure';
import { HelperRun, type HelperSession, type ProcessContext } from './helper-process';
import { helperError, helperFailureKind, type PhoneHelper } from './phone-helper';

/** One phone's helper as the manager keeps it: the steps' record and its one lifecycle. */
interface KeptHelper extends PhoneHelper {
  life: ProgramLifecycle<HelperRun>;
}

export type { HelperAlert } from './helper-exposure';
export type { HelperSession } from './helper-process';

/** Documented limits (docs/REFERENCE.md "Fast lane"). */
export const HELPER_IDLE_STOP_MS = 5 * 60_000;
export const HELPER_START_TIMEOUT_MS = 30_000;
export const HELPER_PAUSE_MS = 60_000;
/** A crash this long after the one before is forgiven: a phone whose helper crashes once a day keeps it. */
export const HELPER_CRASH_FORGIVEN_MS = 10 * 60_000;
/** While it runs, the phone's TCP tables are read this often (docs/REFERENCE.md "Fast lane": what the guard does). */
export const HELPER_WATCH_MS = 2_000;
/** Room in the lifecycle's start deadline for installing both APKs (a slow phone's install), beyond the start itself. */
const INSTALL_ROOM_MS = 10 * 60_000;

/** The helper's own default (`mjpegScalingFactor`): half the screen's size, about 10 frames a second at most. */
const SCREEN_STREAM_SCALE_PERCENT = 50;

/**
 * What is kept across restarts: the phones whose person turned the open-ports helper on,
 * having been told what it exposes. There is no lab-wide default: each phone is its own yes.
 */
export interface FastLaneConsent {
  devices: Record<string, 'on' | 'off'>;
}

export interface FastLaneConsentStore {
  get(): FastLaneConsent;
  set(next: FastLaneConsent): void;
}

export interface HelperManagerOptions {
  consent: FastLaneConsentStore;
  /** The phone's shell, or undefined when it is not connected. */
  shellFor: (deviceId: string) => DeviceShell | undefined;
  apks: HelperApks | null;
  logger: Logger;
  clock?: () => number;
  onChange?: () => void;
  idleStopMs?: number;
  startTimeoutMs?: number;
  pauseMs?: number;
  crashForgivenMs?: number;
  /** Whether the phone has an active lease: the helper runs only while one does. Absent: always. */
  leaseActive?: (deviceId: string) => boolean;
  /** How often the running helper's connections are read (HELPER_WATCH_MS). */
  watchMs?: number;
  /** The helper was stopped to keep the phone safe: the person is told (audit, console, desktop). */
  onAlert?: (alert: HelperAlert) => void;
}

export class HelperManager {
  private readonly phones = new Map<string, KeptHelper>();
  private readonly clock: () => number;
  /** What the install, check, run and guard steps act with (the options, resolved to their defaults). */
  private readonly context: ProcessContext;
  private idleStopMs: number;
  private stopped = false;

  constructor(private readonly o: HelperManagerOptions) {
    this.clock = o.clock ?? Date.now;
    this.idleStopMs = o.idleStopMs ?? HELPER_IDLE_STOP_MS;
    this.context = {
      shellFor: (deviceId) => o.shellFor(deviceId),
      apks: o.apks,
      logger: o.logger,
      clock: () => this.clock(),
      bridgeStopped: () => this.stopped,
      changed: () => this.changed(),
      watchMs: o.watchMs ?? HELPER_WATCH_MS,
      alert: (alert) => o.onAlert?.(alert),
      foreign: async (phone, error) => this.phones.get(phone.deviceId)?.life.fail(error, 'final'),
      startTimeoutMs: o.startTimeoutMs ?? HELPER_START_TIMEOUT_MS,
    };
  }

  /** A running helper stops this long after its last use (Settings → Limits): applies at once. */
  setIdleStopMs(ms: number): void {
    this.idleStopMs = ms;
    for (const phone of this.phones.values()) phone.life.idleStopChanged();
  }

  // ---- consent ----------------------------------------------------------------------------

  settings(): { available: boolean; version: string | null } {
    return { available: this.o.apks !== null, version: this.o.apks?.version ?? null };
  }

  /** Only the person's own yes for this phone turns it on (the default is off, with no lab-wide "on"). */
  enabled(deviceId: string): boolean {
    return consentAllows(this.consent(), deviceId);
  }

  /**
   * The person's yes for this phone, given after reading what it exposes (the caller checks
   * that): a failed helper may start again, and it is installed now (in the background) when
   * the phone is here.
   */
  async enable(deviceId: string): Promise<AdminPhoneProgram> {
    this.requireApks();
    this.choose(deviceId, 'on');
    const phone = this.phone(deviceId);
    await phone.life.consentChanged();
    this.prepare(phone);
    return this.programView(deviceId);
  }

  /** Not on this phone any more: the helper is stopped (and stays installed). */
  async disable(deviceId: string): Promise<AdminPhoneProgram> {
    this.choose(deviceId, 'off');
    await this.phone(deviceId).life.consentChanged();
    return this.programView(deviceId);
  }

  /** Stops the helper and uninstalls both APKs; the phone's choice becomes "off". */
  async remove(deviceId: string): Promise<AdminPhoneProgram> {
    this.choose(deviceId, 'off');
    const phone = this.phone(deviceId);
    await phone.life.starting?.catch(() => undefined);
    await phone.life.consentChanged();
    const shell = this.o.shellFor(deviceId);
    if (!shell)
      throw new BridgeError('device_offline', 'the phone is not connected; the helper can be removed once it is back');
    await uninstallHelper(shell);
    phone.helperUid = null;
    phone.networkAddresses = null;
    this.changed();
    return this.programView(deviceId);
  }

  private consent(): ProgramConsent {
    return { default: 'off', devices: this.o.consent.get().devices };
  }

  private choose(deviceId: string, value: 'on' | 'off'): void {
    this.o.consent.set({ devices: withChoice(this.consent(), deviceId, value).devices });
    this.changed();
  }

  private requireApks(): HelperApks {
    if (!this.o.apks)
      throw new BridgeError(
        'tool_unavailable',
        'the helper APKs are not part of this build (package appium-uiautomator2-server is missing)',
      );
    return this.o.apks;
  }

  // ---- views ------------------------------------------------------------------------------

  /** The helper on this phone as one of its programs (`devices[].programs`, the console's "Programs on this phone"). */
  programView(deviceId: string): AdminPhoneProgram {
    const phone = this.phone(deviceId);
    return {
      program: 'uia2_server',
      name: 'appium-uiautomator2-server',
      version: this.o.apks?.version ?? null,
      ...phone.life.view(),
      exposure: {
        network_addresses: phone.networkAddresses ? [...phone.networkAddresses] : null,
        watched_at: phone.watchedAt,
      },
    };
  }

  /**
   * Whether the helper runs (or its instrumentation starts) on this phone: it then holds the
   * phone's UiAutomation. A start of a helper not yet installed by this bridge is its install.
   */
  isRunning(deviceId: string): boolean {
    const life = this.phones.get(deviceId)?.life;
    if (!life) return false;
    return life.state === 'ready' || (life.state === 'starting' && this.phones.get(deviceId)?.helperUid != null);
  }

  /** The running helper's session id (the bench times the same request sent directly). */
  sessionIdOf(deviceId: string): string | undefined {
    return this.phones.get(deviceId)?.life.running?.sessionId;
  }

  /** Counts which lane served a call on this phone. */
  noteLane(deviceId: string, lane: 'helper' | 'adb'): void {
    this.phone(deviceId).life.noteServed(lane === 'helper');
  }

  private phone(deviceId: string): KeptHelper {
    const known = this.phones.get(deviceId);
    if (known) return known;
    const startTimeoutMs = this.context.startTimeoutMs;
    const phone: KeptHelper = {
      deviceId,
      helperUid: null,
      networkAddresses: null,
      watchedAt: null,
      life: new ProgramLifecycle<HelperRun>({
        deviceId,
        name: 'appium-uiautomator2-server',
        allowed: () => this.enabled(deviceId),
        carried: () => this.o.apks !== null,
        // The run keeps its own deadline (`/status` within startTimeoutMs); an install may take longer.
        startTimeoutMs: startTimeoutMs + INSTALL_ROOM_MS,
        freeRetries: 1,
        windowMs: this.o.crashForgivenMs ?? HELPER_CRASH_FORGIVEN_MS,
        retryMs: Infinity,
        idleStopMs: () => this.idleStopMs,
        endedError: (output) =>
          helperError(
            'uia2_crashed',
            `the helper’s instrumentation ended${typeof output === 'string' && output.trim() ? `: ${output.trim().slice(-200)}` : ''}`,
          ),
        failureKind: helperFailureKind,
        clock: () => this.clock(),
        logger: this.o.logger,
        onChange: () => this.changed(),
      }),
    };
    this.phones.set(deviceId, phone);
    return phone;
  }

  private changed(): void {
    this.o.onChange?.();
  }

  /** Installs it in the background (a start that brings nothing up), when the phone is here and it may. */
  private prepare(phone: KeptHelper): void {
    const shell = this.o.shellFor(phone.deviceId);
    if (!shell || this.stopped || !phone.life.mayStart()) return;
    void phone.life.start({
      verify: (signal) => installHelper(this.context, phone, shell, signal),
      run: () => Promise.resolve(null),
    });
  }

  /** A start: its files checked by hash (never run otherwise), then the run, watched from `am instrument` on. */
  private startSteps(phone: KeptHelper, shell: DeviceShell): StartSteps<HelperRun> {
    return {
      verify: (signal) => verifyHelper(this.context, phone, shell, signal),
      run: (signal) => HelperRun.start(this.context, phone, shell, signal),
    };
  }

  // ---- use --------------------------------------------------------------------------------

  /**
   * The running helper for a call, starting it when it is installed and allowed; null when the
   * call should go the stock way (no consent, no lease, not installed yet, failed, paused, no start).
   */
  async acquire(deviceId: string, options: { signal?: AbortSignal }): Promise<HelperSession | null> {
    if (this.stopped || !this.o.apks || !this.enabled(deviceId)) return null;
    // Only while a lease is active: nothing of the helper runs for nobody.
    if (this.o.leaseActive && !this.o.leaseActive(deviceId)) return null;
    const phone = this.phone(deviceId);
    const running = phone.life.running;
    if (running && !running.stopped) {
      phone.life.touch();
      return running.session();
    }
    // Not installed by this bridge yet: installed in the background; this call goes the stock way.
    if (phone.helperUid === null) {
      this.prepare(phone);
      return null;
    }
    const shell = this.o.shellFor(deviceId);
    if (!shell?.openStream) return null;
    const run = await untilAborted(phone.life.start(this.startSteps(phone, shell)), options.signal);
    if (!run || run.stopped) return null;
    phone.life.touch();
    return run.session();
  }

  /**
   * The running helper's screen stream for the phone view, at a scale the bridge sets (so it
   * knows the screen's size from each picture); null when the helper does not run. Watching
   * never starts the helper, nor keeps it from its idle stop.
   */
  async screenStream(
    deviceId: string,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ stream: MjpegStream; scale: number } | null> {
    const run = this.phones.get(deviceId)?.life.running;
    if (this.stopped || !run || run.stopped) return null;
    await run
      .session()
      .call('POST', '/appium/settings', { settings: { mjpegScalingFactor: SCREEN_STREAM_SCALE_PERCENT } }, options);
    return { stream: await openMjpegStream(run.opener(), options), scale: SCREEN_STREAM_SCALE_PERCENT / 100 };
  }

  /**
   * A helper request failed. A connection-level failure (nothing answers, or no answer came)
   * is a crash: the helper is stopped (so the stock lane can read the screen) and started
   * again by a later call, by the crash rule. An error answer means it is alive and only
   * refused this one; a lost session stops it so the next call starts it afresh.
   */
  async helperFailed(deviceId: string, error: unknown): Promise<void> {
    const phone = this.phone(deviceId);
    if (isBridgeError(error) && error.code === 'canceled') return;
    const answered = isBridgeError(error) && error.code === 'helper_unavailable' && error.details?.status !== undefined;
    if (answered) {
      if (error.details?.helperError === 'invalid session id') await phone.life.stop();
      return;
    }
    // Its end may have been heard first (the instrumentation ended): one crash is counted once.
    if (phone.life.state !== 'ready') return;
    await phone.life.fail(
      helperError(
        'uia2_crashed',
        `the helper stopped answering (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`,
      ),
    );
  }

  /** A sparse or stale tree: stop the helper so the stock dump can read, and leave it off a while. */
  async pause(deviceId: string, reason: string): Promise<void> {
    await this.phone(deviceId).life.stop({
      error: helperError('uia2_paused', reason),
      notBefore: this.clock() + (this.o.pauseMs ?? HELPER_PAUSE_MS),
    });
  }

  // ---- stop -------------------------------------------------------------------------------

  /** Stops the helper on a phone (its app force-stopped: UiAutomation is free afterwards). */
  stopPhone(deviceId: string): Promise<void> {
    return this.phones.get(deviceId)?.life.stop() ?? Promise.resolve();
  }

  /** The phone's lease ended: its helper stops (the next holder's first call starts it again). */
  leaseEnded(deviceId: string): void {
    void this.stopPhone(deviceId);
  }

  /** The phone went away: what ran ended with its connection. */
  deviceGone(deviceId: string): void {
    this.phones.get(deviceId)?.life.phoneGone();
  }

  /** Bridge shutdown: every running helper is stopped and force-stopped; nothing starts again. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.allSettled([...this.phones.values()].map((phone) => phone.life.dispose()));
  }
}

/** The start's result, or null once the caller's signal aborts (the start goes on for the next call). */
function untilAborted<T>(work: Promise<T | null>, signal: AbortSignal | undefined): Promise<T | null> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve(null);
      },
    );
  });
}

/**
 * The fast lane's helper, per phone: consent, install, start, health, restart, stop, remove.
 *
 * - A per-phone opt-in, off on every phone by default, with no lab-wide "on": nothing is
 *   installed or started on a phone until a person turns on "appium-uiautomator2-server (open
 *   ports)" for it (device card, admin API with `accept_open_ports: true`), in words that say
 *   what it exposes: while it runs, any app on that phone and any computer on its network can
 *   control the phone through its ports 6790 and 7810, with no password. Disable stops it;
 *   Remove uninstalls both APKs.
 * - This class keeps one record per phone (phone-helper.ts), holds the person's choices and
 *   answers the rest of the bridge; the install (helper-install.ts), the process from start
 *   to crash or idle stop (helper-process.ts) and the guard against exposure
 *   (helper-exposure.ts) act on the record.
 * - Stopped when the phone's lease ends, after HELPER_IDLE_STOP_MS without use, after a sparse
 *   or stale tree (then not restarted for a cool-down), and when the bridge stops. Stopping
 *   force-stops the server app, which frees the phone's one UiAutomation connection, so stock
 *   `uiautomator dump`, Android Studio and Appium work again.
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import { openMjpegStream, type MjpegStream } from './mjpeg-stream';
import type { HelperApks } from './helper-apks';
import { installHelper, uninstallHelper } from './helper-install';
import type { HelperAlert } from './helper-exposure';
import {
  armIdleStop,
  helperCrashed,
  helperSession,
  opener,
  startHelper,
  touchHelper,
  type HelperSession,
  type ProcessContext,
} from './helper-process';
import {
  forgetProcess,
  helperHoldsPhone,
  newPhoneHelper,
  stopHelper,
  type HelperStateName,
  type PhoneHelper,
} from './phone-helper';

/** The helper's own states in the one lifecycle's words (program-lifecycle/program-lifecycle.ts). */
const HELPER_PROGRAM_STATE: Record<HelperStateName, AdminPhoneProgram['state']> = {
  absent: 'idle',
  stopped: 'idle',
  installing: 'starting',
  starting: 'starting',
  running: 'ready',
  failed: 'failed',
};

export type { HelperAlert } from './helper-exposure';
export type { HelperSession } from './helper-process';
export type { HelperStateName } from './phone-helper';

/** Documented limits (docs/REFERENCE.md "Fast lane"). */
export const HELPER_IDLE_STOP_MS = 5 * 60_000;
export const HELPER_START_TIMEOUT_MS = 30_000;
export const HELPER_PAUSE_MS = 60_000;
/** A helper that ran this long since its last start has its earlier crash forgiven. */
export const HELPER_CRASH_FORGIVEN_MS = 10 * 60_000;
/** While it runs, the phone's TCP tables are read this often (docs/REFERENCE.md "Fast lane": what the guard does). */
export const HELPER_WATCH_MS = 2_000;

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

/** A phone's helper as the admin state shows it. */
export interface HelperView {
  /** Whether the person turned it on for this phone (off by default). */
  enabled: boolean;
  state: HelperStateName;
  version: string | null;
  last_error: string | null;
  last_error_code: string | null;
  /** Calls served by each lane on this phone since the bridge started. */
  lanes: { helper: number; adb: number };
  /** While a sparse or stale tree keeps it stopped (ms since epoch), else null. */
  paused_until: number | null;
  /**
   * The phone's addresses another host could reach ("wlan0 192.168.1.23"), as last read
   * before a start or while it ran; null before the first read.
   */
  network_addresses: string[] | null;
  /** When the guard last read the phone's connections while the helper ran (ms since epoch), else null. */
  watched_at: number | null;
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
  private readonly phones = new Map<string, PhoneHelper>();
  private readonly clock: () => number;
  /** What the install, process and guard steps act with (the options, resolved to their defaults). */
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
      startTimeoutMs: o.startTimeoutMs ?? HELPER_START_TIMEOUT_MS,
      crashForgivenMs: o.crashForgivenMs ?? HELPER_CRASH_FORGIVEN_MS,
      idleStopMs: () => this.idleStopMs,
    };
  }

  /** A running helper stops this long after its last use (Settings → Limits): applies at once. */
  setIdleStopMs(ms: number): void {
    this.idleStopMs = ms;
    for (const phone of this.phones.values()) if (phone.idleTimer) armIdleStop(this.context, phone);
  }

  // ---- consent ----------------------------------------------------------------------------

  settings(): { available: boolean; version: string | null } {
    return { available: this.o.apks !== null, version: this.o.apks?.version ?? null };
  }

  /** Only the person's own yes for this phone turns it on. */
  enabled(deviceId: string): boolean {
    return this.o.consent.get().devices[deviceId] === 'on';
  }

  /**
   * The person's yes for this phone, given after reading what it exposes (the caller checks
   * that): installs now (in the background) when the phone is here.
   */
  enable(deviceId: string): HelperView {
    this.requireApks();
    this.choose(deviceId, 'on');
    const phone = this.phone(deviceId);
    if (phone.state === 'failed') {
      phone.state = 'absent';
      phone.crashes = 0;
    }
    phone.pausedUntil = 0;
    void installHelper(this.context, phone);
    return this.view(deviceId);
  }

  /** No fast lane on this phone: the helper is stopped (and stays installed). */
  async disable(deviceId: string): Promise<HelperView> {
    this.choose(deviceId, 'off');
    await this.stopPhone(deviceId, 'the fast lane was turned off for this phone');
    return this.view(deviceId);
  }

  /** Stops the helper and uninstalls both APKs; the phone's choice becomes "off". */
  async remove(deviceId: string): Promise<HelperView> {
    this.choose(deviceId, 'off');
    const phone = this.phone(deviceId);
    await phone.installing?.catch(() => undefined);
    await this.stopPhone(deviceId, 'removed');
    const shell = this.o.shellFor(deviceId);
    if (!shell)
      throw new BridgeError('device_offline', 'the phone is not connected; the helper can be removed once it is back');
    await uninstallHelper(shell);
    phone.state = 'absent';
    phone.version = null;
    phone.crashes = 0;
    phone.lastError = null;
    phone.lastErrorCode = null;
    phone.helperUid = null;
    this.changed();
    return this.view(deviceId);
  }

  private choose(deviceId: string, value: 'on' | 'off'): void {
    const consent = this.o.consent.get();
    this.o.consent.set({ ...consent, devices: { ...consent.devices, [deviceId]: value } });
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

  view(deviceId: string): HelperView {
    const phone = this.phones.get(deviceId);
    return {
      enabled: this.enabled(deviceId),
      state: phone?.state ?? 'absent',
      version: phone?.version ?? null,
      last_error: phone?.lastError ?? null,
      last_error_code: phone?.lastErrorCode ?? null,
      lanes: { ...(phone?.lanes ?? { helper: 0, adb: 0 }) },
      paused_until: phone && phone.pausedUntil > this.clock() ? phone.pausedUntil : null,
      network_addresses: phone?.networkAddresses ? [...phone.networkAddresses] : null,
      watched_at: phone?.watchedAt ?? null,
    };
  }

  /**
   * The helper on this phone as one of its programs (`devices[].programs`, the console's
   * "Programs on this phone"): the lifecycle's words for its states — absent and stopped are
   * idle, installing is starting, running is ready; a pause is idle until `retry_at`.
   */
  programView(deviceId: string): AdminPhoneProgram {
    const view = this.view(deviceId);
    const state: AdminPhoneProgram['state'] = !view.enabled
      ? 'off'
      : !this.o.apks
        ? 'unavailable'
        : HELPER_PROGRAM_STATE[view.state];
    return {
      program: 'uia2_server',
      name: 'appium-uiautomator2-server',
      version: this.o.apks?.version ?? null,
      state,
      enabled: view.enabled,
      last_error: view.last_error,
      last_error_code: view.last_error_code,
      last_error_reason: null,
      // Failed stays failed until the person enables it again: no time to show.
      retry_at: view.paused_until,
      served: view.lanes.helper,
      fell_back: view.lanes.adb,
      exposure: { network_addresses: view.network_addresses, watched_at: view.watched_at },
    };
  }

  /** Whether the helper runs (or starts) on this phone: it then holds the phone's UiAutomation. */
  isRunning(deviceId: string): boolean {
    const phone = this.phones.get(deviceId);
    return phone !== undefined && helperHoldsPhone(phone);
  }

  /** The running helper's session id (the bench times the same request sent directly). */
  sessionIdOf(deviceId: string): string | undefined {
    return this.phones.get(deviceId)?.sessionId;
  }

  /** Counts which lane served a call on this phone. */
  noteLane(deviceId: string, lane: 'helper' | 'adb'): void {
    this.phone(deviceId).lanes[lane] += 1;
  }

  private phone(deviceId: string): PhoneHelper {
    let phone = this.phones.get(deviceId);
    if (!phone) {
      phone = newPhoneHelper(deviceId);
      this.phones.set(deviceId, phone);
    }
    return phone;
  }

  private changed(): void {
    this.o.onChange?.();
  }

  // ---- use --------------------------------------------------------------------------------

  /**
   * The running helper for a call, starting it when it is installed and allowed; null when the
   * call should go the stock way (no consent, not installed yet, failed, paused, no start).
   */
  async acquire(deviceId: string, options: { signal?: AbortSignal }): Promise<HelperSession | null> {
    if (this.stopped || !this.o.apks || !this.enabled(deviceId)) return null;
    // Only while a lease is active: nothing of the helper runs for nobody.
    if (this.o.leaseActive && !this.o.leaseActive(deviceId)) return null;
    const phone = this.phone(deviceId);
    if (phone.state === 'failed' || phone.state === 'installing') return null;
    if (phone.pausedUntil > this.clock()) return null;
    if (phone.state === 'absent') {
      void installHelper(this.context, phone);
      return null;
    }
    if (phone.state !== 'running' || !phone.sessionId) {
      const started = await startHelper(this.context, phone, options.signal);
      if (!started) return null;
    }
    touchHelper(this.context, phone);
    return helperSession(this.context, phone);
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
    const phone = this.phones.get(deviceId);
    if (this.stopped || !phone || phone.state !== 'running' || !phone.sessionId) return null;
    const shell = this.o.shellFor(deviceId);
    if (!shell?.openStream) return null;
    await helperSession(this.context, phone).call(
      'POST',
      '/appium/settings',
      { settings: { mjpegScalingFactor: SCREEN_STREAM_SCALE_PERCENT } },
      options,
    );
    return {
      stream: await openMjpegStream(opener(shell, phone, this.clock), options),
      scale: SCREEN_STREAM_SCALE_PERCENT / 100,
    };
  }

  /**
   * A helper request failed. A connection-level failure (nothing answers, or no answer came)
   * is a crash: the helper is stopped (so the stock lane can read the screen) and started
   * again once by a later call. An error answer means it is alive and only refused this one.
   */
  async helperFailed(deviceId: string, error: unknown): Promise<void> {
    const phone = this.phone(deviceId);
    if (isBridgeError(error) && error.code === 'canceled') return;
    const answered = isBridgeError(error) && error.code === 'helper_unavailable' && error.details?.status !== undefined;
    if (answered) {
      if (error.details?.helperError === 'invalid session id') phone.sessionId = undefined;
      return;
    }
    await helperCrashed(
      this.context,
      phone,
      `the helper stopped answering (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`,
    );
  }

  /** A sparse or stale tree: stop the helper so the stock dump can read, and leave it off a while. */
  async pause(deviceId: string, reason: string): Promise<void> {
    const phone = this.phone(deviceId);
    phone.pausedUntil = this.clock() + (this.o.pauseMs ?? HELPER_PAUSE_MS);
    phone.lastError = reason;
    phone.lastErrorCode = 'helper_paused';
    await this.stopPhone(deviceId, null);
  }

  // ---- stop -------------------------------------------------------------------------------

  /**
   * Stops the helper on a phone and force-stops its app (UiAutomation is free afterwards).
   * `reason` (when given) is shown as the last error.
   */
  stopPhone(deviceId: string, reason: string | null): Promise<void> {
    const phone = this.phones.get(deviceId);
    return phone ? stopHelper(this.context, phone, reason) : Promise.resolve();
  }

  /** The phone's lease ended: its helper stops (the next holder's first call starts it again). */
  leaseEnded(deviceId: string): void {
    void this.stopPhone(deviceId, null);
  }

  /** The phone went away: nothing to stop on it, only the bookkeeping. */
  deviceGone(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (phone) forgetProcess(phone);
  }

  /** Bridge shutdown: every running helper is stopped and force-stopped. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.allSettled([...this.phones.keys()].map((id) => this.stopPhone(id, null)));
    await Promise.allSettled([...this.phones.values()].map((p) => p.installing ?? Promise.resolve()));
  }
}

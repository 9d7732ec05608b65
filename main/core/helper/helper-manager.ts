/**
 * The fast lane's helper, per phone: consent, install, start, health, restart, stop, remove.
 *
 * - Consent first: nothing is installed on a phone until a person enables the fast lane for
 *   it (device card, admin API) or sets the lab-wide default to `on`. Disable stops it; Remove
 *   uninstalls both APKs (both done by helper-install.ts).
 * - Started on demand by the first tool call that can use it (`am instrument -w`, kept open:
 *   its end is the server's end), health-checked through `GET /status`, then one session.
 * - A crash (the instrumentation ended, or the helper stopped answering) stops it; the next
 *   call starts it again once; a second crash leaves it `failed` until enabled again, unless
 *   the helper had run for HELPER_CRASH_FORGIVEN_MS since the first: a phone whose helper
 *   crashes once a day keeps its fast lane.
 * - Stopped when the phone's lease ends, after HELPER_IDLE_STOP_MS without use, after a sparse
 *   or stale tree (then not restarted for a cool-down), and when the bridge stops. Stopping
 *   force-stops the server app, which frees the phone's one UiAutomation connection, so stock
 *   `uiautomator dump`, Android Studio and Appium work again.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine } from '../devices/shell-quote';
import type { Logger } from '../logging/logger';
import { HelperClient, notPerformed } from './helper-client';
import { openMjpegStream, type MjpegStream } from './mjpeg-stream';
import type { HelperApks } from './helper-apks';
import { checkBeforeStart, clearNetworkRefusal, watchConnections, type ExposureContext, type HelperAlert } from './helper-exposure';
import { installHelper, uninstallHelper } from './helper-install';
import { HELPER_INSTRUMENT_ARGV, isNoInstrumentation } from './helper-protocol';
import { COMMAND_TIMEOUT_MS, failHelper, forgetProcess, helperHoldsPhone, newPhoneHelper, stopHelper, type HelperStateName, type PhoneHelper } from './phone-helper';

export type { HelperAlert } from './helper-exposure';
export type { HelperStateName } from './phone-helper';

export type FastLaneDefault = 'ask' | 'on';

/** Documented limits (README "Fast lane"). */
export const HELPER_IDLE_STOP_MS = 5 * 60_000;
export const HELPER_START_TIMEOUT_MS = 30_000;
export const HELPER_PAUSE_MS = 60_000;
/** A helper that ran this long since its last start has its earlier crash forgiven. */
export const HELPER_CRASH_FORGIVEN_MS = 10 * 60_000;
/** While it runs, the phone's TCP tables are read this often (README "Fast lane": what the guard does). */
export const HELPER_WATCH_MS = 2_000;
const STATUS_POLL_MS = 100;
const STATUS_REQUEST_MS = 2_000;

/** What is kept across restarts: the lab-wide default and each phone's own choice. */
export interface FastLaneConsent {
  default: FastLaneDefault;
  devices: Record<string, 'on' | 'off'>;
  /**
   * Phones whose person accepted that, while the helper runs, its ports are reachable from
   * the phone's networks (helper-guard.ts): without it the helper never starts on a phone
   * that has a network address.
   */
  network?: Record<string, true>;
  /** The same, lab-wide (a lab whose phones sit on its own closed network). */
  networkDefault?: boolean;
}

export interface FastLaneConsentStore {
  get(): FastLaneConsent;
  set(next: FastLaneConsent): void;
}

/** A phone's helper as the admin state shows it. */
export interface HelperView {
  enabled: boolean;
  /** Whether the person chose for this phone (false: the lab-wide default applies). */
  chosen: boolean;
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
  /** Whether the person accepted the helper's ports being reachable there (this phone or lab-wide). */
  network_accepted: boolean;
  /** When the guard last read the phone's connections while the helper ran (ms since epoch), else null. */
  watched_at: number | null;
}

/** A running helper's session, as the lanes use it. */
export interface HelperSession {
  readonly version: string;
  /** `path` is below the session (`/source`, `/actions`, …). */
  call(method: 'GET' | 'POST' | 'DELETE', path: string, body: unknown, options: { timeoutMs: number; signal?: AbortSignal }): Promise<unknown>;
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
  /** What the steps on a phone's helper act with. */
  private readonly context: ExposureContext;
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
      networkAccepted: (deviceId) => this.networkAccepted(deviceId),
      watchMs: o.watchMs ?? HELPER_WATCH_MS,
      alert: (alert) => o.onAlert?.(alert),
    };
  }

  /** A running helper stops this long after its last use (Settings → Limits): applies at once. */
  setIdleStopMs(ms: number): void {
    this.idleStopMs = ms;
    for (const phone of this.phones.values()) if (phone.idleTimer) this.armIdleStop(phone);
  }

  // ---- consent ----------------------------------------------------------------------------

  settings(): { default: FastLaneDefault; available: boolean; version: string | null; network_default: boolean } {
    const consent = this.o.consent.get();
    return { default: consent.default, available: this.o.apks !== null, version: this.o.apks?.version ?? null, network_default: consent.networkDefault === true };
  }

  /** Lab-wide: phones with a network address may run the helper (the person accepted the exposure for all). */
  setNetworkDefault(accept: boolean): void {
    const consent = this.o.consent.get();
    this.o.consent.set({ ...consent, networkDefault: accept });
    if (accept) for (const phone of this.phones.values()) clearNetworkRefusal(phone);
    else for (const phone of this.phones.values()) if (!this.networkAccepted(phone.deviceId) && this.isRunning(phone.deviceId) && phone.networkAddresses?.length !== 0) void this.stopPhone(phone.deviceId, null);
    this.changed();
  }

  /** Whether the helper may run on this phone while it has a network address. */
  networkAccepted(deviceId: string): boolean {
    const consent = this.o.consent.get();
    return consent.networkDefault === true || consent.network?.[deviceId] === true;
  }

  /**
   * The person accepts, for this phone, that the helper's ports are reachable from its
   * networks while it runs (the guard still stops it when anything but the bridge connects).
   */
  acceptNetwork(deviceId: string): HelperView {
    const consent = this.o.consent.get();
    this.o.consent.set({ ...consent, network: { ...(consent.network ?? {}), [deviceId]: true } });
    clearNetworkRefusal(this.phone(deviceId));
    this.changed();
    return this.view(deviceId);
  }

  setDefault(mode: FastLaneDefault): void {
    const consent = this.o.consent.get();
    this.o.consent.set({ ...consent, default: mode });
    this.changed();
  }

  enabled(deviceId: string): boolean {
    const consent = this.o.consent.get();
    const own = consent.devices[deviceId];
    return own ? own === 'on' : consent.default === 'on';
  }

  /** The person's yes for this phone: installs now (in the background) when the phone is here. */
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
    if (!shell) throw new BridgeError('device_offline', 'the phone is not connected; the helper can be removed once it is back');
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
    if (!this.o.apks) throw new BridgeError('tool_unavailable', 'the helper APKs are not part of this build (package appium-uiautomator2-server is missing)');
    return this.o.apks;
  }

  // ---- views ------------------------------------------------------------------------------

  view(deviceId: string): HelperView {
    const phone = this.phones.get(deviceId);
    return {
      enabled: this.enabled(deviceId),
      chosen: this.o.consent.get().devices[deviceId] !== undefined,
      state: phone?.state ?? 'absent',
      version: phone?.version ?? null,
      last_error: phone?.lastError ?? null,
      last_error_code: phone?.lastErrorCode ?? null,
      lanes: { ...(phone?.lanes ?? { helper: 0, adb: 0 }) },
      paused_until: phone && phone.pausedUntil > this.clock() ? phone.pausedUntil : null,
      network_addresses: phone?.networkAddresses ? [...phone.networkAddresses] : null,
      network_accepted: this.networkAccepted(deviceId),
      watched_at: phone?.watchedAt ?? null,
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
      const started = await this.start(phone, options.signal);
      if (!started) return null;
    }
    this.touch(phone);
    return this.session(phone);
  }

  /**
   * The running helper's screen stream for the phone view, at a scale the bridge sets (so it
   * knows the screen's size from each picture); null when the helper does not run. Watching
   * never starts the helper, nor keeps it from its idle stop.
   */
  async screenStream(deviceId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<{ stream: MjpegStream; scale: number } | null> {
    const phone = this.phones.get(deviceId);
    if (this.stopped || !phone || phone.state !== 'running' || !phone.sessionId) return null;
    const shell = this.o.shellFor(deviceId);
    if (!shell?.openStream) return null;
    await this.session(phone).call('POST', '/appium/settings', { settings: { mjpegScalingFactor: SCREEN_STREAM_SCALE_PERCENT } }, options);
    return { stream: await openMjpegStream(opener(shell), options), scale: SCREEN_STREAM_SCALE_PERCENT / 100 };
  }

  private session(phone: PhoneHelper): HelperSession {
    const sessionId = phone.sessionId ?? '';
    const shell = this.o.shellFor(phone.deviceId);
    const client = new HelperClient(opener(shell));
    return {
      version: phone.version ?? '',
      call: (method, path, body, options) => client.call(method, `/session/${encodeURIComponent(sessionId)}${path}`, body, options),
    };
  }

  private touch(phone: PhoneHelper): void {
    phone.lastUsedAt = this.clock();
    this.armIdleStop(phone);
  }

  private armIdleStop(phone: PhoneHelper): void {
    if (phone.idleTimer) clearTimeout(phone.idleTimer);
    phone.idleTimer = setTimeout(
      () => {
        phone.idleTimer = undefined;
        void this.stopPhone(phone.deviceId, null);
      },
      Math.max(0, phone.lastUsedAt + this.idleStopMs - this.clock()),
    );
    phone.idleTimer.unref();
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
    await this.crashed(phone, `the helper stopped answering (${error instanceof Error ? error.message.slice(0, 160) : 'no answer'})`);
  }

  /** A sparse or stale tree: stop the helper so the stock dump can read, and leave it off a while. */
  async pause(deviceId: string, reason: string): Promise<void> {
    const phone = this.phone(deviceId);
    phone.pausedUntil = this.clock() + (this.o.pauseMs ?? HELPER_PAUSE_MS);
    phone.lastError = reason;
    phone.lastErrorCode = 'helper_paused';
    await this.stopPhone(deviceId, null);
  }

  private async crashed(phone: PhoneHelper, message: string): Promise<void> {
    if (phone.state !== 'running' && phone.state !== 'starting') return;
    const ranFor = phone.runningSince === null ? 0 : this.clock() - phone.runningSince;
    if (ranFor >= (this.o.crashForgivenMs ?? HELPER_CRASH_FORGIVEN_MS)) phone.crashes = 0;
    phone.crashes += 1;
    await this.stopPhone(phone.deviceId, null);
    if (phone.crashes >= 2) {
      failHelper(this.context, phone, `${message}; it crashed twice, so the stock lane is used until the fast lane is enabled again`, 'helper_crashed');
    } else {
      phone.lastError = `${message}; it starts again on the next call`;
      phone.lastErrorCode = 'helper_crashed';
      this.changed();
    }
  }

  // ---- start and stop ---------------------------------------------------------------------

  private start(phone: PhoneHelper, signal: AbortSignal | undefined): Promise<boolean> {
    if (phone.starting) return phone.starting;
    const work = this.startNow(phone, signal).finally(() => {
      phone.starting = undefined;
    });
    phone.starting = work;
    return work;
  }

  private async startNow(phone: PhoneHelper, signal: AbortSignal | undefined): Promise<boolean> {
    const shell = this.o.shellFor(phone.deviceId);
    if (!shell?.openStream) return false;
    const generation = ++phone.generation;
    phone.state = 'starting';
    phone.sessionId = undefined;
    this.changed();
    const started = this.clock();
    if (!(await checkBeforeStart(this.context, phone, shell, generation))) return false;
    const timeoutMs = this.o.startTimeoutMs ?? HELPER_START_TIMEOUT_MS;
    let output = '';
    let ended = false;
    let stream: Duplex;
    try {
      stream = await shell.openStream(`shell:${buildCommandLine(HELPER_INSTRUMENT_ARGV)}`, { timeoutMs: COMMAND_TIMEOUT_MS, ...(signal ? { signal } : {}) });
    } catch (error) {
      failHelper(this.context, phone, `the helper could not be started: ${error instanceof Error ? error.message.slice(0, 200) : 'no shell'}`, 'helper_unavailable');
      return false;
    }
    phone.instrument = stream;
    stream.on('data', (chunk: Buffer) => {
      if (output.length < 8192) output += chunk.toString('utf8');
    });
    const onEnd = (): void => {
      if (ended) return;
      ended = true;
      if (phone.instrument !== stream) return;
      phone.instrument = undefined;
      if (phone.state === 'running') void this.crashed(phone, 'the helper’s instrumentation ended');
    };
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onEnd);

    const client = new HelperClient(opener(shell));
    const gaveUp = async (message: string, code: string): Promise<false> => {
      if (phone.generation === generation) {
        await this.stopPhone(phone.deviceId, null);
        failHelper(this.context, phone, message, code);
      }
      return false;
    };
    // Health: /status answers once the server listens.
    for (;;) {
      if (phone.generation !== generation || this.stopped) return false;
      if (signal?.aborted) {
        await this.stopPhone(phone.deviceId, null);
        return false;
      }
      if (ended) {
        const text = output.trim().slice(0, 300);
        if (isNoInstrumentation(output)) return gaveUp(`this phone cannot run the helper’s instrumentation: ${text || 'am instrument failed'}`, 'helper_no_instrumentation');
        return gaveUp(`the helper ended while starting${text ? `: ${text}` : ''}`, 'helper_unavailable');
      }
      if (this.clock() - started > timeoutMs) return gaveUp(`the helper did not answer within ${Math.round(timeoutMs / 1000)} s of starting`, 'command_timeout');
      try {
        const status = await client.request('GET', '/status', undefined, { timeoutMs: STATUS_REQUEST_MS, ...(signal ? { signal } : {}) });
        if (status.status === 200) break;
      } catch (error) {
        if (isBridgeError(error) && error.code === 'canceled') continue;
        if (!notPerformed(error) && !(isBridgeError(error) && error.code === 'outcome_unknown')) return gaveUp(`the helper could not be reached: ${error instanceof Error ? error.message : ''}`, 'helper_unavailable');
      }
      await pauseFor(STATUS_POLL_MS, signal);
    }
    try {
      const created = await client.request('POST', '/session', { capabilities: { firstMatch: [{}], alwaysMatch: {} } }, { timeoutMs: COMMAND_TIMEOUT_MS, ...(signal ? { signal } : {}) });
      const value = created.body.value as { sessionId?: unknown } | undefined;
      const sessionId = typeof created.body.sessionId === 'string' ? created.body.sessionId : typeof value?.sessionId === 'string' ? value.sessionId : undefined;
      if (created.status !== 200 || !sessionId) return gaveUp(`the helper refused a session (HTTP ${created.status})`, 'helper_unavailable');
      if (phone.generation !== generation) return false;
      phone.sessionId = sessionId;
      // Trees are read without waiting for the app to go idle (the stock dump's slow part);
      // the stale-tree check in fast-lane.ts covers a read taken mid-transition.
      await client
        .call('POST', `/session/${encodeURIComponent(sessionId)}/appium/settings`, { settings: { waitForIdleTimeout: 0, actionAcknowledgmentTimeout: 0 } }, { timeoutMs: COMMAND_TIMEOUT_MS })
        .catch(() => undefined);
    } catch (error) {
      return gaveUp(`the helper did not open a session: ${error instanceof Error ? error.message.slice(0, 200) : ''}`, 'helper_unavailable');
    }
    if (phone.generation !== generation) return false;
    phone.state = 'running';
    phone.runningSince = this.clock();
    phone.version = this.o.apks?.version ?? phone.version;
    if (phone.lastErrorCode !== 'helper_crashed') {
      phone.lastError = null;
      phone.lastErrorCode = null;
    }
    this.o.logger.info('fast lane helper running', { device: phone.deviceId, ms: this.clock() - started });
    this.changed();
    watchConnections(this.context, phone, generation, 0);
    return true;
  }

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

/** The helper's own default (`mjpegScalingFactor`): half the screen's size, about 10 frames a second at most. */
const SCREEN_STREAM_SCALE_PERCENT = 50;

function opener(shell: DeviceShell | undefined): { openStream: NonNullable<DeviceShell['openStream']> } {
  return {
    openStream: (service, options) => {
      if (!shell?.openStream) return Promise.reject(new BridgeError('helper_unavailable', 'the phone is not connected'));
      return shell.openStream(service, options);
    },
  };
}

function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

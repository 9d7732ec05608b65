/**
 * LanDeviceManager: the LAN phones a person added by address. It asks the ADB server to
 * connect them (`host:connect:`), remembers them in state.json, reconnects them at start and
 * keeps them alive: when a phone drops it retries with capped exponential backoff, because
 * adb 1.0.41 itself re-attaches a dropped TCP phone only about every 10 s. Every adb call has
 * a deadline and each phone retries on its own timer, so one unreachable host blocks nothing.
 */
import { setMaxListeners } from 'node:events';
import type { Client } from '@devicefarmer/adbkit';
import type { AdminLanDevice } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import type { DeviceRecord, DeviceRegistry, DeviceState } from './device-registry';
import { adbHostService } from './adb-host-service';
import { interpretConnectReply, unauthorizedError } from './adb-connect-reply';
import { parseLanAddress } from './lan-address';
import { ADB_CONNECT_WINDOW_MS, backoffDelay, resolveLanOptions, type LanOptions } from './lan-reconnect-policy';

export { backoffDelay, LAN_DEFAULTS, resolveLanOptions, type LanOptions } from './lan-reconnect-policy';

/** What the manager needs of one ADB server link (AdbServerLink provides it). */
export interface LanAdbServer {
  readonly address: string;
  readonly client: Client;
  on(event: 'health', listener: (health: { status: string }) => void): unknown;
  off(event: 'health', listener: (health: { status: string }) => void): unknown;
}

export interface LanDeviceManagerDeps {
  store: StateStore;
  registry: DeviceRegistry;
  links: readonly LanAdbServer[];
  logger: Logger;
  /** Called on every change the admin state shows (the core publishes hub 'state'). */
  onChange: () => void;
  clock?: () => number;
  options?: LanOptions;
}

export type LanStatus = AdminLanDevice['status'];

type Outcome =
  { kind: 'device' } | { kind: 'unauthorized'; error: BridgeError } | { kind: 'failed'; error: BridgeError };

interface LanEntry {
  address: string;
  adbServer: string;
  addedAt: number;
  /** In state.json (false while the first connect of an add is still running). */
  remembered: boolean;
  status: LanStatus;
  lastError: BridgeError | null;
  /** Attempts since the phone was last usable. */
  attempts: number;
  nextAttemptAt: number | null;
  timer: NodeJS.Timeout | undefined;
  attempt: Promise<Outcome> | undefined;
  removed: boolean;
  /** Attempts waiting for adb's device list to show this phone in some state. */
  waiters: Set<(state: DeviceState) => void>;
}

export class LanDeviceManager {
  private readonly entries = new Map<string, LanEntry>();
  private readonly options: Required<LanOptions>;
  private readonly clock: () => number;
  private readonly abort = new AbortController();
  private readonly onRegistryChange = (device: DeviceRecord): void => {
    const entry = this.entries.get(device.serial);
    if (!entry || entry.adbServer !== device.adbServer) return;
    for (const waiter of [...entry.waiters]) waiter(device.state);
    this.reconcile(entry);
  };
  private readonly healthListeners: Array<{ link: LanAdbServer; listener: (health: { status: string }) => void }> = [];
  /** One-shot clean-ups of adb transports registered after our own deadline gave up. */
  private readonly cleanups = new Set<NodeJS.Timeout>();
  private started = false;
  private stopped = false;

  constructor(private readonly deps: LanDeviceManagerDeps) {
    this.options = resolveLanOptions(deps.options);
    // Every adb call and wait of every phone listens on this one signal; dozens are normal.
    setMaxListeners(0, this.abort.signal);
    this.clock = deps.clock ?? Date.now;
  }

  /** Loads the remembered phones and connects them all at once (each on its own deadline). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.deps.registry.on('changed', this.onRegistryChange);
    for (const link of this.deps.links) {
      // An ADB server that comes back has forgotten its TCP phones: try them now, not at the next backoff step.
      const listener = (health: { status: string }): void => {
        if (health.status === 'connected' && !this.stopped) this.retryNow(link.address);
      };
      link.on('health', listener);
      this.healthListeners.push({ link, listener });
    }
    for (const saved of this.deps.store.get().lanDevices) {
      const entry = this.newEntry(saved.address, saved.adbServer, saved.addedAt, true);
      this.entries.set(entry.address, entry);
      if (!this.link(entry.adbServer)) {
        entry.status = 'failed';
        entry.lastError = new BridgeError(
          'adb_unavailable',
          `The ADB server ${entry.adbServer} this phone was added through is no longer configured; forget it and add it again.`,
        );
        continue;
      }
      void this.runAttempt(entry, false);
    }
    if (this.entries.size > 0) this.deps.onChange();
  }

  /** Clears every timer and cancels adb calls in flight. Phones stay attached to adb. Idempotent. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort.abort();
    this.deps.registry.off('changed', this.onRegistryChange);
    for (const { link, listener } of this.healthListeners.splice(0)) link.off('health', listener);
    for (const entry of this.entries.values()) this.clearTimer(entry);
    for (const timer of this.cleanups) clearTimeout(timer);
    this.cleanups.clear();
  }

  list(): AdminLanDevice[] {
    return [...this.entries.values()].sort((a, b) => a.addedAt - b.addedAt).map((e) => this.view(e));
  }

  /**
   * Adds a phone by address and connects it. Resolves once adb lists it as `device`; throws
   * `invalid_address`, `unreachable`, `adb_unavailable` (not remembered) or
   * `device_unauthorized` (remembered: it connects once the person allows it on the phone).
   */
  async add(input: unknown, adbServer?: string): Promise<AdminLanDevice> {
    const { address } = parseLanAddress(input);
    const link = adbServer === undefined ? this.deps.links[0] : this.link(adbServer);
    if (!link)
      throw new BridgeError(
        'invalid_arguments',
        adbServer === undefined
          ? 'no ADB server is configured'
          : `adb_server must be one of: ${this.deps.links.map((l) => l.address).join(', ')}`,
      );
    if (this.stopped) throw new BridgeError('canceled', 'the bridge is stopping');
    const known = this.entries.get(address);
    if (known) {
      if (known.status === 'connected' || known.status === 'failed') return this.view(known);
      // Adding a known phone again means "try now" (the person fixed something on the phone).
      const outcome = await this.runAttempt(known, known.status === 'reconnecting');
      if (outcome.kind !== 'device') throw outcome.error;
      return this.view(known);
    }
    const entry = this.newEntry(address, link.address, this.clock(), false);
    this.entries.set(address, entry);
    const outcome = await this.runAttempt(entry, false);
    if (entry.removed || this.stopped) throw new BridgeError('canceled', `${address} was forgotten while connecting`);
    if (outcome.kind === 'failed') {
      this.entries.delete(address);
      this.deps.onChange();
      // adb keeps a phone whose connect timed out and retries it forever; this one was never added.
      void this.detach(entry);
      if (outcome.error.details?.timedOut === true) this.detachLater(entry);
      throw outcome.error;
    }
    entry.remembered = true;
    this.deps.store.update((draft) => {
      draft.lanDevices = draft.lanDevices.filter((d) => d.address !== address);
      draft.lanDevices.push({ address, addedAt: entry.addedAt, adbServer: entry.adbServer });
    });
    this.deps.logger.info('LAN phone added', { address, status: entry.status });
    this.deps.onChange();
    if (outcome.kind === 'unauthorized') throw outcome.error;
    return this.view(entry);
  }

  /** Forgets a phone: out of state.json, no more retries, disconnected from its ADB server. */
  async forget(input: unknown): Promise<void> {
    const { address } = parseLanAddress(input);
    const entry = this.entries.get(address);
    const saved = this.deps.store.get().lanDevices.some((d) => d.address === address);
    if (!entry && !saved) throw new BridgeError('device_not_found', `${address} is not in the list of LAN phones`);
    if (saved)
      this.deps.store.update(
        (draft) => void (draft.lanDevices = draft.lanDevices.filter((d) => d.address !== address)),
      );
    if (!entry) return;
    entry.removed = true;
    this.clearTimer(entry);
    this.entries.delete(address);
    this.deps.logger.info('LAN phone forgotten', { address });
    this.deps.onChange();
    await this.detach(entry);
  }

  /**
   * Forgets the LAN phones saved under an ADB host that is being removed (Settings → Hosts):
   * without their host they could never connect again, and each would go on retrying and be
   * listed as failed at every start. Like `forget`, each is first disconnected from that host's
   * ADB server (the caller stops the host's link only after this resolves; each disconnect has
   * its own deadline). Resolves with the addresses forgotten.
   */
  async forgetHost(adbServer: string): Promise<string[]> {
    const gone = [...this.entries.values()].filter((e) => e.adbServer === adbServer);
    const saved = this.deps.store.get().lanDevices.filter((d) => d.adbServer === adbServer);
    for (const [i, { link, listener }] of [...this.healthListeners.entries()].reverse())
      if (link.address === adbServer) {
        link.off('health', listener);
        this.healthListeners.splice(i, 1);
      }
    if (gone.length === 0 && saved.length === 0) return [];
    if (saved.length > 0)
      this.deps.store.update(
        (draft) => void (draft.lanDevices = draft.lanDevices.filter((d) => d.adbServer !== adbServer)),
      );
    for (const entry of gone) {
      entry.removed = true;
      this.clearTimer(entry);
      this.entries.delete(entry.address);
    }
    const addresses = [...new Set([...gone, ...saved].map((e) => e.address))].sort();
    this.deps.logger.info('LAN phones forgotten with their ADB host', { adbServer, addresses });
    this.deps.onChange();
    await Promise.all(gone.map((entry) => this.detach(entry)));
    return addresses;
  }

  private newEntry(address: string, adbServer: string, addedAt: number, remembered: boolean): LanEntry {
    return {
      address,
      adbServer,
      addedAt,
      remembered,
      status: 'connecting',
      lastError: null,
      attempts: 0,
      nextAttemptAt: null,
      timer: undefined,
      attempt: undefined,
      removed: false,
      waiters: new Set(),
    };
  }

  private link(address: string): LanAdbServer | undefined {
    return this.deps.links.find((l) => l.address === address);
  }

  private view(entry: LanEntry): AdminLanDevice {
    const record = this.deps.registry.findBySerial(entry.adbServer, entry.address);
    return {
      address: entry.address,
      adb_server: entry.adbServer,
      status: entry.status,
      last_error: entry.lastError?.message ?? null,
      last_error_code: entry.lastError?.code ?? null,
      next_attempt_at: entry.nextAttemptAt,
      attempts: entry.attempts,
      device_id: record && record.state !== 'gone' ? record.deviceId : null,
    };
  }

  private stateOf(entry: LanEntry): DeviceState {
    return this.deps.registry.findBySerial(entry.adbServer, entry.address)?.state ?? 'gone';
  }

  private clearTimer(entry: LanEntry): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.nextAttemptAt = null;
  }

  private schedule(entry: LanEntry, delayMs: number): void {
    this.clearTimer(entry);
    entry.status = 'reconnecting';
    entry.nextAttemptAt = this.clock() + delayMs;
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      void this.runAttempt(entry, true);
    }, delayMs);
    entry.timer.unref();
  }

  private retryNow(adbServer: string): void {
    for (const entry of this.entries.values()) {
      if (entry.adbServer === adbServer && entry.remembered && entry.status === 'reconnecting' && entry.timer)
        this.schedule(entry, 0);
    }
  }

  /** Follows adb's view of a remembered phone between attempts: usable, waiting for "Allow", or dropped. */
  private reconcile(entry: LanEntry): void {
    if (!entry.remembered || entry.removed || entry.attempt || this.stopped || entry.status === 'failed') return;
    const state = this.stateOf(entry);
    if (state === 'device') {
      if (entry.status === 'connected') return;
      this.clearTimer(entry);
      Object.assign(entry, { status: 'connected', attempts: 0, lastError: null });
    } else if (state === 'unauthorized') {
      if (entry.status === 'unauthorized') return;
      this.clearTimer(entry);
      entry.status = 'unauthorized';
    } else if (entry.status === 'connected' || entry.status === 'unauthorized') {
      // First try at once (a Wi-Fi blip is often over already), then back off.
      this.deps.logger.info('LAN phone dropped; reconnecting', { address: entry.address });
      this.schedule(entry, backoffDelay(entry.attempts, this.options));
    } else {
      return;
    }
    this.deps.onChange();
  }

  /** One connect attempt per phone at a time; concurrent callers share it. */
  private runAttempt(entry: LanEntry, reconnect: boolean): Promise<Outcome> {
    if (entry.attempt) return entry.attempt;
    this.clearTimer(entry);
    entry.status = reconnect ? 'reconnecting' : 'connecting';
    const attempt = this.attemptConnect(entry, reconnect)
      .catch((error: unknown): Outcome => ({ kind: 'failed', error: asBridgeError(error) }))
      .then((outcome) => {
        entry.attempt = undefined;
        this.settle(entry, outcome);
        return outcome;
      });
    entry.attempt = attempt;
    this.deps.onChange();
    return attempt;
  }

  private settle(entry: LanEntry, outcome: Outcome): void {
    if (this.stopped) return;
    if (entry.removed) {
      // Forgotten while connecting: undo what the attempt attached.
      if (outcome.kind !== 'failed') void this.detach(entry);
      return;
    }
    if (outcome.kind === 'device') {
      Object.assign(entry, { status: 'connected', attempts: 0, lastError: null, nextAttemptAt: null });
    } else {
      entry.attempts += 1;
      entry.lastError = outcome.error;
      if (outcome.kind === 'unauthorized') entry.status = 'unauthorized';
      else if (entry.remembered) this.schedule(entry, backoffDelay(entry.attempts, this.options));
      else entry.status = 'failed';
      this.deps.logger.debug('LAN connect attempt failed', {
        address: entry.address,
        attempts: entry.attempts,
        code: outcome.error.code,
      });
    }
    this.deps.onChange();
    // adb's view may have moved on while the attempt ran (dropped again, or allowed on the phone).
    this.reconcile(entry);
  }

  private async attemptConnect(entry: LanEntry, reconnect: boolean): Promise<Outcome> {
    const link = this.link(entry.adbServer);
    if (!link) throw new BridgeError('adb_unavailable', `the ADB server ${entry.adbServer} is not configured`);
    const before = this.stateOf(entry);
    if (before === 'device') return { kind: 'device' };
    // The phone shows its "Allow debugging?" prompt for this transport; a reconnect would reset it.
    if (before === 'unauthorized') return { kind: 'unauthorized', error: unauthorizedError(entry.address) };
    if (reconnect || before === 'offline') {
      // adb keeps a dropped TCP phone `offline` and answers "already connected" until its own
      // 10 s retry; dropping that transport first makes the connect below real.
      if (await this.disconnect(link, entry.address)) await this.waitForState(entry, (s) => s === 'gone', 1000);
    }
    const reply = await adbHostService(link.client, `host:connect:${entry.address}`, {
      timeoutMs: this.options.connectTimeoutMs,
      signal: this.abort.signal,
      server: link.address,
    }).catch((error: unknown) => {
      const bridgeError = asBridgeError(error);
      if (bridgeError.code === 'command_timeout') {
        throw new BridgeError(
          'unreachable',
          `${entry.address} did not answer within ${Math.round(this.options.connectTimeoutMs / 1000)} s: check that the phone is awake and on the same network.`,
          { timedOut: true },
        );
      }
      throw bridgeError;
    });
    const verdict = interpretConnectReply(reply, entry.address);
    if (verdict.kind === 'unreachable') return { kind: 'failed', error: verdict.error };
    // adb's answer counts once the tracker lists the phone the same way (a reconnect adb had in
    // flight can make it answer "already connected" and then drop the phone).
    const seen = await this.waitForState(
      entry,
      (s) => s === 'device' || s === 'unauthorized' || (s === 'gone' && verdict.kind !== 'unauthorized'),
      this.options.verifyTimeoutMs,
      true,
    );
    if (verdict.kind === 'unauthorized' && seen !== 'device') return { kind: 'unauthorized', error: verdict.error };
    if (seen === 'device') return { kind: 'device' };
    if (seen === 'unauthorized') return { kind: 'unauthorized', error: unauthorizedError(entry.address) };
    return {
      kind: 'failed',
      error: new BridgeError(
        'unreachable',
        `adb connected ${entry.address} but the phone did not come online within ${this.options.verifyTimeoutMs} ms.`,
      ),
    };
  }

  /**
   * Resolves with the phone's registry state once `accept` holds (checked now and on each
   * change), or 'timeout'. With `changesOnly`, a state that already held does not count for
   * 'gone' (the phone was absent before the connect).
   */
  private waitForState(
    entry: LanEntry,
    accept: (state: DeviceState) => boolean,
    timeoutMs: number,
    changesOnly = false,
  ): Promise<DeviceState | 'timeout'> {
    const now = this.stateOf(entry);
    if (accept(now) && !(changesOnly && now === 'gone')) return Promise.resolve(now);
    return new Promise((resolve) => {
      const finish = (result: DeviceState | 'timeout'): void => {
        clearTimeout(timer);
        entry.waiters.delete(onChange);
        this.abort.signal.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const onChange = (state: DeviceState): void => {
        if (accept(state)) finish(state);
      };
      const onAbort = (): void => finish('timeout');
      const timer = setTimeout(() => finish('timeout'), timeoutMs);
      timer.unref();
      entry.waiters.add(onChange);
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** `host:disconnect:`; true when adb had the phone. Never throws. */
  private async disconnect(link: LanAdbServer, address: string): Promise<boolean> {
    try {
      const reply = await adbHostService(link.client, `host:disconnect:${address}`, {
        timeoutMs: 3000,
        server: link.address,
        signal: this.abort.signal,
      });
      return reply.ok;
    } catch (error) {
      this.deps.logger.debug('adb disconnect failed', { address, error: asBridgeError(error).message });
      return false;
    }
  }

  /**
   * adb finishes a connect we stopped waiting for on its own (after up to 10 s) and then keeps
   * that transport and retries it; drop it once that window is over, unless it was added since.
   */
  private detachLater(entry: LanEntry): void {
    const timer = setTimeout(() => {
      this.cleanups.delete(timer);
      if (!this.entries.has(entry.address)) void this.detach(entry);
    }, ADB_CONNECT_WINDOW_MS + 1000);
    timer.unref();
    this.cleanups.add(timer);
  }

  private async detach(entry: LanEntry): Promise<void> {
    const link = this.link(entry.adbServer);
    if (link && !this.stopped) await this.disconnect(link, entry.address);
  }
}

function asBridgeError(error: unknown): BridgeError {
  if (isBridgeError(error)) return error;
  return new BridgeError(
    'adb_unavailable',
    `the ADB server failed: ${(error instanceof Error ? error.message : String(error)).slice(0, 160)}`,
  );
}

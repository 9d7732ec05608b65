/**
 * The hand-over between agents (docs/REFERENCE.md "Hand-over"): when a lease ends, the
 * bridge puts back what it left on the phone before anyone else can bind it — stops the apps
 * it launched or installed, uninstalls the apps it installed, deletes the files it pushed,
 * clears the data of the apps the lab lists, puts back the runtime permissions it changed,
 * clears the clipboard it set (through the fast lane's helper, when it still runs), and
 * presses Home. It runs as control work on the phone's queue, after the lease's own work
 * stopped. Whether it runs is the phone's policy, never the flow's (an agent chooses the flow,
 * so with a code for every phone it could choose no reset for the person's own): on for lab
 * phones (an access code of their own names them), off for the others (the person's own),
 * each phone may choose. Every turnover is one audit
 * line and shows on the phone's card; one that fails keeps the phone out of new bindings
 * until a person retries or dismisses it.
 */
import { EventEmitter } from 'node:events';
import type { AdminTurnover, AdminTurnoverPolicy } from '../../contract/admin-api';
import { clearAppData, currentUser, isValidPackageName, listPackages, stopApp, uninstallApp } from '../android/apps';
import { HELPER_SERVER_PACKAGE, HELPER_TEST_PACKAGE } from '../helper/helper-protocol';
import { setRuntimePermission } from '../android/app-permissions';
import { pressKey } from '../android/input';
import { runText } from '../devices/shell-quote';
import type { DeviceShell } from '../devices/device-shell';
import type { DeviceRecord } from '../devices/device-registry';
import { BridgeError } from '../errors';
import type { StateStore } from '../store/state-store';
import type { LeaseEffects, LeaseEffectsRecord } from './lease-effects';

/** The queue's channel name for the bridge's own hand-over work. */
export const HANDOVER_CHANNEL = 'turnover';
const STEP_TIMEOUT_MS = 30_000;
/**
 * Apps the bridge itself puts on a phone (the fast lane's helper; agent-device's snapshot
 * helper, snapshot/snapshot-helper.ts): new since a lease began, yet never the lease's to remove.
 */
const BRIDGE_PACKAGES = new Set([
  HELPER_SERVER_PACKAGE,
  HELPER_TEST_PACKAGE,
  'com.callstack.agentdevice.snapshothelper',
]);
const UNINSTALL_TIMEOUT_MS = 60_000;

export interface HandoverEvents {
  changed: [deviceId: string];
  /** The phone may be bound again (its turnover finished, or none was needed). */
  free: [deviceId: string];
}

export interface HandoverOptions {
  store: StateStore;
  effects: LeaseEffects;
  device: (deviceId: string) => DeviceRecord | undefined;
  shellFor: (device: DeviceRecord) => DeviceShell;
  /** Runs `work` as control work on the phone's queue. */
  submit: (deviceId: string, work: (signal: AbortSignal) => Promise<void>) => Promise<void>;
  /** Clears the clipboard through the fast lane's helper; false when no helper serves the phone. */
  clearClipboard: (device: DeviceRecord, signal: AbortSignal) => Promise<boolean>;
  audit: (e: { deviceId: string; report: AdminTurnover }) => void;
  /** A turnover that could not even record its outcome (the bridge's own files gone). */
  onError?: (error: unknown) => void;
  /** True for a lab phone: an access code of its own names it (a code for every phone does not). */
  labPhone: (deviceId: string) => boolean;
  clock?: () => number;
}

interface Pending {
  channelId: string;
  reason: string;
  effects: LeaseEffectsRecord | null;
}

const DEFAULT_POLICY: AdminTurnoverPolicy = { claims: true, approvals: false, clear_data: [], devices: {} };

export class Handover extends EventEmitter<HandoverEvents> {
  private readonly reports = new Map<string, AdminTurnover>();
  /** Turnovers waiting for their phone to come back online, per phone. */
  private readonly waiting = new Map<string, Pending>();
  private readonly running = new Set<string>();
  /** The last run's inputs per phone, for a retry. */
  private readonly lastRun = new Map<string, Pending>();
  private readonly clock: () => number;
  private stopped = false;

  constructor(private readonly o: HandoverOptions) {
    super();
    this.clock = o.clock ?? Date.now;
  }

  /**
   * Turnovers still owed from before this start (the bridge stopped mid-turnover, or a lease
   * ended while it was down): each runs once its phone is online.
   */
  start(leaseActive: (channelId: string) => boolean): void {
    this.stopped = false;
    for (const [channelId, effects] of this.o.effects.orphans(leaseActive)) {
      this.o.effects.take(channelId);
      if (!this.appliesTo(effects.deviceId)) continue;
      this.track(this.begin(effects.deviceId, { channelId, reason: 'bridge_restarted', effects }));
    }
  }

  /** A turnover the stop interrupts is owed again at the next start, not reported failed. */
  stop(): void {
    this.stopped = true;
  }

  private track(run: Promise<void>): void {
    run.catch((error: unknown) => this.o.onError?.(error));
  }

  policy(): AdminTurnoverPolicy {
    const saved = this.o.store.get().settings.turnover;
    if (!saved) return { ...DEFAULT_POLICY, devices: {} };
    return {
      claims: saved.claims,
      approvals: saved.approvals,
      clear_data: [...saved.clearData],
      devices: { ...saved.devices },
    };
  }

  setPolicy(change: {
    claims?: boolean;
    approvals?: boolean;
    clear_data?: string[];
    devices?: Record<string, 'on' | 'off' | 'default'>;
  }): AdminTurnoverPolicy {
    for (const pkg of change.clear_data ?? [])
      if (!isValidPackageName(pkg))
        throw new BridgeError('invalid_arguments', `"${pkg.slice(0, 80)}" is not a package name`);
    const current = this.policy();
    const devices = { ...current.devices };
    for (const [id, choice] of Object.entries(change.devices ?? {})) {
      if (choice === 'default') delete devices[id];
      else if (choice === 'on' || choice === 'off') devices[id] = choice;
      else throw new BridgeError('invalid_arguments', 'a phone’s turnover is on, off or default');
    }
    this.o.store.update((state) => {
      state.settings.turnover = {
        claims: change.claims ?? current.claims,
        approvals: change.approvals ?? current.approvals,
        clearData: [...new Set(change.clear_data ?? current.clear_data)],
        devices,
      };
    });
    return this.policy();
  }

  /** Whether a lease on this phone is turned over when it ends, however the lease began. */
  appliesTo(deviceId: string): boolean {
    const policy = this.policy();
    const own = policy.devices[deviceId];
    if (own) return own === 'on';
    return this.o.labPhone(deviceId) ? policy.claims : policy.approvals;
  }

  /** The phone cannot be bound now: its turnover runs or waits, or failed and nobody looked yet. */
  blocks(deviceId: string): string | null {
    if (this.running.has(deviceId) || this.waiting.has(deviceId))
      return 'the phone is being reset after the last lease (apps it installed, files it pushed); try again in a few seconds';
    if (this.o.store.get().turnoverFailed[deviceId] !== undefined)
      return 'resetting the phone after the last lease failed; a person must check it (Devices → the phone’s card) before it is bound again';
    return null;
  }

  report(deviceId: string): AdminTurnover | null {
    return this.reports.get(deviceId) ?? null;
  }

  /**
   * A lease ended: runs its turnover when the policy says so (the effects are dropped
   * otherwise), else frees the phone at once.
   */
  leaseEnded(channelId: string, deviceId: string, reason: string): void {
    const effects = this.o.effects.take(channelId);
    if (!this.appliesTo(deviceId)) {
      this.emit('free', deviceId);
      return;
    }
    this.track(this.begin(deviceId, { channelId, reason, effects }));
  }

  /**
   * A lease began on a phone whose lease is reset: the user's third-party apps are read first
   * (control work, before the agent's first action), so the reset removes apps that came
   * another way than android_install_apk (the store, a browser). A phone that cannot say
   * leaves the reset to what the lease's own installs named.
   */
  leaseStarted(channelId: string, deviceId: string): void {
    if (!this.appliesTo(deviceId)) return;
    const device = this.o.device(deviceId);
    if (!device || device.state !== 'device') return;
    void this.o
      .submit(deviceId, async (signal) => {
        const shell = this.o.shellFor(device);
        const opts = { timeoutMs: STEP_TIMEOUT_MS, signal };
        const user = await currentUser(shell, opts).catch(() => null);
        const apps = await listPackages(shell, { thirdPartyOnly: true, ...(user !== null ? { user } : {}), ...opts });
        this.o.effects.noteAppsAtStart(channelId, deviceId, apps, user);
      })
      .catch(() => undefined);
  }

  /** A phone came back online: a turnover that waited for it runs now. */
  deviceReady(deviceId: string): void {
    const pending = this.waiting.get(deviceId);
    if (!pending) return;
    this.waiting.delete(deviceId);
    this.track(this.begin(deviceId, pending));
  }

  /** A person's answer to a failed turnover: run it again, or accept the phone as it is. */
  async decide(deviceId: string, action: 'retry' | 'dismiss'): Promise<AdminTurnover | null> {
    if (action === 'dismiss') {
      this.clearFailed(deviceId);
      this.emit('changed', deviceId);
      this.emit('free', deviceId);
      return this.report(deviceId);
    }
    const last = this.lastRun.get(deviceId) ?? { channelId: '', reason: 'retry', effects: null };
    this.clearFailed(deviceId);
    await this.begin(deviceId, last);
    return this.report(deviceId);
  }

  private clearFailed(deviceId: string): void {
    if (this.o.store.get().turnoverFailed[deviceId] === undefined) return;
    this.o.store.update((state) => {
      delete state.turnoverFailed[deviceId];
    });
  }

  private async begin(deviceId: string, pending: Pending): Promise<void> {
    const startedAt = this.clock();
    const report: AdminTurnover = {
      state: 'running',
      started_at: startedAt,
      duration_ms: null,
      lease_end: pending.reason,
      stopped_apps: [],
      removed_apps: [],
      deleted_files: [],
      cleared_apps: [],
      restored_permissions: [],
      clipboard_cleared: false,
      home_pressed: false,
      problems: [],
    };
    this.reports.set(deviceId, report);
    this.lastRun.set(deviceId, pending);
    const device = this.o.device(deviceId);
    if (!device || device.state !== 'device') {
      report.state = 'waiting';
      this.waiting.set(deviceId, pending);
      this.emit('changed', deviceId);
      return;
    }
    this.running.add(deviceId);
    this.emit('changed', deviceId);
    try {
      await this.o.submit(deviceId, (signal) => this.steps(device, pending.effects, report, signal));
    } catch (error) {
      if (this.stopped) {
        this.running.delete(deviceId);
        if (pending.effects) this.o.effects.restore(pending.channelId, pending.effects);
        return;
      }
      report.problems.push(`the turnover did not run: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.running.delete(deviceId);
    report.duration_ms = this.clock() - startedAt;
    report.state = report.problems.length > 0 ? 'failed' : 'done';
    if (report.state === 'failed')
      this.o.store.update((state) => {
        state.turnoverFailed[deviceId] = startedAt;
      });
    this.o.audit({ deviceId, report });
    this.emit('changed', deviceId);
    if (report.state === 'done') this.emit('free', deviceId);
  }

  /** Each step is tried even when an earlier one failed: a half-reset phone is reset as far as it can be. */
  private async steps(
    device: DeviceRecord,
    effects: LeaseEffectsRecord | null,
    report: AdminTurnover,
    signal: AbortSignal,
  ): Promise<void> {
    const shell = this.o.shellFor(device);
    const opts = { timeoutMs: STEP_TIMEOUT_MS, signal };
    const step = async (what: string, run: () => Promise<void>): Promise<boolean> => {
      try {
        await run();
        return true;
      } catch (error) {
        report.problems.push(`${what}: ${error instanceof Error ? error.message : String(error)}`);
        return false;
      }
    };
    const installed = effects?.installed ?? [];
    for (const pkg of [...new Set([...(effects?.launched ?? []), ...installed])]) {
      if (installed.includes(pkg)) continue; // uninstalling stops it
      if (await step(`stop ${pkg}`, () => stopApp(shell, pkg, opts))) report.stopped_apps.push(pkg);
    }
    for (const pkg of installed) {
      // For the user the lease installed it for: without --user pm removes it from every user,
      // a work profile's own copy included.
      const user = effects?.installedUsers[pkg];
      const removed = await step(`uninstall ${pkg}`, () =>
        uninstallApp(shell, pkg, user, { timeoutMs: UNINSTALL_TIMEOUT_MS, signal }),
      );
      if (removed) report.removed_apps.push(pkg);
    }
    const atStart = effects?.appsAtStart;
    if (atStart) {
      // Apps new since the lease began, however they came (the store, a browser download).
      const user = effects.appsUser ?? undefined;
      let now: string[] = [];
      await step('list the apps', async () => {
        now = await listPackages(shell, { thirdPartyOnly: true, ...(user !== undefined ? { user } : {}), ...opts });
      });
      for (const pkg of now) {
        if (atStart.includes(pkg) || installed.includes(pkg) || BRIDGE_PACKAGES.has(pkg)) continue;
        const removed = await step(`uninstall ${pkg}`, () =>
          uninstallApp(shell, pkg, user, { timeoutMs: UNINSTALL_TIMEOUT_MS, signal }),
        );
        if (removed) report.removed_apps.push(pkg);
      }
    }
    for (const path of effects?.pushed ?? []) {
      const deleted = await step(`delete ${path}`, async () => {
        const out = await runText(shell, ['rm', '-f', path], opts);
        if (out.exitCode !== undefined && out.exitCode !== 0)
          throw new BridgeError('command_failed', out.text.trim().slice(0, 200) || `rm exited ${out.exitCode}`);
      });
      if (deleted) report.deleted_files.push(path);
    }
    for (const pkg of this.policy().clear_data) {
      if (await step(`clear the data of ${pkg}`, () => clearAppData(shell, pkg, opts))) report.cleared_apps.push(pkg);
    }
    for (const change of effects?.permissions ?? []) {
      if (installed.includes(change.package)) continue; // gone with the app
      const restored = await step(`put back ${change.permission} of ${change.package}`, async () => {
        await setRuntimePermission(shell, change.package, change.permission, change.grantedBefore, opts);
      });
      if (restored) report.restored_permissions.push(`${change.package} ${change.permission}`);
    }
    if (effects?.clipboardSet) {
      // Only the helper can set the clipboard; it stops with the lease, so this works only while it still runs.
      report.clipboard_cleared = await this.o.clearClipboard(device, signal).catch(() => false);
    }
    report.home_pressed = await step('press Home', () => pressKey(shell, 'home', opts));
  }
}

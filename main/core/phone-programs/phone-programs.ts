/**
 * The programs the bridge runs on a phone without opening anything there: scrcpy-server as the
 * input lane (scrcpy/) and agent-device's snapshot helper as the tree lane (snapshot/). Both
 * are reached only through adb — scrcpy on a `localabstract:` socket with a random name, the
 * snapshot helper on `am instrument` status lines — so nothing on the phone listens where an
 * app or the network could reach it (docs/SECURITY.md "Programs on the phone").
 *
 * One record per phone and program, one state field, changed only in `enter()`:
 *
 *   idle ──prepare──▶ starting ──▶ ready ──(lease ends, idle stop)──▶ idle
 *                        │           │
 *                        ▼           ▼ (it failed)
 *                      failed ◀──────┘     (tried again after PROGRAM_RETRY_MS)
 *   unavailable: this build or this phone cannot run it (never tried again until reconnected)
 *   off: the person turned it off for this phone
 *
 * - On by default: they expose nothing beyond what adb already reaches, as stock commands do.
 *   A person can turn them off per phone (admin API, device card); the stock lane then serves.
 * - Prepared in the background at the first call of a lease, never for nobody: a call made
 *   while a program still starts takes the stock lane (no call waits for a start).
 * - scrcpy-server runs while the phone is leased and stops when the lease ends, after
 *   PROGRAM_IDLE_STOP_MS without use, and when the bridge stops. The snapshot helper runs only
 *   for the length of each read; what is kept between reads is the check that the installed
 *   APK is the shipped one (verified again at each lease's first use).
 * - What the agent pasted stays on the clipboard no longer than the lease: when it ends and the
 *   clipboard still holds the last pasted text, it is cleared.
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import { ScrcpyInputSession, scrcpyJarLocalPath, SCRCPY_DIR, SCRCPY_VERSION } from '../scrcpy/scrcpy-input-session';
import {
  ensureSnapshotHelper,
  findSnapshotHelperApk,
  removeSnapshotHelper,
  type SnapshotHelperApk,
  type SnapshotHelperHandle,
} from '../snapshot/snapshot-helper';
import { runText } from '../devices/shell-quote';

export type ProgramName = AdminPhoneProgram['program'];
export type ProgramState = AdminPhoneProgram['state'];

/** Documented limits (docs/REFERENCE.md "Fast lane"). */
export const PROGRAM_START_TIMEOUT_MS = 30_000;
export const PROGRAM_RETRY_MS = 60_000;
export const PROGRAM_IDLE_STOP_MS = 5 * 60_000;
const CLIPBOARD_CLEAR_MS = 3_000;

/** One program on one phone, as the admin state shows it. */
export type ProgramView = AdminPhoneProgram;

export interface ProgramConsent {
  /** Only phones whose person turned the programs off are listed. */
  devices: Record<string, 'off'>;
}

export interface ProgramConsentStore {
  get(): ProgramConsent;
  set(next: ProgramConsent): void;
}

export interface PhoneProgramsOptions {
  /** false: the bridge never runs them (tests of the stock lane, `--no-phone-programs`). */
  enabled: boolean;
  consent: ProgramConsentStore;
  leaseActive: (deviceId: string) => boolean;
  screenSize: (deviceId: string, shell: DeviceShell) => Promise<{ width: number; height: number } | null>;
  logger: Logger;
  clock?: () => number;
  onChange?: () => void;
  startTimeoutMs?: number;
  retryMs?: number;
  idleStopMs?: number;
  /** The packaged programs (tests: others); default what this build carries. */
  scrcpyJar?: string | null;
  snapshotApk?: SnapshotHelperApk | null;
}

interface ProgramRecord {
  state: ProgramState;
  lastError: string | null;
  lastErrorCode: string | null;
  lastErrorReason: string | null;
  retryAt: number;
  served: number;
  fellBack: number;
  /** The lease generation the program was prepared in (the snapshot check is per lease). */
  lease: number;
  preparing?: Promise<void>;
}

interface PhoneRecord {
  deviceId: string;
  lease: number;
  input: ProgramRecord & { session?: ScrcpyInputSession; idleTimer?: NodeJS.Timeout; lastPasted?: string };
  tree: ProgramRecord & { handle?: SnapshotHelperHandle };
}

function newProgram(): ProgramRecord {
  return {
    state: 'idle',
    lastError: null,
    lastErrorCode: null,
    lastErrorReason: null,
    retryAt: 0,
    served: 0,
    fellBack: 0,
    lease: -1,
  };
}

export class PhonePrograms {
  private readonly phones = new Map<string, PhoneRecord>();
  private readonly clock: () => number;
  private readonly scrcpyJar: string | null;
  private readonly snapshotApk: SnapshotHelperApk | null;
  private stopped = false;
  private idleStopMs: number;

  constructor(private readonly o: PhoneProgramsOptions) {
    this.clock = o.clock ?? Date.now;
    this.idleStopMs = o.idleStopMs ?? PROGRAM_IDLE_STOP_MS;
    this.scrcpyJar = o.scrcpyJar === undefined ? scrcpyJarLocalPath() : o.scrcpyJar;
    this.snapshotApk = o.snapshotApk === undefined ? findSnapshotHelperApk() : o.snapshotApk;
  }

  /** scrcpy-server stops this long after its last use (Settings → Limits → Fast lane idle stop): applies at once. */
  setIdleStopMs(ms: number): void {
    this.idleStopMs = ms;
    for (const phone of this.phones.values()) if (phone.input.idleTimer) this.armIdleStop(phone);
  }

  // ---- the person's choice ------------------------------------------------------------------

  allowed(deviceId: string): boolean {
    return this.o.enabled && this.o.consent.get().devices[deviceId] !== 'off';
  }

  /** On (the default) or off for one phone; off stops what runs now. */
  async setAllowed(deviceId: string, allowed: boolean): Promise<ProgramView[]> {
    if (!this.o.enabled && allowed)
      throw new BridgeError('tool_unavailable', 'this bridge was started with the programs on phones turned off');
    const consent = this.o.consent.get();
    const devices = { ...consent.devices };
    if (allowed) delete devices[deviceId];
    else devices[deviceId] = 'off';
    this.o.consent.set({ devices });
    const phone = this.phone(deviceId);
    if (allowed) {
      for (const program of [phone.input, phone.tree]) if (program.state === 'off') this.enter(program, 'idle');
    } else {
      await this.stopInput(phone);
      this.enter(phone.input, 'off');
      phone.tree.handle = undefined;
      this.enter(phone.tree, 'off');
    }
    return this.view(deviceId);
  }

  /** Turns them off for this phone and takes them off it: the jar's folder and the helper's package. */
  async remove(deviceId: string, shell: DeviceShell | undefined): Promise<ProgramView[]> {
    await this.setAllowed(deviceId, false);
    if (!shell)
      throw new BridgeError(
        'device_offline',
        'the phone is not connected; its programs can be removed once it is back',
      );
    await runText(shell, ['rm', '-rf', SCRCPY_DIR], { timeoutMs: 10_000 });
    if (this.snapshotApk) await removeSnapshotHelper(shell, this.snapshotApk, { timeoutMs: 60_000 });
    return this.view(deviceId);
  }

  // ---- views ----------------------------------------------------------------------------------

  view(deviceId: string): ProgramView[] {
    const phone = this.phones.get(deviceId);
    const allowed = this.allowed(deviceId);
    const show = (program: ProgramName, record: ProgramRecord | undefined): ProgramView => ({
      program,
      name: program === 'scrcpy_input' ? 'scrcpy-server' : 'agent-device snapshot helper',
      version:
        program === 'scrcpy_input'
          ? this.scrcpyJar
            ? SCRCPY_VERSION
            : null
          : this.snapshotApk
            ? String(this.snapshotApk.versionCode)
            : null,
      state: !allowed ? 'off' : !this.carried(program) ? 'unavailable' : (record?.state ?? 'idle'),
      enabled: allowed,
      last_error: record?.lastError ?? null,
      last_error_code: record?.lastErrorCode ?? null,
      last_error_reason: record?.lastErrorReason ?? null,
      retry_at: record && record.state === 'failed' && record.retryAt > this.clock() ? record.retryAt : null,
      served: record?.served ?? 0,
      fell_back: record?.fellBack ?? 0,
    });
    return [show('scrcpy_input', phone?.input), show('snapshot_tree', phone?.tree)];
  }

  // ---- use ------------------------------------------------------------------------------------

  /** A call of a lease begins: what is not running yet starts in the background. */
  warm(deviceId: string, shell: DeviceShell): void {
    if (!this.usable(deviceId)) return;
    const phone = this.phone(deviceId);
    this.prepareInput(phone, shell);
    this.prepareTree(phone, shell);
  }

  /** The running input server, or null (the stock lane serves): never waits for a start. */
  input(deviceId: string, shell: DeviceShell): ScrcpyInputSession | null {
    if (!this.usable(deviceId)) return null;
    const phone = this.phone(deviceId);
    const session = phone.input.session;
    if (phone.input.state === 'ready' && session?.running) {
      this.armIdleStop(phone);
      return session;
    }
    if (phone.input.state === 'ready') this.inputFailed(deviceId, new Error('scrcpy-server ended'));
    this.prepareInput(phone, shell);
    return null;
  }

  /** The checked snapshot helper for this lease, or null (the stock dump serves). */
  treeHelper(deviceId: string, shell: DeviceShell): SnapshotHelperHandle | null {
    if (!this.usable(deviceId)) return null;
    const phone = this.phone(deviceId);
    if (phone.tree.state === 'ready' && phone.tree.lease === phone.lease && phone.tree.handle) return phone.tree.handle;
    this.prepareTree(phone, shell);
    return null;
  }

  /** A program served a call (or the stock lane served one it could not). */
  noteServed(deviceId: string, program: ProgramName, byProgram: boolean): void {
    const record = program === 'scrcpy_input' ? this.phone(deviceId).input : this.phone(deviceId).tree;
    if (byProgram) record.served += 1;
    else record.fellBack += 1;
  }

  /** What was pasted last through the input server (cleared at the lease's end if still there). */
  notePasted(deviceId: string, text: string): void {
    this.phone(deviceId).input.lastPasted = text;
  }

  /**
   * The input server failed a call. A refusal the phone will repeat (injection not allowed)
   * leaves it running — the stock lane is refused the same way — anything else stops it and
   * it is tried again after PROGRAM_RETRY_MS.
   */
  inputFailed(deviceId: string, error: unknown): void {
    if (isBridgeError(error) && (error.code === 'canceled' || error.code === 'input_blocked')) return;
    const phone = this.phone(deviceId);
    if (isBridgeError(error) && error.code === 'outcome_unknown' && phone.input.session?.running) return;
    void this.stopInput(phone);
    this.fail(phone.input, error);
  }

  /** The snapshot helper failed a read: the stock dump serves this call; it is tried again later. */
  treeFailed(deviceId: string, error: unknown): void {
    if (isBridgeError(error) && error.code === 'canceled') return;
    const phone = this.phone(deviceId);
    phone.tree.handle = undefined;
    this.fail(phone.tree, error);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  /** The lease ended: the input server stops (after clearing what it pasted); the tree check is redone next lease. */
  async leaseEnded(deviceId: string): Promise<void> {
    const phone = this.phones.get(deviceId);
    if (!phone) return;
    phone.lease += 1;
    await this.clearPasted(phone);
    await this.stopInput(phone);
    if (phone.input.state === 'ready' || phone.input.state === 'starting') this.enter(phone.input, 'idle');
    if (phone.tree.state === 'ready') this.enter(phone.tree, 'idle');
  }

  /**
   * The person hands the phone back: what was pasted for them while they held it (their own
   * typing, which may be private) leaves the clipboard before the agent may act again.
   */
  async handedBack(deviceId: string): Promise<void> {
    const phone = this.phones.get(deviceId);
    if (phone) await this.clearPasted(phone);
  }

  /** The phone went away: what ran on it ended with its connection. */
  deviceGone(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (!phone) return;
    void this.stopInput(phone);
    phone.lease += 1;
    phone.tree.handle = undefined;
    for (const program of [phone.input, phone.tree])
      if (program.state !== 'off') this.enter(program, 'idle', { keepError: true });
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.allSettled(
      [...this.phones.values()].map(async (phone) => {
        await phone.input.preparing?.catch(() => undefined);
        await this.stopInput(phone);
      }),
    );
  }

  // ---- inside -----------------------------------------------------------------------------------

  private carried(program: ProgramName): boolean {
    return program === 'scrcpy_input' ? this.scrcpyJar !== null : this.snapshotApk !== null;
  }

  private usable(deviceId: string): boolean {
    return !this.stopped && this.allowed(deviceId) && this.o.leaseActive(deviceId);
  }

  private phone(deviceId: string): PhoneRecord {
    let phone = this.phones.get(deviceId);
    if (!phone) {
      phone = { deviceId, lease: 0, input: newProgram(), tree: newProgram() };
      this.phones.set(deviceId, phone);
    }
    return phone;
  }

  /** The one place a program's state changes. */
  private enter(record: ProgramRecord, state: ProgramState, why?: { error?: unknown; keepError?: boolean }): void {
    if (record.state === state && !why?.error) return;
    record.state = state;
    if (why?.error !== undefined) {
      const error = why.error;
      record.lastError = error instanceof Error ? error.message.slice(0, 300) : 'failed';
      record.lastErrorCode = isBridgeError(error) ? error.code : 'internal_error';
      record.lastErrorReason = failureReason(error);
    } else if (state === 'ready' && !why?.keepError) {
      record.lastError = null;
      record.lastErrorCode = null;
      record.lastErrorReason = null;
    }
    this.o.onChange?.();
  }

  private fail(record: ProgramRecord, error: unknown): void {
    // A phone or build that cannot run it: not tried again until the phone comes back.
    const never = isBridgeError(error) && error.code === 'tool_unavailable';
    record.retryAt = this.clock() + (this.o.retryMs ?? PROGRAM_RETRY_MS);
    this.enter(record, never ? 'unavailable' : 'failed', { error });
  }

  private mayStart(record: ProgramRecord): boolean {
    if (record.preparing || record.state === 'off' || record.state === 'unavailable' || record.state === 'starting')
      return false;
    return record.state !== 'failed' || record.retryAt <= this.clock();
  }

  private prepareInput(phone: PhoneRecord, shell: DeviceShell): void {
    const record = phone.input;
    if (!this.scrcpyJar || record.state === 'ready' || !this.mayStart(record)) return;
    const lease = phone.lease;
    this.enter(record, 'starting');
    record.preparing = (async () => {
      try {
        const size = (await this.o.screenSize(phone.deviceId, shell).catch(() => null)) ?? {
          width: 1080,
          height: 2400,
        };
        const session = await ScrcpyInputSession.start(shell, {
          screen: size,
          timeoutMs: this.o.startTimeoutMs ?? PROGRAM_START_TIMEOUT_MS,
          jar: this.scrcpyJar ?? undefined,
        });
        // The lease ended (or the bridge stopped) while it started: it is not kept for nobody.
        if (this.stopped || phone.lease !== lease || !this.o.leaseActive(phone.deviceId)) {
          await session.stop();
          this.enter(record, this.allowed(phone.deviceId) ? 'idle' : 'off');
          return;
        }
        record.session = session;
        record.lease = lease;
        this.enter(record, 'ready');
        this.armIdleStop(phone);
        void session.ended.then((output) => {
          if (record.session !== session) return;
          record.session = undefined;
          if (record.state === 'ready')
            this.fail(record, new BridgeError('helper_unavailable', `scrcpy-server ended: ${lastLine(output)}`));
        });
      } catch (error) {
        this.o.logger.warn('scrcpy-server could not start on the phone; the stock input lane serves', {
          device: phone.deviceId,
          error: error instanceof Error ? error.message : String(error),
        });
        this.fail(record, error);
      } finally {
        record.preparing = undefined;
      }
    })();
  }

  private prepareTree(phone: PhoneRecord, shell: DeviceShell): void {
    const record = phone.tree;
    const apk = this.snapshotApk;
    if (!apk || (record.state === 'ready' && record.lease === phone.lease) || !this.mayStart(record)) return;
    const lease = phone.lease;
    this.enter(record, 'starting');
    record.preparing = (async () => {
      try {
        const handle = await ensureSnapshotHelper(shell, apk, { timeoutMs: 120_000 });
        record.handle = handle;
        record.lease = lease;
        this.enter(record, phone.lease === lease ? 'ready' : 'idle');
      } catch (error) {
        this.o.logger.warn('the snapshot helper could not be checked on the phone; the stock dump serves', {
          device: phone.deviceId,
          error: error instanceof Error ? error.message : String(error),
        });
        this.fail(record, error);
      } finally {
        record.preparing = undefined;
      }
    })();
  }

  private armIdleStop(phone: PhoneRecord): void {
    if (phone.input.idleTimer) clearTimeout(phone.input.idleTimer);
    phone.input.idleTimer = setTimeout(() => {
      phone.input.idleTimer = undefined;
      void this.clearPasted(phone)
        .then(() => this.stopInput(phone))
        .then(() => {
          if (phone.input.state === 'ready') this.enter(phone.input, 'idle');
        });
    }, this.idleStopMs);
    phone.input.idleTimer.unref();
  }

  private async stopInput(phone: PhoneRecord): Promise<void> {
    if (phone.input.idleTimer) clearTimeout(phone.input.idleTimer);
    phone.input.idleTimer = undefined;
    const session = phone.input.session;
    phone.input.session = undefined;
    await session?.stop();
  }

  /** The clipboard still holds what the agent pasted: emptied (what the person copied since is left). */
  private async clearPasted(phone: PhoneRecord): Promise<void> {
    const pasted = phone.input.lastPasted;
    const session = phone.input.session;
    phone.input.lastPasted = undefined;
    if (pasted === undefined || !session?.running) return;
    try {
      const options = { timeoutMs: CLIPBOARD_CLEAR_MS };
      if ((await session.getClipboard(options)) === pasted) await session.setClipboard('', options);
    } catch {
      // Best effort: the session ends next either way.
    }
  }
}

/** The failure's stable word (scrcpy-output.ts kinds, snapshot-helper-apk.ts reasons), when the error carries one. */
function failureReason(error: unknown): string | null {
  if (!isBridgeError(error)) return null;
  const reason = error.details?.scrcpyFailure ?? error.details?.reason;
  return typeof reason === 'string' && /^[a-z_]{1,40}$/.test(reason) ? reason : null;
}

function lastLine(output: string): string {
  const lines = output.trim().split('\n');
  return (lines[lines.length - 1] ?? 'no output').slice(0, 200);
}

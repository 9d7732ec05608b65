/**
 * The programs the bridge runs on a phone without opening anything there: scrcpy-server as the
 * input lane (scrcpy/), the bridge's own xagent UI reader as the tree lane (ui-reader/), and
 * agent-device's snapshot helper as the tree lane when the reader cannot serve (snapshot/). All
 * are reached only through adb — scrcpy on a `localabstract:` socket with a random name, the
 * reader on its own `exec:` stream's standard input and output, the snapshot helper on
 * `am instrument` status lines — so nothing on the phone listens where an app or the network
 * could reach it (docs/SECURITY.md "Programs on the phone").
 *
 * Each program on each phone is one ProgramLifecycle (program-lifecycle.ts: one state field,
 * start with a deadline, stop, idle stop, retry after failure, consent); this file holds what is
 * particular to these two: how they start, what they serve, and the clipboard rule below.
 * A failure leaves a program failed until PROGRAM_RETRY_MS has passed; a phone or build that
 * cannot run it leaves it unavailable until the phone reconnects.
 *
 * - On by default: they expose nothing beyond what adb already reaches, as stock commands do.
 *   A person can turn them off per phone (admin API, device card); the stock lane then serves.
 * - Prepared in the background at the first call of a lease, never for nobody: a call made
 *   while a program still starts takes the stock lane (no call waits for a start).
 * - scrcpy-server and the UI reader run while the phone is leased and stop when the lease ends,
 *   after PROGRAM_IDLE_STOP_MS without use, and when the bridge stops. The snapshot helper runs only
 *   for the length of each read; what is kept between reads is the check that the installed
 *   APK is the shipped one (verified again at each lease's first use).
 * - What the agent pasted stays on the clipboard no longer than the lease: when it ends and the
 *   clipboard still holds the last pasted text, it is cleared.
 * - The phone has ONE UiAutomation connection, and the UI reader holds it while it runs: it is
 *   never started on a phone whose person turned appium-uiautomator2-server on (which needs that
 *   connection), and it lets go (`yieldUiAutomation`) before the snapshot helper or a stock
 *   `uiautomator dump` reads the screen, or those would fail. A tree read that finds it still
 *   starting waits for it a little (READER_JOIN_MS: about one stock dump) rather than stop it
 *   and restart it at every call of a busy lease.
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import { SHORT_COMMAND_MS } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import type { Logger } from '../logging/logger';
import {
  installScrcpyJar,
  ScrcpyInputSession,
  scrcpyJarLocalPath,
  SCRCPY_DIR,
  SCRCPY_VERSION,
} from '../scrcpy/scrcpy-input-session';
import {
  ensureSnapshotHelper,
  findSnapshotHelperApk,
  removeSnapshotHelper,
  type SnapshotHelperApk,
  type SnapshotHelperHandle,
} from '../snapshot/snapshot-helper';
import { runText } from '../devices/shell-quote';
import { installUiReaderJar, removeUiReader, uiReaderJarLocalPath } from '../ui-reader/ui-reader-jar';
import { UiReaderSession } from '../ui-reader/ui-reader-session';
import type { ReaderDisplay } from '../ui-reader/ui-reader-wire';
import { readScrcpyAppList } from '../scrcpy/scrcpy-app-list';
import {
  consentAllows,
  ProgramLifecycle,
  withChoice,
  type ProgramConsentStore,
  type RunningProgram,
} from '../program-lifecycle/program-lifecycle';

export type {
  ProgramName,
  ProgramState,
  ProgramConsent,
  ProgramConsentStore,
} from '../program-lifecycle/program-lifecycle';

/** Documented limits (docs/REFERENCE.md "Fast lane"). */
export const PROGRAM_START_TIMEOUT_MS = 30_000;
export const PROGRAM_RETRY_MS = 60_000;
export const PROGRAM_IDLE_STOP_MS = 5 * 60_000;
const CLIPBOARD_CLEAR_MS = 3_000;
/** Room for reading the screen's size before scrcpy-server's own start deadline begins. */
const SCREEN_SIZE_ROOM_MS = 10_000;
/** The snapshot helper's check may install its APK: a slow phone's install, not a start. */
const SNAPSHOT_CHECK_TIMEOUT_MS = 120_000;
/** A tree read waits this long at most for a UI reader still starting (a JVM start and a UiAutomation connect: about one stock dump). */
export const READER_JOIN_MS = 5_000;
/** The reader's version as the console shows it: its protocol (device/ui-reader/README.md). */
const UI_READER_VERSION = '1';

/** One program on one phone, as the admin state shows it. */
export type ProgramView = AdminPhoneProgram;

export interface PhoneProgramsOptions {
  /** false: the bridge never runs them (tests of the stock lane, `--no-phone-programs`). */
  enabled: boolean;
  /** One consent for both (on by default). */
  consent: ProgramConsentStore;
  leaseActive: (deviceId: string) => boolean;
  /**
   * The screen's current size (and rotation, when known). `anyUsable`: a cached size a little
   * older will do (a tree read must not wait for `wm size`; the cache follows rotations).
   */
  screenSize: (
    deviceId: string,
    shell: DeviceShell,
    options?: { anyUsable?: boolean },
  ) => Promise<{ width: number; height: number; rotation?: number | null } | null>;
  logger: Logger;
  clock?: () => number;
  onChange?: () => void;
  startTimeoutMs?: number;
  retryMs?: number;
  idleStopMs?: number;
  /** The packaged programs (tests: others); default what this build carries. */
  scrcpyJar?: string | null;
  snapshotApk?: SnapshotHelperApk | null;
  uiReaderJar?: string | null;
}

/** The snapshot helper "runs" for each read only: what a ready one holds is its check for this lease. */
interface CheckedSnapshotHelper extends RunningProgram {
  handle: SnapshotHelperHandle;
}

interface PhoneRecord {
  deviceId: string;
  input: ProgramLifecycle<ScrcpyInputSession>;
  tree: ProgramLifecycle<CheckedSnapshotHelper>;
  reader: ProgramLifecycle<UiReaderSession>;
  /** What the agent pasted last through scrcpy-server (cleared before it stops, if still there). */
  lastPasted?: string | undefined;
}

export class PhonePrograms {
  private readonly phones = new Map<string, PhoneRecord>();
  private readonly clock: () => number;
  private readonly scrcpyJar: string | null;
  private readonly snapshotApk: SnapshotHelperApk | null;
  private readonly uiReaderJar: string | null;
  private stopped = false;
  private idleStopMs: number;

  constructor(private readonly o: PhoneProgramsOptions) {
    this.clock = o.clock ?? Date.now;
    this.idleStopMs = o.idleStopMs ?? PROGRAM_IDLE_STOP_MS;
    this.scrcpyJar = o.scrcpyJar === undefined ? scrcpyJarLocalPath() : o.scrcpyJar;
    this.snapshotApk = o.snapshotApk === undefined ? findSnapshotHelperApk() : o.snapshotApk;
    this.uiReaderJar = o.uiReaderJar === undefined ? uiReaderJarLocalPath() : o.uiReaderJar;
  }

  /** scrcpy-server stops this long after its last use (Settings → Limits → Fast lane idle stop): applies at once. */
  setIdleStopMs(ms: number): void {
    this.idleStopMs = ms;
    for (const phone of this.phones.values()) {
      phone.input.idleStopChanged();
      phone.reader.idleStopChanged();
    }
  }

  // ---- the person's choice ------------------------------------------------------------------

  allowed(deviceId: string): boolean {
    return this.o.enabled && consentAllows(this.o.consent.get(), deviceId);
  }

  /** On (the default) or off for one phone; off stops what runs now. */
  async setAllowed(deviceId: string, allowed: boolean): Promise<ProgramView[]> {
    if (!this.o.enabled && allowed)
      throw new BridgeError('tool_unavailable', 'this bridge was started with the programs on phones turned off');
    // On is the default: the phone's own word is kept only when it differs.
    this.o.consent.set(withChoice(this.o.consent.get(), deviceId, allowed ? 'default' : 'off'));
    const phone = this.phone(deviceId);
    await Promise.all([phone.input.consentChanged(), phone.tree.consentChanged(), phone.reader.consentChanged()]);
    return this.view(deviceId);
  }

  /** Turns them off for this phone and takes them off it: the jars' folders and the helper's package. */
  async remove(deviceId: string, shell: DeviceShell | undefined): Promise<ProgramView[]> {
    await this.setAllowed(deviceId, false);
    if (!shell)
      throw new BridgeError(
        'device_offline',
        'the phone is not connected; its programs can be removed once it is back',
      );
    await runText(shell, ['rm', '-rf', SCRCPY_DIR], { timeoutMs: SHORT_COMMAND_MS });
    await removeUiReader(shell, { timeoutMs: SHORT_COMMAND_MS });
    if (this.snapshotApk) await removeSnapshotHelper(shell, this.snapshotApk, { timeoutMs: 60_000 });
    return this.view(deviceId);
  }

  // ---- views ----------------------------------------------------------------------------------

  view(deviceId: string): ProgramView[] {
    const phone = this.phone(deviceId);
    return [
      {
        program: 'scrcpy_input',
        name: 'scrcpy-server',
        version: this.scrcpyJar ? SCRCPY_VERSION : null,
        ...phone.input.view(),
      },
      {
        program: 'snapshot_tree',
        name: 'agent-device snapshot helper',
        version: this.snapshotApk ? String(this.snapshotApk.versionCode) : null,
        ...phone.tree.view(),
      },
      {
        program: 'ui_reader',
        name: 'xagent UI reader',
        version: this.uiReaderJar ? UI_READER_VERSION : null,
        ...phone.reader.view(),
      },
    ];
  }

  // ---- use ------------------------------------------------------------------------------------

  /**
   * A call of a lease begins: what is not running yet starts in the background. `uiAutomationFree`
   * false: appium-uiautomator2-server may run on this phone (its person turned it on), so the UI
   * reader, which would hold the one UiAutomation connection, is not started.
   */
  warm(deviceId: string, shell: DeviceShell, options: { uiAutomationFree?: boolean } = {}): void {
    if (!this.usable(deviceId)) return;
    const phone = this.phone(deviceId);
    this.prepareInput(phone, shell);
    this.prepareTree(phone, shell);
    if (options.uiAutomationFree !== false) this.prepareReader(phone, shell);
  }

  /**
   * The names the phone's launcher shows its apps by (package → label), read by a short
   * scrcpy-server run (scrcpy/scrcpy-app-list.ts); null where the person turned the programs
   * off here, this build has no jar, or the phone could not run it. Never throws.
   */
  async appLabels(
    deviceId: string,
    shell: DeviceShell,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<ReadonlyMap<string, string> | null> {
    if (!this.usable(deviceId) || !this.scrcpyJar) return null;
    try {
      return await readScrcpyAppList(shell, this.scrcpyJar, options);
    } catch (error) {
      this.o.logger.debug('app labels not read', { device_id: deviceId, error: String(error) });
      return null;
    }
  }

  /**
   * The running input server, or null (the stock lane serves): never waits for a start, and
   * starts nothing (`warm`, at each call of a lease, does).
   */
  input(deviceId: string): ScrcpyInputSession | null {
    if (!this.usable(deviceId)) return null;
    const phone = this.phone(deviceId);
    const session = phone.input.running;
    if (session?.running) {
      phone.input.touch();
      return session;
    }
    if (session) this.inputFailed(deviceId, session, new Error('scrcpy-server ended'));
    return null;
  }

  /**
   * The checked snapshot helper for this lease, or null (the stock dump serves). A pure query:
   * it starts nothing (`warm` does).
   */
  treeHelper(deviceId: string): SnapshotHelperHandle | null {
    if (!this.usable(deviceId)) return null;
    return this.phones.get(deviceId)?.tree.running?.handle ?? null;
  }

  /**
   * The running UI reader, or null (another lane serves). One still starting is waited for up
   * to READER_JOIN_MS (and the call's signal); it starts nothing (`warm` does).
   */
  async reader(deviceId: string, options: { signal?: AbortSignal } = {}): Promise<UiReaderSession | null> {
    if (!this.usable(deviceId)) return null;
    const life = this.phone(deviceId).reader;
    if (!life.running && life.starting) await joinStart(life.starting, READER_JOIN_MS, options.signal);
    // Asked again after the wait: a stop meanwhile (another reader's turn, the lease's end) is no failure.
    const session = life.running;
    if (!session) return null;
    if (!session.running) {
      this.readerFailed(deviceId, session, new BridgeError('helper_unavailable', 'the UI reader ended'));
      return null;
    }
    life.touch();
    return session;
  }

  /** Whether the UI reader runs now on this phone (a pure query). */
  readerReady(deviceId: string): boolean {
    return this.usable(deviceId) && this.phones.get(deviceId)?.reader.running?.running === true;
  }

  /** Whether the UI reader runs or starts on this phone now (it holds, or is about to hold, UiAutomation). */
  readerHolds(deviceId: string): boolean {
    const state = this.phones.get(deviceId)?.reader.state;
    return state === 'ready' || state === 'starting';
  }

  /** What the reader's dumper is told of the display: the size the bridge knows, and its rotation. */
  async readerDisplay(deviceId: string, shell: DeviceShell): Promise<ReaderDisplay | null> {
    const size = await this.o.screenSize(deviceId, shell, { anyUsable: true }).catch(() => null);
    if (!size) return null;
    // A size taken from a screenshot carries no rotation: a landscape size on a phone is a quarter turn.
    const rotation = typeof size.rotation === 'number' ? size.rotation : size.width > size.height ? 1 : 0;
    return { rotation, width: size.width, height: size.height };
  }

  /**
   * The snapshot helper or a stock `uiautomator dump` is about to read the screen: the UI reader
   * (running or starting) lets go of the phone's one UiAutomation connection first. It is
   * started again by a later call's `warm`.
   */
  async yieldUiAutomation(deviceId: string): Promise<void> {
    const life = this.phones.get(deviceId)?.reader;
    if (!life) return;
    // A start cut short leaves a reader that connects and only then reads its closed input: one
    // that is let start (briefly) is stopped by `quit` and seen to exit, so the connection is free.
    if (life.starting) await joinStart(life.starting, READER_JOIN_MS, undefined);
    if (life.state === 'ready' || life.state === 'starting') await life.stop();
  }

  /**
   * The UI reader `session` failed a read. Its own refusal of one read (an `error` answer, no
   * window, a tree too large) leaves it running; a reader that is gone, stuck or out of step
   * stops and is tried again after PROGRAM_RETRY_MS. A session already let go (the stock dump's
   * turn took it between the call's lookup and its read) is no failure: the call reads another way.
   */
  readerFailed(deviceId: string, session: UiReaderSession, error: unknown): void {
    if (isBridgeError(error) && error.code === 'canceled') return;
    const life = this.phone(deviceId).reader;
    const reason = isBridgeError(error) ? error.details?.reason : undefined;
    if (
      session.running &&
      (reason === 'reader_read_failed' || reason === 'reader_no_window' || reason === 'reader_too_large')
    )
      return;
    void life.failRun(session, error);
  }

  /** A program served a call (or the stock lane served one it could not). */
  noteServed(deviceId: string, program: 'scrcpy_input' | 'snapshot_tree' | 'ui_reader', byProgram: boolean): void {
    const phone = this.phone(deviceId);
    (program === 'scrcpy_input' ? phone.input : program === 'ui_reader' ? phone.reader : phone.tree).noteServed(
      byProgram,
    );
  }

  /** What was pasted last through the input server (cleared at the lease's end if still there). */
  notePasted(deviceId: string, text: string): void {
    this.phone(deviceId).lastPasted = text;
  }

  /**
   * The input server failed a call. A refusal the phone will repeat (injection not allowed)
   * leaves it running — the stock lane is refused the same way — anything else stops it and
   * it is tried again after PROGRAM_RETRY_MS, unless `session` was already let go (a stop, or
   * its end already seen): that is no new failure.
   */
  inputFailed(deviceId: string, session: ScrcpyInputSession, error: unknown): void {
    if (isBridgeError(error) && (error.code === 'canceled' || error.code === 'input_blocked')) return;
    if (isBridgeError(error) && error.code === 'outcome_unknown' && session.running) return;
    void this.phone(deviceId).input.failRun(session, error);
  }

  /**
   * The snapshot helper (checked as `handle`) failed a read: the stock dump serves this call; it
   * is tried again later, unless that check was already let go (the lease's end): no new failure.
   */
  treeFailed(deviceId: string, handle: SnapshotHelperHandle, error: unknown): void {
    if (isBridgeError(error) && error.code === 'canceled') return;
    const life = this.phone(deviceId).tree;
    const run = life.running;
    if (run?.handle === handle) void life.failRun(run, error);
  }

  // ---- lifecycle --------------------------------------------------------------------------------

  /** The lease ended: the input server stops (after clearing what it pasted); the tree check is redone next lease. */
  async leaseEnded(deviceId: string): Promise<void> {
    const phone = this.phones.get(deviceId);
    if (!phone) return;
    await Promise.all([phone.input.stop(), phone.tree.stop(), phone.reader.stop()]);
  }

  /**
   * The person hands the phone back: what was pasted for them while they held it (their own
   * typing, which may be private) leaves the clipboard before the agent may act again.
   */
  async handedBack(deviceId: string): Promise<void> {
    const phone = this.phones.get(deviceId);
    const session = phone?.input.running;
    if (phone && session) await this.clearPasted(phone, session);
  }

  /** The phone went away: what ran on it ended with its connection. */
  deviceGone(deviceId: string): void {
    const phone = this.phones.get(deviceId);
    if (!phone) return;
    phone.input.phoneGone();
    phone.tree.phoneGone();
    phone.reader.phoneGone();
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.allSettled(
      [...this.phones.values()].flatMap((phone) => [
        phone.input.dispose(),
        phone.tree.dispose(),
        phone.reader.dispose(),
      ]),
    );
  }

  // ---- inside -----------------------------------------------------------------------------------

  private usable(deviceId: string): boolean {
    return !this.stopped && this.allowed(deviceId) && this.o.leaseActive(deviceId);
  }

  private phone(deviceId: string): PhoneRecord {
    const phone = this.phones.get(deviceId);
    if (phone) return phone;
    const common = {
      deviceId,
      allowed: () => this.allowed(deviceId),
      startTimeoutMs: this.o.startTimeoutMs ?? PROGRAM_START_TIMEOUT_MS,
      freeRetries: 0,
      windowMs: 0,
      retryMs: this.o.retryMs ?? PROGRAM_RETRY_MS,
      clock: () => this.clock(),
      logger: this.o.logger,
      onChange: () => this.o.onChange?.(),
    };
    const record: PhoneRecord = {
      deviceId,
      input: new ProgramLifecycle<ScrcpyInputSession>({
        ...common,
        name: 'scrcpy-server',
        // The server's own deadline (its words say what did not happen) comes first.
        startTimeoutMs: common.startTimeoutMs + SCREEN_SIZE_ROOM_MS,
        carried: () => this.scrcpyJar !== null,
        idleStopMs: () => this.idleStopMs,
        endedError: (output) =>
          new BridgeError('helper_unavailable', `scrcpy-server ended: ${lastLine(String(output))}`),
        // What the agent pasted leaves the clipboard before the server goes (lease end, idle stop, off).
        beforeStop: (session) => this.clearPasted(record, session),
      }),
      tree: new ProgramLifecycle<CheckedSnapshotHelper>({
        ...common,
        name: 'the snapshot helper',
        carried: () => this.snapshotApk !== null,
        startTimeoutMs: Math.max(common.startTimeoutMs, SNAPSHOT_CHECK_TIMEOUT_MS),
      }),
      reader: new ProgramLifecycle<UiReaderSession>({
        ...common,
        name: 'the UI reader',
        carried: () => this.uiReaderJar !== null,
        idleStopMs: () => this.idleStopMs,
        endedError: (output) =>
          new BridgeError('helper_unavailable', `the UI reader ended: ${lastLine(String(output))}`, {
            reason: 'reader_ended',
          }),
      }),
    };
    this.phones.set(deviceId, record);
    return record;
  }

  private prepareInput(phone: PhoneRecord, shell: DeviceShell): void {
    const jar = this.scrcpyJar;
    if (!jar || !phone.input.mayStart()) return;
    void phone.input.start({
      // A missing or tampered jar is pushed again; one that still differs is never run.
      verify: (signal) => installScrcpyJar(shell, jar, signal),
      run: async (signal) => {
        const size = (await this.o.screenSize(phone.deviceId, shell).catch(() => null)) ?? {
          width: 1080,
          height: 2400,
        };
        return ScrcpyInputSession.run(shell, {
          screen: size,
          timeoutMs: this.o.startTimeoutMs ?? PROGRAM_START_TIMEOUT_MS,
          signal,
        });
      },
    });
  }

  private prepareTree(phone: PhoneRecord, shell: DeviceShell): void {
    const apk = this.snapshotApk;
    if (!apk || !phone.tree.mayStart()) return;
    let handle: SnapshotHelperHandle | undefined;
    void phone.tree.start({
      // The installed APK hashed against the shipped one (installed again when missing or other bytes).
      verify: async (signal) => {
        handle = await ensureSnapshotHelper(shell, apk, { timeoutMs: SNAPSHOT_CHECK_TIMEOUT_MS, signal });
      },
      run: () => {
        if (!handle) return Promise.reject(new BridgeError('internal_error', 'the snapshot helper was not checked'));
        return Promise.resolve({ handle, stop: () => Promise.resolve() });
      },
    });
  }

  private prepareReader(phone: PhoneRecord, shell: DeviceShell): void {
    const jar = this.uiReaderJar;
    if (!jar || !phone.reader.mayStart()) return;
    void phone.reader.start({
      // A missing or tampered jar is pushed again; one that still differs is never run.
      verify: (signal) => installUiReaderJar(shell, jar, signal),
      run: (signal) =>
        UiReaderSession.start(shell, { timeoutMs: this.o.startTimeoutMs ?? PROGRAM_START_TIMEOUT_MS, signal }),
    });
  }

  /** The clipboard still holds what the agent pasted: emptied (what the person copied since is left). */
  private async clearPasted(phone: PhoneRecord, session: ScrcpyInputSession): Promise<void> {
    const pasted = phone.lastPasted;
    phone.lastPasted = undefined;
    if (pasted === undefined || !session.running) return;
    try {
      const options = { timeoutMs: CLIPBOARD_CLEAR_MS };
      if ((await session.getClipboard(options)) === pasted) await session.setClipboard('', options);
    } catch {
      // Best effort: the session ends next either way.
    }
  }
}

/** A start under way, waited for at most `ms` (null past it, or when the signal aborts). */
function joinStart<R>(start: Promise<R | null>, ms: number, signal: AbortSignal | undefined): Promise<R | null> {
  if (signal?.aborted) return Promise.resolve(null);
  return new Promise<R | null>((resolve) => {
    const done = (value: R | null): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(value);
    };
    const onAbort = (): void => done(null);
    const timer = setTimeout(() => done(null), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
    start.then(done, () => done(null));
  });
}

function lastLine(output: string): string {
  const lines = output.trim().split('\n');
  return (lines[lines.length - 1] ?? 'no output').slice(0, 200);
}

/**
 * The one lifecycle of a program the bridge runs on a phone — scrcpy-server, the snapshot
 * helper, appium-uiautomator2-server, minicap — per phone and program. Each program keeps its
 * own protocol (how it is installed, started, spoken to); what it is doing now, why it failed,
 * when it may start again and whether the person allows it live here, in one state field that
 * changes only in `enter()` (as ws keeps `_readyState`):
 *
 *   idle ──start()──▶ starting ──▶ ready ──stop() (lease ends, idle stop, not needed)──▶ idle
 *                        │           │
 *                        ▼           ▼ fail() / it ended on its own
 *            idle (a free retry) or failed (tried again at retryAt; never: once enabled again)
 *   unavailable: this build or this phone cannot run it (until the phone comes back)
 *   off: the person's consent does not allow it on this phone
 *
 * - A start has a deadline (`startTimeoutMs`): past it the start is aborted, and whatever it
 *   still brings up is stopped, never kept. The check of the program's files on the phone
 *   (`verify`, a hash) runs before every start, inside the same deadline.
 * - A stop, a failure, a change of consent or the phone going away overtakes a start under
 *   way: the start's signal aborts and its result is stopped (the generation moved on).
 * - Failures: up to `freeRetries` within `windowMs` leave it idle (the next use starts it
 *   again at once); more leave it failed until `retryMs` has passed (Infinity: until the
 *   person enables it again). A failure coded `tool_unavailable` makes it unavailable.
 * - Idle stop: with `idleStopMs`, a ready program not used (`touch()`) for that long stops.
 */
import type { AdminPhoneProgram } from '../../contract/admin-api';
import { BridgeError, isBridgeError } from '../errors';
import type { Logger } from '../logging/logger';

export type ProgramName = AdminPhoneProgram['program'];
export type ProgramState = AdminPhoneProgram['state'];

/**
 * The person's consent to one program, for every phone: the default and each phone's own
 * word. UIA2 is `off` by default with no lab-wide "on"; scrcpy-server and the snapshot helper
 * are `on`; the screen stream's default is the lab's (`ask` is `off`).
 */
export interface ProgramConsent {
  default: 'on' | 'off';
  devices: Record<string, 'on' | 'off'>;
}

export interface ProgramConsentStore {
  get(): ProgramConsent;
  set(next: ProgramConsent): void;
}

/** Whether the consent allows the program on this phone. */
export function consentAllows(consent: ProgramConsent, deviceId: string): boolean {
  return (consent.devices[deviceId] ?? consent.default) === 'on';
}

/** The consent with one phone's own word (`default`: the phone follows the default again). */
export function withChoice(
  consent: ProgramConsent,
  deviceId: string,
  choice: 'on' | 'off' | 'default',
): ProgramConsent {
  const devices = { ...consent.devices };
  if (choice === 'default') delete devices[deviceId];
  else devices[deviceId] = choice;
  return { default: consent.default, devices };
}

/** What a start brings up: stopped by the lifecycle; `ended` resolves when it ends on its own. */
export interface RunningProgram {
  stop(): Promise<void>;
  readonly ended?: Promise<unknown>;
}

/** How a failure is taken (`fail()`'s `kind`; by default from the error's code). */
export type FailureKind = 'retry' | 'final' | 'unavailable';

export interface ProgramLifecycleOptions<R extends RunningProgram> {
  deviceId: string;
  /** Names the program in logs and errors ("scrcpy-server"). */
  name: string;
  /** The person's consent (and the bridge's own switch) for this phone, read at each use. */
  allowed: () => boolean;
  /** Whether this build carries the program. */
  carried: () => boolean;
  startTimeoutMs: number;
  /** Failures forgiven (idle again, started by the next use) within `windowMs`. */
  freeRetries: number;
  windowMs: number;
  /** After more failures: failed this long (Infinity: until the person enables it again). */
  retryMs: number;
  /** A ready program unused this long stops (read at each use); absent: no idle stop. */
  idleStopMs?: () => number;
  /** The error of a program that ended on its own (`outcome`: what `ended` resolved with). */
  endedError?: (outcome: unknown) => Error;
  /** How this program takes a failure it did not classify itself (default: by the error's code, below). */
  failureKind?: (error: unknown) => FailureKind;
  /** Before a stop (not after a failure): the last work on a running program (clearing what it pasted). */
  beforeStop?: (run: R) => Promise<void>;
  clock: () => number;
  logger: Logger;
  onChange: () => void;
}

export interface StartSteps<R> {
  /** The check of the program's files on the phone (a hash), before every start. */
  verify?: (signal: AbortSignal) => Promise<void>;
  /** Brings it up; null: prepared (installed, checked) with nothing kept running (idle). */
  run: (signal: AbortSignal) => Promise<R | null>;
}

/** The lifecycle's part of a program's admin view. */
export type LifecycleView = Pick<
  AdminPhoneProgram,
  'state' | 'enabled' | 'last_error' | 'last_error_code' | 'last_error_reason' | 'retry_at' | 'served' | 'fell_back'
>;

export class ProgramLifecycle<R extends RunningProgram> {
  #state: ProgramState;
  #run: R | undefined;
  #starting: Promise<R | null> | undefined;
  #abort: AbortController | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #lastUsedAt = 0;
  #failures: number[] = [];
  #retryAt = 0;
  #lastError: { message: string; code: string; reason: string | null } | null = null;
  #served = 0;
  #fellBack = 0;
  /** Bumped by every stop, failure and consent change: a start that finds another number was overtaken. */
  #generation = 0;
  #disposed = false;

  constructor(private readonly o: ProgramLifecycleOptions<R>) {
    this.#state = this.resting();
  }

  get state(): ProgramState {
    return this.#state;
  }

  /** The running program, only while ready. */
  get running(): R | undefined {
    return this.#state === 'ready' ? this.#run : undefined;
  }

  /** The start under way, if any (a caller that must wait for it joins it). */
  get starting(): Promise<R | null> | undefined {
    return this.#starting;
  }

  /** Whether `start()` would try now: allowed, carried, not starting, not failed before its retry time. */
  mayStart(): boolean {
    if (this.#disposed || this.#starting || !this.o.allowed() || !this.o.carried()) return false;
    if (this.#state === 'ready' || this.#state === 'unavailable') return false;
    return this.#retryAt <= this.o.clock();
  }

  /**
   * Starts it (a start under way is joined; a ready one is answered as is). Resolves with the
   * running program, or null when it did not start (not allowed, failed: see the state).
   */
  start(steps: StartSteps<R>): Promise<R | null> {
    if (this.#starting) return this.#starting;
    if (this.#state === 'ready') return Promise.resolve(this.#run ?? null);
    if (!this.mayStart()) return Promise.resolve(null);
    const generation = ++this.#generation;
    const abort = new AbortController();
    this.#abort = abort;
    this.enter('starting');
    const work = this.startNow(steps, abort, generation).finally(() => {
      if (this.#starting === work) this.#starting = undefined;
      if (this.#abort === abort) this.#abort = undefined;
    });
    this.#starting = work;
    return work;
  }

  private async startNow(steps: StartSteps<R>, abort: AbortController, generation: number): Promise<R | null> {
    const timeoutMs = this.o.startTimeoutMs;
    const timer = setTimeout(
      () =>
        abort.abort(
          new BridgeError('command_timeout', `${this.o.name} did not start within ${Math.round(timeoutMs)} ms`),
        ),
      timeoutMs,
    );
    const attempt = (async () => {
      await steps.verify?.(abort.signal);
      abort.signal.throwIfAborted();
      return steps.run(abort.signal);
    })();
    try {
      const run = await raceAbort(attempt, abort.signal);
      if (generation !== this.#generation) {
        await run?.stop().catch(() => undefined);
        return null;
      }
      // Settled before the state says so: whoever hears the change and starts again starts anew.
      this.settled();
      if (!run) {
        this.enter('idle');
        return null;
      }
      this.#run = run;
      this.enter('ready', { clearError: true });
      this.touch();
      void run.ended?.then((outcome) => {
        if (this.#run !== run) return;
        // Stopped all the same: what it holds on the bridge's side (a stream, a listener) is let go.
        void this.fail(
          this.o.endedError?.(outcome) ?? new BridgeError('helper_unavailable', `${this.o.name} ended on its own`),
        );
      });
      return run;
    } catch (error) {
      // What the start still brings up after it lost the race is not kept.
      void attempt.then(
        (late) => late?.stop(),
        () => undefined,
      );
      if (generation !== this.#generation) return null;
      this.settled();
      this.o.logger.warn(`${this.o.name} could not start on the phone`, {
        device: this.o.deviceId,
        error: error instanceof Error ? error.message : String(error),
      });
      await this.fail(error);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Stops it (a start under way is overtaken): idle, or off when the consent no longer allows
   * it. `error` is kept as the last error (the card says why it stopped); `notBefore` keeps it
   * from starting again until then.
   */
  async stop(options: { error?: unknown; notBefore?: number } = {}): Promise<void> {
    const run = this.detach();
    if (options.notBefore !== undefined) this.#retryAt = options.notBefore;
    if (run && this.o.beforeStop) await this.o.beforeStop(run).catch(() => undefined);
    if (this.#state === 'ready' || this.#state === 'starting' || options.error !== undefined || !this.o.allowed())
      this.enter(this.resting(), options.error === undefined ? {} : { error: options.error });
    await run?.stop().catch(() => undefined);
  }

  /** It failed (a call found it dead, a guard stopped it): stopped, then idle, failed or unavailable by the rules above. */
  async fail(error: unknown, kind: FailureKind = (this.o.failureKind ?? failureKind)(error)): Promise<void> {
    const run = this.detach();
    const now = this.o.clock();
    let next: ProgramState;
    if (kind === 'unavailable') next = 'unavailable';
    else {
      this.#failures = [...this.#failures.filter((t) => now - t < this.o.windowMs), now];
      const forgiven = kind === 'retry' && this.#failures.length <= this.o.freeRetries;
      next = forgiven ? 'idle' : 'failed';
      this.#retryAt = forgiven ? 0 : now + this.o.retryMs;
    }
    if (!this.o.allowed()) next = 'off';
    this.enter(next, { error });
    await run?.stop().catch(() => undefined);
  }

  /**
   * A call saw `run` fail. Taken as `fail()` only while `run` is still the one running: one that
   * a stop already let go (another reader's turn, the lease's end, a newer start), or that was
   * already seen to end, failed because of that, which is no new failure of the program.
   */
  async failRun(run: R, error: unknown): Promise<void> {
    if (this.#run !== run) return;
    await this.fail(error);
  }

  /** It served a use: its idle stop counts from now. */
  touch(): void {
    this.#lastUsedAt = this.o.clock();
    this.armIdleStop();
  }

  /** The idle-stop time changed: a ready program's timer follows at once. */
  idleStopChanged(): void {
    if (this.#idleTimer) this.armIdleStop();
  }

  /** A call it served, or one the stock lane served because it could not. */
  noteServed(byProgram: boolean): void {
    if (byProgram) this.#served += 1;
    else this.#fellBack += 1;
  }

  /**
   * The consent changed for this phone: off stops it; on (again) forgets its failures, so a
   * program that failed until enabled again may start.
   */
  async consentChanged(): Promise<void> {
    if (!this.o.allowed()) {
      await this.stop();
      this.enter('off');
      return;
    }
    this.#failures = [];
    this.#retryAt = 0;
    if (this.#state === 'off' || this.#state === 'failed') this.enter('idle', { clearError: true });
  }

  /** The phone went away: what ran ended with its connection; nothing is sent to it. */
  phoneGone(): void {
    const run = this.detach();
    // Its files or its refusal may differ when it comes back: unavailable is asked again.
    if (this.#state !== 'off') this.enter(this.resting());
    if (run) void run.stop().catch(() => undefined);
  }

  /** The bridge stops: what runs stops; nothing starts again. */
  async dispose(): Promise<void> {
    if (this.#disposed) return;
    const starting = this.#starting;
    const run = this.detach();
    this.#disposed = true;
    await starting?.catch(() => undefined);
    await run?.stop().catch(() => undefined);
  }

  view(): LifecycleView {
    const now = this.o.clock();
    const allowed = this.o.allowed();
    return {
      state: !allowed ? 'off' : !this.o.carried() ? 'unavailable' : this.#state,
      enabled: allowed,
      last_error: this.#lastError?.message ?? null,
      last_error_code: this.#lastError?.code ?? null,
      last_error_reason: this.#lastError?.reason ?? null,
      retry_at: this.#retryAt > now && Number.isFinite(this.#retryAt) ? this.#retryAt : null,
      served: this.#served,
      fell_back: this.#fellBack,
    };
  }

  // ---- inside -----------------------------------------------------------------------------------

  /** What it rests in when nothing runs. */
  private resting(): ProgramState {
    return this.o.allowed() ? 'idle' : 'off';
  }

  /** The start under way has its result (the caller checked it is still this generation's). */
  private settled(): void {
    this.#starting = undefined;
    this.#abort = undefined;
  }

  /** Lets go of the running program and a start under way (the generation moves on); returns what ran. */
  private detach(): R | undefined {
    this.#generation += 1;
    this.#abort?.abort(new BridgeError('canceled', `${this.o.name}'s start was overtaken`));
    this.#abort = undefined;
    this.#starting = undefined;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    const run = this.#run;
    this.#run = undefined;
    return run;
  }

  private armIdleStop(): void {
    if (!this.o.idleStopMs || this.#state !== 'ready') return;
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    const wait = Math.max(0, this.#lastUsedAt + this.o.idleStopMs() - this.o.clock());
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      void this.stop();
    }, wait);
    this.#idleTimer.unref();
  }

  /** The one place the state changes (and the last error with it). */
  private enter(state: ProgramState, why: { error?: unknown; clearError?: boolean } = {}): void {
    if (why.error !== undefined) {
      const error = why.error;
      this.#lastError = {
        message:
          error instanceof Error
            ? error.message.slice(0, 300)
            : typeof error === 'string'
              ? error.slice(0, 300)
              : 'failed',
        code: isBridgeError(error) ? error.code : 'internal_error',
        reason: failureReason(error),
      };
    } else if (why.clearError) this.#lastError = null;
    if (this.#state === state && why.error === undefined && !why.clearError) return;
    this.#state = state;
    this.o.onChange();
  }
}

/** A phone or build that cannot run it is unavailable; anything else counts toward the failure rule. */
function failureKind(error: unknown): FailureKind {
  return isBridgeError(error) && error.code === 'tool_unavailable' ? 'unavailable' : 'retry';
}

/** The failure's stable word (scrcpy-output.ts kinds, snapshot-helper-apk.ts reasons), when the error carries one. */
function failureReason(error: unknown): string | null {
  if (!isBridgeError(error)) return null;
  const reason = error.details?.scrcpyFailure ?? error.details?.reason;
  return typeof reason === 'string' && /^[a-z0-9_]{1,40}$/.test(reason) ? reason : null;
}

/** The work's result, or the signal's reason once it aborts (the work is left to settle on its own). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error('failed'));
      },
    );
  });
}

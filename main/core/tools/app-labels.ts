/**
 * Each phone's app names (package → the label its launcher shows), read once per phone and
 * kept, so a call that opens or closes an app, and `android_list_apps`, can say "Notes" where
 * the agent said `com.example.notes`. The reading itself is the phone programs' (a short
 * scrcpy-server run: scrcpy/scrcpy-app-list.ts); here only when to read again: an app the list
 * does not name (installed since) asks for a new read, at most once a minute per phone, and a
 * phone that could not say is not asked again for that minute either. Unknown stays null: the
 * caller shows the package.
 */
import type { DeviceShell } from '../devices/device-shell';

/** Reads a phone's labels; null when it cannot now (programs off, no jar, the phone refused). */
export type AppLabelReader = (
  deviceId: string,
  shell: DeviceShell,
  options: { timeoutMs: number; signal?: AbortSignal },
) => Promise<ReadonlyMap<string, string> | null>;

/** The shortest time between two reads of one phone's list. */
const REREAD_MS = 60_000;
/**
 * A read's own deadline. scrcpy-server loads every app's label to list them, a second's work on
 * most phones and several on one with hundreds of apps; the read goes on in the background.
 */
const READ_TIMEOUT_MS = 15_000;
/**
 * How long a call's answer waits for a read it started: a label is never worth a slow launch.
 * A read that takes longer still fills the cache for the next call.
 */
const ANSWER_WAIT_MS = 1_500;

export class AppLabelCache {
  private readonly phones = new Map<string, { labels: ReadonlyMap<string, string>; at: number }>();
  private readonly reads = new Map<string, Promise<void>>();

  constructor(
    private readonly read: AppLabelReader | undefined,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The label the phone gave for `pkg`, as last read; no phone is asked. */
  known(deviceId: string, pkg: string): string | null {
    return this.phones.get(deviceId)?.labels.get(pkg) ?? null;
  }

  /** The label of `pkg` on this phone, reading the phone's list when it is not known yet. */
  async label(deviceId: string, shell: DeviceShell, pkg: string): Promise<string | null> {
    if (this.known(deviceId, pkg) === null && this.due(deviceId)) {
      await withinWait(this.refresh(deviceId, shell), ANSWER_WAIT_MS);
    }
    return this.known(deviceId, pkg);
  }

  /** Every label on this phone, read when none was yet (or a minute after a read that failed). */
  async all(deviceId: string, shell: DeviceShell, signal?: AbortSignal): Promise<ReadonlyMap<string, string>> {
    if (this.due(deviceId)) await this.refresh(deviceId, shell, signal);
    return this.phones.get(deviceId)?.labels ?? new Map();
  }

  /** The phone is gone or was reset: its apps may differ next time. */
  forget(deviceId: string): void {
    this.phones.delete(deviceId);
  }

  private due(deviceId: string): boolean {
    const last = this.phones.get(deviceId);
    return this.read !== undefined && (last === undefined || this.clock() - last.at >= REREAD_MS);
  }

  /** One read per phone at a time: a second caller waits for the first's. */
  private refresh(deviceId: string, shell: DeviceShell, signal?: AbortSignal): Promise<void> {
    const running = this.reads.get(deviceId);
    if (running) return running;
    const read = this.read;
    if (!read) return Promise.resolve();
    const started = this.clock();
    const done = read(deviceId, shell, { timeoutMs: READ_TIMEOUT_MS, ...(signal ? { signal } : {}) })
      .catch(() => null)
      .then((labels) => {
        // A read that said nothing keeps what an earlier one said (the phone's apps did not vanish).
        const before = this.phones.get(deviceId)?.labels;
        this.phones.set(deviceId, { labels: labels ?? before ?? new Map(), at: started });
      })
      .finally(() => this.reads.delete(deviceId));
    this.reads.set(deviceId, done);
    return done;
  }
}

/** Resolves when `work` settles or after `ms`, whichever is first; `work` itself runs on. */
function withinWait(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    timer.unref();
  });
  return Promise.race([work, waited]).finally(() => clearTimeout(timer));
}

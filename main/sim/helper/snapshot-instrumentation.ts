/**
 * agent-device's snapshot helper on a simulated phone: `am instrument -w … SnapshotInstrumentation`
 * for the installed package runs one read of the front window and prints the tree as base64
 * chunks on `INSTRUMENTATION_STATUS` lines, then its result (`android-snapshot-helper-v1`), as
 * the real helper does. It opens no socket: /proc/net/tcp{,6} show nothing of it.
 *
 * What a real phone does and this one repeats:
 * - the instrumentation holds the phone's single UiAutomation connection from its start until
 *   its process ends (stock `uiautomator dump` dies with exit 137 meanwhile; agent-device#851);
 * - it fails at once when another UiAutomation client (the resident helper) holds it;
 * - closing `am`'s shell stream does not end the instrumentation: it finishes its read (or is
 *   force-stopped); when it finishes, the system force-stops its package (AMS
 *   finishInstrumentationLocked without `--no-restart`);
 * - a process that dies mid-read ends `am` with `shortMsg=Process crashed.` and code 0.
 * Timings: TIMING-SOURCES.md "The snapshot helper". Quirk: snapshot-helper-crash (QUIRKS.md).
 */
import type { CommandIo } from '../commands/command-io';
import type { QuirkName } from '../phone-quirks';
import type { TimingProfile } from '../timing-profiles';
import type { SimHelper } from './helper-runtime';

/** What a read needs of the phone (a narrow view, so the phone's context can name this helper without a circle). */
export interface SnapshotPhone {
  readonly helper: SimHelper;
  /** The bridge's UI reader: another UiAutomation client. */
  readonly uiReader: { holdsUiAutomation(): boolean };
  readonly profile: TimingProfile;
  readonly quirks: ReadonlySet<QuirkName>;
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
}
import { snapshotTimingMs } from '../timing-profiles';

export const SNAPSHOT_HELPER_PKG = 'com.callstack.agentdevice.snapshothelper';
const RUNNER_CLASS = '.SnapshotInstrumentation';
const PROTOCOL = 'android-snapshot-helper-v1';
/** Base64 characters per status line (a Bundle string per chunk; the real helper splits its XML likewise). */
const CHUNK_CHARS = 12_000;
const CRASHED_TAIL = 'INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n';

interface Run {
  /** Aborts when the process dies (crash, kill, force-stop). */
  readonly died: AbortController;
  crashed: boolean;
}

export class SimSnapshotHelper {
  private run: Run | undefined;
  private hold: { released: Promise<void>; release: () => void } | undefined;
  private readonly runningWaiters = new Set<() => void>();

  /** Whether `component` names this helper's instrumentation (short or long class form). */
  static handles(component: string): boolean {
    return (
      component === `${SNAPSHOT_HELPER_PKG}/${RUNNER_CLASS}` ||
      component === `${SNAPSHOT_HELPER_PKG}/${SNAPSHOT_HELPER_PKG}${RUNNER_CLASS}`
    );
  }

  /** The instrumentation's process is alive (and holds UiAutomation). */
  holdsUiAutomation(): boolean {
    return this.run !== undefined;
  }

  /**
   * Test control: the next read stops after its process started, until the returned function
   * is called (to look at the phone while the helper runs, or kill it mid-read).
   */
  holdNextRead(): () => void {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.hold = { released, release };
    return release;
  }

  /** Resolves once an instrumentation is running (at once if one is); rejects when `signal` aborts. */
  whenRunning(signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.runningWaiters.delete(done);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.runningWaiters.delete(done);
        reject(new Error('the snapshot helper never ran'));
      };
      if (this.run) return resolve();
      if (signal.aborted) return onAbort();
      this.runningWaiters.add(done);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The system kills the instrumentation's process now (no-op when none runs). */
  kill(): void {
    const run = this.run;
    if (!run) return;
    run.crashed = true;
    run.died.abort();
  }

  /** `am force-stop` / uninstall of the helper's package: its process goes. */
  packageStopped(pkg: string): void {
    if (pkg !== SNAPSHOT_HELPER_PKG || !this.run) return;
    this.run.died.abort();
  }

  /** `am instrument [-w] [-e K V]… COMPONENT` for this helper (installed: am.ts checked). */
  async instrument(
    io: CommandIo,
    phone: SnapshotPhone,
    args: readonly string[],
    dumpXml: () => string,
  ): Promise<number> {
    const wait = args.includes('-w');
    const extras = new Map<string, string>();
    for (let i = 0; i < args.length; i++) if (args[i] === '-e') extras.set(args[i + 1] ?? '', args[(i += 2)] ?? '');
    const out = (text: string): void => {
      if (wait && !io.signal.aborted) io.out(text);
    };
    if (phone.helper.holdsUiAutomation() || phone.uiReader.holdsUiAutomation()) {
      // UiAutomation.connect() throws when another client holds the connection.
      out(
        result(false, extras, {
          errorType: 'java.lang.IllegalStateException',
          message: 'UiAutomationService android.accessibilityservice.IAccessibilityServiceClient already registered!',
        }),
      );
      return 0;
    }
    // A second `am instrument` of the same package force-stops the first.
    this.packageStopped(SNAPSHOT_HELPER_PKG);
    const run: Run = { died: new AbortController(), crashed: false };
    this.run = run;
    for (const waiter of [...this.runningWaiters]) waiter();
    const work = this.read(phone, run, extras, dumpXml);
    if (!wait) {
      void work;
      return 0;
    }
    // `am` dies with its shell stream; the instrumentation carries on (`work` keeps running).
    const text = await Promise.race([
      work,
      new Promise<null>((resolve) => {
        if (io.signal.aborted) resolve(null);
        io.signal.addEventListener('abort', () => resolve(null), { once: true });
      }),
    ]);
    if (text === null) return 130;
    out(text);
    return 0;
  }

  /** One read: start, idle wait, walk; the whole output `am` prints, or the crash tail. */
  private async read(
    phone: SnapshotPhone,
    run: Run,
    extras: ReadonlyMap<string, string>,
    dumpXml: () => string,
  ): Promise<string> {
    const started = phone.now();
    const alive = (): boolean => !run.died.signal.aborted;
    try {
      if (!(await phone.sleep(snapshotTimingMs(phone.profile, 'processStart'), run.died.signal))) return CRASHED_TAIL;
      const hold = this.hold;
      if (hold) {
        this.hold = undefined;
        await Promise.race([
          hold.released,
          new Promise<void>((resolve) => run.died.signal.addEventListener('abort', () => resolve(), { once: true })),
        ]);
        if (!alive()) return CRASHED_TAIL;
      }
      if (phone.quirks.has('snapshot-helper-crash')) {
        run.crashed = true;
        return CRASHED_TAIL;
      }
      const quietMs = Math.min(
        numberOr(extras.get('waitForIdleQuietMs'), 100),
        numberOr(extras.get('waitForIdleTimeoutMs'), 500),
      );
      const walkMs = snapshotTimingMs(phone.profile, 'walk');
      if (!(await phone.sleep(phone.profile.realDurations ? quietMs + walkMs : 0, run.died.signal)))
        return CRASHED_TAIL;
      const xml = dumpXml();
      const base64 = Buffer.from(xml, 'utf8').toString('base64');
      const count = Math.max(1, Math.ceil(base64.length / CHUNK_CHARS));
      let text = '';
      for (let i = 0; i < count; i++) {
        text +=
          `INSTRUMENTATION_STATUS: agentDeviceProtocol=${PROTOCOL}\nINSTRUMENTATION_STATUS: chunkCount=${count}\n` +
          `INSTRUMENTATION_STATUS: chunkIndex=${i}\nINSTRUMENTATION_STATUS: outputFormat=uiautomator-xml\n` +
          `INSTRUMENTATION_STATUS: payloadBase64=${base64.slice(i * CHUNK_CHARS, (i + 1) * CHUNK_CHARS)}\nINSTRUMENTATION_STATUS_CODE: 1\n`;
      }
      const nodeCount = (xml.match(/<node\b/g) ?? []).length;
      return (
        text +
        result(true, extras, {
          captureMode: 'active-window',
          elapsedMs: String(Math.round(phone.now() - started)),
          nodeCount: String(nodeCount),
          rootPresent: 'true',
          truncated: 'false',
          windowCount: '1',
        })
      );
    } finally {
      // Finished or died: the package is stopped and UiAutomation is free again.
      if (this.run === run) this.run = undefined;
    }
  }
}

function numberOr(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** The final bundle as `am` prints it: keys sorted, then the result code (-1 = RESULT_OK). */
function result(ok: boolean, extras: ReadonlyMap<string, string>, fields: Record<string, string>): string {
  const bundle: Record<string, string> = {
    agentDeviceProtocol: PROTOCOL,
    helperApiVersion: '1',
    maxDepth: extras.get('maxDepth') ?? '128',
    maxNodes: extras.get('maxNodes') ?? '5000',
    ok: String(ok),
    outputFormat: 'uiautomator-xml',
    timeoutMs: extras.get('timeoutMs') ?? '8000',
    waitForIdleQuietMs: extras.get('waitForIdleQuietMs') ?? '100',
    waitForIdleTimeoutMs: extras.get('waitForIdleTimeoutMs') ?? '500',
    ...fields,
  };
  const lines = Object.keys(bundle)
    .sort()
    .map((k) => `INSTRUMENTATION_RESULT: ${k}=${bundle[k] ?? ''}\n`);
  return `${lines.join('')}INSTRUMENTATION_CODE: -1\n`;
}

/**
 * The resident helper's life on a simulated phone: `am instrument -w … AndroidJUnitRunner`
 * starts the appium-uiautomator2-server instrumentation (when both APKs are installed), its
 * HTTP server answers on device port 6790 and its MJPEG screenshot stream on 7810 once
 * started (the adbd `tcp:PORT` service reaches them; before that, and after it died, the
 * connection is refused, and open connections drop when it dies), it holds the phone's single
 * UiAutomation connection while alive (stock `uiautomator dump` is then killed), and it ends
 * with `am force-stop`, an uninstall or update of its packages, DELETE /session, a crash or
 * the system killing it — each ending the instrumentation's shell stream with what `am`
 * prints on a real phone. Closing that shell stream does not stop the instrumentation, as on
 * a real phone: only force-stop does. Faults are quirks (phone-quirks.ts: helper-*) plus
 * test controls (crash on a chosen request, before or after it acts; kill now).
 */
import type { CommandIo } from '../commands/command-io';
import type { PackageDb } from '../phone-packages';
import type { QuirkName } from '../phone-quirks';
import { helperTimingMs, sleepUnlessAborted, type TimingProfile } from '../timing-profiles';
import { serveHttpConnection, type ByteChannel, type HttpReply, type HttpRequest } from './http-wire';
import { serveMjpegConnection } from './mjpeg-stream';
import { shortPath, Uia2Server, type Uia2Hooks, type Uia2Phone } from './uia2-server';
import {
  UIA2_DEVICE_PORT,
  UIA2_INSTRUMENTATION,
  UIA2_MJPEG_PORT,
  UIA2_SERVER_PKG,
  UIA2_TEST_CLASS,
  UIA2_TEST_PKG,
} from './uia2-ids';

export type HelperState = 'stopped' | 'starting' | 'running';

/** How an instrumentation ended: its process died, or its one test returned. */
type EndReason = 'crashed' | 'finished';

export interface CrashPlan {
  /** Substring of "METHOD /short/path" (e.g. 'POST /actions'); default: any action request. */
  match?: string;
  /** 'before': dies on receiving it, nothing done; 'after': does it, then dies unanswered. */
  when: 'before' | 'after';
}

export interface HelperRuntimeDeps {
  packages: PackageDb;
  phone: Uia2Phone;
  quirks: ReadonlySet<QuirkName>;
  profile: TimingProfile;
  /** Records a helper action in the phone's argv log. */
  log(argv: string[]): void;
  /**
   * Another program holds the phone's UiAutomation connection (the bridge's UI reader): the
   * server's own connect then throws IllegalStateException and its process dies at start.
   */
  uiAutomationTaken?: () => boolean;
}

/** What tests see of a phone's helper and how they make it fail (SimulatedPhone.helper). */
export interface HelperControl {
  state(): HelperState;
  /** The next matching request makes the instrumentation die (once). */
  crashOnNextRequest(plan: CrashPlan): void;
  /** The system kills the helper's process now (no-op when it is not running). */
  kill(): void;
  /** How many source reads after a navigation return the previous screen (helper-stale-tree); default 2. */
  setStaleReads(count: number): void;
  /** Resolves when the helper is in `state` (at once if it is); rejects when `signal` aborts. */
  waitForState(state: HelperState, signal: AbortSignal): Promise<void>;
}

const ACTION_ROUTES = ['POST /actions', 'POST /keys', 'POST /appium/device/press_keycode'];
const STREAM_START = `\n${UIA2_TEST_CLASS}:`;
const CRASHED_TAIL = 'INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n';
/** AMS reports a start failure through the watcher, then Am prints the AndroidException. */
const AM_FRAMES = [
  '\tat com.android.commands.am.Instrument.run(Instrument.java:532)',
  '\tat com.android.commands.am.Am.runInstrument(Am.java:196)',
  '\tat com.android.commands.am.Am.onRun(Am.java:80)',
  '\tat com.android.internal.os.BaseCommand.run(BaseCommand.java:60)',
  '\tat com.android.commands.am.Am.main(Am.java:50)',
  '\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)',
  '\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:359)',
].join('\n');

class HelperProcess {
  state: 'starting' | 'running' | 'dead' = 'starting';
  readonly server: Uia2Server;
  readonly died = new AbortController();
  /** Open connections to its ports (the bridge's adbd streams), by the port each reached. */
  readonly channels = new Map<ByteChannel, number>();
  readonly startedAt = Date.now();
  private resolveEnded!: (reason: EndReason) => void;
  readonly ended = new Promise<EndReason>((resolve) => {
    this.resolveEnded = resolve;
  });
  /** helper-stale-tree: the last served source and its screen, and reads still to serve stale. */
  lastSource: { key: string; xml: string } | undefined;
  stale: { xml: string; left: number } | undefined;

  get dead(): boolean {
    return this.state === 'dead';
  }

  constructor(
    server: Uia2Server,
    private readonly changed: () => void,
  ) {
    this.server = server;
  }

  markRunning(): void {
    this.state = 'running';
    this.changed();
  }

  end(reason: EndReason): void {
    if (this.state === 'dead') return;
    this.state = 'dead';
    this.changed();
    this.died.abort();
    // The process is gone: every connection to its port drops with it.
    for (const channel of this.channels.keys()) channel.close();
    this.channels.clear();
    this.resolveEnded(reason);
  }
}

function versionOf(packages: PackageDb): { versionName: string; versionCode: number } {
  const info = packages.info(UIA2_SERVER_PKG);
  return { versionName: info?.versionName ?? 'unknown', versionCode: info?.versionCode ?? 0 };
}

export class SimHelper implements HelperControl {
  private process: HelperProcess | undefined;
  private crashPlan: CrashPlan | undefined;
  private staleReads = 2;
  private killTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly deps: HelperRuntimeDeps) {}

  state(): HelperState {
    const p = this.process;
    return !p || p.state === 'dead' ? 'stopped' : p.state;
  }

  /** The instrumentation holds the UiAutomation connection from its start until it dies. */
  holdsUiAutomation(): boolean {
    return this.state() !== 'stopped';
  }

  waitForState(state: HelperState, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.state() !== state) return;
        this.waiters.delete(check);
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        this.waiters.delete(check);
        reject(signal.reason instanceof Error ? signal.reason : new Error(`the helper never reached ${state}`));
      };
      if (signal.aborted) return onAbort();
      this.waiters.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  crashOnNextRequest(plan: CrashPlan): void {
    this.crashPlan = { ...plan };
  }

  kill(): void {
    const p = this.process;
    if (p && p.state !== 'dead') p.end('crashed');
  }

  setStaleReads(count: number): void {
    if (!Number.isInteger(count) || count < 0)
      throw new RangeError(`setStaleReads: count must be a whole number ≥ 0 (got ${count})`);
    this.staleReads = count;
  }

  /** The phone's quirks changed: arm what a newly added quirk does. */
  quirksChanged(before: ReadonlySet<QuirkName>): void {
    const added = (q: QuirkName): boolean => this.deps.quirks.has(q) && !before.has(q);
    // A crash quirk makes the helper die once, on the next action request, before acting.
    if (added('helper-crash')) this.crashPlan = { when: 'before' };
    if (added('helper-killed') && this.process?.state === 'running') this.scheduleKill(this.process);
  }

  /** `am force-stop PKG` / uninstall / update: the helper's packages take its process down. */
  packageStopped(pkg: string): void {
    if (pkg === UIA2_SERVER_PKG || pkg === UIA2_TEST_PKG) this.kill();
  }

  /** The ports the running helper listens on (none while it does not run, as it starts or after it died). */
  listeningPorts(): number[] {
    return this.process?.state === 'running' ? [UIA2_DEVICE_PORT, UIA2_MJPEG_PORT] : [];
  }

  /** One entry per open stream the bridge has to the helper (adbd `tcp:`), by port. */
  bridgeConnections(): number[] {
    const p = this.process;
    return p && p.state !== 'dead' ? [...p.channels.values()] : [];
  }

  /** `close` runs when the running helper's process dies (its connections drop with it). */
  onDeath(close: () => void): void {
    const p = this.process;
    if (!p || p.dead) return close();
    p.died.signal.addEventListener('abort', close, { once: true });
  }

  /** `pm list instrumentation` lines. */
  instrumentationLines(): string[] {
    return this.deps.packages
      .list()
      .flatMap((p) =>
        (p.instrumentation ?? []).map(
          (i) =>
            `instrumentation:${p.name}/${i.name.startsWith('.') ? p.name + i.name : i.name} (target=${i.targetPackage})\n`,
        ),
      );
  }

  /** The adbd `tcp:PORT` service: a handler while the server listens, else undefined (refused). */
  openTcp(port: number): ((channel: ByteChannel) => Promise<void>) | undefined {
    const p = this.process;
    if ((port !== UIA2_DEVICE_PORT && port !== UIA2_MJPEG_PORT) || !p || p.state !== 'running') return undefined;
    const serve =
      port === UIA2_MJPEG_PORT
        ? (channel: ByteChannel) =>
            serveMjpegConnection(channel, {
              phone: this.deps.phone,
              setting: (name) => p.server.setting(name),
              frameCostMs: () => helperTimingMs(this.deps.profile, 'mjpegFrame'),
              died: p.died.signal,
              started: () => this.deps.log(['helper', 'MJPEG', '/']),
            })
        : (channel: ByteChannel) => serveHttpConnection(channel, (request) => this.handleRequest(p, request));
    return async (channel) => {
      if (p.state !== 'running') {
        channel.close();
        return;
      }
      p.channels.set(channel, port);
      try {
        await serve(channel);
      } finally {
        p.channels.delete(channel);
      }
    };
  }

  /** `am instrument [-w] [-r] [-e K V]… [--no-window-animation] [--user U] COMPONENT`. */
  async instrument(io: CommandIo, args: readonly string[]): Promise<number> {
    let wait = false;
    let component: string | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i] ?? '';
      if (a === '-w') wait = true;
      else if (a === '-e') i += 2;
      else if (a === '--user' || a === '-p' || a === '--abi' || a === '--instrument-sdk-sandbox') i++;
      else if (!a.startsWith('-')) component = a;
    }
    if (component === undefined) {
      io.err('Error: Bad component name: null\n');
      return 1;
    }
    const declared = this.instrumentationLines().some((line) => line.startsWith(`instrumentation:${component} `));
    if (!declared) {
      io.out(
        `INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{${component}}\nINSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS_CODE: -1\n`,
      );
      io.err(`android.util.AndroidException: INSTRUMENTATION_FAILED: ${component}\n${AM_FRAMES}\n`);
      return 1;
    }
    if (component !== UIA2_INSTRUMENTATION) {
      // Some other test package: it runs no test the sim knows and finishes at once.
      io.out(wait ? '\nTime: 0.01\n\nOK (0 tests)\n\n\nINSTRUMENTATION_CODE: -1\n' : '');
      return 0;
    }
    if (!this.deps.packages.has(UIA2_SERVER_PKG)) {
      io.out(
        `INSTRUMENTATION_STATUS: Error=Unable to find instrumentation target package: ${UIA2_SERVER_PKG}\nINSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS_CODE: -1\n`,
      );
      io.err(`android.util.AndroidException: INSTRUMENTATION_FAILED: ${component}\n${AM_FRAMES}\n`);
      return 1;
    }
    if (this.deps.quirks.has('helper-no-instrumentation')) {
      // The system refuses to start the instrumentation (appium/appium#12246).
      io.err(
        `java.lang.SecurityException: Permission Denial: starting instrumentation ComponentInfo{${component}} from pid=${4000 + (Date.now() % 2000)}, uid=2000 not allowed because package ${UIA2_TEST_PKG} does not have a signature matching the target ${UIA2_SERVER_PKG}\n` +
          '\tat android.os.Parcel.createExceptionOrNull(Parcel.java:3011)\n\tat android.os.Parcel.createException(Parcel.java:2995)\n\tat android.os.Parcel.readException(Parcel.java:2978)\n\tat android.os.Parcel.readException(Parcel.java:2920)\n' +
          '\tat android.app.IActivityManager$Stub$Proxy.startInstrumentation(IActivityManager.java:5885)\n' +
          `${AM_FRAMES}\n`,
      );
      return 1;
    }
    // Starting an instrumentation force-stops its target first: an older helper dies.
    this.kill();
    const p = this.spawn();
    this.process = p;
    this.notify();
    // Without -w, `am` returns at once and prints nothing of the test.
    if (!wait) return 0;
    (io.outNow ?? io.out)(STREAM_START);
    const aborted = new Promise<'aborted'>((resolve) => {
      if (io.signal.aborted) resolve('aborted');
      io.signal.addEventListener('abort', () => resolve('aborted'), { once: true });
    });
    const reason = await Promise.race([p.ended, aborted]);
    // The shell stream closed: `am` dies with it, the instrumentation carries on.
    if (reason === 'aborted') return 130;
    io.out(
      reason === 'crashed'
        ? CRASHED_TAIL
        : `\n\nTime: ${((Date.now() - p.startedAt) / 1000).toFixed(3)}\n\nOK (1 test)\n\n\nINSTRUMENTATION_CODE: -1\n`,
    );
    return 0;
  }

  private spawn(): HelperProcess {
    const { deps } = this;
    const p = new HelperProcess(new Uia2Server(deps.phone, versionOf(deps.packages)), () => this.notify());
    void this.bringUp(p);
    return p;
  }

  private async bringUp(p: HelperProcess): Promise<void> {
    const slow = this.deps.quirks.has('helper-slow-start');
    const ms = helperTimingMs(this.deps.profile, slow ? 'slowStart' : 'start');
    // Even an instant phone starts the server on a later turn: `am` has printed its first line.
    if (!(await sleepUnlessAborted(Math.max(1, ms), p.died.signal))) return;
    if (p.state !== 'starting') return;
    if (this.deps.uiAutomationTaken?.() === true) {
      // UiDevice.getInstance → UiAutomation.connect: "…already registered!" (appium-uiautomator2-server#436).
      p.end('crashed');
      return;
    }
    p.markRunning();
    if (this.deps.quirks.has('helper-killed')) this.scheduleKill(p);
  }

  private scheduleKill(p: HelperProcess): void {
    if (this.killTimer) clearTimeout(this.killTimer);
    const timer = setTimeout(() => p.end('crashed'), helperTimingMs(this.deps.profile, 'killedAfter'));
    this.killTimer = timer;
    p.died.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  }

  private takeCrash(request: HttpRequest): CrashPlan | undefined {
    const plan = this.crashPlan;
    if (!plan) return undefined;
    const what = `${request.method} ${shortPath(request.path)}`;
    const hit = plan.match === undefined ? ACTION_ROUTES.includes(what) : what.includes(plan.match);
    if (!hit) return undefined;
    this.crashPlan = undefined;
    return plan;
  }

  private async handleRequest(p: HelperProcess, request: HttpRequest): Promise<HttpReply | 'reset'> {
    if (p.state !== 'running') return 'reset';
    const plan = this.takeCrash(request);
    if (plan?.when === 'before') {
      p.end('crashed');
      return 'reset';
    }
    const head = ['helper', request.method, shortPath(request.path)];
    let logged = false;
    const hooks: Uia2Hooks = {
      spend: (what, extraMs = 0) => {
        const base = helperTimingMs(this.deps.profile, what === 'screenshot' ? 'screenshotBase' : what);
        return sleepUnlessAborted(base + (this.deps.profile.realDurations ? extraMs : 0), p.died.signal);
      },
      sparseDepth: () => (this.deps.quirks.has('helper-sparse-tree') ? 1 : undefined),
      staleSource: (fresh, key) => this.staleSource(p, fresh, key),
      performed: (argv) => {
        logged = true;
        this.deps.log([...head, ...argv]);
      },
    };
    const reply = await p.server.handle(request, hooks);
    if (!reply || p.dead) return 'reset';
    if (!logged) this.deps.log(head);
    if (plan?.when === 'after') {
      p.end('crashed');
      return 'reset';
    }
    if (p.server.stopRequested) {
      // DeleteSession stops the server 15 ms after its answer; the test then returns.
      const timer = setTimeout(() => p.end('finished'), 15);
      p.died.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    }
    return reply;
  }

  private staleSource(p: HelperProcess, fresh: string, key: string): string {
    if (p.stale && p.stale.left > 0) {
      p.stale.left--;
      return p.stale.xml;
    }
    const previous = p.lastSource;
    p.lastSource = { key, xml: fresh };
    if (this.deps.quirks.has('helper-stale-tree') && previous && previous.key !== key && this.staleReads > 0) {
      // The accessibility cache still holds the screen before the navigation.
      p.stale = { xml: previous.xml, left: this.staleReads - 1 };
      p.lastSource = { key, xml: fresh };
      return previous.xml;
    }
    p.stale = undefined;
    return fresh;
  }

  /** The phone closed: the process and its timers end. Idempotent. */
  close(): void {
    if (this.killTimer) clearTimeout(this.killTimer);
    this.process?.end('crashed');
  }
}

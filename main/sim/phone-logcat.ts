/**
 * The simulated phone's log (logd) and its running app processes: a ring of entries per
 * buffer (main, system, crash, events), each with the phone's time, pid, tid, level, tag and
 * message, as `logcat` prints them (commands/logcat.ts), and a pid per app whose task runs
 * (what `pidof` and `ps -A` list). Apps write what real apps write: ActivityManager's
 * `Start proc` when a process starts, the app's own lines as it is used (an app that logs the
 * text typed into it: why the bridge redacts logs), `Process … has died` when it goes.
 *
 * Faults (QUIRKS.md "app crash" and "ANR"): `crash(pkg)` writes AndroidRuntime's
 * `FATAL EXCEPTION: main` block to the crash buffer and the app leaves the screen; `anr(pkg)`
 * writes ActivityManager's `ANR in …` block to the system buffer and the "isn't responding"
 * dialog shows. `faultOnNextInput` makes the next `input` command end that way, so a crash
 * happens during a tool call.
 */
import type { ScreenMachine } from './screen/screen-machine';
import type { PackageDb } from './phone-packages';

export type LogLevel = 'V' | 'D' | 'I' | 'W' | 'E' | 'F';
export const LOG_BUFFERS = ['main', 'system', 'crash', 'events', 'radio'] as const;
export type LogBuffer = (typeof LOG_BUFFERS)[number];

export interface LogEntry {
  /** Sequence number: strictly increasing across buffers (the merged order). */
  seq: number;
  buffer: LogBuffer;
  /** Phone time, ms since the epoch. */
  at: number;
  pid: number;
  tid: number;
  level: LogLevel;
  tag: string;
  message: string;
}

/** Entries kept per buffer (logd keeps 256 KiB per buffer by default; this is the same order of lines). */
const RING_ENTRIES = 4000;
/** system_server: ActivityManager and the ANR report are its lines. */
export const SYSTEM_SERVER_PID = 1437;
/** The system_server thread that reports apps' processes and activities starting, dying and finishing. */
const ACTIVITY_THREAD_TID = 1528;
const FIRST_APP_PID = 12034;

/** The processes every phone runs (a short `ps -A`). */
export const SYSTEM_PROCESSES: ReadonlyArray<{ pid: number; name: string; uid: string }> = [
  { pid: 1, name: 'init', uid: 'root' },
  { pid: 612, name: 'logd', uid: 'logd' },
  { pid: 745, name: 'adbd', uid: 'shell' },
  { pid: SYSTEM_SERVER_PID, name: 'system_server', uid: 'system' },
  { pid: 2011, name: 'com.android.systemui', uid: 'u0_a180' },
];

export type AppFault = 'crash' | 'anr';

export interface SimLogcatDeps {
  now: () => number;
  screen: ScreenMachine;
  packages: PackageDb;
  /** Shows the "isn't responding" dialog over the app in front (the anr-dialog quirk's dialog). */
  showAnrDialog: () => void;
}

export class SimLogcat {
  private readonly rings = new Map<LogBuffer, LogEntry[]>(LOG_BUFFERS.map((b) => [b, []]));
  private readonly pids = new Map<string, number>();
  private nextPid = FIRST_APP_PID;
  private seq = 0;
  private pendingFault: AppFault | undefined;
  private readonly listeners = new Set<(entry: LogEntry) => void>();

  constructor(private readonly deps: SimLogcatDeps) {
    this.write('main', 745, 745, 'I', 'adbd', 'adbd started');
    this.write('system', SYSTEM_SERVER_PID, 1460, 'I', 'ActivityManager', 'System now ready');
  }

  /** Appends one entry at the phone's time now; followers (`logcat` without -d) hear it at once. */
  write(buffer: LogBuffer, pid: number, tid: number, level: LogLevel, tag: string, message: string): void {
    const entry: LogEntry = { seq: ++this.seq, buffer, at: this.deps.now(), pid, tid, level, tag, message };
    const ring = this.rings.get(buffer)!;
    ring.push(entry);
    if (ring.length > RING_ENTRIES) ring.splice(0, ring.length - RING_ENTRIES);
    for (const listener of this.listeners) listener(entry);
  }

  /** A line of system_server's activity thread (the system buffer). */
  private fromActivityThread(level: LogLevel, tag: string, message: string): void {
    this.write('system', SYSTEM_SERVER_PID, ACTIVITY_THREAD_TID, level, tag, message);
  }

  /** Writes each line of `message` as its own entry, as Log.println does for a multi-line text. */
  writeLines(buffer: LogBuffer, pid: number, level: LogLevel, tag: string, lines: readonly string[]): void {
    for (const line of lines) this.write(buffer, pid, pid, level, tag, line);
  }

  /** Entries of the buffers, merged in the order they were written. */
  entries(buffers: readonly LogBuffer[]): LogEntry[] {
    return buffers.flatMap((b) => this.rings.get(b) ?? []).sort((a, b) => a.seq - b.seq);
  }

  /** Hears every new entry until the returned function is called. */
  follow(listener: (entry: LogEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The pid of a package's running process, or undefined. */
  pidOf(pkg: string): number | undefined {
    this.sync();
    return this.pids.get(pkg);
  }

  /** Running app processes (package and pid), oldest first. */
  appProcesses(): Array<{ pkg: string; pid: number }> {
    this.sync();
    return [...this.pids].map(([pkg, pid]) => ({ pkg, pid }));
  }

  /** The next `input` command ends with the app in front crashing, or raising an ANR. */
  faultOnNextInput(fault: AppFault): void {
    this.pendingFault = fault;
  }

  /**
   * After each shell command: processes follow the tasks (a launch starts one, a force-stop
   * ends it), the app in front logs what was typed into it, and a pending fault strikes.
   */
  afterCommand(argv: readonly string[]): void {
    this.sync();
    if (argv[0] !== 'input') return;
    const front = this.deps.screen.window().pkg;
    const pid = this.pids.get(front);
    const textAt = argv.indexOf('text');
    if (pid !== undefined && textAt >= 1 && argv[textAt + 1] !== undefined) {
      // Apps that log their fields (a common debug habit) put the person's text in the log.
      const typed = (argv[textAt + 1] ?? '').replace(/%s/g, ' ');
      this.write('main', pid, pid, 'D', tagOf(front), `afterTextChanged: "${typed}"`);
    }
    const fault = this.pendingFault;
    if (fault && pid !== undefined) {
      this.pendingFault = undefined;
      if (fault === 'crash') this.crash(front);
      else this.anr(front);
    }
  }

  /**
   * The app crashes: AndroidRuntime's block goes to the crash buffer (RuntimeInit logs
   * uncaught exceptions there, Android 5+), ActivityManager notes it, the process dies and
   * the app leaves the screen.
   */
  crash(
    pkg: string,
    exception = 'java.lang.IllegalStateException: Could not execute method for android:onClick',
  ): void {
    this.sync();
    const pid = this.pids.get(pkg);
    if (pid === undefined) return;
    const cls = pkg + '.MainActivity';
    this.writeLines('crash', pid, 'E', 'AndroidRuntime', [
      'FATAL EXCEPTION: main',
      `Process: ${pkg}, PID: ${pid}`,
      exception,
      '\tat androidx.appcompat.app.AppCompatViewInflater$DeclaredOnClickListener.onClick(AppCompatViewInflater.java:472)',
      '\tat android.view.View.performClick(View.java:7659)',
      `\tat ${cls}.onSaveClicked(MainActivity.kt:88)`,
      '\tat android.os.Handler.handleCallback(Handler.java:958)',
      '\tat android.os.Looper.loop(Looper.java:294)',
      '\tat android.app.ActivityThread.main(ActivityThread.java:8177)',
    ]);
    this.fromActivityThread('W', 'ActivityTaskManager', `  Force finishing activity ${pkg}/.MainActivity`);
    this.deps.screen.forceStop(pkg);
    this.sync();
  }

  /** The app stops answering input: ActivityManager's ANR report, then the dialog over it. */
  anr(pkg: string): void {
    this.sync();
    const pid = this.pids.get(pkg);
    if (pid === undefined) return;
    this.writeLines('system', SYSTEM_SERVER_PID, 'E', 'ActivityManager', [
      `ANR in ${pkg} (${pkg}/.MainActivity)`,
      `PID: ${pid}`,
      `Reason: Input dispatching timed out (${pkg}/${pkg}.MainActivity is not responding. Waited 5001ms for MotionEvent)`,
      'Parent: ' + pkg + '/.MainActivity',
      'Load: 1.71 / 1.48 / 1.22',
    ]);
    this.deps.showAnrDialog();
  }

  /** Processes follow the tasks: a task's package runs; a package without a task has died. */
  private sync(): void {
    const running = new Set(this.deps.screen.allTasks().map((t) => t.app.pkg));
    for (const [pkg, pid] of this.pids) {
      if (running.has(pkg)) continue;
      this.pids.delete(pkg);
      this.fromActivityThread('I', 'ActivityManager', `Process ${pkg} (pid ${pid}) has died: fg  TOP`);
    }
    for (const pkg of running) {
      if (this.pids.has(pkg)) continue;
      const pid = this.nextPid;
      this.nextPid += 37;
      this.pids.set(pkg, pid);
      const uid = `u0a${190 + this.pids.size}`;
      this.fromActivityThread(
        'I',
        'ActivityManager',
        `Start proc ${pid}:${pkg}/${uid} for next-top-activity {${pkg}/${pkg}.MainActivity}`,
      );
      const label = this.deps.packages.get(pkg)?.label ?? pkg;
      this.write('main', pid, pid, 'I', tagOf(pkg), `${label} started`);
    }
  }
}

/** The tag an app logs under: its package's last part, capitalised (Notes, Wallet). */
function tagOf(pkg: string): string {
  const last = pkg.split('.').pop() ?? pkg;
  return last.charAt(0).toUpperCase() + last.slice(1);
}

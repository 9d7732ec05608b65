/**
 * What `logcat` means: the argv that dumps a bounded part of the phone's log (buffers, a
 * start time, a pid, `TAG:LEVEL` filter specs, a line count), the `-v threadtime` lines it
 * prints parsed back into entries, and the crashes and ANRs among them: AndroidRuntime's
 * `FATAL EXCEPTION` block (crash buffer) and ActivityManager's `ANR in` block (system buffer).
 * Formats: AOSP system/logging/liblog/logprint.cpp (threadtime: "%s %5d %5d %c %-8s: %s"),
 * frameworks/base RuntimeInit.java (`FATAL EXCEPTION: `, `Process: `, `PID: `) and
 * ProcessErrorStateRecord.java (`ANR in `); sources in main/sim/QUIRKS.md.
 */
import { BridgeError } from '../errors';

export const LOG_LEVELS = ['V', 'D', 'I', 'W', 'E', 'F'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_BUFFERS = ['main', 'system', 'crash', 'events', 'radio'] as const;
export type LogBuffer = (typeof LOG_BUFFERS)[number];

/** A log tag as the bridge accepts it in a filter spec: no spaces, colons or shell metacharacters. */
export const LOG_TAG_PATTERN = /^[A-Za-z0-9_.\-$/]{1,64}$/;

export interface LogcatQuery {
  buffers: readonly LogBuffer[];
  /** Only this process's lines (`--pid`, one per pid given). */
  pid?: number;
  /** Only these tags (each at `minLevel`), everything else silent; absent: all tags. */
  tags?: readonly string[];
  minLevel?: LogLevel;
  /** Lines at or after this phone time (epoch ms). */
  sinceMs?: number;
  /** At most the last this many lines. */
  maxLines: number;
}

/** The argv of one dump (`-d`: prints and exits). Every value is checked; the shell quotes argv. */
export function logcatArgv(query: LogcatQuery): string[] {
  const level = query.minLevel ?? 'V';
  if (!LOG_LEVELS.includes(level)) throw new BridgeError('invalid_arguments', `unknown log level ${String(level)}`);
  if (query.buffers.length === 0 || query.buffers.some((b) => !LOG_BUFFERS.includes(b)))
    throw new BridgeError('invalid_arguments', 'buffers must be some of main, system, crash, events, radio');
  if (!Number.isSafeInteger(query.maxLines) || query.maxLines < 1)
    throw new BridgeError('invalid_arguments', 'maxLines must be a positive integer');
  for (const tag of query.tags ?? []) {
    if (!LOG_TAG_PATTERN.test(tag)) throw new BridgeError('invalid_arguments', `not a log tag: ${JSON.stringify(tag)}`);
  }
  const argv = ['logcat', '-d', '-v', 'threadtime', '-b', query.buffers.join(',')];
  if (query.sinceMs !== undefined) argv.push('-T', epochSeconds(query.sinceMs));
  else argv.push('-t', String(query.maxLines));
  if (query.pid !== undefined) argv.push(`--pid=${query.pid}`);
  if (query.tags && query.tags.length > 0) argv.push(...query.tags.map((t) => `${t}:${level}`), '*:S');
  else argv.push(`*:${level}`);
  return argv;
}

/** `sssss.mmm`: logcat's epoch form of a time (no time zone or year to get wrong). */
function epochSeconds(ms: number): string {
  const whole = Math.max(0, Math.floor(ms));
  return `${Math.floor(whole / 1000)}.${String(whole % 1000).padStart(3, '0')}`;
}

export interface LogEntry {
  /** As the phone printed it, `MM-DD HH:MM:SS.mmm`. */
  time: string;
  pid: number;
  tid: number;
  level: LogLevel;
  tag: string;
  message: string;
}

const THREADTIME = /^(\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})\s+(\d+)\s+(\d+) ([VDIWEF]) (.*?)\s*: (.*)$/;

/** One `-v threadtime` line, or null (a buffer separator, a blank or a foreign line). */
export function parseThreadtimeLine(line: string): LogEntry | null {
  const m = THREADTIME.exec(line.replace(/\r$/, ''));
  if (!m) return null;
  return {
    time: m[1]!,
    pid: Number(m[2]),
    tid: Number(m[3]),
    level: m[4] as LogLevel,
    tag: m[5]!,
    message: m[6]!,
  };
}

export interface AppFailure {
  package: string;
  kind: 'crash' | 'anr';
  /** As the phone's log stamped it (`MM-DD HH:MM:SS.mmm`). */
  at: string;
  pid: number;
  /** The first lines of the trace (crash) or report (ANR), the header first. */
  first_lines: string[];
}

/** Lines of a crash's trace or an ANR's report a result carries. */
export const FAILURE_LINES = 8;

/** A block still receiving lines is handed over once this long has passed without a new one. */
export const FAILURE_SETTLE_MS = 100;

/**
 * Finds crashes and ANRs in log entries as they come, across calls: a header opens one, the
 * lines of the same process and tag that follow fill it (up to FAILURE_LINES). `take()` hands
 * over each once: the finished ones, and the open one once it says what it is about (a
 * crash's `Process:` line and the exception, an ANR's `Reason:`), is full, or no line came
 * for FAILURE_SETTLE_MS; else the next take has it, with the lines still on their way (a
 * block may come in several reads of the stream).
 */
export class FailureDetector {
  /** The block being read, with the process and tag that write its lines (system_server for an ANR). */
  private open: { failure: AppFailure; writer: number; tag: string; lastAt: number } | undefined;
  private ready: AppFailure[] = [];

  constructor(private readonly clock: () => number = Date.now) {}

  push(entry: LogEntry): void {
    if (entry.tag === 'AndroidRuntime' && entry.level === 'E' && entry.message.startsWith('FATAL EXCEPTION')) {
      this.begin(entry, 'crash', '');
      return;
    }
    const anr = entry.tag === 'ActivityManager' ? /^ANR in ([A-Za-z0-9_.:]+)/.exec(entry.message) : null;
    if (anr) {
      this.begin(entry, 'anr', anr[1]!.split(':')[0]!);
      return;
    }
    // Other processes' lines interleave with a block; only its writer's lines under its tag belong to it.
    const open = this.open;
    if (!open || entry.pid !== open.writer || entry.tag !== open.tag) return;
    const failure = open.failure;
    const proc = failure.kind === 'crash' ? /^Process: ([A-Za-z0-9_.:]+), PID: (\d+)$/.exec(entry.message) : null;
    if (proc) failure.package = proc[1]!.split(':')[0]!;
    const pid = failure.kind === 'anr' ? /^PID: (\d+)$/.exec(entry.message) : null;
    if (pid) failure.pid = Number(pid[1]);
    if (failure.first_lines.length < FAILURE_LINES) failure.first_lines.push(entry.message);
    open.lastAt = this.clock();
  }

  /** What was found so far, each once (an open block once it is full or settled). */
  take(): AppFailure[] {
    const open = this.open;
    if (open && (this.identified(open.failure) || this.clock() - open.lastAt >= FAILURE_SETTLE_MS)) this.close();
    const out = this.ready;
    this.ready = [];
    return out;
  }

  /** Enough of the block is in to be worth reporting now. */
  private identified(failure: AppFailure): boolean {
    if (failure.first_lines.length >= FAILURE_LINES) return true;
    if (failure.kind === 'crash') return failure.package !== '' && failure.first_lines.length >= 3;
    return failure.first_lines.some((line) => line.startsWith('Reason: '));
  }

  private begin(entry: LogEntry, kind: AppFailure['kind'], pkg: string): void {
    this.close();
    const failure: AppFailure = {
      package: pkg,
      kind,
      at: entry.time,
      pid: kind === 'crash' ? entry.pid : 0,
      first_lines: [entry.message],
    };
    this.open = { failure, writer: entry.pid, tag: entry.tag, lastAt: this.clock() };
  }

  private close(): void {
    if (this.open) this.ready.push(this.open.failure);
    this.open = undefined;
  }
}

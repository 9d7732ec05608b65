/**
 * `logcat` as the bridge uses it (AOSP system/logging/logcat/logcat.cpp): `-d` dumps and
 * exits, else it follows until the stream closes; `-v threadtime` (the default since Android
 * 7) prints `MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message`; `-b main,system,crash` (or
 * repeated, `all`, `default`); `-t N|TIME` (implies -d) and `-T N|TIME`, where TIME is
 * `MM-DD hh:mm:ss.mmm`, `YYYY-MM-DD hh:mm:ss.mmm` or `sssss.mmm` (epoch seconds);
 * `--pid=PID`; `-m N`; `-s`; filter specs `TAG:L` and `*:L` (V D I W E F S). A dump of
 * several buffers marks each with `--------- beginning of <buffer>`. Also `pidof PKG` and
 * `ps -A` for the processes the phone runs (phone-logcat.ts). The sim's clock is UTC.
 */
import { LOG_BUFFERS, SYSTEM_PROCESSES, type LogBuffer, type LogEntry } from '../phone-logcat';
import { untilAborted } from '../timing-profiles';
import type { CommandIo, PhoneContext } from './command-types';

const LEVELS = ['V', 'D', 'I', 'W', 'E', 'F', 'S'] as const;
const rank = (level: string): number => LEVELS.indexOf(level as (typeof LEVELS)[number]);

const two = (n: number): string => String(n).padStart(2, '0');

/** `MM-DD HH:MM:SS.mmm` in UTC. */
export function threadtimeStamp(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** One entry as `-v threadtime` prints it (logprint.c: "%s %5d %5d %c %-8s: %s"). */
export function threadtimeLine(e: LogEntry): string {
  return `${threadtimeStamp(e.at)} ${String(e.pid).padStart(5)} ${String(e.tid).padStart(5)} ${e.level} ${e.tag.padEnd(8)}: ${e.message}\n`;
}

/** A logcat TIME argument as epoch ms (the year of `now` when it has none), or undefined. */
function parseTime(text: string, now: number): number | undefined {
  const epoch = /^(\d+)\.(\d{1,9})$/.exec(text);
  if (epoch) return Number(epoch[1]) * 1000 + Math.floor(Number(`0.${epoch[2]}`) * 1000);
  const m = /^(?:(\d{4})-)?(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (!m) return undefined;
  const year = m[1] !== undefined ? Number(m[1]) : new Date(now).getUTCFullYear();
  const ms = m[7] !== undefined ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
  return Date.UTC(year, Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
}

interface LogcatArgs {
  dump: boolean;
  buffers: LogBuffer[];
  tail: { count: number } | { since: number } | undefined;
  pid: number | undefined;
  max: number | undefined;
  specs: Map<string, number>;
  fallback: number;
}

function parseArgs(io: CommandIo, now: number): LogcatArgs | string {
  const out: LogcatArgs = {
    dump: false,
    buffers: [],
    tail: undefined,
    pid: undefined,
    max: undefined,
    specs: new Map(),
    fallback: rank('V'),
  };
  const args = io.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const value = (): string | undefined => args[++i];
    if (a === '-d') out.dump = true;
    else if (a === '-s') out.fallback = rank('S');
    else if (a === '-v') {
      const format = value();
      if (format !== 'threadtime') return `Invalid parameter "${format ?? ''}" to -v\n`;
    } else if (a === '-b' || a.startsWith('-b')) {
      const list = a === '-b' ? value() : a.slice(2);
      for (const name of (list ?? '').split(',')) {
        if (name === 'all') out.buffers.push(...LOG_BUFFERS);
        else if (name === 'default') out.buffers.push('main', 'system', 'crash');
        else if ((LOG_BUFFERS as readonly string[]).includes(name)) out.buffers.push(name as LogBuffer);
        else return `unknown buffer ${name}\n`;
      }
    } else if (a === '-t' || a === '-T') {
      const v = value() ?? '';
      if (/^\d+$/.test(v)) out.tail = { count: Number(v) };
      else {
        const since = parseTime(v, now);
        if (since === undefined) return `-${a.slice(1)} "${v}" not in time format\n`;
        out.tail = { since };
      }
      if (a === '-t') out.dump = true;
    } else if (a === '--pid' || a.startsWith('--pid=')) {
      const v = a === '--pid' ? value() : a.slice(6);
      if (!/^\d+$/.test(v ?? '')) return `--pid "${v ?? ''}" invalid\n`;
      out.pid = Number(v);
    } else if (a === '-m') {
      const v = value() ?? '';
      if (!/^\d+$/.test(v)) return `-m "${v}" invalid integer\n`;
      out.max = Number(v);
    } else if (a.startsWith('-')) {
      return `unknown option -- ${a.replace(/^-+/, '')}\n`;
    } else {
      const colon = a.lastIndexOf(':');
      const tag = colon < 0 ? a : a.slice(0, colon);
      const level = colon < 0 ? 'V' : a.slice(colon + 1).toUpperCase();
      if (rank(level) < 0 || tag === '') return `Invalid filter expression '${a}'\n`;
      if (tag === '*') out.fallback = rank(level);
      else out.specs.set(tag, rank(level));
    }
  }
  if (out.buffers.length === 0) out.buffers.push('main', 'system', 'crash');
  out.buffers = [...new Set(out.buffers)];
  return out;
}

function passes(args: LogcatArgs, e: LogEntry): boolean {
  if (args.pid !== undefined && e.pid !== args.pid) return false;
  return rank(e.level) >= (args.specs.get(e.tag) ?? args.fallback);
}

export async function logcatCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  const args = parseArgs(io, phone.now());
  if (typeof args === 'string') {
    io.err(`logcat: ${args}`);
    return 1;
  }
  let shown = args.buffers.length > 0 ? phone.logcat.entries(args.buffers).filter((e) => passes(args, e)) : [];
  if (args.tail && 'count' in args.tail) shown = args.tail.count === 0 ? [] : shown.slice(-args.tail.count);
  else if (args.tail) {
    const since = args.tail.since;
    shown = shown.filter((e) => e.at >= since);
  }
  if (args.max !== undefined) shown = shown.slice(0, args.max);
  const begun = new Set<LogBuffer>();
  let printed = 0;
  const print = (e: LogEntry, write: (text: string) => void): void => {
    if (!begun.has(e.buffer) && args.buffers.length > 1) {
      begun.add(e.buffer);
      write(`--------- beginning of ${e.buffer}\n`);
    }
    write(threadtimeLine(e));
    printed++;
  };
  const writeNow = io.outNow ?? io.out;
  for (const e of shown) print(e, args.dump ? io.out : writeNow);
  if (args.dump || (args.max !== undefined && printed >= args.max)) return 0;
  // Follow: new entries go out as they are written, until -m is reached or the stream closes.
  const done = new AbortController();
  const stop = phone.logcat.follow((e) => {
    if (!args.buffers.includes(e.buffer) || !passes(args, e)) return;
    print(e, writeNow);
    if (args.max !== undefined && printed >= args.max) done.abort();
  });
  try {
    await Promise.race([untilAborted(io.signal), untilAborted(done.signal)]);
  } finally {
    stop();
  }
  return 0;
}

/** `pidof NAME…`: the pids of running processes by name, space-separated; exit 1 when none. */
export function pidofCommand(io: CommandIo, phone: PhoneContext): number {
  const pids: number[] = [];
  for (const name of io.argv.slice(1)) {
    const app = phone.logcat.pidOf(name);
    if (app !== undefined) pids.push(app);
    for (const p of SYSTEM_PROCESSES) if (p.name === name) pids.push(p.pid);
    for (const p of phone.processes.list()) if (p.name === name) pids.push(p.pid);
  }
  if (pids.length === 0) return 1;
  io.out(`${pids.join(' ')}\n`);
  return 0;
}

/** `ps -A` (toybox): USER PID PPID VSZ RSS WCHAN ADDR S NAME for every process. */
export function psCommand(io: CommandIo, phone: PhoneContext): number {
  const rows = [
    ...SYSTEM_PROCESSES.map((p) => ({ user: p.uid, pid: p.pid, name: p.name })),
    ...phone.logcat.appProcesses().map((p, i) => ({ user: `u0_a${191 + i}`, pid: p.pid, name: p.pkg })),
    ...phone.processes.list().map((p) => ({ user: 'shell', pid: p.pid, name: p.name })),
  ];
  io.out('USER            PID   PPID        VSZ    RSS WCHAN            ADDR S NAME                       \n');
  for (const r of rows) {
    const ppid = r.pid === 1 ? 0 : r.name.includes('.') || r.name === 'system_server' ? 1001 : 1;
    io.out(
      `${r.user.padEnd(12)} ${String(r.pid).padStart(6)} ${String(ppid).padStart(6)} ${'14987064'.padStart(10)} ${'98764'.padStart(6)} do_epoll_wait       0 S ${r.name}\n`,
    );
  }
  return 0;
}

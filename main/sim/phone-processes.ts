/**
 * Native processes a shell command leaves running on the simulated phone (minicap today), and
 * the abstract unix sockets they listen on. A process has a pid (shown by `ps -A` and `pidof`,
 * ended by `kill`), a name (its argv[0]'s last part, as toybox shows it) and a signal that
 * aborts when it ends, however it ends: `kill`, its adb shell hanging up, or its own exit.
 * Abstract sockets are what adbd's `localabstract:NAME` service connects to (adbd-services.ts):
 * a name is bound by one process at a time (a second bind fails with EADDRINUSE, as bind(2)
 * does) and is freed when its process ends.
 */
import { EventEmitter } from 'node:events';
import type { PhoneByteChannel } from './phone-device';

/** Signals `kill` knows by name, with their numbers (Linux, arm/x86). */
export const SIGNALS = {
  HUP: 1,
  INT: 2,
  QUIT: 3,
  KILL: 9,
  SEGV: 11,
  TERM: 15,
} as const;

/** A signal's number from its name (`TERM`, `SIGTERM`) or number text; undefined when unknown. */
export function signalNumber(text: string): number | undefined {
  if (/^\d+$/.test(text)) return Number(text);
  const name = text.replace(/^SIG/, '');
  return Object.prototype.hasOwnProperty.call(SIGNALS, name) ? SIGNALS[name as keyof typeof SIGNALS] : undefined;
}

export interface SimProcess {
  readonly pid: number;
  readonly name: string;
  /** Aborts when the process has ended; `reason` is the ending signal number, or undefined for an exit. */
  readonly ended: AbortSignal;
  /** The signal that ended it, or undefined (running, or it exited on its own). */
  readonly endedBy: number | undefined;
  /** Delivers a signal; the process ends unless it handles it (the handler returns true). */
  signal(signum: number): void;
  /** The process ends on its own. */
  exit(): void;
}

export type AbstractSocketAcceptor = (channel: PhoneByteChannel) => Promise<void>;

/** The phone's process table for long-running native processes. Pids start above the shell's. */
export class PhoneProcesses {
  /** 'listen' (name, pid) when a socket is bound; 'exit' (pid, name) when a process ends. Tests wait on these. */
  readonly events = new EventEmitter();
  private readonly running = new Map<number, SimProcess & { endedBy: number | undefined }>();
  private readonly sockets = new Map<string, { pid: number; accept: AbstractSocketAcceptor }>();
  private nextPid = 12_001;

  /**
   * Starts a process entry. `onSignal` may handle a signal (return true: the process keeps
   * running, as minicap does for nothing it does not trap); by default every signal ends it.
   */
  spawn(name: string, onSignal?: (signum: number) => boolean): SimProcess {
    const pid = this.nextPid;
    this.nextPid += 1 + (pid % 7); // real pids are not consecutive: other processes start too
    const controller = new AbortController();
    const entry = {
      pid,
      name,
      endedBy: undefined as number | undefined,
      ended: controller.signal,
      signal: (signum: number): void => {
        if (controller.signal.aborted) return;
        if (signum !== SIGNALS.KILL && onSignal?.(signum) === true) return;
        entry.endedBy = signum;
        end();
      },
      exit: (): void => end(),
    };
    const end = (): void => {
      if (controller.signal.aborted) return;
      this.running.delete(pid);
      for (const [socketName, socket] of this.sockets) if (socket.pid === pid) this.sockets.delete(socketName);
      controller.abort();
      this.events.emit('exit', pid, name);
    };
    this.running.set(pid, entry);
    return entry;
  }

  /** Running processes, oldest first. */
  list(): Array<{ pid: number; name: string }> {
    return [...this.running.values()].map((p) => ({ pid: p.pid, name: p.name }));
  }

  get(pid: number): SimProcess | undefined {
    return this.running.get(pid);
  }

  /**
   * Binds an abstract socket name for a running process; false when the name is taken
   * (bind(2) EADDRINUSE). The binding goes away with the process.
   */
  listen(pid: number, name: string, accept: AbstractSocketAcceptor): boolean {
    if (this.sockets.has(name) || !this.running.has(pid)) return false;
    this.sockets.set(name, { pid, accept });
    this.events.emit('listen', name, pid);
    return true;
  }

  /** Stops listening on `name` (the process closed its server socket); other names stay. */
  unlisten(pid: number, name: string): void {
    if (this.sockets.get(name)?.pid === pid) this.sockets.delete(name);
  }

  /** The acceptor of a listening abstract socket, or undefined (connect(2) ECONNREFUSED). */
  connect(name: string): AbstractSocketAcceptor | undefined {
    return this.sockets.get(name)?.accept;
  }

  /** Ends every process (the phone shuts down). */
  killAll(): void {
    for (const p of [...this.running.values()]) p.signal(SIGNALS.KILL);
  }
}

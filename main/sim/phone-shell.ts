/**
 * Runs a parsed command line like mksh would: expands words (parameters, `$(…)`, field
 * splitting of unquoted expansions), applies redirections, connects pipelines, follows
 * `&&` / `||` / `;`, and runs each simple command through the command registry. Every
 * simple command is reported (exact argv after quote removal) before it runs; unknown
 * names fail with mksh's "inaccessible or not found" (127). Abort stops the script
 * between commands and during each command's simulated delay.
 */
import { lookupCommand } from './commands/registry';
import type { CommandHandler, CommandIo, PhoneContext } from './commands/command-types';
import type { PhoneStdinSource } from './phone-device';
import { runMinicapFile } from './minicap/minicap-command';
import { PhoneFsError, S_IFDIR, S_IFMT, normalizePhonePath } from './phone-fs';
import {
  parseShell,
  ShellSyntaxError,
  type AndOrList,
  type ShellScript,
  type ShellWord,
  type SimpleCommand,
  type Pipeline,
} from './shell-parser';

export const SHELL_NAME = '/system/bin/sh';

export interface ShellHooks {
  phone: PhoneContext;
  signal: AbortSignal;
  /** Called with the argv of each simple command just before it runs. */
  onCommand(argv: readonly string[]): void;
  /** Called with the argv of each simple command once it has run (the phone's log follows its apps). */
  afterCommand?(argv: readonly string[]): void;
  /** Simulated time a command takes before it acts (timing profile). */
  delayFor(argv: readonly string[]): number;
  pid: number;
  /** Receives stdout as written by commands that stream (CommandIo.outNow), when set. */
  onLiveStdout?: ((chunk: Buffer) => void) | undefined;
  /**
   * The phone's lifetime: what a process that outlives its adb shell ends with (`nohup CMD`,
   * or `CMD >FILE 2>&1 &`, whose outputs no longer hold the session open).
   */
  detachedSignal?: AbortSignal;
  /** Bytes for the first command's stdin (a streamed `cmd package install -S SIZE`). */
  stdin?: Buffer | undefined;
  /** The session's stdin as the host writes it (a live `exec:` or raw `shell:`): the first command reads it. */
  stdinSource?: PhoneStdinSource | undefined;
  /**
   * stderr is the same stream as stdout, in the order written (a legacy `shell:` session: one
   * pty or socket for both); the outcome's stderr is then empty.
   */
  mergeStderr?: boolean;
}

export interface ShellOutcome {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
  aborted: boolean;
}

class ShellAborted extends Error {}
class ShellExit extends Error {
  constructor(readonly status: number) {
    super(`exit ${status}`);
  }
}

type Sink = { kind: 'buffer'; chunks: Buffer[] } | { kind: 'null' } | { kind: 'file'; path: string; chunks: Buffer[] };

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function toBuffer(data: string | Buffer): Buffer {
  return typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
}

/** One chunk is returned as is (no copy): a cached 10 MB screencap is not duplicated. */
function joined(chunks: Buffer[]): Buffer {
  return chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks);
}

export class ShellRun {
  private status = 0;
  private readonly stdout: Buffer[] = [];
  private readonly stderr: Buffer[];
  private readonly jobs: Array<Promise<number>> = [];

  constructor(
    private readonly hooks: ShellHooks,
    private readonly vars: Map<string, string>,
    private cwd = '/',
  ) {
    this.stderr = hooks.mergeStderr === true ? this.stdout : [];
  }

  /** Runs the whole script; never throws for script errors. */
  async run(script: ShellScript): Promise<ShellOutcome> {
    let aborted = false;
    try {
      await this.runScript(script);
      await this.waitJobs();
    } catch (error) {
      if (error instanceof ShellExit) this.status = error.status;
      else if (error instanceof ShellAborted) {
        aborted = true;
        this.status = 130;
      } else throw error;
    }
    const stderr = this.stderr === this.stdout ? Buffer.alloc(0) : joined(this.stderr);
    return { stdout: joined(this.stdout), stderr, exitCode: this.status & 0xff, aborted };
  }

  private async runScript(script: ShellScript): Promise<void> {
    for (const item of script.items) {
      const run = async (): Promise<number> => {
        let status = await this.runPipeline(item.first);
        for (const { op, pipeline } of item.rest) {
          if ((op === '&&' && status === 0) || (op === '||' && status !== 0)) status = await this.runPipeline(pipeline);
        }
        return status;
      };
      if (!item.background) {
        await run();
        continue;
      }
      const detached = this.hooks.detachedSignal;
      if (detached && !holdsSessionOutput(item)) {
        // Its stdout and stderr go elsewhere: adbd's session ends with the shell, the job
        // runs on (a SIGHUP goes to the shell's pid only: adbd shell_service.cpp).
        const job = new ShellRun({ ...this.hooks, signal: detached, mergeStderr: false }, new Map(this.vars), this.cwd);
        void job.run({ items: [{ ...item, background: false }] }).catch(() => undefined);
        this.status = 0;
        continue;
      }
      // A background job shares the session's stdout; an abort ends it with the session.
      this.jobs.push(run().catch(() => 0));
      this.status = 0;
    }
  }

  /** `wait`: joins every background job (adb's session also lasts until they end: they hold its stdout). */
  private async waitJobs(): Promise<void> {
    while (this.jobs.length > 0) await this.jobs.shift();
  }

  private async runPipeline(pipeline: Pipeline): Promise<number> {
    let input = this.takeStdin();
    let source = this.takeStdinSource();
    let status = 0;
    for (let i = 0; i < pipeline.commands.length; i++) {
      const command = pipeline.commands[i];
      if (!command) continue;
      const last = i === pipeline.commands.length - 1;
      const pipe: Sink = { kind: 'buffer', chunks: last ? this.stdout : [] };
      status = await this.runSimple(command, input, pipe, source);
      source = undefined;
      input = pipe.kind === 'buffer' && !last ? Buffer.concat(pipe.chunks) : Buffer.alloc(0);
    }
    if (pipeline.negate) status = status === 0 ? 1 : 0;
    this.status = status;
    return status;
  }

  private checkAbort(): void {
    if (this.hooks.signal.aborted) throw new ShellAborted();
  }

  private async runSimple(
    command: SimpleCommand,
    stdin: Buffer,
    stdoutSink: Sink,
    stdinSource?: PhoneStdinSource,
  ): Promise<number> {
    this.checkAbort();
    const assignments: Array<[string, string]> = [];
    const argv: string[] = [];
    for (const word of command.words) {
      const first = word.parts[0];
      if (argv.length === 0 && first?.kind === 'text' && !first.quoted && ASSIGNMENT.test(first.value)) {
        const text = (await this.expandWord(word, false)).join('');
        const eq = text.indexOf('=');
        assignments.push([text.slice(0, eq), text.slice(eq + 1)]);
      } else {
        argv.push(...(await this.expandWord(word, true)));
      }
    }
    const fds = new Map<number, Sink>([
      [1, stdoutSink],
      [2, { kind: 'buffer', chunks: this.stderr }],
    ]);
    let input = stdin;
    let source = stdinSource;
    for (const redirect of command.redirects) {
      const target = (await this.expandWord(redirect.target, false)).join('');
      if (redirect.op === '>&' || redirect.op === '<&') {
        if (target === '-') fds.set(redirect.fd, { kind: 'null' });
        else if (/^\d+$/.test(target)) {
          const source = fds.get(Number(target));
          if (!source) return this.fail(`${target}: bad file descriptor`);
          fds.set(redirect.fd, source);
        } else fds.set(redirect.fd, this.openForWrite(target, false) ?? { kind: 'null' });
        continue;
      }
      if (redirect.op === '<') {
        const data = this.hooks.phone.fs.read(normalizePhonePath(target, this.cwd));
        if (!data) return this.fail(`can't open ${target}: No such file or directory`);
        input = data;
        source = undefined;
        continue;
      }
      const sink = this.openForWrite(target, redirect.op === '>>');
      if (!sink) return 1;
      fds.set(redirect.fd, sink);
    }
    if (argv.length === 0) {
      for (const [name, value] of assignments) this.vars.set(name, value);
      this.flushFiles(fds);
      return this.status;
    }
    this.hooks.onCommand(argv);
    const env = assignments.length > 0 ? new Map([...this.vars, ...assignments]) : this.vars;
    const status = await this.invoke(argv, input, fds, env, this.hooks.signal, source);
    this.flushFiles(fds);
    return status;
  }

  private async invoke(
    argv: string[],
    stdin: Buffer,
    fds: Map<number, Sink>,
    env: ReadonlyMap<string, string>,
    signal: AbortSignal = this.hooks.signal,
    stdinSource?: PhoneStdinSource,
  ): Promise<number> {
    const write = (fd: number) => (data: string | Buffer) => {
      const sink = fds.get(fd);
      if (sink && sink.kind !== 'null') sink.chunks.push(toBuffer(data));
    };
    const name = argv[0] ?? '';
    if ((name === 'sh' || name === SHELL_NAME) && argv[1] === '-c' && argv[2] !== undefined) {
      return this.runChild(argv[2], write(1), write(2));
    }
    if (name === 'wait') {
      await this.waitJobs();
      this.checkAbort();
      return 0;
    }
    if (name === 'nohup' && argv.length > 1) {
      // toybox nohup: the command ignores SIGHUP, so adbd hanging up the shell leaves it running.
      return this.invoke(argv.slice(1), stdin, fds, env, this.hooks.detachedSignal ?? signal, stdinSource);
    }
    const builtin = this.builtin(argv, write(2));
    if (builtin !== undefined) return builtin;
    const handler = lookupCommand(name) ?? (name.includes('/') ? this.fileCommand(name) : undefined);
    if (!handler) {
      write(2)(`${SHELL_NAME}: ${name}: inaccessible or not found\n`);
      return 127;
    }
    if (!(await this.hooks.phone.sleep(this.hooks.delayFor(argv), signal))) throw new ShellAborted();
    const io: CommandIo = {
      argv,
      stdin,
      stdinSource,
      signal,
      cwd: this.cwd,
      out: write(1),
      err: write(2),
      outNow: this.liveWriter(fds, write(1)),
      env,
    };
    const status = await handler(io, this.hooks.phone);
    this.hooks.afterCommand?.(argv);
    this.checkAbort();
    return status;
  }

  /**
   * A file on the phone run by its path (`/data/local/tmp/minicap`): mksh's answers for a
   * file that is missing, not executable, or not a program for this phone; minicap's own
   * files run as minicap (minicap/minicap-command.ts).
   */
  private fileCommand(name: string): CommandHandler | undefined {
    const path = normalizePhonePath(name, this.cwd);
    const stat = this.hooks.phone.fs.stat(path);
    if (!stat || (stat.mode & S_IFMT) === S_IFDIR) return undefined;
    return (io, phone) => {
      if ((stat.mode & 0o111) === 0) {
        io.err(`${SHELL_NAME}: ${name}: can't execute: Permission denied\n`);
        return 126;
      }
      const data = phone.fs.read(path) ?? Buffer.alloc(0);
      const ran = runMinicapFile(io, phone, data);
      if (ran !== undefined) return ran;
      if (data.subarray(0, 4).toString('latin1') === '\x7fELF') {
        // A program the simulator cannot run: said as mksh says it of a foreign ELF.
        io.err(`${SHELL_NAME}: ${name}: not executable: ${data[4] === 2 ? 64 : 32}-bit ELF file\n`);
        return 126;
      }
      io.err(`${SHELL_NAME}: ${name}: can't execute: Exec format error\n`);
      return 126;
    };
  }

  /** The session's stdin, once: the first command of the first pipeline reads it. */
  private takeStdin(): Buffer {
    const stdin = this.hooks.stdin;
    if (!stdin || this.stdinTaken) return Buffer.alloc(0);
    this.stdinTaken = true;
    return stdin;
  }

  private stdinTaken = false;

  /** The session's live stdin, once, like takeStdin: later commands read an empty stdin. */
  private takeStdinSource(): PhoneStdinSource | undefined {
    const source = this.hooks.stdinSource;
    if (!source || this.stdinSourceTaken) return undefined;
    this.stdinSourceTaken = true;
    return source;
  }

  private stdinSourceTaken = false;

  /**
   * CommandIo.outNow: when this command's stdout is the session's own and the caller streams,
   * what was buffered so far goes out first, then `data`; otherwise a plain write.
   */
  private liveWriter(fds: Map<number, Sink>, write: (data: string | Buffer) => void): (data: string | Buffer) => void {
    return (data) => {
      const live = this.hooks.onLiveStdout;
      const sink = fds.get(1);
      if (!live || sink?.kind !== 'buffer' || sink.chunks !== this.stdout) return write(data);
      const pending = this.stdout.splice(0, this.stdout.length);
      if (pending.length > 0) live(Buffer.concat(pending));
      live(toBuffer(data));
    };
  }

  /** Shell builtins that change the shell itself: cd, exit, export, unset. */
  private builtin(argv: string[], err: (data: string) => void): number | undefined {
    const [name, arg] = argv;
    switch (name) {
      case 'cd': {
        const target = normalizePhonePath(arg ?? '/', this.cwd);
        if (!this.hooks.phone.fs.isDirectory(target)) {
          err(`${SHELL_NAME}: cd: ${arg ?? '/'}: No such file or directory\n`);
          return 2;
        }
        this.cwd = target;
        this.vars.set('PWD', target);
        return 0;
      }
      case 'exit':
        throw new ShellExit(arg === undefined ? this.status : Number.parseInt(arg, 10) || 0);
      case 'export':
        for (const a of argv.slice(1)) {
          const eq = a.indexOf('=');
          if (eq > 0) this.vars.set(a.slice(0, eq), a.slice(eq + 1));
        }
        return 0;
      case 'unset':
        for (const a of argv.slice(1)) this.vars.delete(a);
        return 0;
      default:
        return undefined;
    }
  }

  private fail(message: string): number {
    this.stderr.push(Buffer.from(`${SHELL_NAME}: ${message}\n`));
    return 1;
  }

  /** Opens a redirection target: truncates (or creates) it now, like open(2) would. */
  private openForWrite(target: string, append: boolean): Sink | undefined {
    const full = normalizePhonePath(target, this.cwd);
    if (full === '/dev/null') return { kind: 'null' };
    if (full === '/dev/tty') return { kind: 'buffer', chunks: this.stdout };
    try {
      if (append) this.hooks.phone.fs.append(full, Buffer.alloc(0));
      else this.hooks.phone.fs.create(full, Buffer.alloc(0));
    } catch (error) {
      this.fail(`can't create ${target}: ${error instanceof PhoneFsError ? error.message : String(error)}`);
      return undefined;
    }
    return { kind: 'file', path: full, chunks: [] };
  }

  private flushFiles(fds: Map<number, Sink>): void {
    const done = new Set<Sink>();
    for (const sink of fds.values()) {
      if (sink.kind !== 'file' || done.has(sink)) continue;
      done.add(sink);
      if (sink.chunks.length > 0) this.hooks.phone.fs.append(sink.path, Buffer.concat(sink.chunks));
      sink.chunks.length = 0;
    }
  }

  private parameter(name: string): string {
    switch (name) {
      case '?':
        return String(this.status);
      case '$':
        return String(this.hooks.pid);
      case '#':
        return '0';
      case '0':
        return SHELL_NAME;
      case '-':
        return 'h';
      default:
        return this.vars.get(name) ?? '';
    }
  }

  /** `sh -c SCRIPT`: a child shell whose output goes where this command's goes. */
  private async runChild(source: string, out: (d: Buffer) => void, err: (d: string | Buffer) => void): Promise<number> {
    let script: ShellScript;
    try {
      script = parseShell(source);
    } catch (error) {
      if (!(error instanceof ShellSyntaxError)) throw error;
      err(`${SHELL_NAME}: ${error.message}\n`);
      return 2;
    }
    const child = new ShellRun({ ...this.hooks, mergeStderr: false }, new Map(this.vars), this.cwd);
    const outcome = await child.run(script);
    out(outcome.stdout);
    err(outcome.stderr);
    if (outcome.aborted) throw new ShellAborted();
    return outcome.exitCode;
  }

  private async substitute(script: ShellScript): Promise<string> {
    // Its stdout is the value; its stderr goes where this run's stderr goes.
    const child = new ShellRun({ ...this.hooks, mergeStderr: false }, new Map(this.vars), this.cwd);
    const outcome = await child.run(script);
    this.stderr.push(outcome.stderr);
    this.status = outcome.exitCode;
    if (outcome.aborted) throw new ShellAborted();
    return outcome.stdout.toString('utf8').replace(/\n+$/, '');
  }

  /**
   * Expands a word into fields. With `split`, unquoted expansion results are split on
   * blanks; a word that expands to nothing unquoted disappears, while "" stays an empty field.
   */
  private async expandWord(word: ShellWord, split: boolean): Promise<string[]> {
    const fields: string[] = [];
    let current = '';
    let open = false;
    for (const part of word.parts) {
      let value: string;
      if (part.kind === 'text') {
        current += part.value;
        open = true;
        continue;
      }
      if (part.kind === 'param') value = this.parameter(part.name);
      else value = await this.substitute(part.script);
      if (part.quoted || !split) {
        current += value;
        open = true;
        continue;
      }
      const pieces = value.split(/[ \t\n]+/).filter((p) => p !== '');
      if (/^[ \t\n]/.test(value) && open) {
        fields.push(current);
        current = '';
        open = false;
      }
      pieces.forEach((piece, i) => {
        if (i > 0) fields.push(current);
        current = i > 0 ? piece : current + piece;
        open = true;
      });
      if (/[ \t\n]$/.test(value) && open) {
        fields.push(current);
        current = '';
        open = false;
      }
    }
    if (open) fields.push(current);
    return fields;
  }
}

/** The literal text of a word without expansions, or undefined. */
function literal(word: ShellWord): string | undefined {
  return word.parts.every((p) => p.kind === 'text')
    ? word.parts.map((p) => (p.kind === 'text' ? p.value : '')).join('')
    : undefined;
}

/**
 * Whether a background job writes to the session's own stdout or stderr (then adbd's session
 * lasts until it ends, as the job holds the socket): true unless every command sends both
 * elsewhere (`>/dev/null 2>&1`, `>FILE 2>FILE`).
 */
function holdsSessionOutput(item: AndOrList): boolean {
  const pipelines = [item.first, ...item.rest.map((r) => r.pipeline)];
  for (const pipeline of pipelines) {
    for (let i = 0; i < pipeline.commands.length; i++) {
      const command = pipeline.commands[i];
      if (!command) continue;
      const last = i === pipeline.commands.length - 1;
      const fds = new Map<number, 'session' | 'away'>([
        [1, last ? 'session' : 'away'],
        [2, 'session'],
      ]);
      for (const r of command.redirects) {
        if (r.op === '>' || r.op === '>>') fds.set(r.fd, 'away');
        else if (r.op === '>&') {
          const target = literal(r.target);
          if (target === '-') fds.set(r.fd, 'away');
          else if (target !== undefined && /^\d+$/.test(target)) fds.set(r.fd, fds.get(Number(target)) ?? 'away');
          else fds.set(r.fd, 'away');
        }
      }
      if (fds.get(1) === 'session' || fds.get(2) === 'session') return true;
    }
  }
  return false;
}

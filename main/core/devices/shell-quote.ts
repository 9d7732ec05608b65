/**
 * How an operation's argv reaches the phone: quoting for Android's `sh` (mksh/toybox), and
 * the small run helpers every android_* operation shares (per-operation deadline, cancel
 * checks, decoding and exit-status checks). Nothing here ever accepts a command string
 * from outside; callers build argv arrays and the quoting guarantees each element reaches
 * the program exactly as given.
 */
import { BridgeError } from '../errors';
import type { DeviceShell, ShellRunOptions } from './device-shell';

/**
 * Quotes one argument for a POSIX shell: the whole argument goes inside single quotes, where
 * no character is special, and each `'` becomes `'\''` (close, escaped quote, reopen).
 * Always quoting — even plain words — keeps reserved words and mksh aliases (`stop`, `r`,
 * `if` …) from being recognised in command position.
 */
export function quoteShellArg(arg: string): string {
  if (arg.includes('\0')) {
    throw new BridgeError('invalid_arguments', 'a command argument may not contain a NUL byte');
  }
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** Joins argv into one command line for `sh -c`, every element quoted. */
export function buildCommandLine(argv: readonly string[]): string {
  if (argv.length === 0) throw new BridgeError('invalid_arguments', 'a command needs at least one argument');
  return argv.map(quoteShellArg).join(' ');
}

/** What every android_* operation accepts; both are passed through to the DeviceShell. */
export interface OperationOptions {
  /** Deadline for the whole operation (all shell calls it makes), in milliseconds. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const MAX_TIMEOUT_MS = 10 * 60 * 1000;

/**
 * One operation's time budget. An operation that makes several shell calls (typing a long
 * text, a UI dump with a retry) shares one deadline across them, so the caller's timeout
 * bounds the operation, not each step.
 */
export class OperationDeadline {
  private readonly expiresAt: number;
  private readonly signal: AbortSignal | undefined;

  constructor(
    options: OperationOptions | undefined,
    defaultTimeoutMs: number,
    private readonly what: string,
  ) {
    const timeoutMs = options?.timeoutMs ?? defaultTimeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMEOUT_MS) {
      throw new BridgeError(
        'invalid_arguments',
        `timeoutMs must be between 1 and ${MAX_TIMEOUT_MS}, got ${String(timeoutMs)}`,
      );
    }
    this.expiresAt = Date.now() + timeoutMs;
    this.signal = options?.signal;
    this.check();
  }

  /** Throws when the caller canceled or the budget is spent. */
  check(): void {
    if (this.signal?.aborted) throw new BridgeError('canceled', `${this.what} was canceled`);
    if (Date.now() >= this.expiresAt) throw new BridgeError('command_timeout', `${this.what} did not finish in time`);
  }

  /** Options for the next shell call: what is left of the budget, and the caller's signal. */
  next(): ShellRunOptions {
    this.check();
    const options: ShellRunOptions = { timeoutMs: this.expiresAt - Date.now() };
    if (this.signal) options.signal = this.signal;
    return options;
  }

  /** A bounded budget for cleanup that must run even after the caller aborted. */
  static cleanup(timeoutMs: number): ShellRunOptions {
    return { timeoutMs };
  }
}

export interface TextOutput {
  /** stdout decoded as UTF-8, with CRLF (pty line endings) turned into LF. */
  text: string;
  exitCode: number | undefined;
}

/** Runs argv and decodes its output; does not judge the exit status. */
export async function runText(
  shell: DeviceShell,
  argv: readonly string[],
  options: ShellRunOptions,
): Promise<TextOutput> {
  const out = await shell.run(argv, options);
  return { text: out.stdout.toString('utf8').replaceAll('\r\n', '\n'), exitCode: out.exitCode };
}

/** Runs argv; a non-zero exit status becomes BridgeError('command_failed') quoting the output. */
export async function runChecked(
  shell: DeviceShell,
  argv: readonly string[],
  options: ShellRunOptions,
): Promise<string> {
  const out = await runText(shell, argv, options);
  if (out.exitCode !== undefined && out.exitCode !== 0) {
    throw new BridgeError(
      'command_failed',
      `${argv[0] ?? 'command'} exited with status ${out.exitCode}${excerpt(out.text)}`,
      {
        exitCode: out.exitCode,
      },
    );
  }
  return out.text;
}

/** `: <first lines of output>` for error messages; empty when there is no output. */
export function excerpt(text: string, maxChars = 300): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  return `: ${trimmed.length > maxChars ? `${trimmed.slice(0, maxChars)}…` : trimmed}`;
}

/**
 * One running xagent UI reader on one phone: started with `app_process` as the shell user in
 * the foreground of one adb `exec:` stream, spoken to on its standard input and output
 * (protocol 1, ui-reader-wire.ts). Nothing on the phone listens: only this stream reaches it,
 * and when the bridge or adb goes, adbd closes the stream and the reader exits at EOF.
 *
 * - Requests go one at a time, each with a deadline and an AbortSignal; answers come in the
 *   order of requests. A canceled request's answer is still read and dropped, so the stream
 *   stays in step. A request past its deadline ends the reader (a phone that does not answer a
 *   read in that time is stuck; the next call must not wait on it again).
 * - **Outcomes.** Reads only read, so every failure lets the caller read another way, in the
 *   same call. A reader found dead before the request was written is `helper_unavailable`
 *   (nothing was asked of it); one that ends before answering is `command_failed` (reason
 *   `reader_ended`), one that answers `error …` is `command_failed` (reason `reader_read_failed`: it goes on).
 * - Stop: `quit`, a short wait for the stream to end, else the stream is destroyed and the
 *   reader's pid (from its `ready` line) is killed through the shell. `ended` resolves when the
 *   stream ends for any reason, so a reader that dies on its own is seen by the lifecycle.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, runText } from '../devices/shell-quote';
import {
  PHONE_UIAUTOMATOR_JAR,
  UI_READER_DUMP_FILE,
  UI_READER_JAR_REMOTE,
  UI_READER_MAIN_CLASS,
} from './ui-reader-jar';
import {
  MAX_ANSWER_BYTES,
  requestLine,
  UI_READER_PROTOCOL,
  UiReaderWireParser,
  type ReaderDisplay,
  type ReaderMessage,
} from './ui-reader-wire';

/** After `quit`, the reader disconnects UiAutomation and exits: well under this on a real phone. */
export const UI_READER_QUIT_WAIT_MS = 1_500;
const KILL_TIMEOUT_MS = 5_000;
/** The reader's last lines outside the protocol (ART's complaints, a stack trace), for the card. */
const KEEP_LINES = 20;

export interface ReaderCallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The shell line that starts the reader: a fixed CLASSPATH assignment, then every word quoted. */
export function uiReaderCommandLine(): string {
  return `CLASSPATH=${PHONE_UIAUTOMATOR_JAR}:${UI_READER_JAR_REMOTE} ${buildCommandLine([
    'app_process',
    '/',
    UI_READER_MAIN_CLASS,
    String(UI_READER_PROTOCOL),
    UI_READER_DUMP_FILE,
  ])}`;
}

type AnswerKind = 'tree' | 'focus';

interface Pending {
  kind: AnswerKind;
  /** The caller stopped waiting (canceled): its answer is read and dropped. */
  abandoned: boolean;
  settle: (message: ReaderMessage | Error) => void;
}

type SessionState = 'starting' | 'running' | 'stopping' | 'ended';

export class UiReaderSession {
  private state: SessionState = 'starting';
  private readonly parser = new UiReaderWireParser();
  /** Requests written and not yet answered, oldest first. */
  private readonly pending: Pending[] = [];
  private readonly lines: string[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private readyWaiter: ((message: ReaderMessage | Error) => void) | undefined;
  private endedWith: Error | undefined;
  private markEnded!: () => void;
  /** The reader's pid on the phone (its `ready` line), 0 before it. */
  pid = 0;
  /** Resolves with the reader's last lines outside the protocol when its stream ends (exit, crash, stop). */
  readonly ended: Promise<string>;

  private constructor(
    private readonly shell: DeviceShell,
    private readonly stream: Duplex,
  ) {
    this.ended = new Promise<void>((resolve) => (this.markEnded = resolve)).then(() => this.lastOutput());
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    const gone = (): void => this.gone(null);
    stream.once('end', gone);
    stream.once('close', gone);
    stream.once('error', (error: Error) => this.gone(error));
    stream.resume();
  }

  /**
   * Starts the reader from the jar already checked on the phone (installUiReaderJar, the
   * lifecycle's verify step, just before) and waits for its `ready` line within `timeoutMs`.
   */
  static async start(shell: DeviceShell, options: ReaderCallOptions): Promise<UiReaderSession> {
    if (!shell.openStream)
      throw new BridgeError('tool_unavailable', 'this connection to the phone cannot open streams');
    if (options.signal?.aborted) throw new BridgeError('canceled', 'the UI reader’s start was canceled');
    const started = performance.now();
    const signalOpt = options.signal ? { signal: options.signal } : {};
    const stream = await shell.openStream(`exec:${uiReaderCommandLine()}`, {
      timeoutMs: options.timeoutMs,
      ...signalOpt,
    });
    const session = new UiReaderSession(shell, stream);
    const left = Math.max(1, options.timeoutMs - (performance.now() - started));
    try {
      await session.awaitReady(left, options.signal);
    } catch (error) {
      session.destroy();
      throw error;
    }
    return session;
  }

  get running(): boolean {
    return this.state === 'running';
  }

  /** What the reader printed outside the protocol, last lines last. */
  lastOutput(): string {
    return this.lines.join('\n');
  }

  /** The active window's tree, as stock `uiautomator dump` writes it. */
  async tree(display: ReaderDisplay, options: ReaderCallOptions): Promise<string> {
    const answer = await this.request('tree', display, options);
    if (answer === null)
      throw new BridgeError('command_failed', 'the UI reader found no active window to read', {
        reason: 'reader_no_window',
      });
    return answer;
  }

  /** The subtree of the node with input focus (rooted at `<hierarchy>`), or null when nothing has focus. */
  focus(display: ReaderDisplay, options: ReaderCallOptions): Promise<string | null> {
    return this.request('focus', display, options);
  }

  /** Ends the reader and waits (briefly) for it to be gone; idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const wasLive = this.state === 'running' || this.state === 'starting';
      if (wasLive) this.state = 'stopping';
      if (wasLive && this.stream.writable) {
        this.stream.write('quit\n');
      }
      let timer: NodeJS.Timeout | undefined;
      const exited = await Promise.race([
        this.ended.then(() => true),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), UI_READER_QUIT_WAIT_MS))),
      ]);
      clearTimeout(timer);
      this.destroy();
      // It did not go at `quit` (stuck in a read): closing the stream makes it exit at EOF on
      // its own; the kill makes sure, since it holds the phone's one UiAutomation connection.
      if (!exited && this.pid > 0)
        await runText(this.shell, ['kill', String(this.pid)], { timeoutMs: KILL_TIMEOUT_MS }).catch(() => undefined);
    })();
    return this.stopping;
  }

  // ---- inside ---------------------------------------------------------------------------------

  private request(kind: AnswerKind, display: ReaderDisplay, options: ReaderCallOptions): Promise<string | null> {
    return this.serial(async () => {
      if (options.signal?.aborted) throw new BridgeError('canceled', 'the read was canceled');
      const line = requestLine(kind, display);
      // Before anything is written: a reader that is gone was asked nothing (the caller may read another way).
      if (this.state !== 'running' || !this.stream.writable)
        throw new BridgeError(
          'helper_unavailable',
          `the UI reader is not running on the phone${this.endedWith ? ` (${this.endedWith.message})` : ''}; nothing was asked`,
        );
      const answer = await new Promise<ReaderMessage>((resolve, reject) => {
        const entry: Pending = {
          kind,
          abandoned: false,
          settle: (message) => {
            clearTimeout(timer);
            options.signal?.removeEventListener('abort', onAbort);
            if (message instanceof Error) reject(message);
            else resolve(message);
          },
        };
        const onAbort = (): void => {
          // The answer still comes: it is read and dropped, and the reader goes on.
          entry.abandoned = true;
          entry.settle(new BridgeError('canceled', 'the read was canceled'));
        };
        const timer = setTimeout(() => {
          const error = new BridgeError(
            'command_timeout',
            `the UI reader did not answer within ${Math.round(options.timeoutMs)} ms`,
            { reason: 'reader_timeout' },
          );
          entry.settle(error);
          // A reader that does not answer in that time is stuck: ended, so no later call waits on it.
          this.fail(error);
        }, options.timeoutMs);
        options.signal?.addEventListener('abort', onAbort, { once: true });
        this.pending.push(entry);
        this.stream.write(line);
      });
      return this.answerOf(kind, answer);
    });
  }

  private answerOf(kind: AnswerKind, message: ReaderMessage): string | null {
    switch (message.kind) {
      case 'tree':
      case 'focus':
        if (message.kind !== kind)
          throw new BridgeError('command_failed', `the UI reader answered ${message.kind} to ${kind}`);
        return message.xml;
      case 'none':
        return null;
      case 'error':
        throw new BridgeError('command_failed', `the UI reader could not read the screen: ${message.message}`, {
          reason: 'reader_read_failed',
        });
      case 'too_large':
        // The same refusal (and fix) as the stock dump's for a tree past the same size.
        throw new BridgeError(
          'screen_unreadable',
          `the screen's UI tree is too large to read (${Math.round(message.bytes / 1048576)} MB of XML, more than ${MAX_ANSWER_BYTES / 1048576} MB). Fix: use android_screenshot and tap by coordinates, or scroll to a simpler screen`,
          { reason: 'reader_too_large' },
        );
      default:
        throw new BridgeError('internal_error', `unexpected ${message.kind} from the UI reader`);
    }
  }

  private awaitReady(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const done = (error: Error | null): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.readyWaiter = undefined;
        if (error) reject(error);
        else resolve();
      };
      const onAbort = (): void => done(new BridgeError('canceled', 'the UI reader’s start was canceled'));
      const timer = setTimeout(
        () =>
          done(
            new BridgeError(
              'command_timeout',
              `the UI reader was not ready within ${Math.round(timeoutMs)} ms${tail(this.lastOutput())}`,
              { reason: 'reader_timeout' },
            ),
          ),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.readyWaiter = (message) => {
        if (message instanceof Error) return done(message);
        if (message.kind === 'ready') {
          if (message.protocol !== UI_READER_PROTOCOL)
            return done(
              new BridgeError(
                'tool_unavailable',
                `the phone’s UI reader speaks protocol ${message.protocol}, the bridge ${UI_READER_PROTOCOL}`,
                { reason: 'reader_version_mismatch' },
              ),
            );
          this.pid = message.pid;
          this.state = 'running';
          return done(null);
        }
        if (message.kind === 'error') return done(startRefused(message.message));
      };
      if (this.state === 'ended') this.readyWaiter(this.endedWith ?? endedBeforeReady(this.lastOutput()));
    });
  }

  private onData(chunk: Buffer): void {
    let messages: ReaderMessage[];
    try {
      messages = this.parser.push(chunk);
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (const message of messages) {
      if (message.kind === 'other' || (message.kind === 'ready' && this.state !== 'starting')) {
        this.note(message.kind === 'other' ? message.line : `ready ${message.pid}`);
        continue;
      }
      if (this.state === 'starting') {
        if (message.kind === 'error') this.note(`error ${message.message}`);
        this.readyWaiter?.(message);
        continue;
      }
      const head = this.pending.shift();
      if (!head) {
        // An answer nobody asked for: the stream is out of step; nothing later can be trusted.
        this.fail(new BridgeError('helper_unavailable', 'the UI reader answered a request it was not sent'));
        return;
      }
      if (!head.abandoned) head.settle(message);
    }
  }

  private note(line: string): void {
    this.lines.push(line);
    if (this.lines.length > KEEP_LINES) this.lines.splice(0, this.lines.length - KEEP_LINES);
  }

  /** The stream ended (the reader exited, crashed, or was stopped): whatever waits is told. */
  private gone(error: Error | null): void {
    if (this.state === 'ended') return;
    const wasStarting = this.state === 'starting';
    this.state = 'ended';
    const why =
      this.endedWith ??
      (wasStarting
        ? endedBeforeReady(this.lastOutput())
        : new BridgeError(
            'command_failed',
            `the UI reader ended${error ? ` (${error.message})` : ''}${tail(this.lastOutput())}`,
            { reason: 'reader_ended' },
          ));
    this.endedWith = why;
    this.readyWaiter?.(why);
    for (const entry of this.pending.splice(0)) if (!entry.abandoned) entry.settle(why);
    this.markEnded();
  }

  /** Ends the session with this error (a broken stream, a stuck reader). */
  private fail(error: Error): void {
    this.endedWith ??= isBridgeError(error) ? error : new BridgeError('command_failed', error.message);
    this.destroy();
    this.gone(null);
    if (this.pid > 0)
      void runText(this.shell, ['kill', String(this.pid)], { timeoutMs: KILL_TIMEOUT_MS }).catch(() => undefined);
  }

  private destroy(): void {
    if (!this.stream.destroyed) this.stream.destroy();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The reader said why it could not start (`error <line>`, then it exits). */
function startRefused(line: string): BridgeError {
  if (line === 'usage')
    return new BridgeError('tool_unavailable', 'the phone’s UI reader did not accept the bridge’s arguments', {
      reason: 'reader_version_mismatch',
    });
  // Another UiAutomation (a `uiautomator dump`, a test runner, UIA2) holds the phone: it may let go.
  return new BridgeError('command_failed', `the UI reader could not connect to the phone’s UI: ${line}`, {
    reason: 'reader_connect_failed',
  });
}

function endedBeforeReady(output: string): BridgeError {
  // An Android without the stock uiautomator classes it uses cannot run it: ClassNotFound/NoClassDefFound.
  if (/ClassNotFoundException|NoClassDefFoundError|NoSuchMethodError/.test(output))
    return new BridgeError('tool_unavailable', `this phone cannot run the UI reader${tail(output)}`, {
      reason: 'reader_unsupported',
    });
  return new BridgeError('command_failed', `the UI reader ended before it was ready${tail(output)}`, {
    reason: 'reader_ended',
  });
}

function tail(output: string): string {
  const last = output.trim().split('\n').at(-1) ?? '';
  return last ? `: ${last.slice(0, 200)}` : '';
}

/**
 * Lines from a command's stdin as a Java program's BufferedReader.readLine gives them: the live
 * stdin of an adb stream (read as the host writes it) or, when the command line was not run
 * live, the whole stdin it was given. A line ends at "\n" (a "\r" before it is dropped); the
 * last line needs none; after it comes EOF.
 */
import type { CommandIo } from '../commands/command-io';
import type { PhoneStdinSource } from '../phone-device';

const ENDED = Symbol('ended');

export class StdinLines {
  private buffered: Buffer;
  private eof: boolean;
  private readonly source: PhoneStdinSource | undefined;
  /** The read in flight, kept across an abort race so no bytes are lost or read twice. */
  private pending: Promise<Buffer | undefined> | undefined;

  constructor(io: Pick<CommandIo, 'stdin' | 'stdinSource'>) {
    this.source = io.stdinSource;
    this.buffered = this.source ? Buffer.alloc(0) : io.stdin;
    this.eof = this.source === undefined;
  }

  /** The next line, or undefined at EOF or once `ended` aborts. */
  async next(ended: AbortSignal): Promise<string | undefined> {
    for (;;) {
      const newline = this.buffered.indexOf(0x0a);
      if (newline >= 0) {
        const line = this.buffered.subarray(0, newline).toString('utf8');
        this.buffered = this.buffered.subarray(newline + 1);
        return line.endsWith('\r') ? line.slice(0, -1) : line;
      }
      if (this.eof || !this.source) {
        if (this.buffered.length === 0) return undefined;
        const last = this.buffered.toString('utf8');
        this.buffered = Buffer.alloc(0);
        return last;
      }
      if (ended.aborted) return undefined;
      this.pending ??= this.source.read();
      const got = await raceAbort(this.pending, ended);
      if (got === ENDED) return undefined;
      this.pending = undefined;
      if (got === undefined) this.eof = true;
      else this.buffered = this.buffered.length === 0 ? got : Buffer.concat([this.buffered, got]);
    }
  }
}

/** `promise`'s value, or ENDED when `signal` aborts first; the listener is removed either way. */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof ENDED> {
  if (signal.aborted) return Promise.resolve(ENDED);
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ENDED>((resolve) => {
    onAbort = () => resolve(ENDED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  });
}

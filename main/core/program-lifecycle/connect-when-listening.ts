/**
 * Connecting to a program the bridge just started on a phone (scrcpy-server, minicap) on its
 * `localabstract:` socket: the program listens only once it has set itself up, and adbd refuses
 * a connection to a name nobody listens on yet, so the connection is tried again until the
 * program listens, the program ends (its own words then say why), or the deadline passes.
 *
 * The one rule: a refusal before the deadline is "not listening yet", never a failure; only
 * the phone going away (`device_offline`) or a cancel ends the wait early.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import { pauseFor } from '../devices/deadline';

/** How long between two tries: a JVM start takes hundreds of ms, a native one a few. */
export const CONNECT_RETRY_MS = 20;

export interface ConnectWhenListeningOptions {
  /** Opens the program's socket through adb, within `timeoutMs`. */
  open: (timeoutMs: number) => Promise<Duplex>;
  /** A connection is taken only once this resolves (scrcpy's first byte); a failure is "not yet". */
  accepted?: (socket: Duplex, timeoutMs: number) => Promise<void>;
  /** The program's end, when it ended before listening: the error to give (its own last words). */
  ended: () => Error | null;
  /** When the wait ends (performance.now()). */
  deadline: number;
  /** Names the program in the deadline's error ("minicap did not start listening within …"). */
  what: string;
  /** The whole start's time, for the deadline's words. */
  timeoutMs: number;
  signal?: AbortSignal;
  retryMs?: number;
}

/** The program's socket once it listens (and accepted); rejects as described above. */
export async function connectWhenListening(options: ConnectWhenListeningOptions): Promise<Duplex> {
  const left = (): number => Math.max(1, options.deadline - performance.now());
  for (;;) {
    const ended = options.ended();
    if (ended) throw ended;
    let socket: Duplex | undefined;
    try {
      socket = await options.open(left());
      if (options.accepted) await options.accepted(socket, left());
      return socket;
    } catch (error) {
      socket?.destroy();
      if (options.signal?.aborted) throw error;
      if (isBridgeError(error) && error.code === 'device_offline') throw error;
      if (performance.now() >= options.deadline) {
        const endedNow = options.ended();
        if (endedNow) throw endedNow;
        throw new BridgeError(
          'command_timeout',
          `${options.what} did not start listening within ${options.timeoutMs} ms`,
        );
      }
      await pauseFor(options.retryMs ?? CONNECT_RETRY_MS, options.signal);
    }
  }
}

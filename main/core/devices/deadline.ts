/**
 * Deadlines for external calls: every adb call races a timer and an optional AbortSignal,
 * and runs `onCancel` (closing the stream) when it loses, so nothing waits forever.
 */
import { BridgeError } from '../errors';

/**
 * Deadline of one short command on a phone (a hash, a kill, a rotation read, a dumpsys, a
 * force-stop, opening a stream): well under a second on a responsive phone; 10 s is for a busy
 * one, past which the phone is taken as not answering.
 */
export const SHORT_COMMAND_MS = 10_000;

export async function withDeadline<T>(
  work: Promise<T>,
  options: { timeoutMs: number; signal?: AbortSignal; what: string; onCancel?: () => void },
): Promise<T> {
  const { timeoutMs, signal, what, onCancel } = options;
  if (signal?.aborted) {
    onCancel?.();
    throw new BridgeError('canceled', `${what} was canceled`);
  }
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onCancel?.();
      reject(new BridgeError('command_timeout', `${what} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    if (signal) {
      onAbort = () => {
        onCancel?.();
        reject(new BridgeError('canceled', `${what} was canceled`));
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    if (timer) clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener('abort', onAbort);
    // the losing promise must not become an unhandled rejection
    work.catch(() => undefined);
  }
}

/**
 * Waits `ms`, or less when `signal` aborts (resolves either way: the caller checks the signal).
 * The timer and the abort listener are released when it ends, so a loop that pauses on one
 * long-lived signal leaves nothing attached to it.
 */
export function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * What a simulated shell command sees: its argv, stdin and output streams. A leaf module so the
 * helper runtime (helper/helper-runtime.ts) can take it without importing the phone context back.
 */
import type { PhoneStdinSource } from '../phone-device';

export interface CommandIo {
  readonly argv: readonly string[];
  readonly stdin: Buffer;
  /**
   * stdin as the host writes it, for a command that runs live over an adb stream and reads its
   * requests as they come (`stdin` is then empty); undefined otherwise.
   */
  readonly stdinSource?: PhoneStdinSource | undefined;
  readonly signal: AbortSignal;
  /** Working directory for relative paths (adb shell starts in /). */
  readonly cwd: string;
  out: (data: string | Buffer) => void;
  err: (data: string | Buffer) => void;
  /**
   * Writes to stdout and, when the caller streams this command line's output (a long-running
   * `am instrument -w` over adb), delivers it now instead of when the line finishes.
   */
  outNow?: (data: string | Buffer) => void;
  /** The command's environment: the shell's variables plus `NAME=value` words before it. */
  readonly env?: ReadonlyMap<string, string>;
}

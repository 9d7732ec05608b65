/**
 * DeviceShell: everything the android_* operations may ask of one phone. The only
 * implementation over adb lives in adb-device-shell.ts; tests use fakes or the simulator.
 *
 * Commands are given as argv arrays. The implementation quotes every element for the
 * device's `sh` (see shell-quote.ts), so no argument is ever interpreted by a shell.
 */
import type { Duplex } from 'node:stream';

export interface ShellRunOptions {
  /** Hard deadline; the call rejects with BridgeError('command_timeout') past it. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface ShellOutput {
  stdout: Buffer;
  /** Exit status of the command when the transport reports it; undefined when unknown. */
  exitCode: number | undefined;
}

export interface DeviceShell {
  /** Runs one command (argv, quoted by the implementation) through `shell:`; text output. */
  run(argv: readonly string[], options: ShellRunOptions): Promise<ShellOutput>;
  /** Runs one command through `exec:` for raw binary output (screencap). */
  execOut(argv: readonly string[], options: ShellRunOptions): Promise<Buffer>;
  /** Writes a file on the phone through sync (`adb push`). */
  push(
    data: Buffer | NodeJS.ReadableStream,
    remotePath: string,
    options: ShellRunOptions & { mode?: number },
  ): Promise<void>;
  /**
   * How commands learn their exit status: `v2` (adb's shell protocol), `legacy` (a plain
   * `shell:` stream with a status marker appended: an adbd without shell_v2), or null before
   * the first command; absent on fakes.
   */
  shellProtocol?(): 'v2' | 'legacy' | null;
  /** Reads a file from the phone through sync (`adb pull`). */
  pull(remotePath: string, options: ShellRunOptions): Promise<Buffer>;
  /**
   * The argv as this shell would send it (aimed at the display in use: tools/display-tracker.ts),
   * for a command that runs inside a script (`sh -c`) where the shell cannot see it; absent: as is.
   */
  aim?(argv: readonly string[], options: ShellRunOptions): Promise<readonly string[]>;
  /** A raw device service stream such as `tcp:6790` (the fast lane's helper); absent on fakes that have none. */
  openStream?(service: string, options: ShellRunOptions): Promise<Duplex>;
}

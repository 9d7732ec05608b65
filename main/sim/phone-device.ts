/**
 * The seam between the simulated adbd transport (adbd-server.ts, sync-service.ts) and the
 * simulated phone behind it (phone.ts). The transport speaks the adb wire protocol and maps
 * services (`shell:`, `shell,v2,…:`, `exec:`, `sync:`) onto these calls; the phone owns the
 * command line, the file system, the screen and the argv log.
 */

/** Result of running one command line on the phone. */
export interface ShellResult {
  stdout: Buffer;
  stderr: Buffer;
  exitCode: number;
}

/** One entry of the phone's in-memory file system. */
export interface PhoneFileStat {
  /** Unix mode bits including the file type (0o100644 for a file, 0o040755 for a folder). */
  mode: number;
  size: number;
  /** Modification time in seconds since the epoch. */
  mtime: number;
}

export interface PhoneFileSystem {
  stat(path: string): PhoneFileStat | undefined;
  /** Names (not paths) with their stats of a folder's entries; undefined when not a folder. */
  list(path: string): Array<{ name: string; stat: PhoneFileStat }> | undefined;
  read(path: string): Buffer | undefined;
  /** Creates parent folders as needed. */
  write(path: string, data: Buffer, mode: number, mtime: number): void;
}

/** What the transport tells adb about the phone in its CNXN banner. */
export interface PhoneIdentity {
  serial: string;
  /** ro.product.name, ro.product.model, ro.product.device */
  product: string;
  model: string;
  device: string;
}

/**
 * A running command's stdin as the host writes it on the adb stream: each read gives the next
 * bytes that arrived (waiting for at least one), undefined once the host closed its side (EOF).
 * One read at a time; bytes the command never reads stay in the stream's flow control.
 */
export interface PhoneStdinSource {
  read(): Promise<Buffer | undefined>;
}

/** Options of PhoneDevice.execLive. */
export interface LiveExecOptions {
  signal: AbortSignal;
  /** Bytes the command line reads on stdin, all known before it starts (a streamed install). */
  stdin?: Buffer | undefined;
  /** Or stdin as it comes: what the host writes after the command started (a resident program's requests). */
  stdinSource?: PhoneStdinSource | undefined;
  /** Receives stdout as a streaming command writes it (the result then holds only the rest). */
  onStdout: (chunk: Buffer) => void;
}

/** A byte pipe as the phone's TCP services see it (an adb stream fits). */
export interface PhoneByteChannel {
  readSome(): Promise<Buffer | undefined>;
  write(data: Buffer): Promise<void>;
  close(): void;
  readonly signal: AbortSignal;
}

export interface PhoneDevice {
  identity(): PhoneIdentity;
  /**
   * Runs one command line (as `sh -c` would on Android) and resolves when it finishes.
   * A command that hangs resolves only when `signal` aborts (the stream was closed).
   * `mergeStderr`: stderr goes into stdout in the order written (legacy `shell:`).
   */
  exec(commandLine: string, options: { signal: AbortSignal; mergeStderr?: boolean }): Promise<ShellResult>;
  readonly fs: PhoneFileSystem;
  /** Whether a command line's output must reach the host while it runs (`am instrument -w`). */
  streamsOutput?(commandLine: string): boolean;
  /** Like exec, with stdin and with stdout delivered as written (see LiveExecOptions). */
  execLive?(commandLine: string, options: LiveExecOptions): Promise<ShellResult>;
  /** The device side of `tcp:PORT` (adb forward): a handler while a process listens, else undefined. */
  openTcp?(port: number): ((channel: PhoneByteChannel) => Promise<void>) | undefined;
  /**
   * The device side of `localabstract:NAME`: a handler while a phone process listens on that
   * abstract unix socket (minicap), else undefined (connect fails; adbd refuses the stream).
   */
  openLocalAbstract?(name: string): ((channel: PhoneByteChannel) => Promise<void>) | undefined;
  /** Named quirks (phone-quirks.ts) the transport honours too, e.g. no-shell-v2 in the CNXN features. */
  quirks?(): readonly string[];
}

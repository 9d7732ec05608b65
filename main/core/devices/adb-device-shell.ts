/**
 * DeviceShell over adbkit for one (ADB server, serial). Every call has a deadline; on
 * timeout or cancel the adb stream is destroyed so the phone-side command ends too.
 * adb transport errors are mapped to stable codes (offline, unauthorized, not found).
 */
import type { Duplex, Readable } from 'node:stream';
import type { Client } from '@devicefarmer/adbkit';
import { BridgeError, isBridgeError } from '../errors';
import { buildCommandLine } from './shell-quote';
import type { DeviceShell, ShellOutput, ShellRunOptions } from './device-shell';
import { withDeadline } from './deadline';
import { encodeAdbRequest } from './adb-host-service';
import { SpareConnectionPool } from './spare-connection';

/** Appended to `shell:` commands so the exit status survives adb's legacy shell protocol. */
const EXIT_MARKER = '__XB_EXIT_7f3a__';
/** Shell protocol v2 packet ids (adb's shell_protocol.h): [id u8][length u32 LE][payload]. */
const V2_STDOUT = 1;
const V2_STDERR = 2;
const V2_EXIT = 3;
const V2_CLOSE_STDIN = 4;
const V2_HEADER = 5;
/** How long the "why was the output cut" probe may take. */
const CUT_PROBE_MS = 1_500;
/** A connection opened ahead for the next command is closed when no command comes this long. */
const SPARE_IDLE_MS = 20_000;
/** Connections kept ready per phone at most: android_device_status sends six commands at once. */
const MAX_SPARES = 6;

export function mapAdbError(error: unknown, serial: string): BridgeError {
  if (isBridgeError(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/unauthorized/i.test(message))
    return new BridgeError(
      'device_unauthorized',
      'the phone has not accepted this computer’s RSA key; confirm the USB debugging prompt on the phone',
    );
  if (/offline/i.test(message)) return new BridgeError('device_offline', 'the phone is offline');
  if (/not found|no devices|device .* not found/i.test(message))
    return new BridgeError('device_offline', 'the phone is no longer connected');
  // `start-server`: adbkit found no server and could not start one (autoStart is off).
  if (
    /ECONNREFUSED|ECONNRESET|EPIPE|closed|socket hang up|ETIMEDOUT|Premature end of stream|start-server/i.test(message)
  ) {
    return new BridgeError('adb_unavailable', `the ADB server is not reachable (${serial})`);
  }
  return new BridgeError('command_failed', `adb: ${message.slice(0, 200)}`);
}

/**
 * Most a phone (or an ADB server) may send for one command or file before the bridge stops
 * reading: a 4K tablet's raw screenshot is 33 MB, a 30 s recording or the helper's APK tens of
 * MB. Beyond it the command fails with `output_too_large` instead of filling the memory.
 */
export const MAX_DEVICE_OUTPUT_BYTES = 256 * 1024 * 1024;

/**
 * Most one phone's reads may hold at once, all its commands together: a phone runs a control
 * command and four observation reads at a time, so a cap per command alone let one phone fill
 * about 1 GiB (#36 point 6).
 */
export const MAX_PHONE_OUTPUT_BYTES = MAX_DEVICE_OUTPUT_BYTES;

/**
 * The bytes one phone's reads hold at once: each read takes what arrives and gives it all back
 * when it ends (its caller owns the buffer from then on).
 */
export class OutputBudget {
  private held = 0;

  constructor(readonly maxBytes: number = MAX_PHONE_OUTPUT_BYTES) {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 1)
      throw new TypeError('OutputBudget: maxBytes must be a positive integer');
  }

  /** Takes `bytes` when they fit, else takes nothing and answers false. */
  take(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }

  /** Bytes held by reads running now. */
  inUse(): number {
    return this.held;
  }
}

export async function readAllWithDeadline(
  streamPromise: Promise<Duplex | Readable>,
  options: ShellRunOptions,
  what: string,
  serial: string,
  maxBytes: number = MAX_DEVICE_OUTPUT_BYTES,
  budget?: OutputBudget,
): Promise<Buffer> {
  let stream: Duplex | Readable | undefined;
  const work = (async () => {
    let taken = 0;
    try {
      stream = await streamPromise;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream) {
        const length = (chunk as Buffer).length;
        size += length;
        if (size > maxBytes) {
          budget?.give(taken);
          taken = 0;
          stream.destroy();
          throw new BridgeError(
            'output_too_large',
            `the phone sent more than ${Math.round(maxBytes / 1048576)} MiB for ${what}; the bridge stopped reading`,
          );
        }
        if (budget && !budget.take(length)) {
          // Given back now, not when the stream's end is awaited: the phone's other reads go on.
          budget.give(taken);
          taken = 0;
          stream.destroy();
          throw new BridgeError(
            'output_too_large',
            `the phone's commands together sent more than ${Math.round(budget.maxBytes / 1048576)} MiB at once (at ${what}); the bridge stopped reading`,
          );
        }
        if (budget) taken += length;
        chunks.push(chunk as Buffer);
      }
      return Buffer.concat(chunks);
    } finally {
      // Given back when the read ends however it ends (a read its deadline cut ends once its stream is destroyed).
      budget?.give(taken);
    }
  })();
  try {
    return await withDeadline(work, { ...options, what, onCancel: () => stream?.destroy() });
  } catch (error) {
    throw mapAdbError(error, serial);
  }
}

type Transport = Awaited<ReturnType<ReturnType<Client['getDevice']>['transport']>>;

export class AdbDeviceShell implements DeviceShell {
  /** The next commands' connections, switched to this phone while the current ones run. */
  private readonly transports: SpareConnectionPool<Transport>;
  /** What this phone's reads hold at once, all commands together. */
  readonly output: OutputBudget;

  constructor(
    private readonly client: Client,
    readonly serial: string,
    options: { maxPhoneOutputBytes?: number } = {},
  ) {
    this.output = new OutputBudget(options.maxPhoneOutputBytes);
    this.transports = new SpareConnectionPool(() => Promise.resolve(this.client.getDevice(this.serial).transport()), {
      idleMs: SPARE_IDLE_MS,
      maxSpares: MAX_SPARES,
    });
  }

  /** Closes the connections kept ready for this phone (it went away). */
  releaseSpare(): void {
    this.transports.drop();
  }

  close(): void {
    this.transports.close();
  }

  /**
   * Whether the phone speaks shell protocol v2 (Android 7+): its exit status comes in the
   * protocol, so no extra `echo` runs on the phone. Unknown until the first command.
   */
  private shellV2: boolean | undefined;

  shellProtocol(): 'v2' | 'legacy' | null {
    return this.shellV2 === undefined ? null : this.shellV2 ? 'v2' : 'legacy';
  }

  async run(argv: readonly string[], options: ShellRunOptions): Promise<ShellOutput> {
    if (this.shellV2 === false) return this.runWithMarker(argv, options);
    const result = await this.runV2(argv, options);
    if (result !== 'refused') {
      this.shellV2 = true;
      return result;
    }
    // The phone refused the v2 service: an older adbd. Remember it once the legacy way works.
    const legacy = await this.runWithMarker(argv, options);
    this.shellV2 = false;
    return legacy;
  }

  /** `shell,v2,raw:` — stdout and stderr in arrival order (as the legacy shell merges them) and the exit packet. */
  private async runV2(argv: readonly string[], options: ShellRunOptions): Promise<ShellOutput | 'refused'> {
    let refused = false;
    const streamPromise = (async () => {
      const transport = await this.openService(`shell,v2,raw:${buildCommandLine(argv)}`, () => {
        refused = true;
      });
      // Nothing is ever typed into our commands: close their stdin so none can wait on it.
      transport.write(Buffer.from([V2_CLOSE_STDIN, 0, 0, 0, 0]));
      return transport.parser.raw();
    })();
    let raw: Buffer;
    try {
      raw = await readAllWithDeadline(
        streamPromise,
        options,
        argv[0] ?? 'command',
        this.serial,
        MAX_DEVICE_OUTPUT_BYTES,
        this.output,
      );
    } catch (error) {
      if (refused && this.shellV2 === undefined) return 'refused';
      throw error;
    }
    const output: Buffer[] = [];
    let exitCode: number | undefined;
    for (let at = 0; at + V2_HEADER <= raw.length;) {
      const id = raw[at] ?? -1;
      const length = raw.readUInt32LE(at + 1);
      const payload = raw.subarray(at + V2_HEADER, at + V2_HEADER + length);
      if (payload.length < length) break;
      if (id === V2_STDOUT || id === V2_STDERR) output.push(payload);
      else if (id === V2_EXIT) exitCode = payload[0];
      at += V2_HEADER + length;
    }
    // No exit packet: the stream was cut (adb server gone, phone dropped) — never a success.
    if (exitCode === undefined) throw await this.cutShort();
    return { stdout: Buffer.concat(output), exitCode };
  }

  private async runWithMarker(argv: readonly string[], options: ShellRunOptions): Promise<ShellOutput> {
    const line = `${buildCommandLine(argv)}; echo ${EXIT_MARKER}$?`;
    const raw = await readAllWithDeadline(
      Promise.resolve(this.client.getDevice(this.serial).shell(line)),
      options,
      `${argv[0] ?? 'command'}`,
      this.serial,
      MAX_DEVICE_OUTPUT_BYTES,
      this.output,
    );
    const at = raw.lastIndexOf(EXIT_MARKER);
    // Every command line ends by echoing the marker, so output without it was cut short: the
    // adb server died or the phone dropped mid-command. Returning it as a success would report
    // an action that may never have happened (found by test/hardening: a tap "succeeded" while
    // the adb server was killed under it), so say why it failed instead.
    if (at < 0) throw await this.cutShort();

    const code = Number.parseInt(
      raw
        .subarray(at + EXIT_MARKER.length)
        .toString('ascii')
        .trim(),
      10,
    );
    return { stdout: raw.subarray(0, at), exitCode: Number.isNaN(code) ? undefined : code };
  }

  /** Why a shell stream ended without its exit status: asks adb for the phone's state. */
  private async cutShort(): Promise<BridgeError> {
    try {
      const state = await withDeadline(Promise.resolve(this.client.getDevice(this.serial).getState()), {
        timeoutMs: CUT_PROBE_MS,
        what: 'adb get-state',
      });
      if (state === 'device')
        return new BridgeError(
          'command_failed',
          'the command’s output ended before its exit status; it may or may not have taken effect',
        );
      return mapAdbError(new Error(String(state)), this.serial);
    } catch (error) {
      const mapped = mapAdbError(error, this.serial);
      // No answer at all within the probe's deadline: the server is as good as gone.
      return mapped.code === 'command_timeout' || mapped.code === 'command_failed'
        ? new BridgeError('adb_unavailable', `the ADB server is not answering (${this.serial})`)
        : mapped;
    }
  }

  /**
   * A raw device service stream (e.g. `tcp:6790`, the fast lane's helper on the phone), on a
   * connection already switched to the phone when one is ready. adb's FAIL (nothing listens
   * there) is thrown before anything was written to the service.
   */
  async openStream(service: string, options: ShellRunOptions): Promise<Duplex> {
    let transport: Transport | undefined;
    const work = this.openService(service).then((t) => {
      transport = t;
      return t.parser.raw();
    });
    try {
      return await withDeadline(work, { ...options, what: service, onCancel: () => transport?.end() });
    } catch (error) {
      // Opened after the deadline: nobody will use it.
      void work.then((stream) => stream.destroy()).catch(() => undefined);
      throw mapAdbError(error, this.serial);
    }
  }

  async execOut(argv: readonly string[], options: ShellRunOptions): Promise<Buffer> {
    const streamPromise = this.openService(`exec:${buildCommandLine(argv)}`).then((transport) =>
      transport.parser.raw(),
    );
    return readAllWithDeadline(
      streamPromise,
      options,
      argv[0] ?? 'exec',
      this.serial,
      MAX_DEVICE_OUTPUT_BYTES,
      this.output,
    );
  }

  /**
   * Opens a device service over a transport to the phone. A FAIL answer is thrown as adb's
   * own message (mapped later like every adb error); `onRefused` hears of it first.
   *
   * A spare connection was switched to the phone earlier; if adb now refuses the service on
   * it (the phone reconnected since, say), nothing ran, and the request is made once more on
   * a new connection. A connection that breaks after the request was sent is never retried:
   * the phone may already have started the command (found by test/hardening: a tap's
   * command started, then the server died before its OKAY came back).
   */
  private async openService(service: string, onRefused?: () => void): Promise<Transport> {
    const { connection, spare } = await this.transports.take();
    if ((await this.request(connection, service)) === 'OKAY') return connection;
    if (!spare) return this.refuse(connection, onRefused);
    connection.end();
    const again = await this.transports.fresh();
    if ((await this.request(again, service)) === 'OKAY') return again;
    return this.refuse(again, onRefused);
  }

  private async request(transport: Transport, service: string): Promise<string> {
    transport.write(encodeAdbRequest(service));
    return transport.parser.readAscii(4);
  }

  private async refuse(transport: Transport, onRefused?: () => void): Promise<never> {
    onRefused?.();
    const message = await transport.parser.readError().catch((e: unknown) => e);
    transport.end();
    throw message instanceof Error ? message : new Error(String(message));
  }

  async push(
    data: Buffer | NodeJS.ReadableStream,
    remotePath: string,
    options: ShellRunOptions & { mode?: number },
  ): Promise<void> {
    const device = this.client.getDevice(this.serial);
    const { PassThrough } = await import('node:stream');
    const source = Buffer.isBuffer(data) ? new PassThrough().end(data) : (data as Readable);
    let transfer: { cancel?: () => void; on: (ev: string, cb: (arg?: unknown) => void) => void } | undefined;
    const work = (async () => {
      const t = await device.push(source, remotePath, options.mode ?? 0o644);
      transfer = t;
      await new Promise<void>((resolve, reject) => {
        t.on('end', () => resolve());
        t.on('error', (error: Error) => reject(error));
      });
    })();
    try {
      await withDeadline(work, { ...options, what: 'push', onCancel: () => transfer?.cancel?.() });
    } catch (error) {
      throw mapAdbError(error, this.serial);
    }
  }

  async pull(remotePath: string, options: ShellRunOptions): Promise<Buffer> {
    const device = this.client.getDevice(this.serial);
    return readAllWithDeadline(
      Promise.resolve(device.pull(remotePath)),
      options,
      'pull',
      this.serial,
      MAX_DEVICE_OUTPUT_BYTES,
      this.output,
    );
  }
}

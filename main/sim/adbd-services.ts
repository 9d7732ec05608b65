/**
 * The device-side services a simulated adbd offers on a stream, and how each maps onto the
 * PhoneDevice: `shell:` (raw output), `shell,v2,…:` (shell protocol packets with the exit
 * code), `exec:` (raw: stderr and stdout in one stream), `sync:` (files, see sync-service.ts),
 * `tcp:PORT` and `localabstract:NAME` (a connection to a socket a phone process listens on;
 * refused with CLSE when nothing listens, as adbd closes a stream whose connect failed). Anything else
 * (`reboot:`, `root:`, `tcpip:`, …) is unknown and the OPEN is refused with CLSE.
 */
import type { PhoneDevice, ShellResult } from './phone-device';
import type { DeviceStream } from './adbd-stream';
import type { ServiceHandler, ServiceResolver } from './adbd-connection';
import { runSyncService } from './sync-service';
import { installStdinSize, resolveTcpService, runLiveService } from './adbd-live-services';

/** Shell protocol v2 packet ids. */
export const SHELL_STDIN = 0;
export const SHELL_STDOUT = 1;
export const SHELL_STDERR = 2;
export const SHELL_EXIT = 3;
export const SHELL_CLOSE_STDIN = 4;
export const SHELL_WINDOW_SIZE = 5;

const SHELL_HEADER_LENGTH = 5;

/** One shell protocol v2 packet: 1 byte id, u32 LE length, data. */
export function encodeShellPacket(id: number, data: Buffer): Buffer {
  const header = Buffer.alloc(SHELL_HEADER_LENGTH);
  header.writeUInt8(id, 0);
  header.writeUInt32LE(data.length, 1);
  return Buffer.concat([header, data]);
}

/** How a `shell…:` service name asks to run its command. */
export interface ShellRequest {
  protocol: 'raw-v1' | 'v2';
  pty: boolean;
  command: string;
}

/** Parses `shell:CMD`, `shell,v2,raw:CMD`, `shell,v2,TERM=xterm,pty:CMD` and friends. */
export function parseShellService(service: string): ShellRequest | undefined {
  const colon = service.indexOf(':');
  if (colon < 0) return undefined;
  const [name, ...args] = service.slice(0, colon).split(',');
  if (name !== 'shell') return undefined;
  const command = service.slice(colon + 1);
  const v2 = args.includes('v2');
  // adbd's rule: an explicit raw/pty wins; otherwise interactive sessions get a pty.
  const pty = args.includes('pty') ? true : args.includes('raw') ? false : command.length === 0;
  return { protocol: v2 ? 'v2' : 'raw-v1', pty, command };
}

const DEFAULT_SHELL_FEATURES: readonly string[] = ['shell_v2'];

/** The adbd features this phone announces: `features` less what its quirks take away. */
export function phoneFeatures(phone: PhoneDevice, features: readonly string[]): readonly string[] {
  const quirks = phone.quirks?.() ?? [];
  return quirks.includes('no-shell-v2') ? features.filter((f) => f !== 'shell_v2') : features;
}

/** Builds the OPEN dispatcher for one phone. */
export function createServiceResolver(phone: PhoneDevice): ServiceResolver {
  return (service: string): ServiceHandler | undefined => {
    if (service === 'sync:') return (stream) => runSyncService(stream, phone.fs);
    if (service.startsWith('tcp:')) return resolveTcpService(phone, service);
    if (service.startsWith('localabstract:')) {
      const name = service.slice('localabstract:'.length);
      return name === '' ? undefined : phone.openLocalAbstract?.(name);
    }
    if (service.startsWith('exec:')) {
      const command = service.slice('exec:'.length);
      return (stream) => runExec(stream, phone, command);
    }
    const shell = parseShellService(service);
    // adbd without shell_v2 (quirk no-shell-v2) knows only `shell:`; old adbd matches the
    // service name by its `shell:` prefix, so `shell,v2,raw:…` is an unknown service (CLSE).
    if (shell?.protocol === 'v2' && !phoneFeatures(phone, DEFAULT_SHELL_FEATURES).includes('shell_v2'))
      return undefined;
    if (shell) return (stream) => runShell(stream, phone, shell);
    return undefined;
  };
}

async function runExec(stream: DeviceStream, phone: PhoneDevice, command: string): Promise<void> {
  if (command.trim() === '') return;
  if (phone.execLive && (installStdinSize(command) !== undefined || phone.streamsOutput?.(command) === true))
    return runLiveService(stream, phone, { kind: 'exec', command });
  const result = await execUntilClosed(stream, phone, command);
  if (!result) return;
  // adbd runs exec: without the shell protocol, so the child's stderr is the same socket as
  // its stdout (shell_service.cpp dups one fd to both): what a command prints on stderr is
  // in the bytes. Commands here print their warnings before their output, as screencap does.
  await stream.write(Buffer.concat([result.stderr, result.stdout]));
}

async function runShell(stream: DeviceStream, phone: PhoneDevice, request: ShellRequest): Promise<void> {
  // No interactive shell on the simulator: an empty command just ends the session.
  if (request.command.trim() === '') return;
  if (phone.execLive && phone.streamsOutput?.(request.command) === true)
    return runLiveService(stream, phone, { kind: 'shell', ...request });
  if (request.protocol === 'raw-v1') {
    // One stream for both outputs, in the order written: a failure's message comes before
    // whatever the command line prints after it.
    const result = await execUntilClosed(stream, phone, request.command, true);
    if (!result) return;
    await stream.write(Buffer.concat([result.stdout, result.stderr]));
    return;
  }
  const draining = drainShellInput(stream);
  const result = await execUntilClosed(stream, phone, request.command);
  if (!result) return;
  const { stdout, stderr } = request.pty
    ? // A pty merges the two outputs and turns "\n" into "\r\n".
      { stdout: toCrLf(Buffer.concat([result.stdout, result.stderr])), stderr: Buffer.alloc(0) }
    : result;
  // adbd writes the packets into a byte stream (a socketpair) that its transport reads up to
  // a full payload at a time, so packets that are ready together travel in the same WRTEs:
  // the exit packet rides with the end of the output instead of waiting for its own OKAY.
  const room = Math.max(1, 64 * 1024 - SHELL_HEADER_LENGTH);
  const packets: Buffer[] = [];
  for (const [id, data] of [
    [SHELL_STDOUT, stdout],
    [SHELL_STDERR, stderr],
  ] as const) {
    for (let offset = 0; offset < data.length; offset += room)
      packets.push(encodeShellPacket(id, data.subarray(offset, offset + room)));
  }
  packets.push(encodeShellPacket(SHELL_EXIT, Buffer.from([result.exitCode & 0xff])));
  await stream.write(Buffer.concat(packets));
  stream.close();
  await draining;
}

/**
 * Runs the command with the stream's lifetime as its cancellation: resolves undefined when the
 * stream closes first, so a hung command never holds the service open.
 */
async function execUntilClosed(
  stream: DeviceStream,
  phone: PhoneDevice,
  command: string,
  mergeStderr = false,
): Promise<ShellResult | undefined> {
  const signal = stream.signal;
  if (signal.aborted) return undefined;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<undefined>((resolve) => {
    onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([
      phone.exec(command, { signal, mergeStderr }).catch((error: unknown): ShellResult => ({
        stdout: Buffer.alloc(0),
        stderr: Buffer.from(`${error instanceof Error ? error.message : String(error)}\n`),
        exitCode: 1,
      })),
      aborted,
    ]);
    return signal.aborted ? undefined : result;
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Reads and discards what the host sends on a v2 shell (stdin, close-stdin, window size):
 * PhoneDevice commands take no input, but the packets must be consumed so the host's
 * writes are acknowledged. Ends when the stream closes.
 */
async function drainShellInput(stream: DeviceStream): Promise<void> {
  for (;;) {
    const header = await stream.read(SHELL_HEADER_LENGTH);
    if (!header) return;
    // Skip the body piecewise so a huge (bogus) length cannot make us buffer it whole.
    let left = header.readUInt32LE(1);
    while (left > 0) {
      const piece = await stream.read(Math.min(left, 64 * 1024));
      if (!piece) return;
      left -= piece.length;
    }
  }
}

function toCrLf(data: Buffer): Buffer {
  return Buffer.from(data.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');
}

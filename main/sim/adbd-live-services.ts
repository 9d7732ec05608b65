/**
 * The adbd services that live beyond one command's finished output: `tcp:PORT[:HOST]` (what
 * `adb forward` and adbkit's openTcp open on the device: a connection to a port a phone
 * process listens on, refused with CLSE when nothing does), shell sessions whose output must
 * reach the host while they run (`am instrument -w` keeps its stream open for as long as the
 * instrumentation lives; over `shell:`, `shell,v2,…:` or `exec:`), and `exec:cmd package install -S SIZE` (adb ≥ 1.0.40's streamed
 * install: the APK's bytes follow the OPEN on the same stream and become the command's stdin).
 */
import type { DeviceStream } from './adbd-stream';
import type { ServiceHandler } from './adbd-connection';
import type { PhoneDevice, ShellResult } from './phone-device';

const SHELL_STDOUT = 1;
const SHELL_STDERR = 2;
const SHELL_EXIT = 3;

function shellPacket(id: number, data: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt8(id, 0);
  header.writeUInt32LE(data.length, 1);
  return Buffer.concat([header, data]);
}

/** `tcp:6790`, `tcp:6790:localhost` → the phone's handler for that port, or undefined (CLSE). */
export function resolveTcpService(phone: PhoneDevice, service: string): ServiceHandler | undefined {
  const m = /^tcp:(\d{1,5})(?::[^:]*)?$/.exec(service);
  const port = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  return phone.openTcp?.(port);
}

/** The byte count a streamed install announces (`cmd package install -S N`, `pm install -S N`). */
export function installStdinSize(command: string): number | undefined {
  if (!/^\s*(?:cmd\s+package|pm)\s+'?install'?\s/.test(command)) return undefined;
  const m = /\s-S\s+'?(\d+)'?(?:\s|$)/.exec(command);
  return m ? Number(m[1]) : undefined;
}

export type LiveRequest =
  { kind: 'exec'; command: string } | { kind: 'shell'; command: string; protocol: 'raw-v1' | 'v2'; pty: boolean };

/**
 * Runs a command whose stdin comes from the stream or whose stdout goes out as written.
 * Raw services (exec:, shell: without v2) carry bytes as they are; shell v2 wraps them in
 * stdout packets and ends with the exit packet. Ends quietly when the host closes the stream.
 */
export async function runLiveService(stream: DeviceStream, phone: PhoneDevice, request: LiveRequest): Promise<void> {
  if (!phone.execLive) return;
  const v2 = request.kind === 'shell' && request.protocol === 'v2';
  const pty = request.kind === 'shell' && request.pty;
  let stdin: Buffer | undefined;
  if (request.kind === 'exec') {
    const size = installStdinSize(request.command);
    if (size !== undefined) {
      stdin = await readExactly(stream, size);
      if (!stdin) return;
    }
  }
  const frame = (data: Buffer, id: number): Buffer => {
    const bytes = pty ? Buffer.from(data.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1') : data;
    return v2 ? shellPacket(id, bytes) : bytes;
  };
  // Writes go out in order; a closed stream just drops them. What a command writes while the
  // previous write waits for the host's OKAY goes out together in the next one, as a real
  // process's output piles up in its pipe (logcat following a busy log).
  let writing: Promise<void> = Promise.resolve();
  const queued: Buffer[] = [];
  let flushing = false;
  const send = (data: Buffer): void => {
    if (data.length === 0) return;
    queued.push(data);
    if (flushing) return;
    flushing = true;
    writing = (async () => {
      while (queued.length > 0) await stream.write(Buffer.concat(queued.splice(0))).catch(() => undefined);
      flushing = false;
    })();
  };
  if (v2) void drain(stream);
  let result: ShellResult;
  try {
    result = await phone.execLive(request.command, {
      signal: stream.signal,
      stdin,
      onStdout: (chunk) => send(frame(chunk, SHELL_STDOUT)),
    });
  } catch (error) {
    result = {
      stdout: Buffer.alloc(0),
      stderr: Buffer.from(`${error instanceof Error ? error.message : String(error)}\n`),
      exitCode: 1,
    };
  }
  if (stream.signal.aborted) return;
  if (v2 && !pty) {
    send(frame(result.stdout, SHELL_STDOUT));
    send(frame(result.stderr, SHELL_STDERR));
  } else
    send(
      frame(
        request.kind === 'exec'
          ? Buffer.concat([result.stderr, result.stdout])
          : Buffer.concat([result.stdout, result.stderr]),
        SHELL_STDOUT,
      ),
    );
  if (v2) send(shellPacket(SHELL_EXIT, Buffer.from([result.exitCode & 0xff])));
  await writing;
  stream.close();
}

/**
 * `size` bytes from the host, read piecewise: the stream withholds its OKAY beyond 1 MiB
 * buffered, so a large APK only keeps coming while we consume it.
 */
async function readExactly(stream: DeviceStream, size: number): Promise<Buffer | undefined> {
  const parts: Buffer[] = [];
  let got = 0;
  while (got < size) {
    const chunk = await stream.readSome();
    if (!chunk) return undefined;
    parts.push(chunk);
    got += chunk.length;
  }
  // Anything past the announced size is not part of the APK (adb sends nothing more).
  return Buffer.concat(parts).subarray(0, size);
}

/** Consumes what the host sends on a v2 shell (stdin, close-stdin, window size) until it closes. */
async function drain(stream: DeviceStream): Promise<void> {
  while (await stream.readSome()) {
    // Input to `am instrument` is ignored, as the real command reads none.
  }
}

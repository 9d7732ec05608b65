/**
 * The adbd services that live beyond one command's finished output: `tcp:PORT[:HOST]` (what
 * `adb forward` and adbkit's openTcp open on the device: a connection to a port a phone
 * process listens on, refused with CLSE when nothing does), shell sessions whose output must
 * reach the host while they run (`am instrument -w` keeps its stream open for as long as the
 * instrumentation lives; over `shell:`, `shell,v2,…:` or `exec:`), and `exec:cmd package install -S SIZE` (adb ≥ 1.0.40's streamed
 * install: the APK's bytes follow the OPEN on the same stream and become the command's stdin).
 *
 * A live command's stdin is the stream itself, as adbd gives a raw service's process one socket
 * for stdin and stdout (shell_service.cpp): what the host writes after the OPEN reaches the
 * program as it arrives, and the stream closing is its EOF. On `shell,v2,…` stdin comes in
 * STDIN packets and ends with CLOSE_STDIN. A pty's input is not modeled (no line discipline).
 */
import type { DeviceStream } from './adbd-stream';
import type { ServiceHandler } from './adbd-connection';
import type { PhoneDevice, PhoneStdinSource, ShellResult } from './phone-device';

const SHELL_STDIN = 0;
const SHELL_STDOUT = 1;
const SHELL_STDERR = 2;
const SHELL_EXIT = 3;
const SHELL_CLOSE_STDIN = 4;
const SHELL_HEADER_LENGTH = 5;

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
  let stdinSource: PhoneStdinSource | undefined;
  const size = request.kind === 'exec' ? installStdinSize(request.command) : undefined;
  if (size !== undefined) {
    stdin = await readExactly(stream, size);
    if (!stdin) return;
  } else if (!v2 && !pty) {
    // Read only when the program reads: unread bytes stay under the stream's flow control.
    stdinSource = { read: () => stream.readSome() };
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
  if (v2) {
    const queue = pty ? undefined : new StdinQueue();
    stdinSource = queue;
    void readShellV2Input(stream, queue);
  }
  let result: ShellResult;
  try {
    result = await phone.execLive(request.command, {
      signal: stream.signal,
      stdin,
      stdinSource,
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

/** What the host wrote to a v2 session's stdin, kept until the program reads it. */
class StdinQueue implements PhoneStdinSource {
  private readonly chunks: Buffer[] = [];
  private ended = false;
  private waiter: (() => void) | undefined;

  push(data: Buffer): void {
    if (this.ended || data.length === 0) return;
    this.chunks.push(data);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  async read(): Promise<Buffer | undefined> {
    while (this.chunks.length === 0) {
      if (this.ended) return undefined;
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    return Buffer.concat(this.chunks.splice(0));
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }
}

/**
 * Consumes what the host sends on a v2 shell until it closes: STDIN data goes to `stdin`
 * (dropped without one: a pty, or a program that reads none, such as `am instrument`),
 * CLOSE_STDIN ends it, window sizes are ignored. Bodies are read piecewise so a huge (bogus)
 * length cannot make us buffer it whole.
 */
async function readShellV2Input(stream: DeviceStream, stdin: StdinQueue | undefined): Promise<void> {
  try {
    for (;;) {
      const header = await stream.read(SHELL_HEADER_LENGTH);
      if (!header) return;
      const id = header.readUInt8(0);
      if (id === SHELL_CLOSE_STDIN) stdin?.end();
      let left = header.readUInt32LE(1);
      while (left > 0) {
        const piece = await stream.read(Math.min(left, 64 * 1024));
        if (!piece) return;
        left -= piece.length;
        if (id === SHELL_STDIN) stdin?.push(piece);
      }
    }
  } finally {
    stdin?.end();
  }
}

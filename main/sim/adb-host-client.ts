/**
 * A minimal client for the adb server's smart-socket protocol, used only by the simulator and
 * its tests to attach simulated phones (the bridge itself talks to adb through adbkit).
 * Request: 4 hex digits of length + service. Reply: OKAY or FAIL, then (for most host
 * services) 4 hex digits of length + message. Every call has a deadline.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';

export interface AdbServerAddress {
  host: string;
  port: number;
}

export interface HostCallOptions {
  /** Deadline for the whole call; default 15 s (adb's own `connect` waits up to 10 s). */
  timeoutMs?: number;
}

/** One line of `host:devices-l` / `host:track-devices`. */
export interface AdbDeviceEntry {
  serial: string;
  /** device, offline, unauthorized, authorizing, connecting, … */
  state: string;
  /** product/model/device/transport_id from devices-l; empty for track-devices. */
  details: Record<string, string>;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function encodeRequest(service: string): Buffer {
  const body = Buffer.from(service, 'utf8');
  if (body.length > 0xffff) throw new RangeError('adb host request too long');
  return Buffer.concat([Buffer.from(body.length.toString(16).padStart(4, '0'), 'latin1'), body]);
}

/**
 * Reads the socket's bytes on demand. `need(n)` resolves once n bytes are buffered; the socket
 * ending or erroring first rejects.
 */
class SocketReader {
  private buffer = Buffer.alloc(0);
  private ended: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.notify();
    });
    socket.on('end', () => this.finish(new Error('adb server closed the connection')));
    socket.on('close', () => this.finish(new Error('adb server closed the connection')));
    socket.on('error', (error) => this.finish(error));
  }

  async take(length: number): Promise<Buffer> {
    while (this.buffer.length < length) {
      if (this.ended) throw this.ended;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
    const out = this.buffer.subarray(0, length);
    this.buffer = this.buffer.subarray(length);
    return out;
  }

  async lengthPrefixed(): Promise<string> {
    const hex = (await this.take(4)).toString('latin1');
    const length = Number.parseInt(hex, 16);
    if (!/^[0-9a-fA-F]{4}$/.test(hex) || !Number.isFinite(length))
      throw new Error(`bad length prefix ${JSON.stringify(hex)}`);
    return (await this.take(length)).toString('utf8');
  }

  private finish(error: Error): void {
    this.ended ??= error;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

/** Opens a socket to the adb server, bounded by the deadline signal. */
async function open(address: AdbServerAddress, signal: AbortSignal): Promise<Socket> {
  const socket = connect({ host: address.host, port: address.port });
  await new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(new Error(`adb server ${address.host}:${address.port}: connect timed out`));
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
    socket.once('error', (error) => {
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
  }).catch((error: unknown) => {
    socket.destroy();
    throw error;
  });
  return socket;
}

/** Sends one request and waits for OKAY; throws with the server's message on FAIL. */
async function request(reader: SocketReader, socket: Socket, service: string): Promise<void> {
  socket.write(encodeRequest(service));
  const status = (await reader.take(4)).toString('latin1');
  if (status === 'OKAY') return;
  if (status === 'FAIL') throw new Error(`adb server: ${service}: ${await reader.lengthPrefixed()}`);
  throw new Error(`adb server: ${service}: unexpected reply ${JSON.stringify(status)}`);
}

/** Runs `fn` over a fresh connection, destroyed afterwards and at the deadline. */
async function withConnection<T>(
  address: AdbServerAddress,
  options: HostCallOptions | undefined,
  fn: (reader: SocketReader, socket: Socket) => Promise<T>,
): Promise<T> {
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const socket = await open(address, signal);
  const onAbort = (): void => {
    socket.destroy(new Error(`adb server call timed out after ${timeoutMs} ms`));
  };
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await fn(new SocketReader(socket), socket);
  } finally {
    signal.removeEventListener('abort', onAbort);
    socket.destroy();
  }
}

/** A host service that answers OKAY + one length-prefixed string (host:version, host:connect…). */
export function hostQuery(address: AdbServerAddress, service: string, options?: HostCallOptions): Promise<string> {
  return withConnection(address, options, async (reader, socket) => {
    await request(reader, socket, service);
    return reader.lengthPrefixed();
  });
}

/** The adb server's protocol version number (`host:version`, e.g. 41). */
export async function hostVersion(address: AdbServerAddress, options?: HostCallOptions): Promise<number> {
  return Number.parseInt(await hostQuery(address, 'host:version', options), 16);
}

/** The `host:connect` in flight (or last queued) per adb server, keyed HOST:PORT. */
const connectQueues = new Map<string, Promise<unknown>>();

/** Resolves once `previous` settles; rejects if the deadline comes first. */
function waitTurn(previous: Promise<unknown>, deadline: number, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: timed out waiting for an earlier connect to finish`)),
      Math.max(0, deadline - Date.now()),
    );
    void previous.finally(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * `adb connect HOST:PORT`. adb answers OKAY even when it fails, with a message; we turn the
 * failures into errors. "failed to authenticate" is not a failure here: the device is
 * attached and shows as unauthorized, which is what an unauthorized phone looks like.
 *
 * Calls to one adb server run one at a time (later ones wait their turn within their own
 * deadline). adb 1.0.41 serves every `host:connect` on its own thread, and several at once
 * crash it: measured with 32 simulated phones attached 8 at a time, the server died with
 * SIGSEGV or SIGABRT ("fdevent_epoll.cpp:88 failed to unregister fd <garbage>") in about
 * 1 in 25 attaches, and never in 300 attaches one at a time.
 */
export function hostConnect(address: AdbServerAddress, target: string, options?: HostCallOptions): Promise<string> {
  const key = `${address.host}:${address.port}`;
  const deadline = Date.now() + (options?.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const previous = connectQueues.get(key) ?? Promise.resolve();
  const call = (async () => {
    await waitTurn(previous, deadline, `adb connect ${target}`);
    const message = await hostQuery(address, `host:connect:${target}`, {
      timeoutMs: Math.max(1, deadline - Date.now()),
    });
    if (/^(failed to connect|unable to connect|cannot connect|cannot resolve)/i.test(message)) {
      throw new Error(`adb connect ${target}: ${message}`);
    }
    return message;
  })();
  // The next caller's turn comes when this call AND every earlier one are over: a call that
  // gave up while waiting must not let a later one run beside a connect still in flight.
  const settled = Promise.allSettled([previous, call]).then(() => undefined);
  connectQueues.set(key, settled);
  void settled.then(() => {
    if (connectQueues.get(key) === settled) connectQueues.delete(key);
  });
  return call;
}

/** `adb disconnect HOST:PORT`; returns adb's message ("disconnected …" or "no such device …"). */
export async function hostDisconnect(
  address: AdbServerAddress,
  target: string,
  options?: HostCallOptions,
): Promise<string> {
  return withConnection(address, options, async (reader, socket) => {
    try {
      await request(reader, socket, `host:disconnect:${target}`);
    } catch (error) {
      // Disconnecting something adb does not know is not worth an exception at teardown.
      return error instanceof Error ? error.message : String(error);
    }
    return reader.lengthPrefixed();
  });
}

/** Parses `host:devices-l` or `host:track-devices` text. */
export function parseDeviceList(text: string): AdbDeviceEntry[] {
  const out: AdbDeviceEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/).filter(Boolean);
    const [serial, state, ...rest] = fields;
    if (serial === undefined || state === undefined) continue;
    const details: Record<string, string> = {};
    for (const field of rest) {
      const colon = field.indexOf(':');
      if (colon > 0) details[field.slice(0, colon)] = field.slice(colon + 1);
    }
    out.push({ serial, state, details });
  }
  return out;
}

/** `adb devices -l`. */
export async function hostDevices(address: AdbServerAddress, options?: HostCallOptions): Promise<AdbDeviceEntry[]> {
  return parseDeviceList(await hostQuery(address, 'host:devices-l', options));
}

export interface DeviceTracker {
  /** Resolves when the first list has arrived. */
  readonly ready: Promise<void>;
  /** The latest list adb sent. */
  readonly devices: AdbDeviceEntry[];
  close(): void;
}

/**
 * `host:track-devices`: adb pushes the whole list whenever any device changes. `onChange` gets
 * every list. Stop with close(); the tracker also ends if adb goes away.
 */
export function trackDevices(
  address: AdbServerAddress,
  onChange: (devices: AdbDeviceEntry[]) => void,
  options?: HostCallOptions,
): DeviceTracker {
  const controller = new AbortController();
  let latest: AdbDeviceEntry[] = [];
  let socket: Socket | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  const run = async (): Promise<void> => {
    const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    socket = await open(address, AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]));
    if (controller.signal.aborted) {
      socket.destroy();
      return;
    }
    const reader = new SocketReader(socket);
    await request(reader, socket, 'host:track-devices');
    for (;;) {
      latest = parseDeviceList(await reader.lengthPrefixed());
      markReady();
      onChange(latest);
    }
  };
  const done = run().catch(() => undefined);
  const readyOrEnded = Promise.race([ready, done.then(() => Promise.reject(new Error('adb device tracker ended')))]);
  // Callers that never look at `ready` must not get an unhandled rejection when it ends.
  readyOrEnded.catch(() => undefined);
  return {
    ready: readyOrEnded,
    get devices() {
      return latest;
    },
    close() {
      controller.abort();
      socket?.destroy();
    },
  };
}

/**
 * Resolves with adb's list once every serial has the wanted state; rejects at the deadline
 * naming the serials that did not get there.
 *
 * adb 1.0.41's `host:track-devices` announces a device coming online but NOT a transport
 * dropping to `offline` after its connection dies, nor `unauthorized` (measured: the tracker
 * stays silent until adb's next reconnect attempt, ~10 s later). So tracker events only wake
 * us early; the truth is `host:devices-l`, re-read at least every `pollMs`.
 */
export async function waitForDeviceStates(
  address: AdbServerAddress,
  serials: readonly string[],
  wanted: string | ((state: string | undefined) => boolean),
  options?: HostCallOptions & { pollMs?: number },
): Promise<AdbDeviceEntry[]> {
  const timeoutMs = options?.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pollMs = options?.pollMs ?? 100;
  const matches = typeof wanted === 'string' ? (state: string | undefined) => state === wanted : wanted;
  const deadline = Date.now() + timeoutMs;
  let wake: (() => void) | undefined;
  const tracker = trackDevices(address, () => wake?.(), { timeoutMs });
  let states = new Map<string, string>();
  try {
    for (;;) {
      const list = await hostDevices(address, { timeoutMs: Math.max(1, deadline - Date.now()) });
      states = new Map(list.map((d) => [d.serial, d.state]));
      if (serials.every((serial) => matches(states.get(serial)))) return list;
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, Math.min(pollMs, left));
      });
      clearTimeout(timer);
      wake = undefined;
    }
  } finally {
    tracker.close();
  }
  const missing = serials.filter((serial) => !matches(states.get(serial)));
  const seen = missing.map((serial) => `${serial}=${states.get(serial) ?? 'absent'}`).join(', ');
  const label = typeof wanted === 'string' ? wanted : 'the wanted state';
  throw new Error(`adb devices did not reach ${label} within ${timeoutMs} ms: ${seen}`);
}

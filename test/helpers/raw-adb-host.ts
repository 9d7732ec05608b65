/**
 * A bare-bones adb host for transport tests: speaks adb messages over one TCP connection to an
 * AdbdServer so tests can do what the real adb server never does (tiny max payloads, withheld
 * OKAYs, garbage bytes) and observe the device's exact replies.
 */
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import {
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_VERSION,
  A_WRTE,
  AdbMessageParser,
  encodeMessage,
} from '../../main/sim/adb-protocol';
import type { AdbMessage } from '../../main/sim/adb-protocol';

const DEFAULT_WAIT_MS = 5_000;

export class RawAdbHost {
  private readonly parser = new AdbMessageParser({ maxPayload: 16 * 1024 * 1024 });
  private readonly queue: AdbMessage[] = [];
  private readonly waiters = new Set<() => void>();
  private nextLocalId = 100;
  private closedFlag = false;
  private readonly wire: Buffer[] = [];
  /** Resolves when the device closes (or we close) the TCP connection. */
  readonly closed: Promise<void>;

  private constructor(private readonly socket: Socket) {
    this.closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('close', () => {
      this.closedFlag = true;
      this.wake();
    });
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      this.wire.push(chunk);
      for (const message of this.parser.push(chunk)) this.queue.push(message);
      this.wake();
    });
  }

  static async connect(port: number): Promise<RawAdbHost> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    return new RawAdbHost(socket);
  }

  get isClosed(): boolean {
    return this.closedFlag;
  }

  send(command: number, arg0: number, arg1: number, data: Buffer | string = Buffer.alloc(0), checksum = false): void {
    const payload = typeof data === 'string' ? Buffer.from(data) : data;
    this.socket.write(encodeMessage({ command, arg0, arg1, data: payload }, checksum));
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next message matching `filter` (others stay queued); rejects after `timeoutMs`. */
  async next(filter: (m: AdbMessage) => boolean = () => true, timeoutMs = DEFAULT_WAIT_MS): Promise<AdbMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.queue.findIndex(filter);
      if (index >= 0) return this.queue.splice(index, 1)[0] as AdbMessage;
      if (this.closedFlag) throw new Error('connection closed while waiting for a message');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      let waiter: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        waiter = resolve;
        this.waiters.add(resolve);
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
      if (waiter) this.waiters.delete(waiter);
    }
  }

  /** Messages received but not yet taken. */
  pending(filter: (m: AdbMessage) => boolean = () => true): AdbMessage[] {
    return this.queue.filter(filter);
  }

  /** CNXN with the given version/max payload; resolves with the device's first reply. */
  async handshake(
    options: { version?: number | undefined; maxPayload?: number | undefined } = {},
  ): Promise<AdbMessage> {
    this.send(
      A_CNXN,
      options.version ?? A_VERSION,
      options.maxPayload ?? 1024 * 1024,
      'host::features=shell_v2\0',
      true,
    );
    return this.next();
  }

  /** OPEN; resolves with our local id and the device's id, or 'refused' on CLSE. */
  async open(service: string): Promise<{ localId: number; remoteId: number } | 'refused'> {
    const localId = this.nextLocalId++;
    this.send(A_OPEN, localId, 0, `${service}\0`);
    const reply = await this.next((m) => (m.command === A_OKAY || m.command === A_CLSE) && m.arg1 === localId);
    return reply.command === A_OKAY ? { localId, remoteId: reply.arg0 } : 'refused';
  }

  /**
   * Collects a stream's WRTE payloads until its CLSE, acknowledging each (so at most one is
   * ever in flight). `onWrite` sees each message before it is acknowledged.
   */
  async readToEnd(
    stream: { localId: number; remoteId: number },
    onWrite: (m: AdbMessage) => void | Promise<void> = () => undefined,
    timeoutMs = 20_000,
  ): Promise<Buffer> {
    const parts: Buffer[] = [];
    for (;;) {
      const m = await this.next(
        (x) => (x.command === A_WRTE || x.command === A_CLSE) && x.arg1 === stream.localId,
        timeoutMs,
      );
      if (m.command === A_CLSE) return Buffer.concat(parts);
      await onWrite(m);
      parts.push(m.data);
      this.send(A_OKAY, stream.localId, stream.remoteId);
    }
  }

  /** Runs a whole service and returns its output (used as a round-trip "ping" too). */
  async run(service: string): Promise<Buffer> {
    const stream = await this.open(service);
    if (stream === 'refused') throw new Error(`${service} refused`);
    return this.readToEnd(stream);
  }

  /** Every message header received so far, as it was on the wire (checksum field included). */
  wireHeaders(): Array<{ command: number; arg0: number; arg1: number; length: number; checksum: number }> {
    const bytes = Buffer.concat(this.wire);
    const out = [];
    for (let offset = 0; offset + 24 <= bytes.length;) {
      const length = bytes.readUInt32LE(offset + 12);
      out.push({
        command: bytes.readUInt32LE(offset),
        arg0: bytes.readUInt32LE(offset + 4),
        arg1: bytes.readUInt32LE(offset + 8),
        length,
        checksum: bytes.readUInt32LE(offset + 16),
      });
      offset += 24 + length;
    }
    return out;
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const waiter of waiters) waiter();
  }
}

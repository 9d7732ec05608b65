/**
 * One adb stream as the device sees it: a byte pipe to the host, opened by the host's OPEN.
 * Owns adb's per-stream flow control (one WRTE in flight until the peer's OKAY; payloads cut
 * to the negotiated size), buffering of the host's writes for services that read, and the
 * AbortSignal that tells the service behind it that the stream is gone.
 */

/** Rejects pending reads and writes once the stream is closed from either side. */
export class StreamClosedError extends Error {
  constructor() {
    super('adb stream closed');
    this.name = 'StreamClosedError';
  }
}

/** What a stream needs from its connection; kept narrow so streams can be tested alone. */
export interface StreamTransport {
  /** Largest WRTE payload the peer accepts. */
  maxPayload(): number;
  sendWrite(localId: number, remoteId: number, data: Buffer): void;
  sendOkay(localId: number, remoteId: number): void;
  sendClose(localId: number, remoteId: number): void;
  /** Called once when the stream has closed (either side) so the connection forgets it. */
  streamClosed(localId: number): void;
  /**
   * Fault hook: true when this stream's first output must be cut short and the connection
   * dropped (AdbdServer.dropNextStreamMidway()).
   */
  takeDropMidway(): boolean;
  dropConnection(): void;
}

interface PendingWrite {
  data: Buffer;
  resolve: () => void;
  reject: (error: Error) => void;
}

/** Host writes buffered beyond this many bytes delay our OKAY until a service reads. */
const INBOX_HIGH_WATER = 1024 * 1024;

export class DeviceStream {
  private readonly abort = new AbortController();
  private readonly outbox: PendingWrite[] = [];
  private inFlight: PendingWrite | undefined;
  private readonly inbox: Buffer[] = [];
  private inboxBytes = 0;
  private okayOwed = false;
  private inboxWaiter: (() => void) | undefined;
  private wroteAnything = false;
  private isClosed = false;

  constructor(
    readonly localId: number,
    readonly remoteId: number,
    readonly service: string,
    private readonly transport: StreamTransport,
  ) {}

  /** Aborted when the stream closes, from either side or with its connection. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Queues bytes for the host. Resolves when the host has acknowledged all of them, so a
   * service that awaits each write never has more than one WRTE outstanding.
   */
  write(data: Buffer): Promise<void> {
    if (this.isClosed) return Promise.reject(new StreamClosedError());
    if (data.length === 0) return Promise.resolve();
    if (!this.wroteAnything) {
      this.wroteAnything = true;
      if (this.transport.takeDropMidway()) return this.writeThenDrop(data);
    }
    const max = Math.max(1, this.transport.maxPayload());
    const parts: Array<Promise<void>> = [];
    for (let offset = 0; offset < data.length; offset += max) {
      const slice = data.subarray(offset, offset + max);
      parts.push(new Promise<void>((resolve, reject) => this.outbox.push({ data: slice, resolve, reject })));
    }
    this.pump();
    return Promise.all(parts).then(() => undefined);
  }

  /** Reads exactly `length` bytes; undefined when the stream ends first. */
  async read(length: number): Promise<Buffer | undefined> {
    while (this.inboxBytes < length) {
      if (this.isClosed) return undefined;
      await this.waitForInbox();
    }
    return this.take(length);
  }

  /** Reads whatever has arrived (waiting for at least one byte); undefined at the end. */
  async readSome(): Promise<Buffer | undefined> {
    while (this.inboxBytes === 0) {
      if (this.isClosed) return undefined;
      await this.waitForInbox();
    }
    return this.take(this.inboxBytes);
  }

  /** Sends CLSE (once) and releases everything. */
  close(): void {
    if (this.isClosed) return;
    this.transport.sendClose(this.localId, this.remoteId);
    this.finish();
  }

  /** The host sent WRTE on this stream. */
  onHostWrite(data: Buffer): void {
    if (this.isClosed) return;
    this.inbox.push(data);
    this.inboxBytes += data.length;
    if (this.inboxBytes <= INBOX_HIGH_WATER) this.transport.sendOkay(this.localId, this.remoteId);
    else this.okayOwed = true;
    this.wakeReader();
  }

  /** The host acknowledged our last WRTE. */
  onHostOkay(): void {
    const done = this.inFlight;
    this.inFlight = undefined;
    done?.resolve();
    this.pump();
  }

  /** The host closed the stream, or the connection went away. */
  onPeerClosed(): void {
    this.finish();
  }

  private pump(): void {
    if (this.isClosed || this.inFlight) return;
    const next = this.outbox.shift();
    if (!next) return;
    this.inFlight = next;
    this.transport.sendWrite(this.localId, this.remoteId, next.data);
  }

  private writeThenDrop(data: Buffer): Promise<void> {
    const partLength = Math.min(Math.max(1, Math.floor(data.length / 2)), this.transport.maxPayload());
    if (partLength < data.length) this.transport.sendWrite(this.localId, this.remoteId, data.subarray(0, partLength));
    this.transport.dropConnection();
    this.finish();
    return Promise.reject(new StreamClosedError());
  }

  private take(length: number): Buffer {
    const joined = this.inbox.length === 1 ? (this.inbox[0] as Buffer) : Buffer.concat(this.inbox);
    const out = joined.subarray(0, length);
    this.inbox.length = 0;
    if (joined.length > length) this.inbox.push(joined.subarray(length));
    this.inboxBytes -= length;
    if (this.okayOwed && this.inboxBytes <= INBOX_HIGH_WATER && !this.isClosed) {
      this.okayOwed = false;
      this.transport.sendOkay(this.localId, this.remoteId);
    }
    return out;
  }

  private waitForInbox(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.inboxWaiter = resolve;
    });
  }

  private wakeReader(): void {
    const waiter = this.inboxWaiter;
    this.inboxWaiter = undefined;
    waiter?.();
  }

  private finish(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    const error = new StreamClosedError();
    const pending = this.inFlight ? [this.inFlight, ...this.outbox] : [...this.outbox];
    this.inFlight = undefined;
    this.outbox.length = 0;
    for (const write of pending) write.reject(error);
    this.abort.abort(error);
    this.wakeReader();
    this.transport.streamClosed(this.localId);
  }
}

/**
 * One TCP connection from the adb server to a simulated adbd: the CNXN/AUTH handshake, the
 * table of open streams, and the dispatch of each OPEN to a service. Any malformed input
 * (bad magic, absurd length, unknown command, a stream id we never handed out) ends this
 * connection only; the listener and other connections carry on.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import {
  A_AUTH,
  A_CLSE,
  A_CNXN,
  A_OKAY,
  A_OPEN,
  A_SYNC,
  A_VERSION,
  A_VERSION_SKIP_CHECKSUM,
  ADB_AUTH_RSAPUBLICKEY,
  ADB_AUTH_SIGNATURE,
  ADB_AUTH_TOKEN,
  A_WRTE,
  AdbMessageParser,
  AdbProtocolError,
  DEVICE_MAX_PAYLOAD,
  LEGACY_MAX_PAYLOAD,
  commandName,
  encodeMessage,
} from './adb-protocol';
import type { AdbMessage } from './adb-protocol';
import { DeviceStream } from './adbd-stream';
import type { StreamTransport } from './adbd-stream';

/** Runs one service on an accepted stream; undefined from the resolver means "unknown". */
export type ServiceHandler = (stream: DeviceStream) => Promise<void>;
export type ServiceResolver = (service: string) => ServiceHandler | undefined;

export interface AdbdConnectionOptions {
  socket: Socket;
  /** The CNXN payload ("device::…;features=…"). */
  banner: () => string;
  /** Asked at each CNXN: whether the host must authenticate first. */
  requiresAuth: () => boolean;
  resolveService: ServiceResolver;
  /** Fault hook shared by all connections of one server. */
  takeDropMidway: () => boolean;
  /** The host offered its public key: a real phone would now show "Allow USB debugging?". */
  onAuthPrompt: (publicKey: Buffer) => void;
  onOnline: () => void;
  onClose: () => void;
}

export type ConnectionState = 'awaiting-cnxn' | 'authorizing' | 'awaiting-user' | 'online' | 'closed';

export class AdbdConnection {
  private readonly socket: Socket;
  private readonly parser = new AdbMessageParser();
  private readonly streams = new Map<number, DeviceStream>();
  private nextLocalId = 1;
  private stateValue: ConnectionState = 'awaiting-cnxn';
  private protocolVersion = 0;
  private maxPayloadValue = LEGACY_MAX_PAYLOAD;
  private publicKey: Buffer | undefined;
  private readonly transport: StreamTransport;

  constructor(private readonly options: AdbdConnectionOptions) {
    this.socket = options.socket;
    this.socket.setNoDelay(true);
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => this.socket.destroy());
    this.socket.on('close', () => this.onSocketClosed());
    // Streams reach the socket only through this narrow interface.
    this.transport = {
      maxPayload: () => this.maxPayloadValue,
      sendWrite: (localId, remoteId, data) => this.send(A_WRTE, localId, remoteId, data),
      sendOkay: (localId, remoteId) => this.send(A_OKAY, localId, remoteId),
      sendClose: (localId, remoteId) => this.send(A_CLSE, localId, remoteId),
      streamClosed: (localId) => this.streams.delete(localId),
      takeDropMidway: () => this.options.takeDropMidway(),
      dropConnection: () => this.destroy(),
    };
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  /** Public key the host offered after its signatures were rejected (AUTH RSAPUBLICKEY). */
  get offeredPublicKey(): Buffer | undefined {
    return this.publicKey;
  }

  get openStreamCount(): number {
    return this.streams.size;
  }

  /** Completes a handshake that is waiting for the user to accept the host's key. */
  authorize(): void {
    if (this.stateValue === 'authorizing' || this.stateValue === 'awaiting-user') this.goOnline();
  }

  /** Drops the TCP connection at once (what a phone does when USB debugging is revoked). */
  destroy(): void {
    this.socket.destroy();
    this.onSocketClosed();
  }

  private onData(chunk: Buffer): void {
    if (this.stateValue === 'closed') return;
    let messages: AdbMessage[];
    try {
      messages = this.parser.push(chunk);
    } catch (error) {
      this.protocolFailure(error);
      return;
    }
    for (const message of messages) {
      // handle() may have closed the connection; later messages are then moot.
      if (this.isClosed()) return;
      try {
        this.handle(message);
      } catch (error) {
        this.protocolFailure(error);
        return;
      }
    }
  }

  private isClosed(): boolean {
    return this.stateValue === 'closed';
  }

  private protocolFailure(_error: unknown): void {
    // A real adbd drops the transport on garbage; the host will reconnect if it wants to.
    this.destroy();
  }

  private handle(message: AdbMessage): void {
    switch (message.command) {
      case A_CNXN:
        this.onConnect(message);
        return;
      case A_AUTH:
        this.onAuth(message);
        return;
      case A_SYNC:
        // Obsolete command; adbd ignores it too.
        return;
      default:
        break;
    }
    if (this.stateValue !== 'online') {
      throw new AdbProtocolError(`${commandName(message.command)} before the connection is online`);
    }
    switch (message.command) {
      case A_OPEN:
        this.onOpen(message);
        return;
      case A_OKAY:
        this.streamFor(message)?.onHostOkay();
        return;
      case A_WRTE:
        this.streamFor(message)?.onHostWrite(message.data);
        return;
      case A_CLSE:
        this.streamFor(message)?.onPeerClosed();
        return;
      default:
        throw new AdbProtocolError(`unexpected command ${commandName(message.command)}`);
    }
  }

  private onConnect(message: AdbMessage): void {
    // A repeated CNXN restarts the session: the host has forgotten our streams.
    this.closeAllStreams();
    this.protocolVersion = Math.min(A_VERSION, message.arg0 >>> 0);
    const hostMax = message.arg1 >>> 0;
    this.maxPayloadValue = Math.min(DEVICE_MAX_PAYLOAD, hostMax > 0 ? hostMax : LEGACY_MAX_PAYLOAD);
    if (this.options.requiresAuth()) {
      this.stateValue = 'authorizing';
      this.sendAuthToken();
    } else {
      this.goOnline();
    }
  }

  private onAuth(message: AdbMessage): void {
    if (this.stateValue !== 'authorizing' && this.stateValue !== 'awaiting-user') {
      throw new AdbProtocolError('AUTH outside a handshake');
    }
    switch (message.arg0) {
      case ADB_AUTH_SIGNATURE:
        // This phone knows no keys: every signature is rejected with a fresh token, which makes
        // the host try its next key and finally offer its public key.
        this.sendAuthToken();
        return;
      case ADB_AUTH_RSAPUBLICKEY:
        // Real phones now show "Allow USB debugging?" and stay silent until the user answers.
        this.publicKey = message.data;
        this.stateValue = 'awaiting-user';
        this.options.onAuthPrompt(message.data);
        return;
      default:
        throw new AdbProtocolError(`unexpected AUTH type ${message.arg0}`);
    }
  }

  private goOnline(): void {
    this.stateValue = 'online';
    this.send(A_CNXN, A_VERSION, DEVICE_MAX_PAYLOAD, Buffer.from(this.options.banner(), 'utf8'));
    this.options.onOnline();
  }

  private sendAuthToken(): void {
    this.send(A_AUTH, ADB_AUTH_TOKEN, 0, randomBytes(20));
  }

  private onOpen(message: AdbMessage): void {
    const remoteId = message.arg0 >>> 0;
    if (remoteId === 0) throw new AdbProtocolError('OPEN with remote id 0');
    const nul = message.data.indexOf(0);
    const service = message.data.subarray(0, nul >= 0 ? nul : message.data.length).toString('utf8');
    const handler = this.options.resolveService(service);
    if (!handler) {
      this.send(A_CLSE, 0, remoteId);
      return;
    }
    const localId = this.nextLocalId++;
    const stream = new DeviceStream(localId, remoteId, service, this.transport);
    this.streams.set(localId, stream);
    this.send(A_OKAY, localId, remoteId);
    // The handler owns the stream; whatever it does, the stream ends closed.
    handler(stream).then(
      () => stream.close(),
      () => stream.close(),
    );
  }

  /**
   * The stream a host message addresses. Ids we handed out earlier but have closed since are
   * normal races (the host's OKAY or WRTE crossed our CLSE) and are ignored; ids we never
   * handed out are a protocol error.
   */
  private streamFor(message: AdbMessage): DeviceStream | undefined {
    const localId = message.arg1 >>> 0;
    const stream = this.streams.get(localId);
    if (stream) {
      if (stream.remoteId !== message.arg0 >>> 0 && message.command !== A_CLSE) {
        throw new AdbProtocolError(`${commandName(message.command)} for stream ${localId} with wrong peer id`);
      }
      return stream;
    }
    if (localId === 0 || localId >= this.nextLocalId) {
      throw new AdbProtocolError(`${commandName(message.command)} for unknown stream ${localId}`);
    }
    return undefined;
  }

  private send(command: number, arg0: number, arg1: number, data: Buffer = Buffer.alloc(0)): void {
    if (this.stateValue === 'closed' || this.socket.destroyed) return;
    // Until the host has our CNXN it checks checksums (its version is still the minimum).
    const withChecksum =
      this.stateValue !== 'online' || this.protocolVersion < A_VERSION_SKIP_CHECKSUM || command === A_CNXN;
    this.socket.write(encodeMessage({ command, arg0, arg1, data }, withChecksum));
  }

  private closeAllStreams(): void {
    for (const stream of [...this.streams.values()]) stream.onPeerClosed();
    this.streams.clear();
  }

  private onSocketClosed(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    this.closeAllStreams();
    this.options.onClose();
  }
}

/**
 * AdbdServer: one simulated phone's adbd, listening on 127.0.0.1 like a phone with wireless
 * debugging, so the unmodified adb server attaches it with `adb connect 127.0.0.1:PORT`.
 * Owns the listener, the live connections and the transport-level faults tests inject
 * (unauthorized, offline, dropped connections, a stream cut midway).
 */
import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { deviceBanner } from './adb-protocol';
import { AdbdConnection } from './adbd-connection';
import type { ServiceResolver } from './adbd-connection';
import { createServiceResolver, phoneFeatures } from './adbd-services';
import type { PhoneDevice } from './phone-device';

/**
 * Features this adbd announces. Only what the simulator implements: adb 1.0.41 switches to
 * shell protocol v2, STA2/LST2 and LIS2 when it sees these, and `cmd` lets it use `cmd …`
 * commands through exec.
 */
export const DEFAULT_FEATURES: readonly string[] = ['shell_v2', 'cmd', 'stat_v2', 'ls_v2', 'fixed_push_mkdir'];

export interface AdbdServerOptions {
  phone: PhoneDevice;
  /** TCP port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Start in the unauthorized state (host keys are refused until authorize()). */
  unauthorized?: boolean;
  features?: readonly string[];
}

type ServerState = 'idle' | 'listening' | 'offline' | 'closed';

/**
 * Events (for tests to await instead of polling): 'connection' (a TCP connection arrived),
 * 'online' (a handshake completed with CNXN), 'auth-prompt' (publicKey: Buffer; the host
 * offered its key and the phone now waits for authorize()), 'disconnect' (a connection ended).
 */
export class AdbdServer extends EventEmitter {
  private readonly phone: PhoneDevice;
  private readonly host: string;
  private readonly features: readonly string[];
  private readonly resolveService: ServiceResolver;
  private server: Server | undefined;
  private readonly connections = new Set<AdbdConnection>();
  private readonly sockets = new Set<Socket>();
  private portValue: number;
  private unauthorized: boolean;
  private dropMidwayArmed = false;
  private state: ServerState = 'idle';

  constructor(options: AdbdServerOptions) {
    super();
    if (!options || typeof options.phone?.exec !== 'function') {
      throw new TypeError('AdbdServer: options.phone must be a PhoneDevice');
    }
    const port = options.port ?? 0;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new RangeError(`AdbdServer: port must be an integer 0-65535, got ${String(options.port)}`);
    }
    this.phone = options.phone;
    this.host = options.host ?? '127.0.0.1';
    this.features = options.features ?? DEFAULT_FEATURES;
    this.portValue = port;
    this.unauthorized = options.unauthorized ?? false;
    this.resolveService = createServiceResolver(this.phone);
  }

  /** Creates a server and starts listening. */
  static async start(options: AdbdServerOptions): Promise<AdbdServer> {
    const server = new AdbdServer(options);
    await server.listen();
    return server;
  }

  /** The port adb connects to (known after listen(); kept across goOffline/goOnline). */
  get port(): number {
    return this.portValue;
  }

  /** Live TCP connections (normally one: the adb server's transport). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Connections whose handshake completed (the host sees the phone as `device`). */
  get onlineConnectionCount(): number {
    let count = 0;
    for (const connection of this.connections) if (connection.state === 'online') count++;
    return count;
  }

  /** Public keys hosts offered while this phone was unauthorized. */
  get offeredPublicKeys(): Buffer[] {
    const keys: Buffer[] = [];
    for (const connection of this.connections) if (connection.offeredPublicKey) keys.push(connection.offeredPublicKey);
    return keys;
  }

  async listen(): Promise<void> {
    if (this.state === 'closed') throw new Error('AdbdServer: closed');
    if (this.state === 'listening') return;
    const server = createServer((socket) => this.accept(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: this.host, port: this.portValue }, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const address = server.address();
    if (address && typeof address === 'object') this.portValue = address.port;
    // A listener error after startup (rare) must not crash the process.
    server.on('error', () => undefined);
    this.server = server;
    this.state = 'listening';
  }

  /**
   * on: later handshakes get AUTH instead of CNXN, and connections already online are dropped
   * so the adb server reconnects and meets the prompt (a phone whose authorization was
   * revoked). off: the same as authorize().
   */
  setUnauthorized(on: boolean): void {
    if (!on) {
      this.authorize();
      return;
    }
    this.unauthorized = true;
    for (const connection of [...this.connections]) if (connection.state === 'online') connection.destroy();
  }

  /** The user taps "Allow": pending handshakes complete with CNXN, later ones skip AUTH. */
  authorize(): void {
    this.unauthorized = false;
    for (const connection of this.connections) connection.authorize();
  }

  /** Drops every connection and stops accepting (phone left the network). Port is kept. */
  async goOffline(): Promise<void> {
    if (this.state !== 'listening') return;
    this.state = 'offline';
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Listens again on the same port. adb 1.0.41 finds it by itself only at its next retry (every
   * 10 s); call reattachToAdb() (sim-farm.ts) or SimFarm.bringOnline() to have it back at once.
   */
  async goOnline(): Promise<void> {
    if (this.state !== 'offline') return;
    await this.listen();
  }

  /** Drops every TCP connection but keeps listening (Wi-Fi blip); adb reconnects by itself. */
  dropConnections(): void {
    for (const connection of [...this.connections]) connection.destroy();
    for (const socket of [...this.sockets]) socket.destroy();
  }

  /** The next stream that produces output sends part of it, then the connection drops. */
  dropNextStreamMidway(): void {
    this.dropMidwayArmed = true;
  }

  /** Stops listening and drops every connection. Idempotent. */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    const server = this.server;
    this.server = undefined;
    this.dropConnections();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    if (this.state !== 'listening') {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    const connection = new AdbdConnection({
      socket,
      banner: () => deviceBanner(this.phone.identity(), phoneFeatures(this.phone, this.features)),
      requiresAuth: () => this.unauthorized,
      resolveService: this.resolveService,
      takeDropMidway: () => {
        const armed = this.dropMidwayArmed;
        this.dropMidwayArmed = false;
        return armed;
      },
      onAuthPrompt: (publicKey) => this.emit('auth-prompt', publicKey),
      onOnline: () => this.emit('online'),
      onClose: () => {
        this.connections.delete(connection);
        this.emit('disconnect');
      },
    });
    this.connections.add(connection);
    this.emit('connection');
  }
}

/**
 * One ADB host reached over SSH. A loopback listener, bound once on port 0 and kept for the
 * tunnel's whole life (adbkit's client is made with one port and never told another), turns
 * each connection into an SSH `direct-tcpip` channel to the host's own 127.0.0.1:ADBPORT and
 * nowhere else. The SSH connection itself is kept alive by keepalives and rebuilt with backoff;
 * while it is down every accepted socket is closed at once, so adb calls fail fast with the
 * host's reason instead of waiting.
 */
import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import type { Logger } from '../../logging/logger';
import type { HostKeyPolicy } from './host-keys';
import { sshAddress, type SshTarget } from './ssh-target';

export type SshLinkStatus = 'connecting' | 'connected' | 'reconnecting' | 'host_key_refused' | 'auth_failed';

export interface SshLinkState {
  status: SshLinkStatus;
  /** Why the link is not up, in words for the person; null while connected. */
  reason: string | null;
  /** The host key the host presented last, as OpenSSH prints it. */
  hostKey: { type: string; fingerprint: string; pinnedBy: 'known_hosts' | 'first_use' | 'pinned' | null } | null;
  /** Times the SSH connection was rebuilt after it had been up. */
  reconnects: number;
  /** When the current status began (ms since epoch). */
  since: number;
  nextRetryAt: number | null;
}

export interface SshAuth {
  /** An OpenSSH/PEM private key (unencrypted; an encrypted one belongs in ssh-agent). */
  privateKey?: Buffer;
  /** Where the key came from, for messages ("--ssh-key /path"). */
  privateKeyOrigin?: string;
  /** ssh-agent's socket (SSH_AUTH_SOCK). */
  agentSocket?: string;
}

export interface SshAdbTunnelOptions {
  target: SshTarget;
  auth: SshAuth;
  hostKeys: HostKeyPolicy;
  logger: Logger;
  /** Told once per host when its key is pinned on first use (the person sees it at start and in Settings → Hosts). */
  onFirstUse?: (message: string) => void;
  clock?: () => number;
  /** Deadline for TCP connect, key exchange and sign-in together. */
  readyTimeoutMs?: number;
  /** A keepalive every this many ms; the link counts as lost after keepaliveCountMax unanswered ones. */
  keepaliveMs?: number;
  keepaliveCountMax?: number;
  /** Deadline for opening one forwarded channel. */
  channelTimeoutMs?: number;
  backoff?: { firstMs: number; maxMs: number };
}

function isLoopbackPeer(address: string | undefined): boolean {
  return (
    address !== undefined && (address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.'))
  );
}

export class SshAdbTunnel extends EventEmitter<{ state: [SshLinkState] }> {
  readonly address: string;
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private connection: Client | undefined;
  private ready = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private everConnected = false;
  private refusedKey: string | null = null;
  private readonly sockets = new Set<Socket>();
  private current: SshLinkState;
  private readonly clock: () => number;

  constructor(private readonly options: SshAdbTunnelOptions) {
    super();
    this.address = sshAddress(options.target);
    this.clock = options.clock ?? Date.now;
    this.backoffMs = options.backoff?.firstMs ?? 500;
    this.current = {
      status: 'connecting',
      reason: 'connecting over SSH',
      hostKey: null,
      reconnects: 0,
      since: this.clock(),
      nextRetryAt: null,
    };
  }

  /** Binds the local end (once) and starts the SSH connection; resolves to the local port. */
  open(): Promise<number> {
    if (this.listening) return this.listening;
    this.closed = false;
    this.listening = new Promise<number>((resolve, reject) => {
      const server = createServer((socket) => this.accept(socket));
      this.server = server;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.off('error', reject);
        server.on('error', (error) =>
          this.options.logger.warn('ssh forward listener error', { host: this.address, error: error.message }),
        );
        const address = server.address();
        if (address === null || typeof address === 'string')
          return reject(new Error('the SSH forward listener has no port'));
        resolve(address.port);
      });
    });
    void this.listening.then(
      () => this.connect(),
      () => undefined,
    );
    return this.listening;
  }

  state(): SshLinkState {
    return { ...this.current, hostKey: this.current.hostKey ? { ...this.current.hostKey } : null };
  }

  isUp(): boolean {
    return this.ready;
  }

  /** Closes the SSH connection, every forwarded socket and the listener. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    this.dropSockets();
    this.connection?.end();
    this.connection?.destroy();
    this.connection = undefined;
    this.ready = false;
    this.server?.close();
    this.server = undefined;
    this.listening = undefined;
  }

  private setState(patch: Partial<SshLinkState>): void {
    const status = patch.status ?? this.current.status;
    this.current = {
      ...this.current,
      ...patch,
      since: status !== this.current.status ? this.clock() : this.current.since,
    };
    this.emit('state', this.state());
  }

  private accept(socket: Socket): void {
    // The listener is on 127.0.0.1; anything else reaching it is refused all the same.
    if (!isLoopbackPeer(socket.remoteAddress) || !this.ready || !this.connection) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.pause();
    const timeoutMs = this.options.channelTimeoutMs ?? 5000;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    const connection = this.connection;
    const opened = (error: Error | undefined, channel: ClientChannel | undefined): void => {
      clearTimeout(timer);
      if (error || !channel || socket.destroyed) {
        if (error) this.options.logger.debug('ssh forward refused', { host: this.address, error: error.message });
        channel?.close();
        socket.destroy();
        return;
      }
      channel.on('error', () => socket.destroy());
      channel.once('close', () => socket.destroy());
      socket.once('close', () => channel.close());
      socket.pipe(channel).pipe(socket);
      socket.resume();
    };
    try {
      connection.forwardOut('127.0.0.1', socket.remotePort ?? 0, '127.0.0.1', this.options.target.adbPort, opened);
    } catch (error) {
      // ssh2 throws "Not connected" for a connection already closing whose 'close' has not come yet.
      opened(error instanceof Error ? error : new Error(String(error)), undefined);
    }
  }

  private dropSockets(): void {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }

  private connect(): void {
    if (this.closed) return;
    const { target, auth } = this.options;
    const client = new Client();
    this.connection = client;
    this.refusedKey = null;
    let judged: SshLinkState['hostKey'] = null;
    const config: ConnectConfig = {
      host: target.host,
      port: target.port,
      username: target.user,
      readyTimeout: this.options.readyTimeoutMs ?? 10_000,
      keepaliveInterval: this.options.keepaliveMs ?? 1000,
      keepaliveCountMax: this.options.keepaliveCountMax ?? 3,
      hostVerifier: (key: Buffer): boolean => {
        try {
          const verdict = this.options.hostKeys.judge(target.host, target.port, key);
          judged = {
            type: verdict.keyType,
            fingerprint: verdict.fingerprint,
            pinnedBy: verdict.ok ? verdict.by : null,
          };
          if (!verdict.ok) {
            this.refusedKey =
              `host key refused: ${target.host}:${target.port} presented ${verdict.keyType} ${verdict.fingerprint}, ` +
              `but ${verdict.reason}. If the host's key was changed on purpose, update that entry; otherwise someone may be in between.`;
            return false;
          }
          if (verdict.firstUse)
            this.options.onFirstUse?.(
              `SSH host ${this.address}: its key ${verdict.keyType} ${verdict.fingerprint} was trusted on first use and pinned ` +
                `in ${this.options.hostKeys.pinsFile}. Check it on the host: ssh-keygen -lf /etc/ssh/ssh_host_${verdict.keyType.replace(/^ssh-|-.*$/g, '')}_key.pub`,
            );
          return true;
        } catch (error) {
          this.refusedKey = `host key not checked: ${error instanceof Error ? error.message : String(error)}`;
          return false;
        }
      },
      ...(auth.privateKey ? { privateKey: auth.privateKey } : {}),
      ...(auth.agentSocket ? { agent: auth.agentSocket } : {}),
    };
    // Whether this connection was ever signed in: says "lost" rather than "closed before it was ready".
    let wasUp = false;
    client.on('ready', () => {
      if (this.closed || this.connection !== client) {
        client.end();
        return;
      }
      this.ready = true;
      wasUp = true;
      this.backoffMs = this.options.backoff?.firstMs ?? 500;
      if (this.everConnected) this.current.reconnects += 1;
      this.everConnected = true;
      this.setState({ status: 'connected', reason: null, hostKey: judged, nextRetryAt: null });
    });
    let failure: string | null = null;
    // Closing has begun: no new forward is opened on it (ssh2 throws for one until 'close').
    client.on('end', () => {
      if (this.connection === client) this.ready = false;
    });
    client.on('error', (error: Error & { level?: string }) => {
      failure = this.describeFailure(error);
    });
    client.on('close', () => {
      if (this.connection !== client) return;
      this.connection = undefined;
      const wasReady = wasUp;
      this.ready = false;
      this.dropSockets();
      if (this.closed) return;
      const reason =
        failure ??
        (wasReady
          ? `SSH link to ${target.host}:${target.port} lost`
          : `SSH link to ${target.host}:${target.port} closed before it was ready`);
      const status: SshLinkStatus = this.refusedKey
        ? 'host_key_refused'
        : failure?.startsWith('sign-in refused')
          ? 'auth_failed'
          : 'reconnecting';
      const delay = this.backoffMs;
      // A refused key or sign-in will not fix itself in a second: those retry at the slowest pace.
      const maxMs = this.options.backoff?.maxMs ?? 10_000;
      this.backoffMs = status === 'reconnecting' ? Math.min(this.backoffMs * 2, maxMs) : maxMs;
      this.setState({ status, reason, hostKey: judged ?? this.current.hostKey, nextRetryAt: this.clock() + delay });
      this.options.logger.warn('ssh link down', { host: this.address, reason });
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.connect();
      }, delay);
      this.retryTimer.unref();
    });
    client.connect(config);
  }

  private describeFailure(error: Error & { level?: string }): string {
    const { target, auth } = this.options;
    if (this.refusedKey) return this.refusedKey;
    if (error.level === 'client-authentication') {
      const tried = [
        auth.agentSocket ? 'the keys in ssh-agent' : null,
        auth.privateKeyOrigin ?? (auth.privateKey ? 'the key file' : null),
      ]
        .filter((t) => t !== null)
        .join(' and ');
      return `sign-in refused: ${target.host}:${target.port} accepted none of ${tried || 'no key'} for user ${target.user} (add the public key to that user's ~/.ssh/authorized_keys on the host)`;
    }
    if (error.level === 'client-timeout') return `SSH link to ${target.host}:${target.port} timed out before sign-in`;
    return `SSH link to ${target.host}:${target.port} failed: ${error.message}`;
  }
}

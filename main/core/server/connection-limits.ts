/**
 * What the one HTTP server may hold open, and for how long: a cap on connections in total
 * and per client address (an IPv6 /64), with slots kept for loopback and for clients that
 * showed a key, the header and keep-alive deadlines, and the way a refused socket
 * is let go (answer, then destroy — never left half-closed waiting for a peer that does not
 * read). Every descriptor the server holds is bounded in number and in time.
 */
import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isIP } from 'node:net';
import { isLoopback } from './http-util';
import { unmapped } from './network-access';
import { DEFAULT_CONNECTION_LIMITS, resolveConnectionLimits, type ConnectionLimits } from '../config/connection-limits';

/** A socket's far end as net.Socket reports it (undefined once the socket is gone). */
type Peer = Pick<Socket, 'remoteAddress' | 'remotePort'>;

export { resolveConnectionLimits, type ConnectionLimits };

/** The options `http.createServer` / `https.createServer` take for these limits. */
export function serverTimeouts(limits: ConnectionLimits): {
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: 0,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
  };
}

/**
 * Writes `response` (if the socket can still take it), then destroys the socket once it is
 * flushed, as `ws`'s abortHandshake does; a peer that never reads cannot hold it past the
 * backstop. `end()` alone would leave the descriptor open until the peer closes its side.
 */
export function refuseSocket(
  socket: Duplex,
  response: string,
  backstopMs = DEFAULT_CONNECTION_LIMITS.refusalBackstopMs,
): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const backstop = setTimeout(() => socket.destroy(), backstopMs);
  backstop.unref();
  socket.once('close', () => clearTimeout(backstop));
  socket.once('finish', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.end(response);
}

/**
 * The share of the table each reserve keeps (#36 point 4): a cap that one attacker can fill is
 * a way to switch the bridge off, so the last slots are kept for those who can prove who they
 * are. Non-loopback clients that have not yet shown a key may hold all but two reserves, loopback
 * clients all but one, clients that showed the API key or the admin token the whole table.
 */
const RESERVE_SHARE = 8;

/** The caps' unit for an address: an IPv4 address itself, an IPv6 address's /64 (one host holds a whole /64). */
export function addressGroup(address: string): string {
  const plain = unmapped(address);
  if (isIP(plain) !== 6) return plain;
  let text = plain;
  // An embedded IPv4 tail (::ffff:1.2.3.4 that was not a mapped address, 64:ff9b::1.2.3.4) is two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const zeros = Array<string>(Math.max(0, 8 - headParts.length - tailParts.length)).fill('0');
  const groups = tail === undefined ? headParts : [...headParts, ...zeros, ...tailParts];
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

/** One connection the guard holds; `busy` while a request is being answered. */
interface Held {
  socket: Duplex;
  /** Read at accept: a destroyed socket no longer knows its peer. */
  key: string;
  group: string;
  loopback: boolean;
  capped: boolean;
  proven: boolean;
  busy: number;
}

export interface ConnectionGuardOptions {
  /** Addresses whose connections carry many clients (trusted proxies): only the total applies. */
  sharedAddress?: (address: string) => boolean;
  /** Whether a socket's peer may connect at all (--allow-from at accept); loopback always may. */
  admitsPeer?: (address: string) => boolean;
}

/**
 * Counts connections per client address (an IPv6 /64) and in total, and decides at accept,
 * before any byte is read, whether a new one fits: a connection from outside --allow-from is
 * closed at once; one past a cap first makes room by closing the oldest connection of the same
 * kind that is idle and has shown no key (a half-sent request, an idle keep-alive), and is
 * closed itself only when there is none. A connection that showed the API key or the admin
 * token is never the one closed, and loopback always finds room for the person's console.
 * Attached to the server's `connection` event ahead of the HTTP machinery, so a refused
 * socket costs no parser and no timer.
 */
export class ConnectionGuard {
  /** In order of arrival: the first idle unproven one is the oldest to close. */
  private readonly held = new Map<string, Held>();
  private readonly perGroup = new Map<string, number>();
  private unprovenLoopback = 0;
  private unprovenRemote = 0;
  private refusedCount = 0;
  private evictedCount = 0;
  private readonly reserve: number;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly options: ConnectionGuardOptions = {},
  ) {
    this.reserve = Math.floor(limits.maxConnections / RESERVE_SHARE);
  }

  attach(server: Server): void {
    server.prependListener('connection', (socket: Duplex & Peer) => this.admit(socket));
  }

  /**
   * A request arrived on this connection (its headers are read): it is busy until `done`, and
   * proven for good when it carried a key. Under TLS `socket` is the TLS socket; it is found by
   * its peer's address and port, which it shares with the raw one.
   */
  requestStarted(socket: Peer, proven: boolean): () => void {
    const held = this.held.get(keyOf(socket));
    if (!held) return () => undefined;
    held.busy += 1;
    if (proven && !held.proven) {
      held.proven = true;
      this.countUnproven(held, -1);
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      held.busy -= 1;
    };
  }

  /** Connections held now (for tests and the admin view). */
  open(): number {
    return this.held.size;
  }

  /** Connections closed at once because a cap was reached or --allow-from left them out, since start. */
  refused(): number {
    return this.refusedCount;
  }

  /** Idle connections that had shown no key, closed to make room for a new one, since start. */
  evicted(): number {
    return this.evictedCount;
  }

  private admit(socket: Duplex & Peer): void {
    // Gone before it was seen (reset at once): nothing to hold.
    if (socket.remoteAddress === undefined) return this.refuse(socket);
    const address = unmapped(socket.remoteAddress);
    const loopback = isLoopback(address);
    if (!loopback && this.options.admitsPeer && !this.options.admitsPeer(address)) return this.refuse(socket);
    const group = addressGroup(address);
    const capped = !(this.options.sharedAddress?.(address) ?? false);
    const max = this.limits.maxConnections;
    const fits = (): boolean =>
      (!capped || (this.perGroup.get(group) ?? 0) < this.limits.maxConnectionsPerAddress) &&
      this.held.size < max &&
      this.unprovenLoopback + this.unprovenRemote < max - this.reserve &&
      (loopback || this.unprovenRemote < max - 2 * this.reserve);
    while (!fits()) {
      const groupFull = capped && (this.perGroup.get(group) ?? 0) >= this.limits.maxConnectionsPerAddress;
      // Room is made among those whose slots the newcomer competes for: its own address when
      // that is full, else other non-loopback clients (a loopback newcomer may take any).
      const victim = this.oldestIdle((h) => (groupFull ? h.group === group : loopback || !h.loopback));
      if (!victim) return this.refuse(socket);
      this.evictedCount += 1;
      this.release(victim);
      victim.socket.destroy();
    }
    const key = keyOf(socket);
    const held: Held = { socket, key, group, loopback, capped, proven: false, busy: 0 };
    this.held.set(key, held);
    if (capped) this.perGroup.set(group, (this.perGroup.get(group) ?? 0) + 1);
    this.countUnproven(held, 1);
    socket.once('close', () => {
      if (this.held.get(key) === held) this.release(held);
    });
  }

  private refuse(socket: Duplex): void {
    this.refusedCount += 1;
    // No answer: writing costs a buffer and a wait for a peer that may never read.
    socket.destroy();
  }

  private oldestIdle(eligible: (held: Held) => boolean): Held | undefined {
    for (const held of this.held.values()) if (!held.proven && held.busy === 0 && eligible(held)) return held;
    return undefined;
  }

  private countUnproven(held: Held, by: 1 | -1): void {
    if (held.proven && by === 1) return;
    if (held.loopback) this.unprovenLoopback += by;
    else this.unprovenRemote += by;
  }

  /** Forgets a connection once (its close, or its eviction before the close arrives). */
  private release(held: Held): void {
    if (this.held.get(held.key) !== held) return;
    this.held.delete(held.key);
    if (!held.proven) this.countUnproven(held, -1);
    if (held.capped) {
      const left = (this.perGroup.get(held.group) ?? 1) - 1;
      if (left <= 0) this.perGroup.delete(held.group);
      else this.perGroup.set(held.group, left);
    }
  }
}

/** A connection's peer address and port: the same for a raw socket and the TLS socket over it. */
function keyOf(socket: Peer): string {
  return `${unmapped(socket.remoteAddress ?? '')}|${socket.remotePort ?? ''}`;
}

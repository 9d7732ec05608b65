/**
 * What the one HTTP server may hold open, and for how long: a cap on connections in total
 * and per client address, the header and keep-alive deadlines, and the way a refused socket
 * is let go (answer, then destroy — never left half-closed waiting for a peer that does not
 * read). Every descriptor the server holds is bounded in number and in time.
 */
import type { Server } from 'node:net';
import type { Duplex } from 'node:stream';
import { unmapped } from './network-access';
import { DEFAULT_CONNECTION_LIMITS, resolveConnectionLimits, type ConnectionLimits } from '../config/connection-limits';

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
 * Counts connections per client address and closes, at once and before any byte is read,
 * a connection past either cap. Attached to the server's `connection` event ahead of the
 * HTTP machinery, so a refused socket costs no parser and no timer.
 */
export class ConnectionGuard {
  private readonly perAddress = new Map<string, number>();
  private total = 0;
  private refusedCount = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    /** Addresses whose connections carry many clients (trusted proxies): only the total applies. */
    private readonly sharedAddress: (address: string) => boolean = () => false,
  ) {}

  attach(server: Server): void {
    server.prependListener('connection', (socket: Duplex & { remoteAddress?: string }) => this.admit(socket));
  }

  /** Connections held now (for tests and the admin view). */
  open(): number {
    return this.total;
  }

  /** Connections closed at once because a cap was reached, since start. */
  refused(): number {
    return this.refusedCount;
  }

  private admit(socket: Duplex & { remoteAddress?: string }): void {
    const address = unmapped(socket.remoteAddress ?? '');
    const perAddressCapped = !this.sharedAddress(address);
    const fromAddress = this.perAddress.get(address) ?? 0;
    if (
      this.total >= this.limits.maxConnections ||
      (perAddressCapped && fromAddress >= this.limits.maxConnectionsPerAddress)
    ) {
      this.refusedCount += 1;
      // No answer: writing costs a buffer and a wait for a peer that may never read.
      socket.destroy();
      return;
    }
    this.total += 1;
    this.perAddress.set(address, fromAddress + 1);
    socket.once('close', () => {
      this.total -= 1;
      const left = (this.perAddress.get(address) ?? 1) - 1;
      if (left <= 0) this.perAddress.delete(address);
      else this.perAddress.set(address, left);
    });
  }
}

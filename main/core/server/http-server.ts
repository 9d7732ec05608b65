/**
 * The one HTTP server: control plane (/connector-card.json, /skill.md, /health), data-plane
 * upgrades (/ws), transfer plane (/files/...), admin API (/admin/api/...) and the web
 * console (/console). Plain HTTP, or HTTPS/WSS for every plane on the same port when a
 * certificate is given (a renewed certificate is picked up on the next connection).
 * Routing and the network gate only; each plane's logic lives with its owner.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { bearerToken } from '../secrets/secret-store';
import type { Logger } from '../logging/logger';
import type { TlsMaterial } from '../tls/tls-material';
import {
  ConnectionGuard,
  refuseSocket,
  resolveConnectionLimits,
  serverTimeouts,
  type ConnectionLimits,
} from './connection-limits';
import { sendError } from './http-util';
import type { NetworkAccess } from './network-access';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface HttpRoutes {
  /**
   * Exact-path or prefix routes, checked in order. `xagentPlane` routes (/health, the
   * transfer plane) answer only clients the network gate admits; /ws always is one.
   */
  routes: Array<{
    prefix: string;
    exact?: boolean;
    xagentPlane?: boolean;
    /**
     * The handler judges a slow body by its progress itself (uploads: no bytes for a while);
     * every other route's body must arrive within `connections.requestTimeoutMs`.
     */
    bodyByProgress?: boolean;
    handler: RouteHandler;
  }>;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer, token: string | undefined) => void;
}

export interface HttpServerOptions {
  /** Serve HTTPS/WSS with this certificate instead of plain HTTP. */
  tls?: TlsMaterial;
  /** Client addresses (trusted proxies) and the --allow-from gate; none = everyone, socket addresses. */
  access?: NetworkAccess;
  /** Connection caps and deadlines (defaults in connection-limits.ts, docs/REFERENCE.md "Documented limits"). */
  limits?: Partial<ConnectionLimits>;
  /**
   * True when a request shows the API key or the admin token: its connection is then never
   * closed to make room for another (connection-limits.ts). Unset: no connection is proven.
   */
  authenticated?: (req: IncomingMessage) => boolean;
}

const MAX_HEADER_BYTES = 16 * 1024;
/** Older protocol versions are off in every client xAgent runs on. */
const TLS_MIN_VERSION = 'TLSv1.2';

export class HttpServer {
  private readonly server: Server | TlsServer;
  private readonly sockets = new Set<Duplex>();
  private readonly limits: ConnectionLimits;
  private readonly guard: ConnectionGuard;
  readonly scheme: 'http' | 'https';

  constructor(
    private readonly routes: HttpRoutes,
    private readonly logger: Logger,
    private readonly options: HttpServerOptions = {},
  ) {
    const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
      void this.handle(req, res);
    };
    this.limits = resolveConnectionLimits(options.limits);
    const serverLimits = { ...serverTimeouts(this.limits), maxHeaderSize: MAX_HEADER_BYTES };
    const tls = options.tls;
    if (tls) {
      const identity = tls.current;
      const server = createTlsServer(
        { ...serverLimits, cert: identity.cert, key: identity.key, minVersion: TLS_MIN_VERSION },
        onRequest,
      );
      // Before the TLS socket is made for this connection: a renewed certificate serves it already.
      server.prependListener('connection', () => {
        const renewed = tls.refresh();
        if (renewed) server.setSecureContext({ cert: renewed.cert, key: renewed.key, minVersion: TLS_MIN_VERSION });
      });
      this.server = server;
    } else {
      this.server = createServer(serverLimits, onRequest);
    }
    this.scheme = tls ? 'https' : 'http';
    // First of the connection listeners: a socket past a cap is gone before TLS or HTTP sees it.
    this.guard = new ConnectionGuard(this.limits, {
      sharedAddress: (address) => this.options.access?.isTrustedProxy(address) ?? false,
      // --allow-from at accept: a client it leaves out holds no slot, not even for its headers.
      admitsPeer: (address) => this.options.access?.admitsPeer(address) ?? true,
    });
    this.guard.attach(this.server);
    const proven = (req: IncomingMessage): boolean => this.options.authenticated?.(req) ?? false;
    // Before the routes: a connection busy with a request is not the one closed to make room.
    this.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      res.once('close', this.guard.requestStarted(req.socket, proven(req)));
    });
    this.server.prependListener('upgrade', (req: IncomingMessage, socket: Socket) => {
      this.guard.requestStarted(socket, proven(req));
    });
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
      // Header floods get the status that says so; a request that missed its deadline, 408.
      const status =
        error.code === 'HPE_HEADER_OVERFLOW'
          ? '431 Request Header Fields Too Large'
          : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
            ? '408 Request Timeout'
            : '400 Bad Request';
      refuseSocket(
        socket,
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`,
        this.limits.refusalBackstopMs,
      );
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = safeUrl(req.url);
      if (!url || url.pathname !== '/ws') {
        refuseSocket(
          socket,
          'HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
          this.limits.refusalBackstopMs,
        );
        return;
      }
      if (this.options.access && !this.options.access.admits(req, url.pathname)) {
        refuseSocket(
          socket,
          `HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${FORBIDDEN_BODY.length}\r\n\r\n${FORBIDDEN_BODY}`,
          this.limits.refusalBackstopMs,
        );
        return;
      }
      this.routes.upgrade(req, socket, head, bearerToken(req.headers.authorization));
    });
  }

  async listen(host: string, port: number): Promise<{ host: string; port: number }> {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
    const address = this.server.address() as AddressInfo;
    return { host, port: address.port };
  }

  /** Connections held now, on every plane (upgraded data planes included). */
  openConnections(): number {
    return this.guard.open();
  }

  /** Connections closed at once because a cap was reached, since start. */
  refusedConnections(): number {
    return this.guard.refused();
  }

  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = safeUrl(req.url);
    if (!url) return sendError(res, 400, 'invalid_request', 'malformed request target');
    const access = this.options.access;
    access?.resolve(req);
    // Under TLS browsers are told to come back over HTTPS only; no response is sniffed into another type.
    if (this.scheme === 'https') res.setHeader('Strict-Transport-Security', 'max-age=31536000');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    try {
      for (const route of this.routes.routes) {
        const match = route.exact ? url.pathname === route.prefix : url.pathname.startsWith(route.prefix);
        if (match) {
          if (route.xagentPlane && access && !access.admits(req, url.pathname)) {
            return sendError(res, 403, 'permission_denied', FORBIDDEN_MESSAGE);
          }
          if (!route.bodyByProgress) armBodyDeadline(req, res, this.limits.requestTimeoutMs);
          await route.handler(req, res, url);
          return;
        }
      }
      sendError(res, 404, 'not_found', 'no such endpoint');
    } catch (error) {
      this.logger.error('http handler failed', {
        path: url.pathname,
        error: error instanceof Error ? error.message : String(error),
      });
      sendError(res, 500, 'internal_error', 'internal error');
    }
  }
}

/**
 * Node's own whole-request deadline is off (it would cut a long upload that is still moving):
 * instead each body must arrive within requestTimeoutMs, unless its route judges progress
 * itself, and a body still unread when the answer has gone out closes the connection.
 */
function armBodyDeadline(req: IncomingMessage, res: ServerResponse, ms: number): void {
  if (req.complete) return;
  const timer = setTimeout(() => {
    if (req.complete) return;
    // The answer's end closes the connection (below); one already on its way is cut.
    if (!res.headersSent)
      sendError(res, 408, 'request_timeout', `the request body did not arrive within ${Math.round(ms / 1000)} s`);
    else req.socket.destroy();
  }, ms);
  timer.unref();
  const done = (): void => clearTimeout(timer);
  req.once('end', done);
  req.once('close', done);
  res.once('finish', () => {
    // Answered before the body was read to its end: the rest is not waited for.
    if (!req.complete) req.socket.destroy();
  });
}

const FORBIDDEN_MESSAGE = 'this address may not connect to the bridge (--allow-from)';
const FORBIDDEN_BODY = JSON.stringify({ error: { code: 'permission_denied', message: FORBIDDEN_MESSAGE } });

function safeUrl(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://bridge.invalid');
  } catch {
    return undefined;
  }
}

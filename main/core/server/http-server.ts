/**
 * The one HTTP server: control plane (/connector-card.json, /skill.md, /health), data-plane
 * upgrades (/ws), transfer plane (/files/...), admin API (/admin/api/...) and the web
 * console (/console). Routing only; each plane's logic lives with its owner.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { bearerToken } from '../secrets/secret-store';
import type { Logger } from '../logging/logger';
import { sendError } from './http-util';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, url: URL) => void | Promise<void>;

export interface HttpRoutes {
  /** Exact-path or prefix routes, checked in order. */
  routes: Array<{ prefix: string; exact?: boolean; handler: RouteHandler }>;
  upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer, token: string | undefined) => void;
}

export class HttpServer {
  private readonly server: Server;
  private readonly sockets = new Set<Duplex>();

  constructor(
    private readonly routes: HttpRoutes,
    private readonly logger: Logger,
  ) {
    this.server = createServer({ requestTimeout: 60_000, headersTimeout: 15_000, maxHeaderSize: 16 * 1024 }, (req, res) => {
      void this.handle(req, res);
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    this.server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
      // Header floods (too many or too large headers) get the status that says so.
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? '431 Request Header Fields Too Large' : '400 Bad Request';
      if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      else socket.destroy();
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = safeUrl(req.url);
      if (!url || url.pathname !== '/ws') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
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

  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = safeUrl(req.url);
    if (!url) return sendError(res, 400, 'invalid_request', 'malformed request target');
    try {
      for (const route of this.routes.routes) {
        const match = route.exact ? url.pathname === route.prefix : url.pathname.startsWith(route.prefix);
        if (match) {
          await route.handler(req, res, url);
          return;
        }
      }
      sendError(res, 404, 'not_found', 'no such endpoint');
    } catch (error) {
      this.logger.error('http handler failed', { path: url.pathname, error: error instanceof Error ? error.message : String(error) });
      sendError(res, 500, 'internal_error', 'internal error');
    }
  }
}

function safeUrl(raw: string | undefined): URL | undefined {
  try {
    return new URL(raw ?? '/', 'http://bridge.invalid');
  } catch {
    return undefined;
  }
}

/**
 * The admin API (DESIGN.md §9): what the UI and lab scripts use, behind the admin token and
 * loopback-only unless remote admin is enabled. Routes are declared in one table matching
 * main/contract/admin-api.ts; bodies are validated here, at the edge.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BridgeError, isBridgeError } from '../errors';
import { bearerToken, secretEquals } from '../secrets/secret-store';
import { isLoopback, readJsonBody, sendError, sendJson, statusForCode } from '../server/http-util';
import { clientAddressOf } from '../server/network-access';
import type { EventHub } from './event-hub';

export interface AdminRequest {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  params: Record<string, string>;
  body: () => Promise<Record<string, unknown>>;
}

export type AdminHandler = (request: AdminRequest) => Promise<unknown> | unknown;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: AdminHandler;
  raw: boolean;
}

// Events are small "something changed" notes; a healthy reader never has this much pending.
const MAX_STREAM_BACKLOG_BYTES = 256 * 1024;
const MAX_EVENT_STREAMS = 32;

export class AdminRouter {
  private readonly routes: Route[] = [];
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly options: { adminToken: () => string; allowRemote: boolean; hub: EventHub },
  ) {
    options.hub.on('event', (event) => {
      const line = `data: ${JSON.stringify(event)}\n\n`;
      for (const res of this.streams) this.send(res, line);
    });
  }

  /** Adds a route; `:name` segments become params. `raw` handlers write the response themselves. */
  add(method: string, path: string, handler: AdminHandler, raw = false): void {
    const names: string[] = [];
    const pattern = new RegExp(
      `^${path.replace(/:([a-z_]+)/g, (_m, name: string) => {
        names.push(name);
        return '([^/]+)';
      })}$`,
    );
    this.routes.push({ method, pattern, names, handler, raw });
  }

  closeStreams(): void {
    for (const res of this.streams) res.end();
    this.streams.clear();
  }

  /**
   * Whether this client may use the admin API and console at all: loopback, or anyone with
   * remote admin. The client behind a --trust-proxy proxy counts, not the proxy: a proxy on
   * this machine does not make everyone local.
   */
  admitsClient(req: IncomingMessage): boolean {
    return this.options.allowRemote || isLoopback(clientAddressOf(req));
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (!this.admitsClient(req)) {
      return sendError(res, 403, 'forbidden', 'the admin API answers loopback clients only');
    }
    const token = bearerToken(req.headers.authorization);
    if (!token || !secretEquals(token, this.options.adminToken())) {
      return sendError(res, 401, 'unauthorized', 'a valid admin token is required');
    }
    if (req.method === 'GET' && url.pathname === '/admin/api/events') return this.openStream(req, res);
    for (const route of this.routes) {
      if (route.method !== req.method) continue;
      const match = route.pattern.exec(url.pathname);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        try {
          params[name] = decodeURIComponent(match[i + 1] ?? '');
        } catch {
          params[name] = '';
        }
      });
      const body = async (): Promise<Record<string, unknown>> => {
        const parsed = await readJsonBody(req);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BridgeError('invalid_arguments', 'body must be a JSON object');
        return parsed as Record<string, unknown>;
      };
      try {
        const result = await route.handler({ req, res, url, params, body });
        if (!route.raw) sendJson(res, 200, result ?? { status: 'ok' });
      } catch (error) {
        if (isBridgeError(error)) return sendError(res, statusForCode(error.code), error.code, error.message);
        throw error;
      }
      return;
    }
    sendError(res, 404, 'not_found', 'no such admin endpoint');
  }

  /** In-process call of a JSON route (the Electron IPC handlers use it); throws BridgeError. */
  async call(method: string, path: string, body: Record<string, unknown> = {}): Promise<unknown> {
    for (const route of this.routes) {
      if (route.method !== method || route.raw) continue;
      const match = route.pattern.exec(path);
      if (!match) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, i) => {
        params[name] = decodeURIComponent(match[i + 1] ?? '');
      });
      const fake = { req: undefined as never, res: undefined as never, url: new URL(path, 'http://ipc.invalid'), params, body: async () => body };
      return (await route.handler(fake)) ?? { status: 'ok' };
    }
    throw new BridgeError('invalid_arguments', `no admin operation ${method} ${path}`);
  }

  /** Writes to one stream; a reader that stopped reading is dropped instead of buffered forever. */
  private send(res: ServerResponse, text: string): void {
    if (res.writableLength > MAX_STREAM_BACKLOG_BYTES) return this.drop(res);
    res.write(text);
  }

  private drop(res: ServerResponse): void {
    this.streams.delete(res);
    res.destroy();
  }

  private openStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    if (this.streams.size >= MAX_EVENT_STREAMS) {
      // The oldest stream is most likely a forgotten tab; the UI reconnects by itself.
      const oldest = this.streams.values().next().value;
      if (oldest) this.drop(oldest);
    }
    this.streams.add(res);
    this.send(res, `data: ${JSON.stringify({ type: 'state', at: Date.now() })}\n\n`);
    const keepAlive = setInterval(() => this.send(res, ': keep-alive\n\n'), 15_000);
    keepAlive.unref();
    req.on('close', () => {
      clearInterval(keepAlive);
      this.streams.delete(res);
    });
  }
}

export function requireString(body: Record<string, unknown>, name: string, max = 256): string {
  const value = body[name];
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new BridgeError('invalid_arguments', `${name} must be a non-empty string of at most ${max} characters`);
  }
  return value;
}

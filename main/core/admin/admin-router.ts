/**
 * The admin API (DESIGN.md §9): what the UI and lab scripts use, behind the admin token and
 * loopback-only unless remote admin is enabled. Each operation of main/contract/admin-operations.ts
 * gets one handler, typed from the map: it takes the path parameters and the request (untrusted:
 * its fields are checked here, at the edge) and answers the map's response. The same handler
 * answers HTTP (here) and the desktop app's IPC (`invoke`); an operation whose HTTP answer is not
 * JSON (a JPEG, an export) adds an HTTP responder.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ADMIN_HTTP_ONLY_ROUTES,
  ADMIN_OPERATION_NAMES,
  ADMIN_OPERATIONS,
  pathParamNames,
  splitRoute,
  type AdminHttpOnlyRoute,
  type AdminOperationName,
  type AdminRequest,
  type AdminResponse,
  type AdminRoute,
  type OperationOfRoute,
  type PathParams,
} from '../../contract/admin-operations';
import { BridgeError, isBridgeError } from '../errors';
import { bearerToken, secretEquals } from '../secrets/secret-store';
import { sendRefusal, type AdminGate } from '../server/admin-gate';
import { hasNonJsonBody, isLoopback, readJsonBody, sendError, sendJson, statusForCode } from '../server/http-util';
import { clientAddressOf } from '../server/network-access';
import type { EventHub } from '../events/event-hub';

type KeysOf<T> = T extends unknown ? keyof T : never;
/** A request as it arrives: the contract's field names, values not yet checked. */
export type Untrusted<T> = { readonly [K in KeysOf<T>]?: unknown };

/** What one operation's handler receives, over HTTP or IPC alike. */
export interface OperationInput<R extends AdminRoute> {
  params: PathParams<R>;
  /** The JSON body (GET: the query); read on first call. */
  request: () => Promise<Untrusted<AdminRequest<OperationOfRoute<R>>>>;
  /**
   * The person asking sits at this computer: the desktop app (IPC) or a loopback client. A few
   * answers hold more for them than for a remote console (the phone view's typed text).
   */
  local: boolean;
}

export type OperationHandler<R extends AdminRoute> = (
  input: OperationInput<R>,
) => Promise<AdminResponse<OperationOfRoute<R>>> | AdminResponse<OperationOfRoute<R>>;

/** The HTTP exchange, for the few answers that are not JSON. */
export interface HttpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
}

/** Writes an operation's HTTP answer itself; `answer()` runs the handler (errors thrown before a write become JSON errors). */
export type HttpResponder<R extends AdminRoute> = (
  exchange: HttpExchange,
  answer: () => Promise<AdminResponse<OperationOfRoute<R>>>,
) => Promise<void> | void;

/** A route with no IPC twin (ADMIN_HTTP_ONLY_ROUTES): it writes the response itself. */
export type HttpOnlyHandler<R extends AdminHttpOnlyRoute> = (
  exchange: HttpExchange & { params: PathParams<R> },
) => Promise<void> | void;

/** One registered route, its types erased: both ways in are closures made in `add`. */
interface Entry {
  method: string;
  pattern: RegExp;
  names: string[];
  http(exchange: HttpExchange, values: string[]): Promise<void>;
  invoke?(args: Record<string, unknown>): Promise<unknown>;
}

// Events are small "something changed" notes; a healthy reader never has this much pending.
const MAX_STREAM_BACKLOG_BYTES = 256 * 1024;
const MAX_EVENT_STREAMS = 32;
const EVENTS_PATH = splitRoute(ADMIN_HTTP_ONLY_ROUTES.events).path;

/**
 * The path parameters by name. The one cast of the router: the names were read from the same
 * template `PathParams<R>` is derived from, so every key of the type is present.
 */
function paramsOf<R extends string>(
  names: readonly string[],
  value: (name: string, index: number) => string,
): PathParams<R> {
  const params: Record<string, string> = {};
  names.forEach((name, i) => {
    params[name] = value(name, i);
  });
  return params as PathParams<R>;
}

function decodeSegment(segment: string | undefined): string {
  try {
    return decodeURIComponent(segment ?? '');
  } catch {
    return '';
  }
}

/** A query string as a request object (the first value of a repeated name wins). */
export function queryOf(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) if (!(name in query)) query[name] = value;
  return query;
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const parsed = await readJsonBody(req);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new BridgeError('invalid_arguments', 'body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function compile(route: string): Pick<Entry, 'method' | 'pattern' | 'names'> {
  const { method, path } = splitRoute(route);
  return { method, pattern: new RegExp(`^${path.replace(/:([a-z_]+)/g, '([^/]+)')}$`), names: pathParamNames(path) };
}

export class AdminRouter {
  private readonly routes = new Map<string, Entry>();
  private readonly streams = new Set<ServerResponse>();

  constructor(
    private readonly options: { adminToken: () => string; allowRemote: boolean; hub: EventHub; gate?: AdminGate },
  ) {
    options.hub.on('event', (event) => {
      const line = `data: ${JSON.stringify(event)}\n\n`;
      for (const res of this.streams) this.send(res, line);
    });
  }

  /**
   * Registers the handler of one operation of the map, by its route. Its answer is sent as
   * JSON unless `http` writes it. Each route once: a second registration throws.
   */
  add<R extends AdminRoute>(route: R, handler: OperationHandler<R>, options: { http?: HttpResponder<R> } = {}): void {
    const compiled = this.claim(route);
    const run = (
      params: PathParams<R>,
      request: () => Promise<Record<string, unknown>>,
      local: boolean,
    ): Promise<AdminResponse<OperationOfRoute<R>>> => Promise.resolve(handler({ params, request, local }));
    const readRequest = (exchange: HttpExchange): (() => Promise<Record<string, unknown>>) =>
      compiled.method === 'GET' ? async () => queryOf(exchange.url) : () => jsonBody(exchange.req);
    this.routes.set(route, {
      ...compiled,
      http: async (exchange, values) => {
        const params = paramsOf<R>(compiled.names, (_name, i) => decodeSegment(values[i]));
        // The client behind a --trust-proxy proxy counts, as in admitsClient.
        const local = isLoopback(clientAddressOf(exchange.req));
        const answer = (): Promise<AdminResponse<OperationOfRoute<R>>> => run(params, readRequest(exchange), local);
        if (options.http) return options.http(exchange, answer);
        sendJson(exchange.res, 200, await answer());
      },
      invoke: (args) => {
        const params = paramsOf<R>(compiled.names, (name) => {
          const value = args[name];
          return typeof value === 'string' ? value : '';
        });
        const rest = Object.fromEntries(Object.entries(args).filter(([name]) => !compiled.names.includes(name)));
        return run(params, async () => rest, true);
      },
    });
  }

  /** Registers a route that has no IPC twin; it writes the response itself. */
  addHttpOnly<R extends AdminHttpOnlyRoute>(route: R, handler: HttpOnlyHandler<R>): void {
    const compiled = this.claim(route);
    this.routes.set(route, {
      ...compiled,
      http: async (exchange, values) =>
        handler({ ...exchange, params: paramsOf<R>(compiled.names, (_name, i) => decodeSegment(values[i])) }),
    });
  }

  /** Operations of the map that have no handler yet (createCore refuses to build with any). */
  missingOperations(): AdminOperationName[] {
    return ADMIN_OPERATION_NAMES.filter((name) => !this.routes.has(ADMIN_OPERATIONS[name].route));
  }

  /** Every route registered, in order. */
  registeredRoutes(): string[] {
    return [...this.routes.keys()];
  }

  /**
   * Runs an operation in-process (the desktop app's IPC handlers): `args` holds the path
   * parameters and the request's fields together. Throws BridgeError like the handler.
   */
  async invoke(name: AdminOperationName, args: Record<string, unknown> = {}): Promise<unknown> {
    const entry = this.routes.get(ADMIN_OPERATIONS[name].route);
    if (!entry?.invoke) throw new BridgeError('invalid_arguments', `no admin operation ${name}`);
    return entry.invoke(args);
  }

  private claim(route: string): Pick<Entry, 'method' | 'pattern' | 'names'> {
    if (this.routes.has(route)) throw new Error(`admin route registered twice: ${route}`);
    return compile(route);
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
    const gate = this.options.gate;
    const refused = gate?.checkRequest(req, { checkOrigin: true });
    if (refused) return sendError(res, refused.status, refused.code, refused.message);
    const address = clientAddressOf(req) ?? '';
    const token = bearerToken(req.headers.authorization);
    const tokenRefused = gate
      ? gate.checkToken(address, token, this.options.adminToken())
      : token !== undefined && secretEquals(token, this.options.adminToken())
        ? null
        : { status: 401, code: 'unauthorized', message: 'a valid admin token is required' };
    if (tokenRefused) return sendRefusal(res, tokenRefused);
    if (hasNonJsonBody(req))
      return sendError(
        res,
        415,
        'unsupported_media_type',
        'the admin API takes JSON bodies only (Content-Type: application/json)',
      );
    if (req.method === 'GET' && url.pathname === EVENTS_PATH) return this.openStream(req, res);
    for (const entry of this.routes.values()) {
      if (entry.method !== req.method) continue;
      const match = entry.pattern.exec(url.pathname);
      if (!match) continue;
      try {
        await entry.http({ req, res, url }, match.slice(1));
      } catch (error) {
        if (isBridgeError(error)) return sendError(res, statusForCode(error.code), error.code, error.message);
        throw error;
      }
      return;
    }
    sendError(res, 404, 'not_found', 'no such admin endpoint');
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

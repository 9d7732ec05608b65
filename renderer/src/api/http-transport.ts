/**
 * BridgeApi over the admin HTTP API (the web console): every call carries the admin token as
 * a Bearer header and has a deadline; live updates come from `GET /admin/api/events` read with
 * fetch + a stream reader, because EventSource cannot send headers. No DOM globals beyond
 * fetch/AbortController/TextDecoder, so Node tests drive it against a real server.
 */
import {
  ADMIN_HTTP_ONLY_ROUTES,
  ADMIN_OPERATIONS,
  fillPath,
  pathParamNames,
  splitRoute,
  type AdminArgs,
  type AdminOperationName,
} from '../../../main/contract/admin-operations';
import {
  ApiError,
  createBridgeApi,
  parseErrorBody,
  type AdminEvent,
  type BinaryOperation,
  type BridgeApi,
  type CallOptions,
  type ClientResponse,
  type LiveStatus,
} from './bridge-api';
import { SseParser, toAdminEvent } from './sse-parser';

export interface HttpTransportOptions {
  /** Scheme://host:port of the bridge; '' means the page's own origin (the console). */
  origin: string;
  token: string;
  fetch?: typeof fetch;
  /** Deadline of one API call. */
  requestTimeoutMs?: number;
  /** The event stream is re-opened when silent this long (the bridge sends keep-alives every 15 s). */
  streamIdleTimeoutMs?: number;
  /** First reconnect delay; doubles up to 15 s. */
  reconnectBaseMs?: number;
}

/**
 * Method, URL and body of one operation (main/contract/admin-operations.ts): path parameters
 * go into the path; the other fields are the query of a GET, nothing for a DELETE, else the
 * JSON body (`{}` when there are none).
 */
export function httpRequestOf<N extends AdminOperationName>(
  name: N,
  args: AdminArgs<N>,
): { method: string; path: string; body: unknown } {
  const { method, path } = splitRoute(ADMIN_OPERATIONS[name].route);
  const inPath = pathParamNames(path);
  const fields = Object.entries(args).filter(([field, value]) => !inPath.includes(field) && value !== undefined);
  const filled = fillPath(path, args);
  if (method === 'GET') {
    const query = new URLSearchParams(
      fields.map(([field, value]): [string, string] => [field, String(value)]),
    ).toString();
    return { method, path: query ? `${filled}?${query}` : filled, body: undefined };
  }
  return { method, path: filled, body: method === 'DELETE' ? undefined : Object.fromEntries(fields) };
}

export function createHttpTransport(options: HttpTransportOptions): BridgeApi {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const idleTimeoutMs = options.streamIdleTimeoutMs ?? 45_000;
  const reconnectBaseMs = options.reconnectBaseMs ?? 1_000;
  const listeners = new Set<{ onEvent: (event: AdminEvent) => void; onStatus: (status: LiveStatus) => void }>();
  let closeShared: (() => void) | undefined;
  let lastStatus: LiveStatus | undefined;
  const auth = { Authorization: `Bearer ${options.token}` };

  async function send(method: string, path: string, body: unknown, signal?: AbortSignal): Promise<Response> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const onOuterAbort = (): void => deadline.abort();
    signal?.addEventListener('abort', onOuterAbort, { once: true });
    try {
      const headers: Record<string, string> = { ...auth, Accept: 'application/json' };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      let response: Response;
      try {
        response = await doFetch(`${options.origin}${path}`, {
          method,
          headers,
          body: body === undefined ? null : JSON.stringify(body),
          signal: deadline.signal,
          cache: 'no-store',
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        if (deadline.signal.aborted) {
          throw new ApiError('unreachable', `The bridge did not answer within ${Math.round(timeoutMs / 1000)} s.`);
        }
        throw new ApiError(
          'unreachable',
          `The bridge cannot be reached (${error instanceof Error ? error.message : String(error)}).`,
        );
      }
      if (!response.ok) throw await errorFrom(response);
      return response;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
    }
  }

  /** Runs one operation; the answer is the bridge's JSON, or for bytes what its decoder reads. */
  async function run<N extends AdminOperationName>(
    name: N,
    args: AdminArgs<N>,
    { signal }: CallOptions,
  ): Promise<ClientResponse<N>> {
    const { method, path, body } = httpRequestOf(name, args);
    const response = await send(method, path, body, signal);
    if (isBinary(name)) return decodeBinary(name, response);
    try {
      return (await response.json()) as ClientResponse<N>;
    } catch {
      throw new ApiError('bad_response', 'The bridge sent an answer that is not JSON.', response.status);
    }
  }

  // One event stream per page, shared by every part of it that listens: a browser allows six
  // connections per host across all its tabs, and a phone view has several listeners.
  function subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void {
    const listener = { onEvent, onStatus };
    listeners.add(listener);
    if (closeShared) {
      if (lastStatus) onStatus(lastStatus);
    } else {
      closeShared = openEventStream({
        doFetch,
        url: `${options.origin}${splitRoute(ADMIN_HTTP_ONLY_ROUTES.events).path}`,
        auth,
        idleTimeoutMs,
        reconnectBaseMs,
        onEvent: (event) => {
          for (const l of [...listeners]) l.onEvent(event);
        },
        onStatus: (status) => {
          lastStatus = status;
          for (const l of [...listeners]) l.onStatus(status);
        },
      });
    }
    return () => {
      if (!listeners.delete(listener) || listeners.size > 0) return;
      const close = closeShared;
      closeShared = undefined;
      lastStatus = undefined;
      close?.();
    };
  }

  return createBridgeApi('http', run, subscribe);
}

/** Whether an operation's HTTP answer is bytes, read by its decoder (BINARY_DECODERS). */
function isBinary(name: AdminOperationName): name is BinaryOperation {
  return Object.hasOwn(BINARY_DECODERS, name);
}

function decodeBinary<N extends BinaryOperation>(name: N, response: Response): Promise<ClientResponse<N>> {
  const decode: (response: Response) => Promise<ClientResponse<N>> = BINARY_DECODERS[name];
  return decode(response);
}

/** How each answer with bytes is read from its HTTP response (a JPEG, a frame with its headers, a file). */
const BINARY_DECODERS: { readonly [N in BinaryOperation]: (response: Response) => Promise<ClientResponse<N>> } = {
  getDeviceScreen: (response) => response.blob(),
  getActionScreen: (response) => response.blob(),
  async getDeviceFrame(response) {
    const header = (name: string): number => Number(response.headers.get(name) ?? '0');
    return {
      blob: await response.blob(),
      seq: header('X-Frame-Seq'),
      screenWidth: header('X-Screen-Width'),
      screenHeight: header('X-Screen-Height'),
      fresh: response.headers.get('X-Frame-Fresh') !== '0',
      lane: laneOf(response.headers.get('X-Frame-Lane')),
    };
  },
  async getEvidence(response) {
    const type = response.headers.get('Content-Type') ?? '';
    const name = /filename="([^"]+)"/.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
    return { filename: name ?? `evidence.${type.includes('json') ? 'json' : 'html'}`, blob: await response.blob() };
  },
};

async function errorFrom(response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const parsed = parseErrorBody(body);
  if (response.status === 401) {
    return new ApiError('unauthorized', parsed?.message ?? 'The admin token was not accepted.', 401);
  }
  if (parsed) return new ApiError(parsed.code, parsed.message, response.status);
  return new ApiError(
    'bad_response',
    `The bridge answered ${response.status} ${response.statusText}.`.replace(/ \.$/, '.'),
    response.status,
  );
}

interface StreamOptions {
  doFetch: typeof fetch;
  url: string;
  auth: Record<string, string>;
  idleTimeoutMs: number;
  reconnectBaseMs: number;
  onEvent: (event: AdminEvent) => void;
  onStatus: (status: LiveStatus) => void;
}

/** Keeps one event stream open, reconnecting with backoff; returns an idempotent close. */
function openEventStream(o: StreamOptions): () => void {
  let closed = false;
  let failures = 0;
  let controller: AbortController | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;

  const report = (status: LiveStatus): void => {
    if (!closed) o.onStatus(status);
  };

  const connect = async (): Promise<void> => {
    const abort = new AbortController();
    controller = abort;
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    // One timer is both the connect deadline and the silence detector.
    const arm = (): void => {
      clearTimeout(watchdog);
      watchdog = setTimeout(() => abort.abort(), o.idleTimeoutMs);
    };
    arm();
    try {
      const response = await o.doFetch(o.url, {
        headers: { ...o.auth, Accept: 'text/event-stream' },
        signal: abort.signal,
        cache: 'no-store',
      });
      if (response.status === 401) {
        report('unauthorized');
        closed = true;
        await response.body?.cancel().catch(() => undefined);
        return;
      }
      if (!response.ok || !response.body) throw new Error(`event stream answered ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      const parser = new SseParser();
      failures = 0;
      report('live');
      for (;;) {
        const { done, value } = await reader.read();
        if (done || closed) break;
        arm();
        for (const message of parser.push(decoder.decode(value, { stream: true }))) {
          if (closed) break;
          try {
            o.onEvent(toAdminEvent(message));
          } catch {
            // A listener's bug must not tear down the stream.
          }
        }
      }
      await reader.cancel().catch(() => undefined);
    } catch {
      // network error, abort or silence: reconnect below
    } finally {
      clearTimeout(watchdog);
    }
    if (closed) return;
    report('reconnecting');
    const delay = Math.min(15_000, o.reconnectBaseMs * 2 ** failures);
    failures += 1;
    retryTimer = setTimeout(() => void connect(), delay);
  };

  report('connecting');
  void connect();
  return () => {
    if (closed) return;
    closed = true;
    clearTimeout(retryTimer);
    controller?.abort();
  };
}

/** The X-Frame-Lane header as the frame's lane (anything unknown reads as screencap). */
function laneOf(header: string | null): 'minicap' | 'helper' | 'adb' {
  return header === 'minicap' || header === 'helper' ? header : 'adb';
}

/**
 * BridgeApi over the admin HTTP API (the web console): every call carries the admin token as
 * a Bearer header and has a deadline; live updates come from `GET /admin/api/events` read with
 * fetch + a stream reader, because EventSource cannot send headers. No DOM globals beyond
 * fetch/AbortController/TextDecoder, so Node tests drive it against a real server.
 */
import type {
  AccessCodeRequest,
  AddLanDeviceResponse,
  AdminEvent,
  AdminFastLane,
  AdminLanDiscovered,
  AdminPhoneActions,
  AdminPolicies,
  AdminSettings,
  AdminSettingsPatch,
  AdminState,
  ApprovalDecision,
  AuditEntry,
  BridgeApi,
  DeviceHelperResponse,
  HelperAction,
  LanPairResponse,
  LiveFrameImage,
  LiveStatus,
  PairingDecision,
  StatusResponse,
  PhoneCheckResponse,
  StopDeviceResponse,
} from './bridge-api';
import { ApiError, parseErrorBody } from './bridge-api';
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

const API = '/admin/api';

export function createHttpTransport(options: HttpTransportOptions): BridgeApi {
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const timeoutMs = options.requestTimeoutMs ?? 15_000;
  const idleTimeoutMs = options.streamIdleTimeoutMs ?? 45_000;
  const reconnectBaseMs = options.reconnectBaseMs ?? 1_000;
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
        response = await doFetch(`${options.origin}${API}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: deadline.signal,
          cache: 'no-store',
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        if (deadline.signal.aborted) {
          throw new ApiError('unreachable', `The bridge did not answer within ${Math.round(timeoutMs / 1000)} s.`);
        }
        throw new ApiError('unreachable', `The bridge cannot be reached (${error instanceof Error ? error.message : String(error)}).`);
      }
      if (!response.ok) throw await errorFrom(response);
      return response;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onOuterAbort);
    }
  }

  async function json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await send(method, path, body);
    try {
      return (await response.json()) as T;
    } catch {
      throw new ApiError('bad_response', 'The bridge sent an answer that is not JSON.', response.status);
    }
  }

  const seg = encodeURIComponent;

  return {
    kind: 'http',
    getState: () => json<AdminState>('GET', '/state'),
    decidePairing: (id: string, decision: PairingDecision) => json<StatusResponse>('POST', `/pairings/${seg(id)}`, decision),
    decideApproval: (id: string, decision: ApprovalDecision) => json<StatusResponse>('POST', `/approvals/${seg(id)}`, { decision }),
    revokeChannel: (id: string) => json<StatusResponse>('POST', `/channels/${seg(id)}/revoke`, {}),
    extendChannel: (id: string, extendMs: number) => json<StatusResponse>('POST', `/channels/${seg(id)}/extend`, { extend_ms: extendMs }),
    stopDevice: (id: string) => json<StopDeviceResponse>('POST', `/devices/${seg(id)}/stop`, {}),
    checkDevice: (id: string) => json<PhoneCheckResponse>('GET', `/devices/${seg(id)}/check`),
    setDeviceHelper: (id: string, action: HelperAction) => json<DeviceHelperResponse>('POST', `/devices/${seg(id)}/helper`, { action }),
    getFastLane: () => json<AdminFastLane>('GET', '/fast-lane'),
    putFastLane: (change) => json<AdminFastLane>('PUT', '/fast-lane', change),
    setAccessCode: (request: AccessCodeRequest) => json<StatusResponse>('POST', '/access-codes', request),
    addLanDevice: (address: string) => json<AddLanDeviceResponse>('POST', '/lan-devices', { address }),
    forgetLanDevice: (address: string) => json<StatusResponse>('DELETE', `/lan-devices/${seg(address)}`),
    pairLanDevice: (address: string, code: string) => json<LanPairResponse>('POST', '/lan-pair', { address, code }),
    getAudit: () => json<{ entries: AuditEntry[] }>('GET', '/audit'),
    getLanDiscovered: () => json<AdminLanDiscovered>('GET', '/lan-discovered'),
    getSettings: () => json<AdminSettings>('GET', '/settings'),
    patchSettings: (patch: AdminSettingsPatch) => json<AdminSettings>('PATCH', '/settings', patch),
    revealApiKey: () => json<{ api_key: string }>('POST', '/api-key/reveal', {}),
    rotateApiKey: () => json<{ api_key: string }>('POST', '/api-key/rotate', {}),
    getPolicies: () => json<AdminPolicies>('GET', '/policies'),
    putPolicies: (policies: AdminPolicies) => json<AdminPolicies>('PUT', '/policies', policies),
    async getDeviceScreen(id: string, signal?: AbortSignal): Promise<Blob> {
      const response = await send('GET', `/devices/${seg(id)}/screen`, undefined, signal);
      return response.blob();
    },
    getDeviceActions: (id: string) => json<AdminPhoneActions>('GET', `/devices/${seg(id)}/actions`),
    async getDeviceFrame(id: string, maxSide: number, after: number, signal?: AbortSignal): Promise<LiveFrameImage> {
      const response = await send('GET', `/devices/${seg(id)}/frame?max_side=${Math.round(maxSide)}&after=${Math.max(0, Math.round(after))}`, undefined, signal);
      const header = (name: string): number => Number(response.headers.get(name) ?? '0');
      return {
        blob: await response.blob(),
        seq: header('X-Frame-Seq'),
        screenWidth: header('X-Screen-Width'),
        screenHeight: header('X-Screen-Height'),
        fresh: response.headers.get('X-Frame-Fresh') !== '0',
        lane: response.headers.get('X-Frame-Lane') === 'helper' ? 'helper' : 'adb',
      };
    },
    async getActionScreen(id: string, actionId: string, signal?: AbortSignal): Promise<Blob> {
      const response = await send('GET', `/devices/${seg(id)}/actions/${seg(actionId)}/screen`, undefined, signal);
      return response.blob();
    },
    subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void {
      return openEventStream({ doFetch, url: `${options.origin}${API}/events`, auth, idleTimeoutMs, reconnectBaseMs, onEvent, onStatus });
    },
  };
}

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
  return new ApiError('bad_response', `The bridge answered ${response.status} ${response.statusText}.`.replace(/ \.$/, '.'), response.status);
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
      const response = await o.doFetch(o.url, { headers: { ...o.auth, Accept: 'text/event-stream' }, signal: abort.signal, cache: 'no-store' });
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

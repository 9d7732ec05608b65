/**
 * HTTP to the helper on the phone, over a stream the ADB server opens to the phone's
 * `tcp:6790` (the same path `adb forward` uses, without a local port): it works for phones
 * on remote ADB hosts too. One request per stream (`Connection: close`); every request has a
 * deadline and an AbortSignal.
 *
 * Whether a failed request may be sent again another way decides "no side effect twice":
 * - `helper_unavailable`: provably not performed — the stream could not be opened (nothing
 *   listens on the phone), or the helper answered with an error;
 * - `outcome_unknown`: the request left the computer and no complete answer came back (the
 *   connection broke, the deadline passed): the helper may have acted.
 */
import type { Duplex } from 'node:stream';
import { BridgeError, isBridgeError } from '../errors';
import { HELPER_DEVICE_PORT } from './helper-protocol';

/** What the client needs of a phone: a raw device service stream (AdbDeviceShell.openStream). */
export interface DeviceStreamOpener {
  openStream(service: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<Duplex>;
}

export interface HelperRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HelperResponse {
  status: number;
  /** The parsed JSON body (appium's envelope `{sessionId, value}`). */
  body: { sessionId?: string | null; value?: unknown };
}

/** Largest answer read (a page source of a huge screen, a screenshot as base64). */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export function notPerformed(error: unknown): boolean {
  return isBridgeError(error) && error.code === 'helper_unavailable';
}

export class HelperClient {
  constructor(
    private readonly opener: DeviceStreamOpener,
    private readonly port: number = HELPER_DEVICE_PORT,
  ) {}

  /** One request; resolves with any HTTP answer that parsed, rejects per the header's rules. */
  async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    options: HelperRequestOptions,
  ): Promise<HelperResponse> {
    const started = Date.now();
    if (options.signal?.aborted) throw new BridgeError('canceled', 'the helper request was canceled');
    let stream: Duplex;
    try {
      stream = await this.opener.openStream(`tcp:${this.port}`, options);
    } catch (error) {
      if (
        isBridgeError(error) &&
        (error.code === 'canceled' || error.code === 'device_offline' || error.code === 'device_unauthorized')
      )
        throw error;
      throw new BridgeError(
        'helper_unavailable',
        `the helper on the phone is not answering (${error instanceof Error ? error.message.slice(0, 120) : 'no connection'})`,
      );
    }
    const remaining = Math.max(1, options.timeoutMs - (Date.now() - started));
    return exchange(stream, method, path, body, { ...options, timeoutMs: remaining });
  }

  /** A request whose answer must be a 2xx; an error answer is `helper_unavailable` (not performed). */
  async call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    options: HelperRequestOptions,
  ): Promise<unknown> {
    const response = await this.request(method, path, body, options);
    if (response.status >= 200 && response.status < 300) return response.body.value;
    const value = response.body.value as { error?: unknown; message?: unknown } | undefined;
    const error = typeof value?.error === 'string' ? value.error : `HTTP ${response.status}`;
    const message = typeof value?.message === 'string' ? value.message.slice(0, 200) : '';
    throw new BridgeError(
      'helper_unavailable',
      `the helper refused ${method} ${path.replace(/\/session\/[^/]+/, '/session/…')}: ${error}${message ? ` (${message})` : ''}`,
      {
        status: response.status,
        helperError: error,
      },
    );
  }
}

function encodeRequest(method: string, path: string, body: unknown): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body), 'utf8');
  const head =
    `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAccept: application/json\r\n` +
    (body === undefined ? '' : 'Content-Type: application/json; charset=utf-8\r\n') +
    `Content-Length: ${payload.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** Writes the request and reads one HTTP/1.1 answer (Content-Length, chunked, or until close). */
function exchange(
  stream: Duplex,
  method: string,
  path: string,
  body: unknown,
  options: HelperRequestOptions,
): Promise<HelperResponse> {
  return new Promise<HelperResponse>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    /** The answer's whole length once its head named a Content-Length: no parse before then. */
    let expected: number | null = null;
    let settled = false;
    const finish = (error: BridgeError | null, response?: HelperResponse): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('close', onEnd);
      stream.removeListener('error', onError);
      stream.on('error', () => undefined);
      stream.destroy();
      if (error) reject(error);
      else resolve(response as HelperResponse);
    };
    const unknown = (why: string): BridgeError =>
      new BridgeError(
        'outcome_unknown',
        `the helper took ${method} ${path.replace(/\/session\/[^/]+/, '/session/…')} but ${why}; whether it acted is unknown`,
      );
    const tryParse = (ended: boolean): void => {
      const data = Buffer.concat(chunks);
      const parsed = parseHttpResponse(data, ended);
      if (parsed === 'incomplete') {
        if (ended) finish(unknown(size === 0 ? 'the connection closed before any answer' : 'the answer was cut short'));
        else expected = announcedLength(data);
        return;
      }
      if (parsed === 'malformed') return finish(unknown('its answer was not HTTP'));
      let json: HelperResponse['body'];
      try {
        json = parsed.body.length ? (JSON.parse(parsed.body.toString('utf8')) as HelperResponse['body']) : {};
      } catch {
        return finish(unknown('its answer was not JSON'));
      }
      finish(null, { status: parsed.status, body: json && typeof json === 'object' ? json : {} });
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES)
        return finish(new BridgeError('command_failed', 'the helper’s answer is too large'));
      // A large page source comes in many chunks: joining and parsing them all again on each
      // one would cost time growing with the square of its size.
      if (expected === null || size >= expected) tryParse(false);
    };
    const onEnd = (): void => tryParse(true);
    const onError = (): void => tryParse(true);
    const onAbort = (): void => finish(new BridgeError('canceled', 'the helper request was canceled'));
    const timer = setTimeout(() => finish(unknown(`gave no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('close', onEnd);
    stream.on('error', onError);
    stream.write(encodeRequest(method, path, body));
  });
}

/** The whole length of a response whose head is in and names its Content-Length; null otherwise. */
export function announcedLength(data: Buffer): number | null {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return null;
  const length = /\r\ncontent-length:[ \t]*(\d+)[ \t]*(?:\r\n|$)/i.exec(
    data.subarray(0, headEnd).toString('latin1'),
  )?.[1];
  return length === undefined ? null : headEnd + 4 + Number.parseInt(length, 10);
}

/** One HTTP/1.1 response from the bytes so far; 'incomplete' until it is whole. */
export function parseHttpResponse(
  data: Buffer,
  ended: boolean,
): { status: number; body: Buffer } | 'incomplete' | 'malformed' {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd < 0) return ended && data.length > 0 ? 'malformed' : 'incomplete';
  const lines = data.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? '');
  if (!status?.[1]) return 'malformed';
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const rest = data.subarray(headEnd + 4);
  const length = headers.get('content-length');
  if (length !== undefined) {
    const n = Number.parseInt(length, 10);
    if (!Number.isSafeInteger(n) || n < 0) return 'malformed';
    return rest.length >= n ? { status: Number(status[1]), body: rest.subarray(0, n) } : 'incomplete';
  }
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return 'incomplete';
      const n = Number.parseInt(rest.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '', 16);
      if (Number.isNaN(n)) return 'malformed';
      if (n === 0) return { status: Number(status[1]), body: Buffer.concat(parts) };
      if (rest.length < lineEnd + 2 + n + 2) return 'incomplete';
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + n));
      at = lineEnd + 2 + n + 2;
    }
  }
  return ended ? { status: Number(status[1]), body: rest } : 'incomplete';
}

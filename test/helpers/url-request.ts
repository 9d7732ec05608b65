/**
 * One HTTP(S) request with node:http/https, for tests that must choose what the client
 * trusts (`ca`: a test CA, and nothing else) — global fetch cannot be given a CA.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface UrlResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json<T = Record<string, unknown>>(): T;
}

export interface UrlRequestOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** PEM of the only CA the client trusts (https). */
  ca?: string;
  timeoutMs?: number;
}

export function urlRequest(url: string, options: UrlRequestOptions = {}): Promise<UrlResponse> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        agent: false,
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        ...(options.ca !== undefined ? { ca: options.ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            json: <T>() => JSON.parse(body.toString('utf8')) as T,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

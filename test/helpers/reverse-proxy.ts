/**
 * A tiny TLS-terminating reverse proxy like a lab's nginx: https on port 0, requests under
 * `prefix` forwarded to a plain-http upstream with the prefix stripped and X-Forwarded-For
 * / -Proto / -Host added, WebSocket upgrades forwarded as raw byte streams. Everything else
 * is 404. `stop()` closes the server and every socket it opened.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface ReverseProxy {
  port: number;
  /** `https://127.0.0.1:PORT{prefix}`: the public URL to give the bridge and xAgent. */
  url: string;
  /** Where requests go; set once the upstream's port is known. */
  upstream: { host: string; port: number } | undefined;
  stop(): Promise<void>;
}

function forwardedHeaders(
  req: IncomingMessage,
  upstream: { host: string; port: number },
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name] = value;
  const prior = req.headers['x-forwarded-for'];
  headers['x-forwarded-for'] = [prior, req.socket.remoteAddress]
    .filter((v): v is string => typeof v === 'string' && v.length > 0)
    .join(', ');
  headers['x-forwarded-proto'] = 'https';
  headers['x-forwarded-host'] = req.headers.host ?? '';
  headers.host = `${upstream.host}:${upstream.port}`;
  return headers;
}

export async function startReverseProxy(options: { prefix: string; cert: string; key: string }): Promise<ReverseProxy> {
  const sockets = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const strip = (url: string | undefined): string | undefined => {
    const raw = url ?? '';
    if (raw !== options.prefix && !raw.startsWith(`${options.prefix}/`) && !raw.startsWith(`${options.prefix}?`))
      return undefined;
    const rest = raw.slice(options.prefix.length);
    return rest.startsWith('/') ? rest : `/${rest}`;
  };
  const proxy: ReverseProxy = { port: 0, url: '', upstream: undefined, stop: async () => {} };

  const server = createServer({ cert: options.cert, key: options.key }, (req, res) => {
    const path = strip(req.url);
    const upstream = proxy.upstream;
    if (path === undefined || !upstream) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not proxied\n');
      return;
    }
    const forward = httpRequest(
      { host: upstream.host, port: upstream.port, method: req.method, path, headers: forwardedHeaders(req, upstream) },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(forward);
  });
  server.on('connection', track);
  server.on('upgrade', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const path = strip(req.url);
    const upstream = proxy.upstream;
    if (path === undefined || !upstream) {
      client.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const backend: Socket = connect(upstream.port, upstream.host, () => {
      const lines = [`${req.method ?? 'GET'} ${path} HTTP/1.1`];
      for (const [name, value] of Object.entries(forwardedHeaders(req, upstream))) {
        for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
      }
      backend.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) backend.write(head);
      client.pipe(backend).pipe(client);
    });
    track(backend);
    const teardown = (): void => {
      client.destroy();
      backend.destroy();
    };
    backend.on('error', teardown);
    client.on('error', teardown);
    backend.on('close', teardown);
    client.on('close', teardown);
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `https://127.0.0.1:${proxy.port}${options.prefix}`;
  proxy.stop = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return proxy;
}

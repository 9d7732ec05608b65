/**
 * A GET from the desktop app to its own bridge (the app:// handler fetching an approval
 * screenshot). Plain http, or https accepting exactly the certificate the bridge serves,
 * pinned by its SHA-256 fingerprint: that certificate may be self-signed, or name the lab's
 * host instead of 127.0.0.1, so the usual CA and host checks do not apply, and nothing is
 * sent before the pin matched. No electron import here.
 */
import { request } from 'node:http';
import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

export interface OwnBridge {
  /** http(s)://host:port of the running bridge. */
  url(): string;
  /** The certificate it serves, when TLS is on. */
  tls(): { fingerprint256: string } | null;
}

export interface BridgeAnswer {
  status: number;
  contentType: string;
  body: Buffer;
}

/** GETs `pathAndQuery` from the bridge; rejects on a timeout, a network error or a certificate that is not the bridge's. */
export async function fetchFromOwnBridge(
  bridge: OwnBridge,
  pathAndQuery: string,
  timeoutMs: number,
): Promise<BridgeAnswer> {
  const base = new URL(bridge.url());
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const port = Number(base.port || (base.protocol === 'https:' ? 443 : 80));
  const signal = AbortSignal.timeout(timeoutMs);
  const pinned =
    base.protocol === 'https:' ? await connectPinned(host, port, bridge.tls()?.fingerprint256, signal) : undefined;
  return new Promise((resolve, reject) => {
    const req = request(
      // No agent: the pinned socket is used once, or a fresh plain one is made.
      {
        host,
        port,
        path: pathAndQuery,
        method: 'GET',
        signal,
        ...(pinned ? { createConnection: () => pinned } : { agent: false }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers['content-type'] ?? ''),
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function connectPinned(
  host: string,
  port: number,
  fingerprint: string | undefined,
  signal: AbortSignal,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    if (!fingerprint) {
      reject(new Error('the bridge serves https but its certificate is unknown'));
      return;
    }
    // The pin replaces the CA and host checks; the fingerprint is compared before anything is written.
    const socket = connect({ host, port, rejectUnauthorized: false, ...(isIP(host) ? {} : { servername: host }) });
    const fail = (error: Error): void => {
      socket.destroy();
      reject(error);
    };
    signal.addEventListener('abort', () => fail(new Error('timed out connecting to the bridge')), { once: true });
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      if (socket.getPeerCertificate().fingerprint256 !== fingerprint)
        return fail(new Error("the bridge's address answered with another certificate"));
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

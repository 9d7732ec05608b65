/**
 * The HTTP status a `/ws` upgrade gets (101 when it opens), with the given headers and
 * subprotocol; the socket is closed either way.
 */
import WebSocket from 'ws';

export function upgradeStatus(url: string, headers: Record<string, string>, protocol?: string): Promise<number> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/ws`, protocol ? [protocol] : [], { headers });
  return new Promise((resolve) => {
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.once('open', () => {
      resolve(101);
      ws.close();
    });
    ws.once('error', () => undefined);
  });
}

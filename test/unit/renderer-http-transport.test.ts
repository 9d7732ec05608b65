import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../../renderer/src/api/bridge-api';
import type { AdminEvent, LiveStatus } from '../../renderer/src/api/bridge-api';
import { createHttpTransport } from '../../renderer/src/api/http-transport';

const TOKEN = 'test-admin-token-0123456789';

interface Seen {
  method: string;
  url: string;
  auth: string | undefined;
  body: string;
}

/** A stand-in admin API on port 0 that records requests; handlers per "METHOD path". */
async function startApi(handlers: Record<string, (req: IncomingMessage, res: ServerResponse) => void>) {
  const seen: Seen[] = [];
  const streams = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        auth: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
      });
      if (req.headers.authorization !== `Bearer ${TOKEN}`) {
        res.writeHead(401, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'unauthorized', message: 'a valid admin token is required' } }));
        return;
      }
      const handler = handlers[`${req.method} ${req.url}`];
      if (!handler) {
        res.writeHead(404, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such admin endpoint' } }));
        return;
      }
      if (req.url === '/admin/api/events') {
        streams.add(res);
        res.on('close', () => streams.delete(res));
      }
      handler(req, res);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    seen,
    streams,
    close: async () => {
      for (const s of streams) s.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Resolves when `predicate` holds for the collected items; rejects after a safety timeout. */
function waitFor<T>(items: T[], predicate: (items: T[]) => boolean, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const check = (): void => {
      if (predicate(items)) return resolve();
      if (Date.now() - started > 5_000) return reject(new Error(`timed out waiting for ${what}`));
      setImmediate(check);
    };
    check();
  });
}

void describe('HTTP transport (web console)', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  void test('sends the admin token as a Bearer header and JSON bodies to the contract paths', async () => {
    const api = await startApi({
      'POST /admin/api/approvals/ap%2F1': (_req, res) => json(res, 200, { status: 'approved' }),
      'POST /admin/api/channels/ch_1/extend': (_req, res) => json(res, 200, { status: 'extended' }),
      'DELETE /admin/api/lan-devices/192.168.1.20%3A5555': (_req, res) => json(res, 200, { status: 'forgotten' }),
      'POST /admin/api/pairings/as_1': (_req, res) => json(res, 200, { status: 'approved' }),
    });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN });

    assert.deepEqual(await client.decideApproval({ approval_id: 'ap/1', decision: 'approve_for_lease' }), {
      status: 'approved',
    });
    assert.deepEqual(await client.extendChannel({ connector_channel_id: 'ch_1', extend_ms: 1_800_000 }), {
      status: 'extended',
    });
    assert.deepEqual(await client.forgetLanDevice({ address: '192.168.1.20:5555' }), { status: 'forgotten' });
    assert.deepEqual(await client.decidePairing({ auth_session_id: 'as_1', action: 'approve', device_id: 'dev_1' }), {
      status: 'approved',
    });

    assert.ok(api.seen.every((s) => s.auth === `Bearer ${TOKEN}`));
    assert.deepEqual(JSON.parse(api.seen[0]!.body), { decision: 'approve_for_lease' });
    assert.deepEqual(JSON.parse(api.seen[1]!.body), { extend_ms: 1_800_000 });
    assert.equal(api.seen[2]!.body, '');
    assert.deepEqual(JSON.parse(api.seen[3]!.body), { action: 'approve', device_id: 'dev_1' });
  });

  void test('rebuilds {error:{code,message}} as ApiError; 401 becomes "unauthorized"', async () => {
    const api = await startApi({
      'POST /admin/api/lan-devices': (_req, res) =>
        json(res, 400, { error: { code: 'invalid_address', message: 'address must be HOST[:PORT]' } }),
      'GET /admin/api/settings': (_req, res) => {
        res.writeHead(502, 'Bad Gateway');
        res.end('<html>proxy</html>');
      },
    });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN });
    await assert.rejects(client.addLanDevice({ address: 'bad address' }), (e: unknown) => {
      return (
        e instanceof ApiError &&
        e.code === 'invalid_address' &&
        e.status === 400 &&
        e.message === 'address must be HOST[:PORT]'
      );
    });
    await assert.rejects(
      client.getSettings(),
      (e: unknown) => e instanceof ApiError && e.code === 'bad_response' && e.status === 502,
    );
    const wrong = createHttpTransport({ origin: api.origin, token: 'wrong-token-0123456789' });
    await assert.rejects(
      wrong.getState(),
      (e: unknown) => e instanceof ApiError && e.code === 'unauthorized' && e.status === 401,
    );
  });

  void test('a bridge that does not answer fails with "unreachable" at the deadline', async () => {
    const api = await startApi({ 'GET /admin/api/state': () => undefined /* never answers */ });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN, requestTimeoutMs: 200 });
    await assert.rejects(
      client.getState(),
      (e: unknown) => e instanceof ApiError && e.code === 'unreachable' && /did not answer/.test(e.message),
    );
    const closed = createHttpTransport({ origin: 'http://127.0.0.1:1', token: TOKEN });
    await assert.rejects(closed.getState(), (e: unknown) => e instanceof ApiError && e.code === 'unreachable');
  });

  void test('the screen thumbnail arrives as a JPEG blob', async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const api = await startApi({
      'GET /admin/api/devices/dev_1/screen': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'image/jpeg' });
        res.end(jpeg);
      },
    });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN });
    const blob = await client.getDeviceScreen({ device_id: 'dev_1' });
    assert.equal(blob.type, 'image/jpeg');
    assert.deepEqual(Buffer.from(await blob.arrayBuffer()), jpeg);
  });

  void test('live events stream over fetch with the token, and the stream reconnects after a drop', async () => {
    let opened = 0;
    const api = await startApi({
      'GET /admin/api/events': (_req, res) => {
        opened++;
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ type: 'state', at: opened })}\n\n`);
      },
    });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN, reconnectBaseMs: 10 });
    const events: AdminEvent[] = [];
    const statuses: LiveStatus[] = [];
    const unsubscribe = client.subscribe(
      (e) => events.push(e),
      (s) => statuses.push(s),
    );
    cleanups.push(unsubscribe);

    await waitFor(events, (e) => e.length === 1, 'the initial event');
    assert.deepEqual(statuses, ['connecting', 'live']);
    const [stream] = [...api.streams];
    // Split one event across writes: the parser must wait for the blank line.
    stream!.write('data: {"type":"approval",');
    stream!.write('"approval_id":"ap_7"}\n');
    stream!.write('\n: keep-alive\n\n');
    await waitFor(events, (e) => e.length === 2, 'the approval event');
    assert.deepEqual(events[1], { type: 'approval', approval_id: 'ap_7' });

    stream!.destroy(); // the bridge restarts or the network drops
    await waitFor(events, (e) => e.length === 3, 'the event after reconnecting');
    assert.equal(opened, 2);
    assert.deepEqual(statuses, ['connecting', 'live', 'reconnecting', 'live']);
    assert.ok(api.seen.filter((s) => s.url === '/admin/api/events').every((s) => s.auth === `Bearer ${TOKEN}`));

    unsubscribe();
    unsubscribe();
    const streamClosed = [...api.streams].map((s) => once(s, 'close'));
    await Promise.all(streamClosed);
    assert.equal(api.streams.size, 0, 'unsubscribe closes the connection');
    assert.equal(statuses.at(-1), 'live', 'no status reports after unsubscribe');
  });

  void test('every listener on a page shares one event stream (a browser allows six connections per host, across tabs)', async () => {
    let opened = 0;
    const api = await startApi({
      'GET /admin/api/events': (_req, res) => {
        opened++;
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify({ type: 'state', at: opened })}\n\n`);
      },
    });
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: TOKEN, reconnectBaseMs: 10 });
    const first: AdminEvent[] = [];
    const second: AdminEvent[] = [];
    const secondStatus: LiveStatus[] = [];
    const stopFirst = client.subscribe(
      (e) => first.push(e),
      () => undefined,
    );
    cleanups.push(stopFirst);
    await waitFor(first, (e) => e.length === 1, 'the first listener’s initial event');
    const stopSecond = client.subscribe(
      (e) => second.push(e),
      (s) => secondStatus.push(s),
    );
    cleanups.push(stopSecond);
    assert.deepEqual(secondStatus, ['live'], 'a later listener hears the stream is live at once');
    const [stream] = [...api.streams];
    stream!.write(`data: ${JSON.stringify({ type: 'approval', approval_id: 'ap_9' })}\n\n`);
    await waitFor(second, (e) => e.length === 1, 'the shared event');
    await waitFor(first, (e) => e.length === 2, 'the shared event, first listener');
    assert.equal(opened, 1, 'one connection for both');
    stopFirst();
    stream!.write(`data: ${JSON.stringify({ type: 'approval', approval_id: 'ap_10' })}\n\n`);
    await waitFor(second, (e) => e.length === 2, 'still open for the other listener');
    assert.equal(first.length, 2, 'nothing reaches a listener that left');
    const closed = once(stream!, 'close');
    stopSecond();
    await closed;
    assert.equal(api.streams.size, 0, 'the last listener leaving closes the connection');
  });

  void test('a refused token on the event stream is reported once and not retried', async () => {
    const api = await startApi({});
    cleanups.push(api.close);
    const client = createHttpTransport({ origin: api.origin, token: 'wrong-token-0123456789', reconnectBaseMs: 10 });
    const statuses: LiveStatus[] = [];
    const unsubscribe = client.subscribe(
      () => undefined,
      (s) => statuses.push(s),
    );
    cleanups.push(unsubscribe);
    await waitFor(statuses, (s) => s.includes('unauthorized'), 'unauthorized status');
    assert.deepEqual(statuses, ['connecting', 'unauthorized']);
    assert.equal(api.seen.length, 1);
  });
});

/**
 * The admin API's live stream (`GET /admin/api/events`) the console and lab scripts follow:
 * guarded by the admin token, a first `state` note at once, change notes as things happen,
 * and closed when the bridge stops.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { XAgentClient } from '../helpers/xagent-client';
import { SseParser } from '../../renderer/src/api/sse-parser';

interface EventStream {
  status: number;
  events: Array<Record<string, unknown>>;
  /** The first event from index `from` on (already received or future) that matches. */
  next(
    match: (event: Record<string, unknown>) => boolean,
    from?: number,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  ended: Promise<void>;
  close(): void;
}

/** An SSE reader over node:http (EventSource cannot send an Authorization header), with the console's own parser. */
function openEvents(url: string, token: string | undefined): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${url}/admin/api/events`,
      { headers: token ? { Authorization: `Bearer ${token}` } : {} },
      (res) => {
        const events: Array<Record<string, unknown>> = [];
        const waiters = new Set<() => void>();
        const parser = new SseParser();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          for (const message of parser.push(chunk)) events.push(JSON.parse(message.data) as Record<string, unknown>);
          for (const wake of waiters) wake();
        });
        const ended = new Promise<void>((done) => {
          res.once('end', done);
          res.once('close', done);
        });
        resolve({
          status: res.statusCode ?? 0,
          events,
          ended,
          close: () => req.destroy(),
          next: (match, from = 0, timeoutMs = 5_000) => {
            let seen = from;
            return new Promise((found, fail) => {
              const check = (): void => {
                const hit = events.slice(seen).find(match);
                seen = events.length;
                if (!hit) return;
                clearTimeout(timer);
                waiters.delete(check);
                found(hit);
              };
              const timer = setTimeout(() => {
                waiters.delete(check);
                fail(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
              }, timeoutMs);
              waiters.add(check);
              check();
            });
          },
        });
      },
    );
    req.once('error', reject);
  });
}

describe('GET /admin/api/events', () => {
  let bridge: TestBridge;
  before(async () => {
    bridge = await startBridge();
  });
  after(async () => {
    await bridge?.stop();
  });

  test('refuses a missing or wrong admin token, and the API key is not an admin token', async () => {
    for (const token of [undefined, 'wrong-token', bridge.apiKey]) {
      const stream = await openEvents(bridge.url, token);
      assert.equal(stream.status, 401, `token ${String(token && token.slice(0, 4))}…`);
      stream.close();
    }
  });

  test('sends a state note at once, then notes for pairings and channel changes', async () => {
    const stream = await openEvents(bridge.url, bridge.adminToken);
    assert.equal(stream.status, 200);
    await stream.next((e) => e.type === 'state');
    const client = await XAgentClient.connect(bridge.url, bridge.apiKey);
    try {
      await client.hello();
      const opened = await client.openChannel('');
      const channelId = String(opened.payload?.connector_channel_id);
      const before = stream.events.length;
      const started = await client.request('auth.start', { flow_id: 'desktop_approval' }, channelId);
      assert.equal(started.payload?.status, 'pending');
      await stream.next((e) => e.type === 'pairing' || e.type === 'state', before);
      const state = await bridge.admin('GET', '/admin/api/state');
      assert.ok(
        (state.body.pairings as Array<{ auth_session_id: string }>).some(
          (p) => p.auth_session_id === started.payload?.auth_session_id,
        ),
      );
      // Notes say that something changed; they never carry secrets or the pairing code.
      const text = JSON.stringify(stream.events);
      assert.ok(!text.includes(String(started.payload?.qr_code_text)));
      assert.ok(!text.includes(bridge.apiKey) && !text.includes(bridge.adminToken));
    } finally {
      await client.close();
      stream.close();
    }
  });

  test('streams end when the bridge stops', async () => {
    const own = await startBridge();
    const stream = await openEvents(own.url, own.adminToken);
    await stream.next((e) => e.type === 'state');
    await own.stop();
    await stream.ended;
  });
});

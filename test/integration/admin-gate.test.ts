/**
 * Who may even ask the admin API and the console (#24 finding 4), through real sockets: only
 * under a name the bridge is served on (DNS rebinding), state-changing calls only from the
 * bridge's own origin, JSON bodies only, and an address that keeps sending wrong admin tokens
 * is locked out for a while: wrong tokens only (no token is not a guess), and a request with the
 * right token always gets through (#36 point 3).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBridge, TEST_ADMIN_TOKEN, type TestBridge } from '../helpers/bridge';
import { urlRequest } from '../helpers/url-request';

const auth = { Authorization: `Bearer ${TEST_ADMIN_TOKEN}` };

describe('admin API and console: host, origin, body type', () => {
  let bridge: TestBridge;
  let port: number;
  before(async () => {
    bridge = await startBridge({ network: { publicUrl: 'https://bridge.lab.example/devices' } });
    port = Number(new URL(bridge.url).port);
  });
  after(() => bridge?.stop());

  test('a rebound host name is refused (421); the loopback names, the listening address and the public URL host are served', async () => {
    const evil = await urlRequest(`${bridge.url}/admin/api/state`, {
      headers: { ...auth, Host: `evil.example:${port}` },
    });
    assert.equal(evil.status, 421);
    assert.equal(evil.json<{ error: { code: string } }>().error.code, 'host_not_allowed');
    const consolePage = await urlRequest(`${bridge.url}/console/`, { headers: { Host: 'evil.example' } });
    assert.equal(consolePage.status, 421, 'the console too');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, 'bridge.lab.example']) {
      const ok = await urlRequest(`${bridge.url}/admin/api/state`, { headers: { ...auth, Host: host } });
      assert.equal(ok.status, 200, host);
    }
  });

  test("a state-changing call from another site's page is refused (403); the bridge's own origin and no origin are not", async () => {
    const body = JSON.stringify({ default: 'ask' });
    const json = { ...auth, 'Content-Type': 'application/json' };
    const foreign = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      method: 'PUT',
      body,
      headers: { ...json, Origin: 'http://evil.example' },
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json<{ error: { code: string } }>().error.code, 'origin_not_allowed');
    const otherPort = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      method: 'PUT',
      body,
      headers: { ...json, Origin: `http://127.0.0.1:${port + 1}` },
    });
    assert.equal(otherPort.status, 403, 'another service on this machine is another origin');
    // The console through an SSH tunnel (ssh -L 9000:127.0.0.1:PORT): page and request both on localhost:9000.
    const tunnel = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      method: 'PUT',
      body,
      headers: { ...json, Host: 'localhost:9000', Origin: 'http://localhost:9000' },
    });
    assert.equal(tunnel.status, 200, 'the origin the request itself reached is the bridge');
    const own = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      method: 'PUT',
      body,
      headers: { ...json, Origin: `http://127.0.0.1:${port}` },
    });
    assert.equal(own.status, 200, own.body.toString());
    const viaProxy = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      method: 'PUT',
      body,
      headers: { ...json, Origin: 'https://bridge.lab.example' },
    });
    assert.equal(viaProxy.status, 200);
    const script = await urlRequest(`${bridge.url}/admin/api/screen-stream`, { method: 'PUT', body, headers: json });
    assert.equal(script.status, 200, 'a lab script sends no Origin');
    // Reading is not changing: a GET with a foreign Origin is answered (CORS keeps the page from reading it).
    const read = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
      headers: { ...auth, Origin: 'http://evil.example' },
    });
    assert.equal(read.status, 200);
  });

  test('admin calls with a body that is not JSON are refused (415)', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await urlRequest(`${bridge.url}/admin/api/screen-stream`, {
        method: 'PUT',
        body: '{"default":"on"}',
        headers: { ...auth, 'Content-Type': type },
      });
      assert.equal(res.status, 415, type);
      assert.equal(res.json<{ error: { code: string } }>().error.code, 'unsupported_media_type');
    }
    const state = await urlRequest(`${bridge.url}/admin/api/screen-stream`, { headers: auth });
    assert.equal(state.json<{ default: string }>().default, 'ask', 'nothing changed');
  });
});

describe('admin API: wrong tokens', () => {
  test('ten wrong tokens lock the address out for wrong tokens (429, Retry-After); the right token still gets through', async () => {
    const bridge = await startBridge();
    try {
      for (let i = 0; i < 10; i++) {
        const wrong = await urlRequest(`${bridge.url}/admin/api/state`, {
          headers: { Authorization: `Bearer wrong-${i}` },
        });
        assert.equal(wrong.status, 401, `attempt ${i + 1}`);
      }
      const stillWrong = await urlRequest(`${bridge.url}/admin/api/state`, {
        headers: { Authorization: 'Bearer wrong' },
      });
      assert.equal(stillWrong.status, 429);
      assert.equal(stillWrong.json<{ error: { code: string } }>().error.code, 'rate_limited');
      const retry = Number(stillWrong.headers['retry-after']);
      assert.ok(retry > 0 && retry <= 60, `Retry-After ${retry}`);
      // The person's console (approvals, Stop, revoke) is never locked out by someone else's guesses.
      const right = await urlRequest(`${bridge.url}/admin/api/state`, { headers: auth });
      assert.equal(right.status, 200, 'the right token is never locked out');
      const stop = await urlRequest(`${bridge.url}/metrics`, { headers: auth });
      assert.equal(stop.status, 200, 'nor on /metrics');
    } finally {
      await bridge.stop();
    }
  });

  test('requests with no token (an <img> on any page the person visits) are refused but never counted', async () => {
    const bridge = await startBridge();
    try {
      for (let i = 0; i < 25; i++) {
        const none = await urlRequest(`${bridge.url}/admin/api/state`);
        assert.equal(none.status, 401, `plain GET ${i + 1}`);
        const noneMetrics = await urlRequest(`${bridge.url}/metrics`);
        assert.equal(noneMetrics.status, 401, `plain metrics GET ${i + 1}`);
      }
      const wrong = await urlRequest(`${bridge.url}/admin/api/state`, { headers: { Authorization: 'Bearer wrong' } });
      assert.equal(wrong.status, 401, 'a wrong token after them is the first one counted, not a locked-out one');
      const right = await urlRequest(`${bridge.url}/admin/api/state`, { headers: auth });
      assert.equal(right.status, 200);
    } finally {
      await bridge.stop();
    }
  });
});

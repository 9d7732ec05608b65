/**
 * Sockets the bridge must let go of (issue 24, finding 2): clients that send half a request
 * and never read, refused upgrades, and the caps in total and per client address. Real
 * sockets on port 0; the bridge runs in this process, so its descriptors are ours to count.
 * Clients come from several loopback addresses (127.0.0.2, …), which Linux routes to lo.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { resolveCoreOptions } from '../../main/core/config/core-options';
import { startBridge, type TestBridge } from '../helpers/bridge';
import { waitUntil } from '../helpers/device-rig';

const portOf = (url: string): number => Number(new URL(url).port);

/** Descriptors this process holds (the bridge runs in it). */
function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

/**
 * Sockets on the bridge's side of its port that a descriptor still holds: /proc/net/tcp(6)
 * rows whose local port is the bridge's, not listening, with an inode (0 = no descriptor).
 */
function bridgeSideSockets(port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      const state = cols[3];
      const inode = cols[9];
      if (!local || !local.endsWith(`:${hexPort}`) || state === '0A' || inode === undefined || inode === '0') continue;
      count += 1;
    }
  }
  return count;
}

/** A raw connection from `localAddress` that never reads what the bridge sends. */
function rawClient(port: number, localAddress: string, data?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.pause();
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      if (data !== undefined) socket.write(data);
      resolve(socket);
    });
  });
}

/** Resolves once the bridge closed this socket (seen by reading it), with what it sent. */
function closedByBridge(socket: Socket, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the bridge kept the socket open for ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (d: Buffer) => (out += d.toString('latin1')));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.resume();
  });
}

/** GET /health on a fresh connection (no pooled socket left behind), from `localAddress`. */
function health(bridge: TestBridge, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: portOf(bridge.url),
        path: '/health',
        localAddress,
        agent: false,
        timeout: 5_000,
        headers: { Authorization: `Bearer ${bridge.apiKey}`, Connection: 'close' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy(new Error('/health did not answer in 5 s')));
    req.on('error', reject);
    req.end();
  });
}

describe(
  'connection limits: half requests and refused upgrades',
  { skip: process.platform !== 'linux' && 'counts descriptors in /proc' },
  () => {
    let bridge: TestBridge;
    let port: number;
    before(async () => {
      // The header deadline leaves room to open all 150 clients on a loaded CI machine before any is freed.
      bridge = await startBridge({
        connections: { headersTimeoutMs: 2_500, requestTimeoutMs: 3_000, checkIntervalMs: 100, refusalBackstopMs: 500 },
      });
      port = portOf(bridge.url);
    });
    after(() => bridge.stop());

    test('150 clients send half a request and never read: after the header deadline the bridge holds none of them, /health answered throughout', async (t) => {
      const fdsBefore = openDescriptors();
      const clients: Socket[] = [];
      try {
        // 30 per address from 5 addresses: under the per-address cap, so the deadline is what frees them.
        for (let i = 0; i < 150; i++) {
          clients.push(
            await rawClient(port, `127.0.0.${2 + (i % 5)}`, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: '),
          );
        }
        const fdsHeld = openDescriptors();
        const held = bridgeSideSockets(port);
        assert.ok(held >= 140, `the bridge accepted the clients (${held} sockets on its side)`);
        let answered = 0;
        const deadline = Date.now() + 8_000;
        for (;;) {
          assert.equal(await health(bridge), 200, '/health answers while the half requests are held');
          answered += 1;
          if (bridgeSideSockets(port) === 0 && bridge.core.openConnections() === 0) break;
          assert.ok(
            Date.now() < deadline,
            `bridge still holds ${bridgeSideSockets(port)} sockets (${bridge.core.openConnections()} connections) 8 s later`,
          );
        }
        const fdsAfter = openDescriptors();
        // The clients' own 150 ends are still open here (they never read, never close).
        assert.ok(
          fdsAfter <= fdsBefore + 150 + 5,
          `descriptors: ${fdsBefore} before, ${fdsHeld} held, ${fdsAfter} after the deadline`,
        );
        for (const client of clients) client.destroy();
        await waitUntil(() => openDescriptors() <= fdsBefore + 5, 5_000, 'client descriptors released');
        t.diagnostic(
          `descriptors: ${fdsBefore} before, ${fdsHeld} with 150 half requests, ${fdsAfter} after the deadline (clients still open), ${openDescriptors()} after the clients closed; /health answered ${answered} times`,
        );
      } finally {
        for (const client of clients) client.destroy();
      }
    });

    test('refused upgrades (bad key, bad path, no subprotocol) leave no socket open on the bridge, although the client never reads', async () => {
      const upgrade = (path: string, extra: string): string =>
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;
      const attempts = [
        upgrade(
          '/ws',
          `Authorization: Bearer not-the-key-at-all\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
        ),
        upgrade(
          '/not-ws',
          `Authorization: Bearer ${bridge.apiKey}\r\nSec-WebSocket-Protocol: xagent.connector.packet.v1\r\n`,
        ),
        upgrade('/ws', `Authorization: Bearer ${bridge.apiKey}\r\n`),
      ];
      const clients: Socket[] = [];
      try {
        for (const attempt of attempts) clients.push(await rawClient(port, '127.0.0.7', attempt));
        await waitUntil(
          () => bridgeSideSockets(port) === 0 && bridge.core.openConnections() === 0,
          5_000,
          'the bridge closed every refused upgrade',
        );
        // Each was answered before it was closed: the status survives for a client that reads late.
        const answers = await Promise.all(clients.map((c) => closedByBridge(c, 5_000)));
        assert.deepEqual(
          answers.map((a) => Number(/^HTTP\/1\.1 (\d{3})/.exec(a)?.[1] ?? 0)),
          [401, 404, 400],
        );
      } finally {
        for (const client of clients) client.destroy();
      }
    });
  },
);

describe(
  'connection limits: caps per address and in total',
  { skip: process.platform !== 'linux' && 'uses several loopback addresses' },
  () => {
    let bridge: TestBridge;
    let port: number;
    before(async () => {
      bridge = await startBridge({ connections: { maxConnections: 8, maxConnectionsPerAddress: 4 } });
      port = portOf(bridge.url);
    });
    after(() => bridge.stop());

    test('one address past its cap is closed at once while another address is served; past the total cap, everyone waits', async () => {
      const held: Socket[] = [];
      try {
        for (let i = 0; i < 4; i++) held.push(await rawClient(port, '127.0.0.2'));
        await waitUntil(() => bridge.core.openConnections() === 4, 5_000, 'four connections from 127.0.0.2');
        const extra = await rawClient(port, '127.0.0.2', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        assert.equal(
          await closedByBridge(extra, 5_000),
          '',
          'the fifth connection from one address is closed without an answer',
        );
        assert.equal(await health(bridge, '127.0.0.3'), 200, 'another address is still served');

        for (let i = 0; i < 4; i++) held.push(await rawClient(port, `127.0.0.${3 + i}`));
        await waitUntil(() => bridge.core.openConnections() === 8, 5_000, 'eight connections in total');
        const overTotal = await rawClient(port, '127.0.0.9', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        assert.equal(await closedByBridge(overTotal, 5_000), '', 'past the total cap a new address is closed too');

        for (const socket of held.splice(0)) socket.destroy();
        await waitUntil(() => bridge.core.openConnections() === 0, 5_000, 'held connections released');
        assert.equal(await health(bridge, '127.0.0.2'), 200, 'the address is served again once its connections closed');
      } finally {
        for (const socket of held) socket.destroy();
      }
    });

    test('limits are checked up front with the option named', () => {
      assert.throws(
        () =>
          resolveCoreOptions({ dataDir: '/unused', connections: { maxConnections: 4, maxConnectionsPerAddress: 8 } }),
        /connections\.maxConnectionsPerAddress \(8\) must not exceed connections\.maxConnections \(4\)/,
      );
      assert.throws(
        () => resolveCoreOptions({ dataDir: '/unused', connections: { headersTimeoutMs: 0 } }),
        /connections\.headersTimeoutMs must be a positive integer \(got 0\)/,
      );
      assert.throws(
        () =>
          resolveCoreOptions({ dataDir: '/unused', connections: { headersTimeoutMs: 2_000, requestTimeoutMs: 1_000 } }),
        /connections\.headersTimeoutMs \(2000\) must not exceed connections\.requestTimeoutMs \(1000\)/,
      );
    });
  },
);

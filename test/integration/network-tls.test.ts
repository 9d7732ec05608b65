/**
 * Serving xAgent across a network, with real sockets on port 0 and a CA made in the test:
 * TLS in the bridge (every plane over https/wss for a client that trusts only that CA;
 * plain http refused; renewals served without a restart), behind a TLS-terminating reverse
 * proxy with a path prefix (--public-url), and who may connect (--allow-from, and
 * X-Forwarded-For believed only from --trust-proxy). The self-signed start through the CLI
 * is in cli-network.test.ts.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import sharp from 'sharp';
import WebSocket from 'ws';
import { createCore } from '../../main/core/create-core';
import { UrlSigner } from '../../main/core/files/signed-url';
import { loadOrCreateSecret } from '../../main/core/secrets/secret-store';
import type { Logger } from '../../main/core/logging/logger';
import { silentLogger } from '../../main/core/logging/logger';
import { startBridge, TEST_ADMIN_TOKEN, TEST_API_KEY, type TestBridge } from '../helpers/bridge';
import { bindChannel, invoke, startDeviceRig, type DeviceRig } from '../helpers/device-rig';
import { result } from '../helpers/acks';
import { startReverseProxy, type ReverseProxy } from '../helpers/reverse-proxy';
import { createTestCa, type TestCa } from '../helpers/test-ca';
import { urlRequest } from '../helpers/url-request';
import { XAgentClient } from '../helpers/xagent-client';

const BOUNDARY = '----network-test-boundary';

function uploadRequest(channelId: string, data: Buffer): { headers: Record<string, string>; body: Buffer } {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="notes.txt"\r\nContent-Type: text/plain\r\n\r\n`;
  return {
    headers: {
      Authorization: `Bearer ${TEST_API_KEY}`,
      'X-XAgent-Connector-Channel-ID': channelId,
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
    },
    body: Buffer.concat([Buffer.from(head), data, Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]),
  };
}

/** The SHA-256 fingerprint of the certificate a fresh TLS connection is served (verified against `ca`). */
function servedFingerprint(port: number, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca }, () => {
      const fingerprint = socket.getPeerCertificate().fingerprint256;
      socket.end();
      resolve(fingerprint);
    });
    socket.once('error', reject);
  });
}

/** Resolves with the HTTP status a refused WebSocket upgrade answered (rejects if it opened). */
function refusedUpgrade(url: string, options: WebSocket.ClientOptions = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'xagent.connector.packet.v1', {
      headers: { Authorization: `Bearer ${TEST_API_KEY}` },
      ...options,
    });
    ws.once('open', () => {
      ws.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
  });
}

function recordingLogger(): Logger & { warnings: Array<{ message: string; fields?: Record<string, unknown> }> } {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  return {
    warnings,
    debug: () => {},
    info: () => {},
    error: () => {},
    warn: (message, fields) => void warnings.push({ message, ...(fields ? { fields } : {}) }),
  };
}

void describe('TLS in the bridge', () => {
  let ca: TestCa;
  let rig: DeviceRig;
  let client: XAgentClient;
  let channelId: string;
  let port: number;

  before(async () => {
    ca = await createTestCa();
    const files = await ca.issue();
    rig = await startDeviceRig(1, { network: { tls: { certFile: files.certFile, keyFile: files.keyFile } } });
    rig.bridge.ca = ca.pem;
    port = Number(new URL(rig.bridge.url).port);
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
    ca?.cleanup();
  });

  void test('a client trusting only the test CA says hello, binds, taps, downloads a screenshot and uploads over https/wss', async () => {
    assert.match(rig.bridge.url, /^https:\/\/127\.0\.0\.1:\d+$/);
    client = await XAgentClient.connect(rig.bridge.url, TEST_API_KEY, { ca: ca.pem });
    const hello = await client.hello();
    assert.equal(hello.type, 'connector.hello.ack');
    channelId = await bindChannel(rig, client, rig.device(0).deviceId);

    rig.phones[0]!.clearArgvLog();
    result(await invoke(client, channelId, 'android_tap', { x: 321, y: 654 }));
    assert.deepEqual(
      rig.phones[0]!.argvLog.filter((argv) => argv[0] === 'input').map((argv) => argv.slice(0, 4)),
      [['input', 'tap', '321', '654']],
    );

    const shot = result(await invoke(client, channelId, 'android_screenshot', { format: 'png', max_side: 640 }));
    const downloadUrl = String(shot.download_url);
    assert.match(
      downloadUrl,
      /^\/files\/refs\/file_[A-Za-z0-9_-]{32}\?exp=\d+&sig=/,
      'relative without --public-url, as before',
    );
    const png = await urlRequest(`${rig.bridge.url}${downloadUrl}`, { ca: ca.pem });
    assert.equal(png.status, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    const meta = await sharp(png.body).metadata();
    assert.equal(Math.max(meta.width ?? 0, meta.height ?? 0), 640);

    const data = Buffer.from('uploaded over https\n');
    const upload = uploadRequest(channelId, data);
    const uploaded = await urlRequest(`${rig.bridge.url}/files/uploads`, { method: 'POST', ca: ca.pem, ...upload });
    assert.equal(uploaded.status, 200, uploaded.body.toString());
    const body = uploaded.json<{ file_ref: string; byte_size: number }>();
    assert.match(body.file_ref, /^file_/);
    assert.equal(body.byte_size, data.length);

    const health = await urlRequest(`${rig.bridge.url}/health`, {
      ca: ca.pem,
      headers: { Authorization: `Bearer ${TEST_API_KEY}` },
    });
    assert.equal(health.status, 200);
    const card = await urlRequest(`${rig.bridge.url}/connector-card.json`, { ca: ca.pem });
    assert.equal(card.status, 200);
  });

  void test('plain http to the TLS port gets no answer, and a client that does not trust the CA is refused', async () => {
    await assert.rejects(
      urlRequest(`http://127.0.0.1:${port}/health`, { headers: { Authorization: `Bearer ${TEST_API_KEY}` } }),
    );
    await assert.rejects(urlRequest(`http://127.0.0.1:${port}/connector-card.json`));
    await assert.rejects(
      urlRequest(`${rig.bridge.url}/connector-card.json`),
      (e: NodeJS.ErrnoException) => e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    );
    await assert.rejects(
      XAgentClient.connect(rig.bridge.url, TEST_API_KEY),
      (e: NodeJS.ErrnoException) => e.code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    );
    await assert.rejects(XAgentClient.connect(`http://127.0.0.1:${port}`, TEST_API_KEY));
  });

  void test('a renewed certificate is served on the next connection without a restart; a bad renewal keeps the old one and is shown', async () => {
    const before = await servedFingerprint(port, ca.pem);
    const renewed = await ca.issue();
    const fingerprint = new X509Certificate(renewed.certPem).fingerprint256;
    assert.notEqual(fingerprint, before);
    assert.equal(await servedFingerprint(port, ca.pem), fingerprint);
    // The data plane opened before the renewal keeps working.
    result(await invoke(client, channelId, 'android_device_status'));
    const settings = await rig.bridge.admin('GET', '/admin/api/settings');
    assert.equal((settings.body.tls as Record<string, unknown>).fingerprint_sha256, fingerprint);

    writeFileSync(renewed.certFile, '-----BEGIN CERTIFICATE-----\nhalf a file\n');
    assert.equal(await servedFingerprint(port, ca.pem), fingerprint, 'still the last good certificate');
    const state = await rig.bridge.admin('GET', '/admin/api/state');
    const warnings = state.body.warnings as string[];
    assert.ok(
      warnings.some((w) => w.includes(`TLS certificate ${renewed.certFile} is not a PEM certificate`)),
      JSON.stringify(warnings),
    );

    const fixed = await ca.issue();
    assert.equal(await servedFingerprint(port, ca.pem), new X509Certificate(fixed.certPem).fingerprint256);
    const cleared = await rig.bridge.admin('GET', '/admin/api/state');
    assert.ok(
      !(cleared.body.warnings as string[]).some((w) => w.includes('TLS')),
      JSON.stringify(cleared.body.warnings),
    );
  });

  void test('a bad certificate file stops the start with an error naming it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-badtls-'));
    const bad = join(dataDir, 'bad-cert.pem');
    writeFileSync(bad, 'not a certificate');
    const core = createCore({
      dataDir,
      port: 0,
      apiKey: TEST_API_KEY,
      adminToken: TEST_ADMIN_TOKEN,
      adbServers: [{ host: '127.0.0.1', port: 1 }],
      logger: silentLogger,
      network: { tls: { certFile: bad, keyFile: join(ca.dir, 'key.pem') } },
    });
    try {
      await assert.rejects(
        core.start(),
        (e: Error & { file?: string }) =>
          e.file === bad &&
          e.message === `TLS certificate ${bad} is not a PEM certificate (no "BEGIN CERTIFICATE" block)`,
      );
    } finally {
      await core.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

void describe('behind a TLS-terminating reverse proxy with the path prefix /devices', () => {
  let ca: TestCa;
  let proxy: ReverseProxy;
  let rig: DeviceRig;
  let client: XAgentClient;

  before(async () => {
    ca = await createTestCa();
    const issued = await ca.issue();
    proxy = await startReverseProxy({ prefix: '/devices', cert: issued.certPem, key: issued.keyPem });
    rig = await startDeviceRig(1, { network: { publicUrl: `${proxy.url}/`, trustProxy: ['127.0.0.1/32'] } });
    proxy.upstream = { host: '127.0.0.1', port: Number(new URL(rig.bridge.url).port) };
  });
  after(async () => {
    await client?.close();
    await rig?.stop();
    await proxy?.stop();
    ca?.cleanup();
  });

  void test('a client given the public URL fetches the Card, binds over wss, and downloads a screenshot through the prefix', async () => {
    const publicUrl = proxy.url; // https://127.0.0.1:PORT/devices
    const card = await urlRequest(`${publicUrl}/connector-card.json`, { ca: ca.pem });
    assert.equal(card.status, 200);
    assert.equal(card.json<{ connector_card_id: string }>().connector_card_id, 'device.adb');
    const skill = await urlRequest(`${publicUrl}/skill.md`, { ca: ca.pem });
    assert.equal(skill.status, 200);
    assert.ok(
      !skill.body.toString().includes(rig.bridge.url) && !card.body.toString().includes(rig.bridge.url),
      'no bridge-internal address is handed out',
    );

    client = await XAgentClient.connect(publicUrl, TEST_API_KEY, { ca: ca.pem });
    assert.equal((await client.hello()).type, 'connector.hello.ack');
    const channelId = await bindChannel(rig, client, rig.device(0).deviceId);
    const shot = result(await invoke(client, channelId, 'android_screenshot', { format: 'png', max_side: 320 }));
    const downloadUrl = String(shot.download_url);
    assert.ok(downloadUrl.startsWith(`${publicUrl}/files/refs/file_`), downloadUrl);
    const png = await urlRequest(downloadUrl, { ca: ca.pem });
    assert.equal(png.status, 200);
    assert.equal(png.headers['content-type'], 'image/png');
    assert.equal((await sharp(png.body).metadata()).format, 'png');

    const health = await urlRequest(`${publicUrl}/health`, {
      ca: ca.pem,
      headers: { Authorization: `Bearer ${TEST_API_KEY}` },
    });
    assert.equal(health.status, 200);
    const settings = await rig.bridge.admin('GET', '/admin/api/settings');
    assert.equal(settings.body.base_url, publicUrl, 'the console shows the public URL as the base URL for xAgent');
    assert.equal(settings.body.public_url, publicUrl);
    assert.deepEqual(rig.bridge.core.warnings(), []);
  });

  void test('through the trusted proxy the admin API sees the real client, not the proxy', async () => {
    const viaProxy = await urlRequest(`${proxy.url}/admin/api/state`, {
      ca: ca.pem,
      headers: { Authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'X-Forwarded-For': '198.51.100.7' },
    });
    assert.equal(viaProxy.status, 403);
    assert.equal(viaProxy.json<{ error: { code: string } }>().error.code, 'forbidden');
  });
});

void describe('--allow-from and --trust-proxy', () => {
  let bridge: TestBridge;
  let logger: ReturnType<typeof recordingLogger>;

  before(async () => {
    logger = recordingLogger();
    bridge = await startBridge({ logger, network: { allowFrom: ['10.0.0.0/8'] } });
  });
  after(async () => {
    await bridge?.stop();
  });

  void test('--allow-from 10.0.0.0/8 refuses a loopback client with 403 on /ws, /health and the transfer plane, logged once', async () => {
    const ws = bridge.url.replace(/^http/, 'ws');
    assert.equal(await refusedUpgrade(`${ws}/ws`), 403);
    const upload = await urlRequest(`${bridge.url}/files/uploads`, {
      method: 'POST',
      ...uploadRequest('ch-1', Buffer.from('x')),
    });
    assert.equal(upload.status, 403);
    assert.equal(upload.json<{ error: { code: string } }>().error.code, 'permission_denied');
    const download = await urlRequest(
      `${bridge.url}/files/refs/file_${'A'.repeat(32)}?exp=9999999999999&sig=${'B'.repeat(43)}`,
    );
    assert.equal(download.status, 403);
    const health = await urlRequest(`${bridge.url}/health`, { headers: { Authorization: `Bearer ${TEST_API_KEY}` } });
    assert.equal(health.status, 403);
    // A forged X-Forwarded-For from a peer that is not a trusted proxy changes nothing.
    const forged = await urlRequest(`${bridge.url}/health`, {
      headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'X-Forwarded-For': '10.1.2.3' },
    });
    assert.equal(forged.status, 403);

    // The Card and Skill stay public (spec §3); the admin API answers loopback as always.
    assert.equal((await urlRequest(`${bridge.url}/connector-card.json`)).status, 200);
    assert.equal((await urlRequest(`${bridge.url}/skill.md`)).status, 200);
    assert.equal((await bridge.admin('GET', '/admin/api/state')).status, 200);

    const refusals = logger.warnings.filter((w) => w.message.includes('--allow-from'));
    assert.equal(refusals.length, 1, JSON.stringify(refusals));
    assert.equal(refusals[0]?.fields?.client, '127.0.0.1');
  });

  void test('the console on this machine still shows approval screenshots: /console/files/refs/ is gated like the console, not by --allow-from', async () => {
    const file = await bridge.core.files.put({
      data: Buffer.from('jpeg bytes'),
      mimeType: 'image/jpeg',
      filename: 'approval.jpg',
      channelId: 'ch-1',
      kind: 'screenshot',
    });
    // Signed with the bridge's own key from its data dir, as the approval gate signs.
    const signer = new UrlSigner(Buffer.from(loadOrCreateSecret(bridge.dataDir, 'url-signing-key'), 'base64url'));
    const { path } = signer.sign(file.fileRef, 60_000, file.expiresAt);
    assert.equal(
      (await urlRequest(`${bridge.url}${path}`)).status,
      403,
      'the transfer plane refuses loopback under --allow-from 10.0.0.0/8',
    );
    const forConsole = await urlRequest(`${bridge.url}/console${path}`);
    assert.equal(forConsole.status, 200);
    assert.equal(forConsole.body.toString(), 'jpeg bytes');
    const tampered = `${path.slice(0, -1)}${path.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await urlRequest(`${bridge.url}/console${tampered}`)).status, 403, 'still signed');
  });

  void test('with --trust-proxy the forwarded client is judged: inside the range passes, outside is refused', async () => {
    const proxied = await startBridge({
      logger: silentLogger,
      network: { allowFrom: ['10.0.0.0/8'], trustProxy: ['127.0.0.1/32'] },
    });
    try {
      const auth = { Authorization: `Bearer ${TEST_API_KEY}` };
      assert.equal(
        (await urlRequest(`${proxied.url}/health`, { headers: { ...auth, 'X-Forwarded-For': '10.1.2.3' } })).status,
        200,
      );
      assert.equal(
        (await urlRequest(`${proxied.url}/health`, { headers: { ...auth, 'X-Forwarded-For': '192.0.2.1' } })).status,
        403,
      );
      assert.equal(
        (await urlRequest(`${proxied.url}/health`, { headers: auth })).status,
        403,
        'the proxy itself is outside the range',
      );
      const ws = proxied.url.replace(/^http/, 'ws');
      assert.equal(
        await refusedUpgrade(`${ws}/ws`, {
          headers: { Authorization: `Bearer ${TEST_API_KEY}`, 'X-Forwarded-For': '192.0.2.1' },
        }),
        403,
      );
      const open = await XAgentClient.connect(proxied.url, TEST_API_KEY).catch((e: Error) => e);
      assert.ok(open instanceof Error && open.message === 'HTTP 403');
    } finally {
      await proxied.stop();
    }
  });
});

void describe('clear-text warning', () => {
  const warningsFor = async (host: string, network: Parameters<typeof createCore>[0]['network']): Promise<string[]> => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bridge-warn-'));
    const core = createCore({
      dataDir,
      host,
      port: 0,
      apiKey: TEST_API_KEY,
      adminToken: TEST_ADMIN_TOKEN,
      adbServers: [{ host: '127.0.0.1', port: 1 }],
      logger: silentLogger,
      ...(network ? { network } : {}),
    });
    try {
      const state = core.adminState();
      assert.deepEqual(state.warnings, core.warnings(), 'the console and desktop app show the same warnings');
      return core.warnings();
    } finally {
      await core.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

  void test('a non-loopback bind without TLS or an https public URL is warned about, saying what leaks and how to fix it', async () => {
    const [warning, ...rest] = await warningsFor('0.0.0.0', undefined);
    assert.equal(rest.length, 0);
    assert.match(warning ?? '', /every network interface over plain HTTP/);
    assert.match(warning ?? '', /system API key \(sent with every \/ws connection and every upload\)/);
    assert.match(warning ?? '', /signed screenshot and file download URLs/);
    assert.match(
      warning ?? '',
      /Fix: start it with --tls self-signed .*--public-url set to the https:\/\/ address xAgent uses\.$/,
    );
    assert.equal(
      (await warningsFor('192.168.1.20', { publicUrl: 'http://lab.example/devices' })).length,
      1,
      'an http public URL is still clear text',
    );
    assert.deepEqual(await warningsFor('0.0.0.0', { tls: 'self-signed' }), []);
    assert.deepEqual(await warningsFor('0.0.0.0', { publicUrl: 'https://lab.example/devices' }), []);
    assert.deepEqual(await warningsFor('127.0.0.1', undefined), []);
    assert.deepEqual(await warningsFor('::1', undefined), []);
  });

  void test('bad network options are refused up front with the option named', () => {
    const base = { dataDir: '/nonexistent-never-created', adbServers: [{ host: '127.0.0.1', port: 1 }] };
    assert.throws(() => createCore({ ...base, network: { publicUrl: 'https://user:pw@lab.example/x' } }), {
      message: '--public-url: "https://user:pw@lab.example/x" must not carry a user name or password',
    });
    assert.throws(() => createCore({ ...base, network: { publicUrl: 'https://lab.example/x?a=1' } }), {
      message: '--public-url: "https://lab.example/x?a=1" must not have a query or fragment',
    });
    assert.throws(() => createCore({ ...base, network: { publicUrl: 'ftp://lab.example/' } }), {
      message: '--public-url: "ftp://lab.example/" must start with https:// or http://',
    });
    assert.throws(() => createCore({ ...base, network: { allowFrom: ['10.0.0.0/40'] } }), {
      message: '--allow-from: "10.0.0.0/40" has a prefix length outside 0–32',
    });
    assert.throws(
      () => createCore({ ...base, network: { trustProxy: ['proxy.lab'] } }),
      /--trust-proxy: "proxy.lab" is not an IP address or CIDR range/,
    );
  });
});

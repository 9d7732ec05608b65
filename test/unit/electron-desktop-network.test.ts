/**
 * The desktop app's network settings (electron-free parts, real core and sockets): stored
 * values checked without ever widening access, a bad certificate file falling back to a
 * loopback bridge with a warning naming it, and the app:// handler's fetch from its own
 * bridge pinned to the certificate that bridge serves.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCore } from '../../main/core/create-core';
import { silentLogger } from '../../main/core/logging/logger';
import { normalizeDesktopNetwork, startWithTlsFallback } from '../../main/electron/desktop-network-settings';
import { fetchFromOwnBridge } from '../../main/electron/own-bridge-fetch';
import { startBridge, TEST_ADMIN_TOKEN, TEST_API_KEY } from '../helpers/bridge';
import { createTestCa } from '../helpers/test-ca';

void describe('desktop network settings', () => {
  void test('good values become the core options; bad ones are left out with a warning, never widening access', () => {
    assert.deepEqual(normalizeDesktopNetwork({}), { network: {}, warnings: [] });
    assert.deepEqual(
      normalizeDesktopNetwork({
        tlsCertFile: '/etc/lab/cert.pem',
        tlsKeyFile: '/etc/lab/key.pem',
        publicUrl: 'https://lab.example/devices/',
        allowFrom: ['10.0.0.0/8'],
        trustProxy: ['127.0.0.1'],
      }),
      {
        network: {
          tls: { certFile: '/etc/lab/cert.pem', keyFile: '/etc/lab/key.pem' },
          publicUrl: 'https://lab.example/devices',
          allowFrom: ['10.0.0.0/8'],
          trustProxy: ['127.0.0.1'],
        },
        warnings: [],
      },
    );
    assert.deepEqual(normalizeDesktopNetwork({ tlsSelfSigned: true }).network, { tls: 'self-signed' });

    const half = normalizeDesktopNetwork({ tlsCertFile: '/c.pem' });
    assert.deepEqual(half.network, {});
    assert.deepEqual(half.warnings, [
      'Settings: tlsKeyFile is missing (tlsCertFile and tlsKeyFile go together); TLS is off.',
    ]);

    const bad = normalizeDesktopNetwork({
      publicUrl: 'ftp://x',
      allowFrom: ['10.0.0.0/8', '300.1.1.1/8'],
      trustProxy: 'proxy',
    });
    assert.deepEqual(bad.network, { allowFrom: ['10.0.0.0/8'] });
    assert.deepEqual(bad.warnings, [
      'Settings: publicUrl "ftp://x" must start with https:// or http://; ignored.',
      'Settings: allowFrom: "300.1.1.1/8" is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8); left out.',
      'Settings: trustProxy must be a list of CIDR ranges like "10.0.0.0/8"; ignored.',
    ]);

    const none = normalizeDesktopNetwork({ allowFrom: ['everyone'] });
    assert.deepEqual(
      none.network,
      { allowFrom: ['127.0.0.0/8', '::1'] },
      'all ranges bad: only this computer, not everyone',
    );
    assert.match(none.warnings.at(-1) ?? '', /only this computer may connect/);
  });

  void test('a bad certificate file: the app starts its bridge on 127.0.0.1 without TLS and says which file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'desktop-tls-'));
    const certFile = join(dataDir, 'cert.pem');
    writeFileSync(certFile, 'garbage');
    const warnings: string[] = [];
    const hosts: string[] = [];
    const core = await startWithTlsFallback((fallback) => {
      const host = fallback ? '127.0.0.1' : '127.0.0.2';
      hosts.push(host);
      return createCore({
        dataDir,
        host,
        port: 0,
        apiKey: TEST_API_KEY,
        adminToken: TEST_ADMIN_TOKEN,
        adbServers: [{ host: '127.0.0.1', port: 1 }],
        logger: silentLogger,
        ...(fallback ? {} : { network: { tls: { certFile, keyFile: join(dataDir, 'key.pem') } } }),
      });
    }, warnings);
    try {
      assert.deepEqual(hosts, ['127.0.0.2', '127.0.0.1']);
      assert.match(core.url(), /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(core.tls(), null);
      assert.equal(warnings.length, 1);
      assert.ok(warnings[0]!.startsWith(`TLS certificate ${certFile} is not a PEM certificate`), warnings[0]);
      assert.match(warnings[0]!, /serves this computer only: 127\.0\.0\.1, no TLS/);
    } finally {
      await core.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  void test("the app's fetch from its own bridge: pinned to the served certificate, even one that names another host", async () => {
    const ca = await createTestCa();
    const files = await ca.issue({ dnsNames: ['lab.example'], ipAddresses: [] });
    const bridge = await startBridge({ network: { tls: files } });
    try {
      const tls = bridge.core.tls();
      assert.ok(tls);
      const card = await fetchFromOwnBridge(
        { url: () => bridge.core.url(), tls: () => tls },
        '/connector-card.json',
        5_000,
      );
      assert.equal(card.status, 200);
      assert.match(card.contentType, /^application\/json/);
      await assert.rejects(
        fetchFromOwnBridge(
          { url: () => bridge.core.url(), tls: () => ({ fingerprint256: otherFingerprint(tls.fingerprint256) }) },
          '/connector-card.json',
          5_000,
        ),
        /answered with another certificate/,
      );
      await assert.rejects(
        fetchFromOwnBridge({ url: () => bridge.core.url(), tls: () => null }, '/connector-card.json', 5_000),
        /certificate is unknown/,
      );
    } finally {
      await bridge.stop();
      ca.cleanup();
    }
    const plain = await startBridge();
    try {
      const card = await fetchFromOwnBridge(
        { url: () => plain.core.url(), tls: () => null },
        '/connector-card.json',
        5_000,
      );
      assert.equal(card.status, 200);
    } finally {
      await plain.stop();
    }
  });
});

/** The same fingerprint with its first byte changed: always different (a fixed '00' was not, 1 run in 256). */
function otherFingerprint(fingerprint: string): string {
  const first = fingerprint.slice(0, 2).toUpperCase() === '00' ? 'FF' : '00';
  return first + fingerprint.slice(2);
}

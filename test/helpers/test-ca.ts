/**
 * A certificate authority made in the test (never a fixture on disk): its PEM for clients to
 * trust, and server certificates it signs, written to a temporary folder as PEM files the
 * bridge reads with --tls-cert/--tls-key.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createCertificatePem, generateEcKeyPair, type KeyPair } from '../../main/core/tls/x509-certificate';

export interface TestCa {
  /** The CA certificate: the only thing a test client trusts. */
  pem: string;
  keys: KeyPair;
  dir: string;
  /** Signs a server certificate and writes it (atomically) to cert.pem/key.pem in `dir`. */
  issue(options?: { commonName?: string; dnsNames?: string[]; ipAddresses?: string[] }): Promise<{
    certFile: string;
    keyFile: string;
    certPem: string;
    keyPem: string;
  }>;
  cleanup(): void;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function createTestCa(commonName = 'Device Bridge Test CA'): Promise<TestCa> {
  const keys = generateEcKeyPair();
  const now = Date.now();
  const pem = await createCertificatePem({
    commonName,
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 30 * DAY_MS),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
    isCa: true,
  });
  const dir = mkdtempSync(join(tmpdir(), 'bridge-test-ca-'));
  return {
    pem,
    keys,
    dir,
    async issue(options = {}) {
      const leaf = generateEcKeyPair();
      const certPem = await createCertificatePem({
        commonName: options.commonName ?? 'bridge under test',
        dnsNames: options.dnsNames ?? ['localhost'],
        ipAddresses: options.ipAddresses ?? ['127.0.0.1', '::1'],
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + 7 * DAY_MS),
        publicKey: leaf.publicKey,
        signingKey: keys.privateKey,
        issuer: { commonName, publicKey: keys.publicKey },
      });
      const keyPem = leaf.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
      const certFile = join(dir, 'cert.pem');
      const keyFile = join(dir, 'key.pem');
      // Key first, then certificate, each renamed into place, as certbot-style renewals do.
      writeFileSync(`${keyFile}.new`, keyPem, { mode: 0o600 });
      renameSync(`${keyFile}.new`, keyFile);
      writeFileSync(`${certFile}.new`, certPem);
      renameSync(`${certFile}.new`, certFile);
      return { certFile, keyFile, certPem, keyPem };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The bridge's TLS material without sockets: certificates written by x509-certificate.ts
 * read back by Node's own parser (names, addresses, issuer, signature), PEM files checked
 * with errors that name the bad file, renewals picked up by refresh() with a bad renewal
 * kept out, and the self-signed certificate made once in the data dir with a 0600 key.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { createCertificatePem, generateEcKeyPair } from '../../main/core/tls/x509-certificate';
import { loadTlsIdentity, TlsFileError, TlsMaterial } from '../../main/core/tls/tls-material';
import { ensureSelfSigned } from '../../main/core/tls/self-signed';
import type { Logger } from '../../main/core/logging/logger';
import { createTestCa } from '../helpers/test-ca';

function recordingLogger(): Logger & {
  lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }>;
} {
  const lines: Array<{ level: string; message: string; fields?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, ...(fields ? { fields } : {}) });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

async function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'bridge-tls-unit-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void describe('x509 certificate writer', () => {
  void test('a CA-signed server certificate reads back with its names, addresses, issuer and signature', async () => {
    const ca = await createTestCa();
    try {
      const issued = await ca.issue({
        dnsNames: ['localhost', 'lab-box.example'],
        ipAddresses: ['127.0.0.1', '192.168.7.20', '::1', 'fd00::7', '::ffff:10.1.2.3'],
      });
      const cert = new X509Certificate(issued.certPem);
      const caCert = new X509Certificate(ca.pem);
      assert.equal(
        cert.subjectAltName,
        'DNS:localhost, DNS:lab-box.example, IP Address:127.0.0.1, IP Address:192.168.7.20, IP Address:0:0:0:0:0:0:0:1, IP Address:FD00:0:0:0:0:0:0:7, IP Address:0:0:0:0:0:FFFF:A01:203',
      );
      assert.ok(cert.checkIssued(caCert));
      assert.ok(cert.verify(ca.keys.publicKey));
      assert.equal(cert.ca, false);
      assert.equal(caCert.ca, true);
      assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
      assert.equal(cert.issuer, 'CN=Device Bridge Test CA');
      assert.ok(cert.checkHost('lab-box.example'));
      assert.ok(cert.checkIP('192.168.7.20'));
      assert.equal(cert.checkHost('other.example'), undefined);
    } finally {
      ca.cleanup();
    }
  });

  void test('dates after 2049 are GeneralizedTime, and bad input is refused with a precise message', async () => {
    const keys = generateEcKeyPair();
    const pem = await createCertificatePem({
      commonName: 'far',
      notBefore: new Date('2049-12-31T23:00:00Z'),
      notAfter: new Date('2061-02-03T04:05:06Z'),
      publicKey: keys.publicKey,
      signingKey: keys.privateKey,
    });
    const cert = new X509Certificate(pem);
    assert.equal(cert.validFrom, 'Dec 31 23:00:00 2049 GMT');
    assert.equal(cert.validTo, 'Feb  3 04:05:06 2061 GMT');
    assert.ok(cert.verify(keys.publicKey));
    await assert.rejects(
      () =>
        createCertificatePem({
          commonName: 'x',
          notBefore: new Date(2),
          notAfter: new Date(1),
          publicKey: keys.publicKey,
          signingKey: keys.privateKey,
        }),
      /notAfter must be after notBefore/,
    );
    await assert.rejects(
      () =>
        createCertificatePem({
          commonName: 'x',
          dnsNames: ['bad name'],
          notBefore: new Date(1),
          notAfter: new Date(2),
          publicKey: keys.publicKey,
          signingKey: keys.privateKey,
        }),
      /"bad name" is not printable ASCII/,
    );
  });

  void test('openssl verify -x509_strict accepts the CA, its leaf and the self-signed certificate', async () => {
    const ca = await createTestCa();
    try {
      const issued = await ca.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1', '::1'] });
      const caFile = join(ca.dir, 'ca.pem');
      writeFileSync(caFile, ca.pem);
      const verify = (args: string[]): string =>
        execFileSync('openssl', ['verify', '-x509_strict', ...args], { encoding: 'utf8', timeout: 10_000 });
      assert.match(verify(['-CAfile', caFile, issued.certFile]), /: OK/);
      await withDir(async (dataDir) => {
        const own = await ensureSelfSigned(dataDir);
        // A self-signed server certificate is its own trust anchor for the check.
        assert.match(verify(['-CAfile', own.certFile, '-partial_chain', own.certFile]), /: OK/);
      });
    } finally {
      ca.cleanup();
    }
  });
});

void describe('TLS files', () => {
  void test('each unusable file is an error that names it', async () => {
    const ca = await createTestCa();
    try {
      const good = await ca.issue();
      const missing = join(ca.dir, 'missing.pem');
      const garbage = join(ca.dir, 'garbage.pem');
      writeFileSync(garbage, 'not a pem\n');
      const expectError = (files: { certFile: string; keyFile: string }, file: string, text: RegExp): void => {
        assert.throws(
          () => loadTlsIdentity(files),
          (e: unknown) =>
            e instanceof TlsFileError &&
            e.code === 'tls_file_invalid' &&
            e.file === file &&
            e.message.includes(file) &&
            text.test(e.message),
        );
      };
      expectError(
        { certFile: missing, keyFile: good.keyFile },
        missing,
        /TLS certificate .* cannot be read \(no such file\)/,
      );
      expectError(
        { certFile: good.certFile, keyFile: missing },
        missing,
        /TLS private key .* cannot be read \(no such file\)/,
      );
      expectError({ certFile: garbage, keyFile: good.keyFile }, garbage, /is not a PEM certificate/);
      expectError({ certFile: good.certFile, keyFile: garbage }, garbage, /is not an unencrypted PEM private key/);
      const otherKey = join(ca.dir, 'other-key.pem');
      writeFileSync(otherKey, generateEcKeyPair().privateKey.export({ type: 'pkcs8', format: 'pem' }));
      expectError(
        { certFile: good.certFile, keyFile: otherKey },
        otherKey,
        new RegExp(`does not belong to the certificate ${good.certFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
      );
      const identity = loadTlsIdentity(good);
      assert.equal(identity.fingerprint256, new X509Certificate(good.certPem).fingerprint256);
      assert.deepEqual(identity.subjectAltNames, [
        'DNS:localhost',
        'IP Address:127.0.0.1',
        'IP Address:0:0:0:0:0:0:0:1',
      ]);
    } finally {
      ca.cleanup();
    }
  });

  void test('refresh() loads a renewal, keeps the old certificate over a bad one (logged once), and recovers', async () => {
    const ca = await createTestCa();
    try {
      const first = await ca.issue();
      const logger = recordingLogger();
      const renewed: string[] = [];
      const material = new TlsMaterial({ files: first, logger, onRenewed: (id) => renewed.push(id.fingerprint256) });
      const fp1 = material.current.fingerprint256;
      assert.equal(material.refresh(), undefined, 'unchanged files are not reloaded');

      const second = await ca.issue();
      const fp2 = new X509Certificate(second.certPem).fingerprint256;
      assert.equal(material.refresh()?.fingerprint256, fp2);
      assert.deepEqual(renewed, [fp2]);
      assert.notEqual(fp1, fp2);

      writeFileSync(first.certFile, '-----BEGIN CERTIFICATE-----\ntruncated\n');
      assert.equal(material.refresh(), undefined);
      assert.equal(material.current.fingerprint256, fp2, 'the old certificate is still served');
      const warnings = material.warnings();
      assert.equal(warnings.length, 1);
      assert.match(
        warnings[0]!,
        new RegExp(`TLS certificate ${first.certFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not a PEM certificate`),
      );
      assert.match(warnings[0]!, /keeps serving the previous certificate/);
      writeFileSync(first.certFile, '-----BEGIN CERTIFICATE-----\nstill truncated\n');
      material.refresh();
      assert.equal(logger.lines.filter((l) => l.level === 'warn').length, 1, 'the same problem is logged once');

      const third = await ca.issue();
      assert.equal(material.refresh()?.fingerprint256, new X509Certificate(third.certPem).fingerprint256);
      assert.deepEqual(material.warnings(), []);
    } finally {
      ca.cleanup();
    }
  });

  void test('an expired certificate is served but reported', async () => {
    const ca = await createTestCa();
    try {
      const files = await ca.issue();
      const material = new TlsMaterial({
        files,
        logger: recordingLogger(),
        clock: () => Date.now() + 365 * 24 * 3600_000,
      });
      assert.match(material.warnings()[0] ?? '', /expired on .*clients will refuse it/);
    } finally {
      ca.cleanup();
    }
  });
});

void describe('self-signed certificate', () => {
  void test('is made once in the data dir for this machine, key mode 0600, and reused', async () => {
    await withDir(async (dataDir) => {
      const made = await ensureSelfSigned(dataDir, { bindHost: '0.0.0.0' });
      assert.equal(made.created, true);
      assert.equal(made.certFile, join(dataDir, 'tls', 'self-signed-cert.pem'));
      if (process.platform !== 'win32') assert.equal(statSync(made.keyFile).mode & 0o777, 0o600);
      const cert = new X509Certificate(readFileSync(made.certFile));
      assert.ok(cert.verify(cert.publicKey), 'self-signed');
      assert.ok(cert.checkHost('localhost'));
      assert.ok(cert.checkIP('127.0.0.1'));
      assert.ok(cert.checkIP('::1'));
      if (/^[A-Za-z0-9.-]+$/.test(hostname()))
        assert.ok(cert.checkHost(hostname().toLowerCase()), `names ${hostname()}`);
      const validDays = (Date.parse(cert.validTo) - Date.now()) / 86_400_000;
      assert.ok(validDays > 820 && validDays <= 825, `valid for ${validDays} days`);

      const again = await ensureSelfSigned(dataDir);
      assert.equal(again.created, false);
      assert.equal(
        new X509Certificate(readFileSync(again.certFile)).fingerprint256,
        cert.fingerprint256,
        'same fingerprint across restarts',
      );

      const nearExpiry = await ensureSelfSigned(dataDir, { clock: () => Date.now() + 800 * 86_400_000 });
      assert.equal(nearExpiry.created, true, 'renewed within 30 days of expiry');
      assert.notEqual(new X509Certificate(readFileSync(nearExpiry.certFile)).fingerprint256, cert.fingerprint256);
    });
  });

  void test('a named bind address is in the certificate, and a damaged file is replaced', async () => {
    await withDir(async (dataDir) => {
      const made = await ensureSelfSigned(dataDir, { bindHost: 'bridge.lab.example' });
      assert.ok(new X509Certificate(readFileSync(made.certFile)).checkHost('bridge.lab.example'));
      writeFileSync(made.keyFile, 'damaged');
      assert.equal((await ensureSelfSigned(dataDir)).created, true);
      assert.doesNotThrow(() => loadTlsIdentity(made));
    });
  });
});

/**
 * `--tls self-signed`: the bridge's own certificate for this machine's names and addresses,
 * generated once and kept in the data dir (key mode 0600) so its fingerprint stays the same
 * across restarts and can be pinned or trusted by the xAgent host. A new one is made only
 * when the files are missing or unusable, or the certificate is within 30 days of expiry.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { createCertificatePem, generateEcKeyPair } from './x509-certificate';
import { loadTlsIdentity, type TlsFiles } from './tls-material';

/** 825 days: the longest validity Apple platforms accept for a TLS server certificate. */
const VALIDITY_MS = 825 * 24 * 60 * 60 * 1000;
const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;
const DNS_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

export function selfSignedFiles(dataDir: string): TlsFiles {
  const dir = join(dataDir, 'tls');
  return { certFile: join(dir, 'self-signed-cert.pem'), keyFile: join(dir, 'self-signed-key.pem') };
}

/** The names a client may use for this machine: localhost, the host name, every non-link-local address, and the bind host. */
export function machineNames(bindHost?: string): { dnsNames: string[]; ipAddresses: string[] } {
  const dnsNames = new Set<string>(['localhost']);
  const ipAddresses = new Set<string>(['127.0.0.1', '::1']);
  const own = hostname();
  if (DNS_NAME.test(own)) dnsNames.add(own.toLowerCase());
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      if (entry.family === 'IPv6' && /^fe[89ab]/i.test(entry.address)) continue; // link-local needs a zone id
      ipAddresses.add(entry.address);
    }
  }
  if (bindHost && bindHost !== '0.0.0.0' && bindHost !== '::') {
    if (isIP(bindHost)) ipAddresses.add(bindHost);
    else if (DNS_NAME.test(bindHost)) dnsNames.add(bindHost.toLowerCase());
  }
  return { dnsNames: [...dnsNames], ipAddresses: [...ipAddresses] };
}

/**
 * Returns the self-signed certificate files in `dataDir`, creating them when needed.
 * `created` says whether a new certificate (and fingerprint) was made this time.
 */
export async function ensureSelfSigned(
  dataDir: string,
  options: { bindHost?: string; clock?: () => number } = {},
): Promise<TlsFiles & { created: boolean }> {
  const files = selfSignedFiles(dataDir);
  const now = (options.clock ?? Date.now)();
  try {
    const existing = loadTlsIdentity(files);
    if (existing.validTo - now > RENEW_BEFORE_MS) return { ...files, created: false };
  } catch {
    // missing or unusable: make a new one below
  }
  const names = machineNames(options.bindHost);
  const keys = generateEcKeyPair();
  const cert = await createCertificatePem({
    commonName: `xAgent Device Bridge on ${hostname().slice(0, 40) || 'this machine'}`,
    ...names,
    // A little slack for clients whose clock is behind.
    notBefore: new Date(now - 60 * 60 * 1000),
    notAfter: new Date(now + VALIDITY_MS),
    publicKey: keys.publicKey,
    signingKey: keys.privateKey,
  });
  const key = keys.privateKey.export({ type: 'pkcs8', format: 'pem' });
  mkdirSync(join(dataDir, 'tls'), { recursive: true, mode: 0o700 });
  // Written beside and renamed over, so a running bridge never reads half a file.
  writeFileSync(`${files.keyFile}.tmp`, key, { mode: 0o600 });
  chmodSync(`${files.keyFile}.tmp`, 0o600);
  renameSync(`${files.keyFile}.tmp`, files.keyFile);
  writeFileSync(`${files.certFile}.tmp`, cert, { mode: 0o644 });
  renameSync(`${files.certFile}.tmp`, files.certFile);
  return { ...files, created: true };
}

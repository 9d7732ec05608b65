/**
 * The bridge's X.509 certificates: its own self-signed server certificate (and, in tests, a
 * CA and the leaves it signs). Keys are ECDSA P-256 signed with SHA-256. The structure of
 * RFC 5280 is written by `@peculiar/x509`, a kept library, on Node's own WebCrypto; this
 * file only chooses what goes in (names, addresses, usages) and takes node:crypto KeyObjects
 * in so the rest of the bridge never deals in CryptoKeys.
 */
import './reflect-metadata';
import { generateKeyPairSync, randomBytes, webcrypto, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';

export interface CertificateRequest {
  /** Subject common name (also the issuer's when self-signed). */
  commonName: string;
  /** DNS names for subjectAltName. */
  dnsNames?: readonly string[];
  /** IPv4/IPv6 addresses for subjectAltName. */
  ipAddresses?: readonly string[];
  notBefore: Date;
  notAfter: Date;
  /** The subject's public key. */
  publicKey: KeyObject;
  /** Signs the certificate: the subject's own key when self-signed, else the issuer's. */
  signingKey: KeyObject;
  /** The issuing CA; omitted for a self-signed certificate. */
  issuer?: { commonName: string; publicKey: KeyObject };
  /** A CA certificate (may sign others) instead of a TLS server certificate. */
  isCa?: boolean;
}

export interface KeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

const EC_SIGNING = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
// Node's WebCrypto, handed to every call rather than set globally for the process.
const crypto = webcrypto as unknown as Crypto;

/** A fresh ECDSA P-256 key pair (the curve every TLS client accepts). */
export function generateEcKeyPair(): KeyPair {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

/** Writes and signs a certificate; returns it as PEM. */
export async function createCertificatePem(request: CertificateRequest): Promise<string> {
  if (request.notAfter.getTime() <= request.notBefore.getTime())
    throw new TypeError('notAfter must be after notBefore');
  if (request.signingKey.asymmetricKeyType !== 'ec') throw new TypeError('signingKey must be an EC key');
  const altNames = subjectAltNames(request.dnsNames ?? [], request.ipAddresses ?? []);
  const publicKey = await toPublicCryptoKey(request.publicKey);
  const issuerKey = request.issuer ? await toPublicCryptoKey(request.issuer.publicKey) : publicKey;
  const signingKey = await crypto.subtle.importKey(
    'pkcs8',
    request.signingKey.export({ type: 'pkcs8', format: 'der' }),
    EC_SIGNING,
    false,
    ['sign'],
  );
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(request.isCa === true, undefined, true),
    // digitalSignature for ECDHE handshakes; keyCertSign + cRLSign for a CA.
    new x509.KeyUsagesExtension(
      request.isCa
        ? x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
        : x509.KeyUsageFlags.digitalSignature,
      true,
    ),
    await x509.SubjectKeyIdentifierExtension.create(publicKey, false, crypto),
    await x509.AuthorityKeyIdentifierExtension.create(issuerKey, false, crypto),
  ];
  if (!request.isCa) extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false));
  if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames, false));

  const serial = randomBytes(16);
  serial[0] = 0x40 | ((serial[0] ?? 0) & 0x3f); // positive, 16 bytes, no leading zero to trim
  const certificate = await x509.X509CertificateGenerator.create(
    {
      serialNumber: serial.toString('hex'),
      // Names as objects, never as "CN=…" text, so a comma in a host name cannot add an attribute.
      subject: [{ CN: [request.commonName] }],
      issuer: [{ CN: [request.issuer?.commonName ?? request.commonName] }],
      notBefore: request.notBefore,
      notAfter: request.notAfter,
      publicKey,
      signingKey,
      signingAlgorithm: EC_SIGNING,
      extensions,
    },
    crypto,
  );
  return `${certificate.toString('pem').replace(/\r\n/g, '\n').trimEnd()}\n`;
}

async function toPublicCryptoKey(key: KeyObject): Promise<CryptoKey> {
  if (key.asymmetricKeyType !== 'ec') throw new TypeError('publicKey must be an EC key');
  return crypto.subtle.importKey('spki', key.export({ type: 'spki', format: 'der' }), EC_SIGNING, true, ['verify']);
}

function subjectAltNames(dnsNames: readonly string[], ipAddresses: readonly string[]): x509.JsonGeneralName[] {
  const out: x509.JsonGeneralName[] = [];
  for (const dns of dnsNames) {
    if (!/^[\x21-\x7e]+$/.test(dns)) throw new TypeError(`DNS name ${JSON.stringify(dns)} is not printable ASCII`);
    out.push({ type: 'dns', value: dns });
  }
  for (const ip of ipAddresses) {
    const family = isIP(ip);
    if (family === 0) throw new TypeError(`${JSON.stringify(ip)} is not an IP address`);
    out.push({ type: 'ip', value: family === 6 ? withHexTail(ip) : ip });
  }
  return out;
}

/**
 * `::ffff:10.1.2.3` as `::ffff:a01:203`: the library reads an IPv6 address as hex groups
 * only, and would encode a dotted IPv4 tail as a wrong address.
 */
function withHexTail(address: string): string {
  const tail = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (!tail) return address;
  const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
  return `${address.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

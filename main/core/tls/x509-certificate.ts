/**
 * A small X.509 v3 certificate writer on node:crypto: enough DER to issue the bridge's own
 * self-signed server certificate (and, in tests, a CA and a leaf it signs). Keys are ECDSA
 * P-256, signed with SHA-256; node:crypto does every cryptographic step (key generation,
 * SPKI encoding, signing) and this file only lays out the structure of RFC 5280.
 *
 * Why not a package: the only maintained generators pull a WebCrypto/ASN.1 stack with a
 * dependency-injection container and a global `Reflect` polyfill into the production
 * bundle, or node-forge (which reimplements the cryptography in JavaScript). What we need
 * is ~150 lines of encoding, checked in tests by Node's own parser (`crypto.X509Certificate`)
 * and by real TLS handshakes against OpenSSL.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

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

/** A fresh ECDSA P-256 key pair (the curve every TLS client accepts). */
export function generateEcKeyPair(): KeyPair {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

/** Writes and signs a certificate; returns it as PEM. */
export function createCertificatePem(request: CertificateRequest): string {
  if (request.notAfter.getTime() <= request.notBefore.getTime())
    throw new TypeError('notAfter must be after notBefore');
  if (request.signingKey.asymmetricKeyType !== 'ec') throw new TypeError('signingKey must be an EC key');
  const spki = request.publicKey.export({ type: 'spki', format: 'der' });
  const issuerName = request.issuer?.commonName ?? request.commonName;
  const issuerKeyId = keyIdentifier(request.issuer?.publicKey.export({ type: 'spki', format: 'der' }) ?? spki);
  const extensions: Buffer[] = [
    extension(OID.basicConstraints, true, seq(request.isCa ? [bool(true)] : [])),
    // digitalSignature (bit 0) for ECDHE handshakes; keyCertSign + cRLSign (bits 5, 6) for a CA.
    extension(
      OID.keyUsage,
      true,
      bitString(request.isCa ? Buffer.from([0x86]) : Buffer.from([0x80]), request.isCa ? 1 : 7),
    ),
    extension(OID.subjectKeyIdentifier, false, octetString(keyIdentifier(spki))),
    extension(OID.authorityKeyIdentifier, false, seq([tagged(0x80, issuerKeyId)])),
  ];
  if (!request.isCa) extensions.push(extension(OID.extKeyUsage, false, seq([oid(OID.serverAuth)])));
  const altNames = subjectAltNames(request.dnsNames ?? [], request.ipAddresses ?? []);
  if (altNames.length > 0) extensions.push(extension(OID.subjectAltName, false, seq(altNames)));

  const serial = randomBytes(16);
  serial[0] = 0x40 | ((serial[0] ?? 0) & 0x3f); // positive, 16 bytes, no leading zero to trim
  const tbs = seq([
    tagged(0xa0, integer(Buffer.from([2]))), // v3
    integer(serial),
    ECDSA_SHA256,
    name(issuerName),
    seq([time(request.notBefore), time(request.notAfter)]),
    name(request.commonName),
    spki,
    tagged(0xa3, seq(extensions)),
  ]);
  const signature = sign('sha256', tbs, request.signingKey); // ECDSA signatures come DER-encoded
  const der = seq([tbs, ECDSA_SHA256, bitString(signature, 0)]);
  const body = der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

const OID = {
  commonName: '2.5.4.3',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  extKeyUsage: '2.5.29.37',
  subjectAltName: '2.5.29.17',
  subjectKeyIdentifier: '2.5.29.14',
  authorityKeyIdentifier: '2.5.29.35',
  serverAuth: '1.3.6.1.5.5.7.3.1',
} as const;

function subjectAltNames(dnsNames: readonly string[], ipAddresses: readonly string[]): Buffer[] {
  const out: Buffer[] = [];
  for (const dns of dnsNames) {
    if (!/^[\x21-\x7e]+$/.test(dns)) throw new TypeError(`DNS name ${JSON.stringify(dns)} is not printable ASCII`);
    out.push(tagged(0x82, Buffer.from(dns, 'ascii'))); // [2] dNSName, IA5String
  }
  for (const ip of ipAddresses) out.push(tagged(0x87, ipBytes(ip))); // [7] iPAddress
  return out;
}

/** Network-order bytes of an IPv4 (4) or IPv6 (16) address. */
export function ipBytes(address: string): Buffer {
  const family = isIP(address);
  if (family === 4) return Buffer.from(address.split('.').map(Number));
  if (family !== 6) throw new TypeError(`${JSON.stringify(address)} is not an IP address`);
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = v4[1].split('.').map(Number);
    text = `${text.slice(0, -v4[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  const out = Buffer.alloc(16);
  groups.forEach((group, i) => out.writeUInt16BE(Number.parseInt(group, 16), i * 2));
  return out;
}

/** RFC 5280 §4.2.1.2 method 1: SHA-1 of the subjectPublicKey bits. */
function keyIdentifier(spki: Buffer): Buffer {
  // SPKI = SEQUENCE { AlgorithmIdentifier, BIT STRING }; the key bits follow the BIT STRING's unused-bits byte.
  const outer = readHeader(spki, 0);
  const algorithm = readHeader(spki, outer.contentStart);
  const bits = readHeader(spki, algorithm.contentStart + algorithm.length);
  return createHash('sha1')
    .update(spki.subarray(bits.contentStart + 1, bits.contentStart + bits.length))
    .digest();
}

function readHeader(der: Buffer, at: number): { contentStart: number; length: number } {
  const first = der[at + 1] ?? 0;
  if (first < 0x80) return { contentStart: at + 2, length: first };
  const count = first & 0x7f;
  let length = 0;
  for (let i = 0; i < count; i += 1) length = length * 256 + (der[at + 2 + i] ?? 0);
  return { contentStart: at + 2 + count, length };
}

function tagged(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), derLength(content.length), content]);
}

function derLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function seq(items: readonly Buffer[]): Buffer {
  return tagged(0x30, Buffer.concat(items));
}

function set(items: readonly Buffer[]): Buffer {
  return tagged(0x31, Buffer.concat(items));
}

function integer(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
  const trimmed = bytes.subarray(start);
  return tagged(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

function bool(value: boolean): Buffer {
  return tagged(0x01, Buffer.from([value ? 0xff : 0]));
}

function octetString(content: Buffer): Buffer {
  return tagged(0x04, content);
}

function bitString(content: Buffer, unusedBits: number): Buffer {
  return tagged(0x03, Buffer.concat([Buffer.from([unusedBits]), content]));
}

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes: number[] = [(arcs[0] ?? 0) * 40 + (arcs[1] ?? 0)];
  for (const arc of arcs.slice(2)) {
    const chunk: number[] = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) chunk.unshift((rest & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tagged(0x06, Buffer.from(bytes));
}

function name(commonName: string): Buffer {
  return seq([set([seq([oid(OID.commonName), tagged(0x0c, Buffer.from(commonName, 'utf8'))])])]);
}

/** UTCTime through 2049, GeneralizedTime after (RFC 5280 §4.1.2.5). */
function time(date: Date): Buffer {
  const iso = date.toISOString(); // YYYY-MM-DDTHH:MM:SS.sssZ
  const digits = `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
  return date.getUTCFullYear() < 2050
    ? tagged(0x17, Buffer.from(digits.slice(2), 'ascii'))
    : tagged(0x18, Buffer.from(digits, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return seq([oid(id), ...(critical ? [bool(true)] : []), octetString(value)]);
}

const ECDSA_SHA256 = seq([oid(OID.ecdsaWithSha256)]);

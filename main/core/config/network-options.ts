/**
 * How the bridge faces the network (docs/REFERENCE.md "For labs"): TLS in the bridge (PEM files or a
 * self-signed certificate), the public base URL xAgent is given when a reverse proxy sits
 * in front, the proxies whose X-Forwarded-For is believed, and who may reach the xAgent
 * planes. Checked once, up front, with messages that name the option; and the clear-text
 * warning for a network-facing bridge without any of it.
 */
import { isIP } from 'node:net';
import { AddressRanges } from './address-ranges';

export interface TlsFilesOption {
  certFile: string;
  keyFile: string;
}

export interface NetworkOptionsInput {
  /** TLS in the bridge: PEM certificate (chain) and key files, or a self-signed certificate kept in the data dir. */
  tls?: TlsFilesOption | 'self-signed';
  /** The base URL xAgent is given (spec §3: http/https, host, optional path prefix; no userinfo, query or fragment). */
  publicUrl?: string;
  /** CIDRs of reverse proxies whose X-Forwarded-For names the client. */
  trustProxy?: readonly string[];
  /** CIDRs of the clients that may reach /ws, /health and the transfer plane. */
  allowFrom?: readonly string[];
}

export interface NetworkOptions {
  tls: TlsFilesOption | 'self-signed' | undefined;
  /** Normalized: no trailing slash. */
  publicUrl: string | undefined;
  trustProxy: AddressRanges | undefined;
  allowFrom: AddressRanges | undefined;
}

export function resolveNetworkOptions(input: NetworkOptionsInput = {}): NetworkOptions {
  const tls = input.tls;
  if (tls !== undefined && tls !== 'self-signed') {
    if (
      typeof tls !== 'object' ||
      typeof tls.certFile !== 'string' ||
      typeof tls.keyFile !== 'string' ||
      !tls.certFile ||
      !tls.keyFile
    ) {
      throw new TypeError(
        'network.tls must be "self-signed" or {certFile, keyFile} (both PEM files; --tls-cert and --tls-key go together)',
      );
    }
  }
  return {
    tls: tls === undefined || tls === 'self-signed' ? tls : { certFile: tls.certFile, keyFile: tls.keyFile },
    publicUrl: input.publicUrl === undefined ? undefined : parsePublicUrl(input.publicUrl),
    trustProxy: input.trustProxy?.length ? AddressRanges.parse(input.trustProxy, '--trust-proxy') : undefined,
    allowFrom: input.allowFrom?.length ? AddressRanges.parse(input.allowFrom, '--allow-from') : undefined,
  };
}

/** Checks a public base URL by the spec's rules (§3) and drops a trailing slash. */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TypeError(`--public-url: ${JSON.stringify(text)} is not a URL (e.g. https://lab.example/devices)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`--public-url: ${JSON.stringify(text)} must start with https:// or http://`);
  if (!url.hostname) throw new TypeError(`--public-url: ${JSON.stringify(text)} has no host`);
  if (url.username || url.password)
    throw new TypeError(`--public-url: ${JSON.stringify(text)} must not carry a user name or password`);
  if (text.includes('?') || text.includes('#'))
    throw new TypeError(`--public-url: ${JSON.stringify(text)} must not have a query or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** An absolute URL under the public base for a bridge path (`/files/refs/…`); the path alone when there is none. */
export function publicHref(publicUrl: string | undefined, path: string): string {
  return publicUrl === undefined ? path : `${publicUrl}${path}`;
}

/** True for host names and addresses that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const plain = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (plain === 'localhost' || plain.endsWith('.localhost')) return true;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1' || /^::ffff:127\./.test(plain);
}

/**
 * The warning for a network-facing bridge in clear text: bound to a non-loopback address
 * with neither TLS in the bridge nor an https public URL (a TLS proxy in front).
 */
export function clearTextWarning(host: string, network: NetworkOptions): string | undefined {
  if (isLoopbackHost(host) || network.tls !== undefined) return undefined;
  if (network.publicUrl?.startsWith('https://')) return undefined;
  const where = host === '0.0.0.0' || host === '::' ? 'every network interface' : host;
  return (
    `The bridge listens on ${where} over plain HTTP. Anyone on the network path can read the system API key ` +
    '(sent with every /ws connection and every upload) and the signed screenshot and file download URLs. ' +
    'Fix: start it with --tls self-signed (or --tls-cert FILE --tls-key FILE), or behind your TLS proxy with --public-url set to the https:// address xAgent uses.'
  );
}

/**
 * Who is asking, and may they: the client address of a request (from the socket, or from
 * `X-Forwarded-For` only when the socket's peer is a proxy named by `--trust-proxy`), and
 * the `--allow-from` gate in front of the xAgent planes (/ws, /health, /files/...).
 * Address ranges are CIDRs in IPv4 or IPv6; an IPv4-mapped IPv6 address (::ffff:10.1.2.3)
 * is the IPv4 address it carries, in either direction.
 */
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Logger } from '../logging/logger';
import { AddressRanges, unmapped } from '../config/address-ranges';

export { AddressRanges, unmapped };

/** A refused address is logged again after this long, not on every request. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_REFUSALS = 10_000;
const MAX_FORWARDED_HOPS = 32;

/** One `X-Forwarded-For` entry as an address: tolerates `[v6]:port` and `v4:port`. */
function forwardedAddress(entry: string): string | undefined {
  const text = entry.trim();
  if (isIP(text)) return unmapped(text);
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::\d+)?$/.exec(text);
  if (bracketed?.[1] && isIP(bracketed[1])) return unmapped(bracketed[1]);
  const v4port = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(text);
  if (v4port?.[1] && isIP(v4port[1])) return v4port[1];
  return undefined;
}

export interface NetworkAccessOptions {
  /** Only these clients reach the xAgent planes; undefined = everyone who can connect. */
  allowFrom?: AddressRanges;
  /** Proxies whose `X-Forwarded-For` is believed; undefined = the header is ignored. */
  trustProxy?: AddressRanges;
  logger: Logger;
  clock?: () => number;
}

const resolved = new WeakMap<IncomingMessage, string>();

/** The client address HttpServer resolved for this request (socket peer when none was). */
export function clientAddressOf(req: IncomingMessage): string {
  return resolved.get(req) ?? unmapped(req.socket.remoteAddress ?? '');
}

export class NetworkAccess {
  private readonly refusalsLogged = new Map<string, number>();

  constructor(private readonly options: NetworkAccessOptions) {}

  /**
   * The client's address. `X-Forwarded-For` is read right to left past trusted proxies only
   * when the socket's peer itself is a trusted proxy; otherwise the header is ignored.
   */
  resolve(req: IncomingMessage): string {
    const known = resolved.get(req);
    if (known !== undefined) return known;
    let client = unmapped(req.socket.remoteAddress ?? '');
    const trusted = this.options.trustProxy;
    const header = req.headers['x-forwarded-for'];
    if (trusted && trusted.has(client) && header !== undefined) {
      const hops = (Array.isArray(header) ? header.join(',') : header).split(',').slice(-MAX_FORWARDED_HOPS);
      for (let i = hops.length - 1; i >= 0; i -= 1) {
        const hop = forwardedAddress(hops[i] ?? '');
        // A malformed entry ends the walk: the last trusted hop is the best we know.
        if (hop === undefined) break;
        client = hop;
        if (!trusted.has(hop)) break;
      }
    }
    resolved.set(req, client);
    return client;
  }

  /** True when `address` is a proxy named by --trust-proxy (its connections carry many clients). */
  isTrustedProxy(address: string): boolean {
    return this.options.trustProxy?.has(address) ?? false;
  }

  /**
   * True when a socket's peer may connect at all, judged at accept before any header: inside
   * --allow-from, or a trusted proxy (its clients are judged per request). Loopback is let in by
   * the caller (the person's console); with no --allow-from everyone is.
   */
  admitsPeer(address: string): boolean {
    const allow = this.options.allowFrom;
    return !allow || allow.has(address) || this.isTrustedProxy(address);
  }

  /** True when the request's client may reach the xAgent planes; a refusal is logged once per address per minute. */
  admits(req: IncomingMessage, path: string): boolean {
    const allow = this.options.allowFrom;
    if (!allow) return true;
    const client = this.resolve(req);
    if (allow.has(client)) return true;
    const now = (this.options.clock ?? Date.now)();
    const last = this.refusalsLogged.get(client);
    if (last === undefined || now - last >= REFUSAL_LOG_INTERVAL_MS) {
      if (this.refusalsLogged.size >= MAX_REMEMBERED_REFUSALS) this.forgetOld(now);
      this.refusalsLogged.set(client, now);
      this.options.logger.warn('refused a client outside --allow-from', {
        client,
        path,
        allow_from: allow.texts.join(' '),
      });
    }
    return false;
  }

  private forgetOld(now: number): void {
    for (const [address, at] of this.refusalsLogged) {
      if (now - at >= REFUSAL_LOG_INTERVAL_MS) this.refusalsLogged.delete(address);
    }
    // Still full (a flood from many addresses inside one minute): start over rather than grow.
    if (this.refusalsLogged.size >= MAX_REMEMBERED_REFUSALS) this.refusalsLogged.clear();
  }
}

/**
 * Who is asking, and may they: the client address of a request (from the socket, or from
 * `X-Forwarded-For` only when the socket's peer is a proxy named by `--trust-proxy`), and
 * the `--allow-from` gate in front of the xAgent planes (/ws, /health, /files/...).
 * Address ranges are CIDRs in IPv4 or IPv6; an IPv4-mapped IPv6 address (::ffff:10.1.2.3)
 * is the IPv4 address it carries, in either direction.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Logger } from '../logging/logger';

/** A refused address is logged again after this long, not on every request. */
const REFUSAL_LOG_INTERVAL_MS = 60_000;
const MAX_REMEMBERED_REFUSALS = 10_000;
const MAX_FORWARDED_HOPS = 32;
const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** A set of CIDR ranges, e.g. `10.0.0.0/8`, `fd00::/8`, or a single address. */
export class AddressRanges {
  private readonly list = new BlockList();

  private constructor(readonly texts: readonly string[]) {}

  /** Parses CIDRs; `what` names the flag or option in the error (`--allow-from: …`). */
  static parse(texts: readonly string[], what: string): AddressRanges {
    const ranges = new AddressRanges(texts.map((t) => t.trim()));
    for (const text of ranges.texts) {
      const slash = text.indexOf('/');
      const raw = slash === -1 ? text : text.slice(0, slash);
      // A mapped IPv6 range (::ffff:10.0.0.0/104) is the IPv4 range it covers.
      const mappedBits = MAPPED_V4.test(raw) ? 96 : 0;
      const address = mappedBits ? unmapped(raw) : raw;
      const family = raw.includes('%') ? 0 : isIP(address);
      if (family === 0) throw new TypeError(`${what}: ${JSON.stringify(text)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)`);
      const max = family === 4 ? 32 : 128;
      const prefixText = slash === -1 ? String(max + mappedBits) : text.slice(slash + 1);
      const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) - mappedBits : NaN;
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) {
        throw new TypeError(`${what}: ${JSON.stringify(text)} has a prefix length outside 0–${max + mappedBits}`);
      }
      ranges.list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
    }
    return ranges;
  }

  has(address: string | undefined): boolean {
    if (!address) return false;
    const plain = unmapped(address);
    const family = isIP(plain);
    return family !== 0 && this.list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** `::ffff:10.1.2.3` → `10.1.2.3`; anything else unchanged (zone ids dropped). */
export function unmapped(address: string): string {
  const withoutZone = address.replace(/%.*$/, '');
  return MAPPED_V4.exec(withoutZone)?.[1] ?? withoutZone;
}

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
      this.options.logger.warn('refused a client outside --allow-from', { client, path, allow_from: allow.texts.join(' ') });
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

/**
 * Address ranges as the network options name them (`--allow-from`, `--trust-proxy`): CIDRs in
 * IPv4 or IPv6, where an IPv4-mapped IPv6 address (::ffff:10.1.2.3) is the IPv4 address it
 * carries, in either direction. Parsed once at start, matched on every request.
 */
import { BlockList, isIP } from 'node:net';

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
      if (family === 0)
        throw new TypeError(
          `${what}: ${JSON.stringify(text)} is not an IP address or CIDR range (e.g. 10.0.0.0/8, fd00::/8)`,
        );
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

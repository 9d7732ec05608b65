/**
 * Whether an SSH host is who it says it is. A host key is pinned either by a known_hosts file
 * (the person's own, as OpenSSH keeps it) or, for a host that file does not list, on first use:
 * the key's SHA-256 fingerprint is stored in the bridge's data folder and shown to the person,
 * and any later different key is refused until the person removes the pin. The one rule: a
 * host listed in known_hosts is judged by that file only, so a first-use pin can never widen it.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DEFAULT_SSH_PORT } from './ssh-target';

/** OpenSSH's fingerprint form: `SHA256:` and the unpadded base64 of the key blob's SHA-256. */
export function fingerprintOf(keyBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH key blob (`ssh-ed25519`, `ecdsa-sha2-nistp256`, …). */
export function keyTypeOf(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const length = keyBlob.readUInt32BE(0);
  if (length > 64 || keyBlob.length < 4 + length) return 'unknown';
  return keyBlob.subarray(4, 4 + length).toString('latin1');
}

/** How known_hosts names a host: bare on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === DEFAULT_SSH_PORT ? host : `[${host}]:${port}`;
}

function wildcardMatch(pattern: string, name: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 'i').test(name);
}

/** One host field of a known_hosts line (comma-separated patterns, `!` negations, or one hashed name). */
function hostFieldMatches(field: string, name: string): boolean {
  if (field.startsWith('|1|')) {
    const [, , salt = '', hash = ''] = field.split('|');
    const expected = Buffer.from(hash, 'base64');
    const actual = createHmac('sha1', Buffer.from(salt, 'base64')).update(name).digest();
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }
  let matched = false;
  for (const pattern of field.split(',')) {
    if (pattern.startsWith('!')) {
      if (wildcardMatch(pattern.slice(1), name)) return false;
    } else if (wildcardMatch(pattern, name)) matched = true;
  }
  return matched;
}

export interface KnownHostsEntry {
  keyType: string;
  keyBlob: Buffer;
  revoked: boolean;
}

/**
 * The keys a known_hosts text lists for one host (by `knownHostsName`). `@cert-authority`
 * lines are skipped (the bridge does not check host certificates); `@revoked` ones are kept
 * as revoked.
 */
export function knownHostsEntries(text: string, name: string): KnownHostsEntry[] {
  const entries: KnownHostsEntry[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const words = line.split(/\s+/);
    let revoked = false;
    if (words[0]?.startsWith('@')) {
      const marker = words.shift();
      if (marker === '@cert-authority') continue;
      revoked = marker === '@revoked';
      if (!revoked) continue;
    }
    const [hosts, keyType, key] = words;
    if (hosts === undefined || keyType === undefined || key === undefined) continue;
    if (!hostFieldMatches(hosts, name)) continue;
    entries.push({ keyType, keyBlob: Buffer.from(key, 'base64'), revoked });
  }
  return entries;
}

export interface PinnedKey {
  key_type: string;
  fingerprint: string;
  pinned_at: number;
}

export type HostKeyVerdict =
  | { ok: true; by: 'known_hosts' | 'first_use' | 'pinned'; keyType: string; fingerprint: string; firstUse: boolean }
  | { ok: false; keyType: string; fingerprint: string; reason: string };

/** A key no known_hosts line and no pin vouches for yet. */
export interface HostKeyUnknown {
  ok: 'unknown';
  keyType: string;
  fingerprint: string;
}

export interface HostKeyPolicyOptions {
  /** The person's known_hosts file; a host it lists is judged by it alone. */
  knownHostsFile?: string | undefined;
  /** Where first-use pins are kept (a JSON file in the bridge's data folder). */
  pinsFile: string;
  clock?: () => number;
}

/** Decides on a host key as presented in the handshake; pins on first use. */
export class HostKeyPolicy {
  constructor(private readonly options: HostKeyPolicyOptions) {}

  get pinsFile(): string {
    return this.options.pinsFile;
  }

  judge(host: string, port: number, keyBlob: Buffer): HostKeyVerdict {
    const verdict = this.check(host, port, keyBlob);
    if (verdict.ok !== 'unknown') return verdict;
    this.pin(host, port, verdict.keyType, verdict.fingerprint);
    return { ok: true, by: 'first_use', keyType: verdict.keyType, fingerprint: verdict.fingerprint, firstUse: true };
  }

  /**
   * The verdict without pinning: `ok: 'unknown'` for a host neither known_hosts nor a pin
   * vouches for (a host added at runtime shows that key to the person before it is pinned).
   */
  check(host: string, port: number, keyBlob: Buffer): HostKeyVerdict | HostKeyUnknown {
    const name = knownHostsName(host, port);
    const keyType = keyTypeOf(keyBlob);
    const fingerprint = fingerprintOf(keyBlob);
    const file = this.options.knownHostsFile;
    const listed = file !== undefined && existsSync(file) ? knownHostsEntries(readFileSync(file, 'utf8'), name) : [];
    if (listed.some((e) => e.revoked && e.keyBlob.equals(keyBlob)))
      return { ok: false, keyType, fingerprint, reason: `${file ?? 'known_hosts'} marks this key @revoked` };
    const valid = listed.filter((e) => !e.revoked);
    if (valid.length > 0) {
      if (valid.some((e) => e.keyBlob.equals(keyBlob)))
        return { ok: true, by: 'known_hosts', keyType, fingerprint, firstUse: false };
      const expected = valid.map((e) => `${e.keyType} ${fingerprintOf(e.keyBlob)}`).join(', ');
      return { ok: false, keyType, fingerprint, reason: `${file ?? 'known_hosts'} lists ${name} with ${expected}` };
    }
    const pinned = this.readPins()[name];
    if (pinned) {
      if (pinned.fingerprint === fingerprint) return { ok: true, by: 'pinned', keyType, fingerprint, firstUse: false };
      return {
        ok: false,
        keyType,
        fingerprint,
        reason: `the bridge pinned ${name} on first use to ${pinned.key_type} ${pinned.fingerprint} (${this.options.pinsFile})`,
      };
    }
    return { ok: 'unknown', keyType, fingerprint };
  }

  /** Pins a host's key (trust on first use, or the person's confirmation of the fingerprint shown). */
  pin(host: string, port: number, keyType: string, fingerprint: string): void {
    const pins = this.readPins();
    pins[knownHostsName(host, port)] = {
      key_type: keyType,
      fingerprint,
      pinned_at: (this.options.clock ?? Date.now)(),
    };
    this.writePins(pins);
  }

  /** The first-use pin of a host, if any (shown by the admin API). */
  pinned(host: string, port: number): PinnedKey | undefined {
    return this.readPins()[knownHostsName(host, port)];
  }

  private readPins(): Record<string, PinnedKey> {
    if (!existsSync(this.options.pinsFile)) return {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.options.pinsFile, 'utf8'));
      return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, PinnedKey>) : {};
    } catch {
      // A damaged pins file must not silently re-pin every host: nothing is trusted on first use until it is fixed.
      throw new Error(`the SSH host key pins file ${this.options.pinsFile} is damaged; fix or remove it`);
    }
  }

  private writePins(pins: Record<string, PinnedKey>): void {
    mkdirSync(dirname(this.options.pinsFile), { recursive: true });
    const temporary = `${this.options.pinsFile}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(pins, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.options.pinsFile);
  }
}

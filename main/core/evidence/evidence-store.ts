/**
 * Where finished evidence bundles are kept: `dataDir/evidence/<lease id>.json`, one file per
 * lease, and `index.json` with each one's summary so the list never reads the bundles
 * themselves. Bounded three ways (README "Documented limits"): the newest `maxLeases`
 * bundles, `maxBytes` of them in all, none older than `ttlMs`; the oldest go first. Files
 * are written to a temporary name and renamed, so a crash leaves the old file or the new one.
 * Files the index does not name (left by a crash between the two writes) are deleted at start.
 */
import { promises as fsp, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { EVIDENCE_ID_RE, type EvidenceBundle, type EvidenceSummary } from '../../contract/evidence';

export interface EvidenceLimits {
  /** Leases whose evidence is kept. */
  maxLeases: number;
  /** Bytes of all kept bundles together. */
  maxBytes: number;
  /** How long a bundle is kept after its lease ended. */
  ttlMs: number;
  /** One bundle's size: pictures past it are left out (the bundle says which). */
  maxBundleBytes: number;
}

export const DEFAULT_EVIDENCE_LIMITS: Readonly<EvidenceLimits> = Object.freeze({
  maxLeases: 50,
  maxBytes: 256 * 1024 * 1024,
  ttlMs: 7 * 24 * 60 * 60 * 1000,
  maxBundleBytes: 16 * 1024 * 1024,
});

const INDEX = 'index.json';

export class EvidenceStore {
  readonly dir: string;
  readonly limits: EvidenceLimits;
  private index: EvidenceSummary[] = [];
  /** Writes run one after another, so the index on disk follows the order of changes. */
  private chain: Promise<void> = Promise.resolve();

  constructor(options: { dir: string; limits?: Partial<EvidenceLimits>; clock: () => number }) {
    this.dir = options.dir;
    this.clock = options.clock;
    this.limits = { ...DEFAULT_EVIDENCE_LIMITS, ...options.limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value <= 0)
        throw new TypeError(`evidence ${name} must be a positive integer (got ${String(value)})`);
    }
    if (this.limits.maxBundleBytes > this.limits.maxBytes)
      throw new TypeError('evidence maxBundleBytes must not exceed maxBytes');
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    this.load();
  }

  private readonly clock: () => number;

  /** Newest first; past the TTL no more. */
  list(deviceId?: string): EvidenceSummary[] {
    const fresh = this.clock() - this.limits.ttlMs;
    return this.index
      .filter((s) => s.ended_at >= fresh && (deviceId === undefined || s.device_id === deviceId))
      .sort((a, b) => b.ended_at - a.ended_at);
  }

  summary(leaseId: string): EvidenceSummary | undefined {
    return this.list().find((s) => s.lease_id === leaseId);
  }

  /** The kept bundle, or undefined (unknown id, expired, or its file is gone). */
  async read(leaseId: string): Promise<EvidenceBundle | undefined> {
    if (!EVIDENCE_ID_RE.test(leaseId) || !this.summary(leaseId)) return undefined;
    await this.chain;
    try {
      return JSON.parse(await fsp.readFile(this.file(leaseId), 'utf8')) as EvidenceBundle;
    } catch {
      return undefined;
    }
  }

  /** Keeps (or replaces) a bundle, then drops the oldest past the limits. */
  save(bundle: EvidenceBundle): Promise<void> {
    const run = this.chain.then(() => this.write(bundle));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Resolves when every write asked for so far has ended. */
  async settled(): Promise<void> {
    await this.chain;
  }

  private file(leaseId: string): string {
    return join(this.dir, `${leaseId}.json`);
  }

  private async write(bundle: EvidenceBundle): Promise<void> {
    const id = bundle.lease.lease_id;
    if (!EVIDENCE_ID_RE.test(id)) throw new TypeError('bad evidence lease id');
    const text = JSON.stringify(bundle);
    await atomicWrite(this.file(id), text);
    const summary: EvidenceSummary = {
      lease_id: id,
      device_id: bundle.lease.device_id,
      phone_name: bundle.lease.phone_name,
      connector_channel_id: bundle.lease.connector_channel_id,
      started_at: bundle.lease.started_at,
      ended_at: bundle.lease.ended_at,
      end_reason: bundle.lease.end_reason,
      calls: bundle.calls.length,
      bytes: Buffer.byteLength(text),
    };
    this.index = [...this.index.filter((s) => s.lease_id !== id), summary];
    await this.prune();
  }

  /** Oldest first out: past the TTL, then beyond the count, then beyond the bytes. */
  private async prune(): Promise<void> {
    const fresh = this.clock() - this.limits.ttlMs;
    const newestFirst = [...this.index].sort((a, b) => b.ended_at - a.ended_at);
    const keep: EvidenceSummary[] = [];
    let bytes = 0;
    for (const s of newestFirst) {
      if (s.ended_at < fresh || keep.length >= this.limits.maxLeases || bytes + s.bytes > this.limits.maxBytes)
        continue;
      keep.push(s);
      bytes += s.bytes;
    }
    const gone = this.index.filter((s) => !keep.includes(s));
    this.index = keep;
    await atomicWrite(join(this.dir, INDEX), JSON.stringify(this.index));
    for (const s of gone) await fsp.rm(this.file(s.lease_id), { force: true });
  }

  /** The index as the last run left it, without the files it no longer names (and those gone). */
  private load(): void {
    let saved: unknown;
    try {
      saved = JSON.parse(readFileSync(join(this.dir, INDEX), 'utf8'));
    } catch {
      saved = [];
    }
    const files = new Set(readdirSync(this.dir));
    this.index = (Array.isArray(saved) ? (saved as EvidenceSummary[]) : []).filter(
      (s) => typeof s?.lease_id === 'string' && EVIDENCE_ID_RE.test(s.lease_id) && files.has(`${s.lease_id}.json`),
    );
    const named = new Set(this.index.map((s) => `${s.lease_id}.json`));
    for (const f of files) {
      if (f !== INDEX && !named.has(f)) rmSync(join(this.dir, f), { force: true });
    }
  }
}

async function atomicWrite(path: string, text: string): Promise<void> {
  const tmp = `${path}.tmp`;
  await fsp.writeFile(tmp, text, { mode: 0o600 });
  await fsp.rename(tmp, path);
}

/**
 * Exactly-once bookkeeping for side-effecting tool calls (Device Profile §4). The key is the
 * channel plus `context.tool_call_id` (fallback `request_id`). A call is journaled as
 * `started` BEFORE it touches the phone and `done` with its ack after; after a crash a
 * `started` without `done` is answered `outcome_unknown`, never re-run.
 *
 * Storage: an append-only JSON-lines file, compacted when expired or superseded lines
 * outnumber live records, so its size tracks live records, not history. The file holds an
 * arguments hash (keyed by the runtime) and, per finished call, the ack as it may be kept at
 * rest: a call's typed text is replaced in it (typed-text.ts); the exact ack stays in memory
 * for retries until the bridge stops.
 */
import { closeSync, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { writeFileAtomic } from '../store/json-file-store';
import type { WireError } from '../errors';

export interface StoredAck {
  payload?: Record<string, unknown>;
  error?: WireError;
}

export interface JournalRecord {
  key: string;
  argsHash: string;
  state: 'started' | 'done' | 'unknown';
  at: number;
  ack?: StoredAck;
  /** What the file holds instead of `ack`, when they differ (typed text replaced). */
  atRest?: StoredAck;
}

interface Line {
  k: string;
  h: string;
  s: 'started' | 'done';
  t: number;
  a?: StoredAck;
}

export class IdempotencyJournal {
  private readonly records = new Map<string, JournalRecord>();
  private lines = 0;
  /** Kept open between calls (one write per line, not open/write/close); reopened after a compaction replaced the file. */
  private fd: number | undefined;

  constructor(
    private readonly path: string,
    private readonly windowMs: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.load();
  }

  get(key: string): JournalRecord | undefined {
    const record = this.records.get(key);
    if (record && record.at + this.windowMs < this.clock()) {
      this.records.delete(key);
      return undefined;
    }
    return record;
  }

  started(key: string, argsHash: string): void {
    const record: JournalRecord = { key, argsHash, state: 'started', at: this.clock() };
    this.records.set(key, record);
    this.append({ k: key, h: argsHash, s: 'started', t: record.at });
  }

  /** The call finished with `ack`; the file gets `atRest` (the ack without typed text) when given. */
  done(key: string, argsHash: string, ack: StoredAck, atRest?: StoredAck): void {
    const record: JournalRecord = { key, argsHash, state: 'done', at: this.clock(), ack };
    if (atRest && atRest !== ack) record.atRest = atRest;
    this.records.set(key, record);
    this.append({ k: key, h: argsHash, s: 'done', t: record.at, a: record.atRest ?? ack });
  }

  size(): number {
    return this.records.size;
  }

  /** Drops expired records and rewrites the file with live ones only. */
  compact(): void {
    const cutoff = this.clock() - this.windowMs;
    const out: string[] = [];
    for (const [key, record] of this.records) {
      if (record.at < cutoff) {
        this.records.delete(key);
        continue;
      }
      // An unknown outcome stays `started` on disk: it must stay unknown after another restart.
      const line: Line = { k: key, h: record.argsHash, s: record.state === 'done' ? 'done' : 'started', t: record.at };
      const kept = record.atRest ?? record.ack;
      if (kept) line.a = kept;
      out.push(JSON.stringify(line));
    }
    // Closed first: the descriptor would point at the replaced file, and Windows may refuse
    // to rename over a file that is still open.
    this.close();
    writeFileAtomic(this.path, out.length ? `${out.join('\n')}\n` : '');
    this.lines = out.length;
  }

  /** Closes the file; the next record opens it again. */
  close(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    closeSync(fd);
  }

  private append(line: Line): void {
    this.fd ??= openSync(this.path, 'a', 0o600);
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
    this.lines += 1;
    this.dropExpired();
    if (this.lines > 256 && this.lines > this.records.size * 3) this.compact();
  }

  /**
   * Expired records leave memory as new ones arrive, not only at the periodic compaction:
   * under sustained load the map would otherwise hold every call since the last compaction
   * (found by the hardening load test). The map is in first-journaled order, so the oldest
   * are at the front; stop at the first live one (amortised O(1) per call).
   */
  private dropExpired(): void {
    const cutoff = this.clock() - this.windowMs;
    for (const [key, record] of this.records) {
      if (record.at >= cutoff) break;
      this.records.delete(key);
    }
  }

  private load(): void {
    if (!existsSync(this.path)) return;
    const text = readFileSync(this.path, 'utf8');
    for (const raw of text.split('\n')) {
      if (!raw.trim()) continue;
      let line: Line;
      try {
        line = JSON.parse(raw) as Line;
      } catch {
        continue; // a torn last line after a crash
      }
      if (typeof line.k !== 'string' || typeof line.h !== 'string') continue;
      const record: JournalRecord = {
        key: line.k,
        argsHash: line.h,
        state: line.s === 'done' ? 'done' : 'unknown',
        at: line.t,
      };
      if (line.a) record.ack = line.a;
      this.records.set(line.k, record);
    }
    this.compact();
  }
}

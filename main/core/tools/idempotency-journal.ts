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
 *
 * Bounded twice: by the window (24 h by default) and by count, at most MAX_PER_CHANNEL
 * records per channel, the oldest leaving first. The window alone held every tap of a busy
 * lab for a day: ~430 bytes a record in memory, about 1 GiB an hour at 750 taps a second
 * (docs/PERFORMANCE.md, "Memory under load"). An agent retries its last calls, not one
 * hundreds of calls back, so a retry is still answered from here.
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

/** Records kept per channel; the channel's oldest leaves when one more is journaled. */
export const MAX_PER_CHANNEL = 500;

/** The channel a key belongs to (invoke-handler.ts: channel, lease key and call id, one per line). */
function channelOf(key: string): string {
  const end = key.indexOf('\n');
  return end < 0 ? key : key.slice(0, end);
}

export class IdempotencyJournal {
  private readonly records = new Map<string, JournalRecord>();
  /** Each channel's keys, oldest first (a Set keeps insertion order). */
  private readonly byChannel = new Map<string, Set<string>>();
  private lines = 0;
  /** Kept open between calls (one write per line, not open/write/close); reopened after a compaction replaced the file. */
  private fd: number | undefined;

  constructor(
    private readonly path: string,
    private readonly windowMs: number,
    private readonly clock: () => number = Date.now,
    private readonly maxPerChannel = MAX_PER_CHANNEL,
  ) {
    this.load();
  }

  get(key: string): JournalRecord | undefined {
    const record = this.records.get(key);
    if (record && record.at + this.windowMs < this.clock()) {
      this.forget(key);
      return undefined;
    }
    return record;
  }

  started(key: string, argsHash: string): void {
    const record: JournalRecord = { key, argsHash, state: 'started', at: this.clock() };
    this.keep(key, record);
    this.append({ k: key, h: argsHash, s: 'started', t: record.at });
  }

  /** The call finished with `ack`; the file gets `atRest` (the ack without typed text) when given. */
  done(key: string, argsHash: string, ack: StoredAck, atRest?: StoredAck): void {
    const record: JournalRecord = { key, argsHash, state: 'done', at: this.clock(), ack };
    if (atRest && atRest !== ack) record.atRest = atRest;
    this.keep(key, record);
    this.append({ k: key, h: argsHash, s: 'done', t: record.at, a: record.atRest ?? ack });
  }

  size(): number {
    return this.records.size;
  }

  /** Stores a record; a channel past its count gives up its oldest one. */
  private keep(key: string, record: JournalRecord): void {
    this.records.set(key, record);
    const channel = channelOf(key);
    let keys = this.byChannel.get(channel);
    if (!keys) {
      keys = new Set();
      this.byChannel.set(channel, keys);
    }
    keys.add(key);
    while (keys.size > this.maxPerChannel) {
      const oldest = keys.values().next().value;
      if (oldest === undefined || oldest === key) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    this.records.delete(key);
    const channel = channelOf(key);
    const keys = this.byChannel.get(channel);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.byChannel.delete(channel);
  }

  /** Drops expired records and rewrites the file with live ones only. */
  compact(): void {
    const cutoff = this.clock() - this.windowMs;
    const out: string[] = [];
    for (const [key, record] of this.records) {
      if (record.at < cutoff) {
        this.forget(key);
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
      this.forget(key);
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
      this.keep(line.k, record);
    }
    this.compact();
  }
}

/**
 * xAgents the data plane turned away for their API key (issue #37 point 6): a wrong key gets a
 * clean 401, which the agent's side may not show anyone, so the bridge tells the person — on
 * Connect xAgent (admin state `connector.refused_keys`) and in the terminal.
 *
 * A flood must fill neither: one entry per client address (at most MAX_ADDRESSES, the oldest
 * dropped), counted; the terminal gets the first refusal of an address and then at most one
 * line per address per LOG_EVERY_MS saying how many more came, and never more than
 * LOG_LINES_PER_MIN lines a minute in all; the console is told of a change at most once a second.
 */
import type { Logger } from '../logging/logger';
import type { AdminRefusedKey } from '../../contract/admin-api';

/** Addresses kept: the console's list and the memory stay small whatever arrives. */
export const MAX_ADDRESSES = 8;
/** One terminal line per address per this long. */
export const LOG_EVERY_MS = 60_000;
/** Terminal lines a minute, all addresses together. */
export const LOG_LINES_PER_MIN = 5;
/** The console is told at most this often. */
const PUBLISH_EVERY_MS = 1_000;

interface Entry extends AdminRefusedKey {
  /** Refusals since this address's last terminal line. */
  unlogged: number;
  loggedAt: number | null;
}

export class RefusedKeys {
  private readonly entries = new Map<string, Entry>();
  private readonly linesAt: number[] = [];
  private publishedAt = -Infinity;
  /** The last word of a burst, told when the second is over (else the page would keep a stale count). */
  private trailing: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly o: {
      clock: () => number;
      logger: Pick<Logger, 'warn'>;
      /** The admin state changed (the console refetches it). */
      changed?: () => void;
    },
  ) {}

  /** A connection from `address` was refused for its key: none given (`given` false) or a wrong one. */
  note(address: string, given: boolean): void {
    const now = this.o.clock();
    const reason = given ? 'wrong_key' : 'no_key';
    let entry = this.entries.get(address);
    if (entry) {
      // Newest last in the map's order, so the oldest address is the first to go.
      this.entries.delete(address);
      entry.count += 1;
      entry.last_at = now;
      entry.reason = reason;
      entry.unlogged += 1;
    } else {
      entry = { address, reason, first_at: now, last_at: now, count: 1, unlogged: 1, loggedAt: null };
      while (this.entries.size >= MAX_ADDRESSES) {
        const oldest = this.entries.keys().next().value;
        if (oldest === undefined) break;
        this.entries.delete(oldest);
      }
    }
    this.entries.set(address, entry);
    this.log(entry, now);
    this.publish(now);
  }

  /** Drops the pending trailing word (the bridge stops); idempotent. */
  dispose(): void {
    clearTimeout(this.trailing);
    this.trailing = undefined;
  }

  private publish(now: number): void {
    if (now - this.publishedAt >= PUBLISH_EVERY_MS) {
      this.publishedAt = now;
      this.o.changed?.();
      return;
    }
    if (this.trailing !== undefined) return;
    this.trailing = setTimeout(
      () => {
        this.trailing = undefined;
        this.publishedAt = this.o.clock();
        this.o.changed?.();
      },
      PUBLISH_EVERY_MS - (now - this.publishedAt),
    );
    // Never what keeps the process alive.
    this.trailing.unref?.();
  }

  /** The refused addresses, the latest refusal first. */
  list(): AdminRefusedKey[] {
    return [...this.entries.values()]
      .reverse()
      .map(({ address, reason, first_at, last_at, count }) => ({ address, reason, first_at, last_at, count }));
  }

  private log(entry: Entry, now: number): void {
    if (entry.loggedAt !== null && now - entry.loggedAt < LOG_EVERY_MS) return;
    while (this.linesAt.length > 0 && now - (this.linesAt[0] ?? now) >= 60_000) this.linesAt.shift();
    if (this.linesAt.length >= LOG_LINES_PER_MIN) return;
    this.linesAt.push(now);
    const more = entry.unlogged - 1;
    this.o.logger.warn(
      entry.reason === 'wrong_key'
        ? 'an xAgent was refused: wrong API key — copy the key again from Connect xAgent'
        : 'an xAgent was refused: no API key — give it the key from Connect xAgent',
      { address: entry.address, ...(more > 0 ? { more_since_last_line: more } : {}) },
    );
    entry.loggedAt = now;
    entry.unlogged = 0;
  }
}

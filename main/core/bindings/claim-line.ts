/**
 * The line for a busy phone (docs/REFERENCE.md "Hand-over"): a `device_claim` with the right
 * access code for a phone another channel holds, or one being reset after a lease, waits
 * here instead of failing. Its authentication session stays `pending`, with its place in
 * line and an estimate, and binds when the phone is free. Bounded per phone, and each claim
 * waits at most `timeoutMs`, then its session expires with a message that says so. Only a
 * claim whose code was right joins: a wrong code and a busy phone still answer alike.
 */

export const CLAIM_LINE_MAX_PER_PHONE = 16;
export const CLAIM_LINE_TIMEOUT_MS = 10 * 60_000;
/** How many past leases per phone the estimate averages. */
const LEASES_REMEMBERED = 5;

export interface LineEntry {
  authSessionId: string;
  channelId: string;
  deviceId: string;
  joinedAt: number;
}

export interface LinePlace {
  /** 1 = next. */
  position: number;
  waiting: number;
  /** Best guess until this claim binds, or null when nothing is known yet. */
  estimated_wait_ms: number | null;
}

export class ClaimLine {
  private readonly lines = new Map<string, LineEntry[]>();
  private readonly leaseDurations = new Map<string, number[]>();

  constructor(
    private readonly clock: () => number,
    readonly maxPerPhone = CLAIM_LINE_MAX_PER_PHONE,
    readonly timeoutMs = CLAIM_LINE_TIMEOUT_MS,
  ) {}

  /** Joins the phone's line; false when it is full. A channel already waiting keeps one place. */
  join(entry: Omit<LineEntry, 'joinedAt'>): boolean {
    this.leave(entry.channelId);
    const line = this.lines.get(entry.deviceId) ?? [];
    if (line.length >= this.maxPerPhone) return false;
    line.push({ ...entry, joinedAt: this.clock() });
    this.lines.set(entry.deviceId, line);
    return true;
  }

  /** Leaves whichever line the channel waits in (canceled, replaced, signed out). */
  leave(channelId: string): LineEntry | undefined {
    for (const [deviceId, line] of this.lines) {
      const i = line.findIndex((e) => e.channelId === channelId);
      if (i < 0) continue;
      const [gone] = line.splice(i, 1);
      if (line.length === 0) this.lines.delete(deviceId);
      return gone;
    }
    return undefined;
  }

  /** The next claim for a phone that became free, taken out of its line. */
  next(deviceId: string): LineEntry | undefined {
    const line = this.lines.get(deviceId);
    const first = line?.shift();
    if (line && line.length === 0) this.lines.delete(deviceId);
    return first;
  }

  /** Claims that waited past the timeout, taken out of their lines. */
  expired(): LineEntry[] {
    const now = this.clock();
    const gone: LineEntry[] = [];
    for (const [deviceId, line] of this.lines) {
      const kept = line.filter((e) => {
        if (now - e.joinedAt < this.timeoutMs) return true;
        gone.push(e);
        return false;
      });
      if (kept.length === 0) this.lines.delete(deviceId);
      else this.lines.set(deviceId, kept);
    }
    return gone;
  }

  waiting(deviceId: string): readonly LineEntry[] {
    return this.lines.get(deviceId) ?? [];
  }

  /** A lease on the phone ended after `ms`: the estimate for those behind it learns from it. */
  noteLeaseDuration(deviceId: string, ms: number): void {
    const seen = [...(this.leaseDurations.get(deviceId) ?? []), ms].slice(-LEASES_REMEMBERED);
    this.leaseDurations.set(deviceId, seen);
  }

  /**
   * Where a channel stands: its position, and a guess at the wait — what is left of the
   * current lease when it has an end (`currentLeftMs`), plus an average past lease per
   * claim ahead of it.
   */
  place(channelId: string, currentLeftMs: number | null): LinePlace | null {
    for (const [deviceId, line] of this.lines) {
      const i = line.findIndex((e) => e.channelId === channelId);
      if (i < 0) continue;
      const past = this.leaseDurations.get(deviceId) ?? [];
      const average = past.length > 0 ? past.reduce((a, b) => a + b, 0) / past.length : null;
      const ahead = i;
      let estimate: number | null = null;
      if (average !== null) estimate = (currentLeftMs ?? average) + ahead * average;
      else if (currentLeftMs !== null && ahead === 0) estimate = currentLeftMs;
      return {
        position: i + 1,
        waiting: line.length,
        estimated_wait_ms: estimate === null ? null : Math.max(0, Math.round(estimate)),
      };
    }
    return null;
  }
}

/**
 * Lab access codes for the `device_claim` flow: stored only as salted scrypt hashes, checked
 * in constant time, with a per-(channel, phone) limit on wrong attempts.
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { PersistedAccessCode } from '../store/state-store';

export function hashAccessCode(code: string, scope: string, requireApproval: boolean): PersistedAccessCode {
  const salt = randomBytes(16).toString('base64url');
  const hash = scryptSync(code, salt, 32).toString('base64url');
  return { scope, salt, hash, requireApproval };
}

export function accessCodeMatches(code: string, stored: PersistedAccessCode): boolean {
  const candidate = scryptSync(code, stored.salt, 32);
  const expected = Buffer.from(stored.hash, 'base64url');
  return candidate.length === expected.length && timingSafeEqual(candidate, expected);
}

/** Sliding-window limiter of wrong codes: `max` failures per `windowMs` per key. */
export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly clock: () => number,
  ) {}

  /** Milliseconds until another attempt is allowed, or 0. */
  retryAfter(key: string): number {
    const recent = this.recent(key);
    if (recent.length < this.max) return 0;
    return Math.max(0, (recent[0] ?? 0) + this.windowMs - this.clock());
  }

  recordFailure(key: string): void {
    const recent = this.recent(key);
    recent.push(this.clock());
    this.failures.set(key, recent);
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const cutoff = this.clock() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }
}

/**
 * Lab access codes for the `device_claim` flow: stored only as salted scrypt hashes, checked
 * in constant time, at least ACCESS_CODE_MIN_LENGTH characters, guesses limited per caller and
 * per stored code (ClaimGuard).
 */
import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import type { PersistedAccessCode, StateStore } from '../store/state-store';
import { ACCESS_CODE_MAX_LENGTH, ACCESS_CODE_MIN_LENGTH } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import { addressGroup } from '../server/connection-limits';

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

  /** Failures of `key` within the window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  private recent(key: string): number[] {
    const cutoff = this.clock() - this.windowMs;
    const kept = (this.failures.get(key) ?? []).filter((t) => t > cutoff);
    if (kept.length === 0) this.failures.delete(key);
    else this.failures.set(key, kept);
    return kept;
  }
}

/** Documented limits (docs/REFERENCE.md "Documented limits"). */
export const CLAIM_LIMITS = { perCaller: 10, perCode: 20, windowMs: 5 * 60_000 } as const;

/**
 * Who may guess an access code now.
 * - A caller (the client address of the data plane: every channel it opens counts as one; an
 *   IPv6 address counts by its /64, since one host holds a whole /64 and could otherwise bring
 *   a fresh address, with a clean record, to every guess) with `perCaller` wrong codes in the
 *   window is paused, whatever code it sends next.
 * - A stored code that took `perCode` wrong guesses in the window (from anyone, for any phone
 *   it opens: a wildcard code counts once, not once per phone) is closed to every caller that
 *   guessed wrong lately; a caller with a clean record still gets through, so one guesser
 *   cannot lock the lab out of its own code.
 */
export class ClaimGuard {
  private readonly callers: AttemptLimiter;
  private readonly codes: AttemptLimiter;

  constructor(clock: () => number, limits: { perCaller: number; perCode: number; windowMs: number } = CLAIM_LIMITS) {
    this.callers = new AttemptLimiter(limits.perCaller, limits.windowMs, clock);
    this.codes = new AttemptLimiter(limits.perCode, limits.windowMs, clock);
  }

  /** Milliseconds until this caller may claim again, or 0. */
  callerPausedFor(caller: string): number {
    return this.callers.retryAfter(addressGroup(caller));
  }

  /** The stored codes this caller may try now (by each code's salt, unique per code). */
  open<C extends { salt: string }>(caller: string, codes: readonly C[]): C[] {
    if (this.callers.count(addressGroup(caller)) === 0) return [...codes];
    return codes.filter((code) => this.codes.retryAfter(code.salt) === 0);
  }

  /** A wrong code from `caller` against the codes it could have opened. */
  wrong(caller: string, tried: readonly { salt: string }[]): void {
    this.callers.recordFailure(addressGroup(caller));
    for (const code of tried) this.codes.recordFailure(code.salt);
  }

  /** The right code: the caller's record is clean again. */
  right(caller: string): void {
    this.callers.reset(addressGroup(caller));
  }
}

/** Sets (or with null removes) the access code of one phone or of every phone (`*`), hashed. */
export function storeAccessCode(store: StateStore, scope: string, code: string | null, requireApproval: boolean): void {
  if (code !== null && (code.length < ACCESS_CODE_MIN_LENGTH || code.length > ACCESS_CODE_MAX_LENGTH)) {
    throw new BridgeError(
      'invalid_arguments',
      `access codes are ${ACCESS_CODE_MIN_LENGTH} to ${ACCESS_CODE_MAX_LENGTH} characters`,
    );
  }
  store.update((s) => {
    s.accessCodes = s.accessCodes.filter((c) => c.scope !== scope);
    if (code !== null) s.accessCodes.push(hashAccessCode(code, scope, requireApproval));
  });
}

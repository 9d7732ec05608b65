/**
 * A leased phone that went away (unplugged, its cable or Wi-Fi lost): the lease is kept for the
 * disconnect grace, so the agent and the person are told the same three things — the phone is
 * away, plugging it back in is the fix, and how long the lease waits for that.
 *
 * The Descriptor names the end as a time of day, not a count: it is pushed only when it
 * changes, so a countdown written into it would be wrong a second later. A tool error is
 * answered now, so it carries the time left.
 */
import type { WireError } from '../errors';

/** How soon an agent is told to look again: often enough to notice the phone is back, never past the lease's end. */
export const AWAY_RETRY_MS = 5_000;

/** "9 min 41 s", "41 s": the time left, as a person reads it. */
export function minutesAndSeconds(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return minutes > 0 ? `${minutes} min ${seconds} s` : `${seconds} s`;
}

/** The Descriptor's reason while the bound phone is away. */
export function awayReason(keptUntil: number): string {
  return `the phone was unplugged or lost its connection; plug it back in: the lease is kept until ${new Date(keptUntil).toISOString()}, then ends`;
}

/** A tool call while the bound phone is away: the fix, the time left, and when to try again. */
export function awayError(
  keptUntil: number,
  now: number,
): WireError & { retry_after_ms: number; lease_kept_ms: number } {
  const left = Math.max(0, keptUntil - now);
  const fix = `Ask the person at the computer to plug the phone back in; the lease is kept ${minutesAndSeconds(left)} more, then ends.`;
  return {
    code: 'device_offline',
    message: `the bound phone was unplugged or lost its connection. ${fix}`,
    fix,
    retry_after_ms: Math.min(AWAY_RETRY_MS, left),
    lease_kept_ms: left,
  };
}

/**
 * The checks of a `device_claim` before it may bind: the phone named, the caller not paused
 * for wrong guesses, the phone open to claims, and the lab access code (hashed at rest,
 * compared in constant time, guesses counted per caller and per code: access-codes.ts).
 * The code is checked before anything is said about the phone's use: a wrong code gets
 * CLAIM_REFUSED whether the phone is free or busy, so a guesser cannot learn which phones are
 * in use; only a caller with the right code learns that it waits in line (claim-line.ts).
 */
import type { DeviceRecord, DeviceRegistry } from '../devices/device-registry';
import { displayName } from '../devices/device-registry';
import type { PersistedAccessCode } from '../store/state-store';
import { accessCodeMatches, type ClaimGuard } from './access-codes';

export const CLAIM_REFUSED = 'The access code is wrong, or the phone is in use by another channel right now.';

export interface DeviceClaimDeps {
  registry: DeviceRegistry;
  codes: readonly PersistedAccessCode[];
  claims: ClaimGuard;
}

/** The phone and the matching access code, or the refusal in words for the claimant. */
export function checkDeviceClaim(
  input: Record<string, unknown>,
  caller: string,
  deps: DeviceClaimDeps,
): { refused: string } | { device: DeviceRecord; matched: PersistedAccessCode } {
  const refused = (message: string): { refused: string } => ({ refused: message });
  const label = typeof input.device === 'string' ? input.device : '';
  const code = typeof input.access_code === 'string' ? input.access_code : '';
  if (!label || !code)
    return refused('Both the phone (label or serial shown in the app) and the access code are required.');
  const device = deps.registry.resolve(label);
  // Checked before the code: once paused, even the right code is refused until the window passes.
  const wait = deps.claims.callerPausedFor(caller);
  if (wait > 0)
    return refused(
      `Too many wrong access codes from here; claims are paused, try again in ${Math.ceil(wait / 1000)} s.`,
    );
  if (!device) return refused(`No phone named "${label.slice(0, 64)}" is connected to this bridge.`);
  if (device.state !== 'device' || device.verifiedAt === null)
    return refused(
      `${displayName(device)} is not ready (offline, unauthorized or still being checked); try again when it is connected.`,
    );
  const stored = deps.codes;
  const candidates = stored.filter((c) => c.scope === device.deviceId).concat(stored.filter((c) => c.scope === '*'));
  if (candidates.length === 0)
    return refused('This phone is not open to claims: the lab admin has set no access code for it.');
  const open = deps.claims.open(caller, candidates);
  if (open.length === 0)
    return refused(
      'Too many wrong guesses of this phone’s access code lately; claims from here are paused, try again in a few minutes.',
    );
  const matched = open.find((c) => accessCodeMatches(code, c));
  if (!matched) {
    deps.claims.wrong(caller, open);
    return refused(CLAIM_REFUSED);
  }
  deps.claims.right(caller);
  return { device, matched };
}

/** What xAgent shows the person while a pairing (or a claim that needs approval) waits at the computer. */
export function approvalMessage(code: string): string {
  return `Approve pairing code ${code} in xAgent Device Bridge on the computer the phone is plugged into, and pick the phone there.`;
}

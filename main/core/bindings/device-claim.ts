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
import { lookUpPhone, type PhoneLookup } from '../devices/phone-lookup';
import type { PersistedAccessCode } from '../store/state-store';
import { accessCodeMatches, type ClaimGuard } from './access-codes';

export const CLAIM_REFUSED = 'The access code is wrong, or the phone is in use by another channel right now.';

export interface DeviceClaimDeps {
  registry: DeviceRegistry;
  codes: readonly PersistedAccessCode[];
  claims: ClaimGuard;
}

/** At most this many labels are offered back; a big lab's list would drown the sentence. */
const MAX_CANDIDATES = 12;

export type ClaimRefusal = {
  refused: string;
  /** The labels of the phones the words could mean (ambiguous) or of every phone here (unknown). */
  candidates?: string[];
};

/**
 * The words for a claim whose phone words match several phones or none, with their labels so
 * the agent can ask the person again. Only API-key holders reach a claim (the data plane
 * refuses others), and labels carry no serial or address (displayName), so listing them tells
 * a caller nothing the console's own Card and Descriptors would not.
 */
export function unresolvedClaim(words: string, lookup: Exclude<PhoneLookup, { kind: 'found' }>): ClaimRefusal {
  const asked = words.trim().slice(0, 64);
  const labels = lookup.candidates.map((d) => displayName(d)).sort((a, b) => a.localeCompare(b));
  const shown = labels.slice(0, MAX_CANDIDATES);
  const more = labels.length > shown.length ? ` and ${labels.length - shown.length} more` : '';
  const list = shown.join(', ') + more;
  if (lookup.kind === 'ambiguous')
    return {
      refused: `"${asked}" could be ${labels.length} phones here: ${list}. Claim again with one label, or with its last 4 characters (for example "${tailOf(shown[0] ?? '')}").`,
      candidates: shown,
    };
  if (labels.length === 0) return { refused: `No phone is connected to this bridge right now ("${asked}" asked for).` };
  return {
    refused: `No phone here goes by "${asked}". Phones here: ${list}. Claim again with a label, a model only one phone has, or the last 4 characters of a label.`,
    candidates: shown,
  };
}

/** "Pixel 7 ···4F2A" → "4F2A". */
function tailOf(label: string): string {
  return label.split('···').pop() ?? label;
}

/** The phone and the matching access code, or the refusal in words for the claimant. */
export function checkDeviceClaim(
  input: Record<string, unknown>,
  caller: string,
  deps: DeviceClaimDeps,
): ClaimRefusal | { device: DeviceRecord; matched: PersistedAccessCode } {
  const refused = (message: string): ClaimRefusal => ({ refused: message });
  const label = typeof input.device === 'string' ? input.device : '';
  const code = typeof input.access_code === 'string' ? input.access_code : '';
  if (!label.trim() || !code)
    return refused(
      'Both the phone (its name as the app shows it, or the last 4 characters of its label) and the access code are required.',
    );
  const lookup = lookUpPhone(deps.registry.list(), label);
  // Checked before the code: once paused, even the right code is refused until the window passes.
  const wait = deps.claims.callerPausedFor(caller);
  if (wait > 0)
    return refused(
      `Too many wrong access codes from here; claims are paused, try again in ${Math.ceil(wait / 1000)} s.`,
    );
  if (lookup.kind !== 'found') return unresolvedClaim(label, lookup);
  const device = lookup.device;
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

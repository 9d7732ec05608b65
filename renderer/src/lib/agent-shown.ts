/**
 * What the bridge told the agent while a pairing request or claim waited, in the reader's
 * language. The bridge words it to the agent in English (main/core/bindings/binding-service.ts);
 * the console says the same in its own words from what it knows of the request — how it binds
 * and its code — so no English sentence sits under a Chinese label. The English the agent got
 * stays in the tooltip. Null when the agent was shown nothing.
 */
import type { AdminBindingHolder } from '../../../main/contract/admin-api';
import type { Translate } from '../../../main/contract/i18n';

/** How the request was to be answered: the person picks the phone, approves a named one, or it waits in line. */
export type ShownKind = 'approve' | 'waiting' | 'inLine';

export function shownWords(t: Translate, kind: ShownKind, code: string | null): string {
  return t(`pairings.shown.${kind}`, { code: code ?? '' });
}

/** A pending pairing request: an xAgent that asked for any phone, or a lab claim for a named one. */
export function pairingShown(pairing: { message: string; code: string; device_id: string | null }): ShownKind | null {
  if (!pairing.message) return null;
  return pairing.device_id === null ? 'approve' : 'waiting';
}

/** A binding's request, as its holder facts keep it. */
export function holderShown(holder: AdminBindingHolder): ShownKind | null {
  if (!holder.message) return null;
  if (holder.how === 'approved') return 'approve';
  if (holder.how === 'access_code_approved') return 'waiting';
  // A lab code that needs no approval shows the agent something only while the phone was busy.
  return 'inLine';
}

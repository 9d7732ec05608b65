/**
 * What the console says about typed text in the activity log (policies `audit_typed_text`),
 * in one place so Activity and Settings → Policies say the same as the bridge does
 * (main/core/tools/typed-text.ts, main/core/safety/safety-service.ts).
 */
import type { AuditTypedText } from '../../../main/contract/admin-api';

export const TYPED_TEXT_CHOICES: ReadonlyArray<{ value: AuditTypedText; label: string }> = [
  { value: 'digest', label: 'Length and hash only' },
  { value: 'full', label: 'Full text' },
];

/** The Activity screen's note on what its entries keep; null while the setting is unknown. */
export function activityPrivacyNote(typedText: AuditTypedText | null): string {
  if (typedText === 'digest') {
    return 'Typed text is kept only as its length and a hash (the same text gives the same hash); passwords, access codes, keys and tokens are redacted.';
  }
  if (typedText === 'full') {
    return 'Typed text is kept in full (Settings → Policies); passwords, access codes, keys and tokens are redacted.';
  }
  return 'Passwords, access codes, keys and tokens are redacted.';
}

/** The explanation under the Settings → Policies choice. */
export function typedTextHint(typedText: AuditTypedText): string {
  const common = 'While a call waits for approval, the person deciding sees the text as typed (passwords and keys stay hidden). Applies to calls from the moment you save.';
  if (typedText === 'digest') {
    return `What an agent types on a phone (messages, searches, names, addresses) is written to the activity log and its export only as its length and a hash keyed to this bridge, like [text: 28 chars, hmac-sha256:3f9a1c2b]: repeats can be matched, the text cannot be read. ${common}`;
  }
  return `What an agent types on a phone (messages, searches, names, addresses) is written to the activity log (audit.jsonl in the data folder) and its export as typed. Password fields, access codes, keys and tokens are still redacted. ${common}`;
}

/**
 * What the console says about typed text in the activity log (policies `audit_typed_text`),
 * in one place so Activity and Settings → Policies say the same as the bridge does
 * (main/core/tools/typed-text.ts, main/core/safety/safety-service.ts). Words from the
 * catalogue: pass the UI's `t` (English by default, for tests).
 */
import type { AuditTypedText } from '../../../main/contract/admin-api';
import { translator, type MessageKey, type Translate } from '../../../main/contract/i18n';

const ENGLISH = translator('en');

export const TYPED_TEXT_CHOICES: ReadonlyArray<{ value: AuditTypedText; label: MessageKey }> = [
  { value: 'digest', label: 'settings.policies.typed.digest' },
  { value: 'full', label: 'settings.policies.typed.full' },
];

/** The Activity screen's note on what its entries keep; the general note while the setting is unknown. */
export function activityPrivacyNote(typedText: AuditTypedText | null, t: Translate = ENGLISH): string {
  if (typedText === 'digest') return t('activity.privacy.digest');
  if (typedText === 'full') return t('activity.privacy.full');
  return t('activity.privacy.unknown');
}

/** The explanation under the Settings → Policies choice. */
export function typedTextHint(typedText: AuditTypedText, t: Translate = ENGLISH): string {
  const common = t('settings.policies.typed.common');
  return typedText === 'digest'
    ? t('settings.policies.typed.digestHint', { common })
    : t('settings.policies.typed.fullHint', { common });
}

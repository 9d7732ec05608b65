/**
 * What a person calls a tool ("Tap", "Type text"), in the UI's language, from the catalogue's
 * `tools` area; a tool this console does not know yet is shown by its id.
 */
import type { Translate } from '../../../main/contract/i18n';
import { known } from '../i18n/i18n-context';

export function toolName(t: Translate, toolId: string): string {
  return known(t, `tools.${toolId.replace(/^android_/, '')}`, toolId);
}

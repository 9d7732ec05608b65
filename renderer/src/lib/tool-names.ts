/**
 * What a person calls a tool ("Tap", "Type text"), in the UI's language, from the catalogue's
 * `tools` area; a tool this console does not know yet is shown by its id.
 */
import { hasMessage, type Translate } from '../../../main/contract/i18n';

export function toolName(t: Translate, toolId: string): string {
  const key = `tools.${toolId.replace(/^android_/, '')}`;
  return hasMessage(key) ? t(key) : toolId;
}

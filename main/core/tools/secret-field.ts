/**
 * A lab secret is typed only into a field the phone masks (a password field): in any other
 * field the value is on the screen, in every later UI tree and in the keystroke logs of apps
 * that keep them, letter by letter. This is the refusal, shared by the tool (which checks the
 * field it is about to type into) and the safety gate (which checks before it holds the call).
 */
import { BridgeError } from '../errors';

/** What an agent is told to do instead of typing a secret into a field that shows it. */
export const SECRET_FIELD_FIX =
  'type a secret only into a password field (android_ui_tree shows it as password: true); for any other field, give the value as text if you may know it, or ask the person (android_ask_person)';

/**
 * The refusal of a secret aimed at a field the phone does not mask: once in such a field the
 * value is on the screen, in later trees and in apps' keystroke logs, letter by letter.
 * `field`: the field's resource id or class, for the message.
 */
export function secretFieldNotMasked(name: string, field: string | null): BridgeError {
  const where = field ? `the field ${field} is not a password field` : 'no password field has the focus';
  return new BridgeError('secret_field_not_masked', `not typed: secret ${name}: ${where}. Fix: ${SECRET_FIELD_FIX}`, {
    fix: SECRET_FIELD_FIX,
    secret: name,
  });
}

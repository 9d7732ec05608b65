/**
 * The words a person knows a call's target by, read from the call's result at the call: the
 * element it acted on (`element.text`, else `content_desc`), or the app it opened or closed
 * (`app_label`, the name the phone's launcher shows). The phone view's timeline and the audit
 * line keep them, so "Tap on “Save”" and "Open an app Notes" read the same later as live.
 * A password field's text is never in a result (targets.ts describeElement blanks it), and a
 * text field's text is never taken: it is what the person or the agent typed, which is never
 * kept at rest (docs/SECURITY.md); such a field is named by its description or not at all.
 */
import { takesTypedText } from './focused-field';

/** Characters of the words kept. */
const TARGET_LABEL_MAX = 80;

/** The target's words from a call's result, or null when it names none. */
export function targetLabelOf(result: Readonly<Record<string, unknown>>): string | null {
  const cut = (words: string): string => [...words.trim()].slice(0, TARGET_LABEL_MAX).join('');
  const app = result.app_label;
  if (typeof app === 'string' && app.trim() !== '') return cut(app);
  const element = result.element;
  if (typeof element !== 'object' || element === null) return null;
  const {
    text,
    content_desc: description,
    class: className,
  } = element as {
    text?: unknown;
    content_desc?: unknown;
    class?: unknown;
  };
  const typedInto = typeof className === 'string' && takesTypedText(className);
  const words = [typedInto ? undefined : text, description].find(
    (w): w is string => typeof w === 'string' && w.trim() !== '',
  );
  return words === undefined ? null : cut(words);
}

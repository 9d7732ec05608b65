/**
 * The words a person knows a call's target by, read from the call's result at the call: the
 * element it acted on (`element.text`, else `content_desc`), or the app it opened or closed
 * (`app_label`, the name the phone's launcher shows). The phone view's timeline and the audit
 * line keep them, so "Tap on “Save”" and "Open an app Notes" read the same later as live.
 * A password field's text is never in a result (targets.ts describeElement blanks it).
 */

/** Characters of the words kept. */
const TARGET_LABEL_MAX = 80;

/** The target's words from a call's result, or null when it names none. */
export function targetLabelOf(result: Readonly<Record<string, unknown>>): string | null {
  const cut = (words: string): string => [...words.trim()].slice(0, TARGET_LABEL_MAX).join('');
  const app = result.app_label;
  if (typeof app === 'string' && app.trim() !== '') return cut(app);
  const element = result.element;
  if (typeof element !== 'object' || element === null) return null;
  const { text, content_desc: description } = element as { text?: unknown; content_desc?: unknown };
  const words = [text, description].find((w): w is string => typeof w === 'string' && w.trim() !== '');
  return words === undefined ? null : cut(words);
}

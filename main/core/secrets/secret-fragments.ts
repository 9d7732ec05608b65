/**
 * A secret leaks in pieces, not only whole: a field that held it shows all but its last
 * character after one Backspace, and the value with a character inserted after a step left;
 * an app that logs keystrokes logs every prefix. So wherever a whole value is replaced, its
 * long pieces are too: any run of text that is a prefix or a suffix of the value (or of one of
 * its forms, secretForms) at least half its length, and at least 4 characters, is replaced.
 *
 * The one rule: a piece counts from half the value on. A shorter piece would match ordinary
 * words of ordinary screens and garble them, and tells less than half of the value.
 */

/** No piece shorter than this is replaced inside other text (a whole short value only where a whole string is it). */
export const FRAGMENT_MIN_CHARS = 4;

/** The shortest prefix or suffix of `form` that counts as a piece of it. */
export function fragmentMinLength(form: string): number {
  return Math.max(FRAGMENT_MIN_CHARS, Math.ceil(form.length / 2));
}

/**
 * `text` with every prefix or suffix of `form` at least fragmentMinLength long replaced by
 * `mark` (the whole form included). Overlapping pieces become one mark.
 */
export function replaceFragments(text: string, form: string, mark: string): string {
  if (form.length < FRAGMENT_MIN_CHARS) return text;
  const min = fragmentMinLength(form);
  if (text.length < min) return text;
  const spans: Array<[number, number]> = [];
  // A prefix: where the form's first `min` characters occur, as far as the text goes on matching it.
  const head = form.slice(0, min);
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, at + 1)) {
    let end = at + min;
    while (end < text.length && end - at < form.length && text[end] === form[end - at]) end += 1;
    spans.push([at, end]);
  }
  // A suffix: where its last `min` characters occur, as far back as the text matches it.
  const tailStart = form.length - min;
  const tail = form.slice(tailStart);
  for (let at = text.indexOf(tail); at !== -1; at = text.indexOf(tail, at + 1)) {
    let start = at;
    let inForm = tailStart;
    while (start > 0 && inForm > 0 && text[start - 1] === form[inForm - 1]) {
      start -= 1;
      inForm -= 1;
    }
    spans.push([start, at + min]);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  let out = '';
  let from = 0;
  let current: [number, number] | null = null;
  for (const span of spans) {
    if (current && span[0] < current[1]) {
      current[1] = Math.max(current[1], span[1]);
      continue;
    }
    if (current) {
      out += text.slice(from, current[0]) + mark;
      from = current[1];
    }
    current = [span[0], span[1]];
  }
  if (current) out += text.slice(from, current[0]) + mark + text.slice(current[1]);
  else out += text.slice(from);
  return out;
}

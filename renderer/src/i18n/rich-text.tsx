/**
 * Renders a catalogue message that carries light markup: <b>…</b> for names of buttons and
 * screens, <code>…</code> for commands and file names. Only these two tags, never nested;
 * everything else is plain text (React escapes it), so a message can never inject HTML.
 */
import { Fragment } from 'react';

const TAG = /<(b|code)>(.*?)<\/\1>/gs;

export function Rich(props: { text: string }): React.JSX.Element {
  const parts: React.ReactNode[] = [];
  let last = 0;
  for (const match of props.text.matchAll(TAG)) {
    const index = match.index;
    if (index > last) parts.push(props.text.slice(last, index));
    const inner = match[2] ?? '';
    parts.push(match[1] === 'b' ? <b key={index}>{inner}</b> : <code key={index}>{inner}</code>);
    last = index + match[0].length;
  }
  if (last < props.text.length) parts.push(props.text.slice(last));
  return <Fragment>{parts}</Fragment>;
}

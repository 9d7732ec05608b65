/**
 * Small coloured status pill; the tone carries meaning (ok / warn / danger / info / neutral)
 * and the text always says it too, so colour is never the only signal.
 */
import type { ReactNode } from 'react';

export type Tone = 'ok' | 'warn' | 'danger' | 'info' | 'neutral';

export function StatusBadge(props: {
  tone: Tone;
  children: ReactNode;
  testId?: string;
  title?: string | undefined;
}): React.JSX.Element {
  return (
    <span className={`badge badge-${props.tone}`} data-testid={props.testId} title={props.title}>
      {props.children}
    </span>
  );
}

/** Counter shown next to a nav item (pending approvals / pairings); `label` is read aloud, count included. */
export function CountBadge(props: {
  count: number;
  label: string;
  testId?: string;
  urgent?: boolean;
}): React.JSX.Element | null {
  if (props.count <= 0) return null;
  return (
    <span
      className={`count-badge${props.urgent ? ' count-badge-urgent' : ''}`}
      data-testid={props.testId}
      aria-label={props.label}
    >
      {props.count}
    </span>
  );
}

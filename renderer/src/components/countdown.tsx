/**
 * Live-ticking time displays: a countdown to a deadline and a relative "5 min ago", in the
 * UI's language (the tooltip is the full date and time in that language too).
 */
import { useT } from '../i18n/i18n-context';
import { useNow } from './use-now';

export function Countdown(props: {
  to: number;
  warnBelowMs?: number;
  testId?: string;
  label?: string;
  seconds?: boolean;
}): React.JSX.Element {
  const now = useNow();
  const { format } = useT();
  const left = props.to - now;
  const text = props.seconds ? format.secondsLeft(left) : format.countdown(left);
  const warn = props.warnBelowMs ?? 60_000;
  const tone = left <= 0 ? 'expired' : left < warn ? 'urgent' : 'normal';
  return (
    <time
      className={`countdown countdown-${tone}`}
      dateTime={new Date(props.to).toISOString()}
      title={format.dateTime(props.to)}
      data-testid={props.testId}
      aria-label={props.label ? `${props.label}: ${text}` : undefined}
    >
      {text}
    </time>
  );
}

export function RelativeTime(props: { at: number; testId?: string }): React.JSX.Element {
  const now = useNow();
  const { format } = useT();
  return (
    <time dateTime={new Date(props.at).toISOString()} title={format.dateTime(props.at)} data-testid={props.testId}>
      {format.relative(props.at, now)}
    </time>
  );
}

/**
 * Live-ticking time displays: a countdown to a deadline and a relative "5 min ago", in the
 * UI's language (the tooltip is the full date and time in that language too).
 */
import { useT } from '../i18n/i18n-context';
import { useNow } from './use-now';

export function Countdown(props: {
  to: number;
  /**
   * When the wait began (an approval's created_at). The shared clock ticks once a second, so a
   * countdown that appears between ticks would read up to a second before its own start ("2:01"
   * of a two-minute wait); the time left is never more than the whole wait.
   */
  from?: number;
  warnBelowMs?: number;
  testId?: string;
  label?: string;
  seconds?: boolean;
}): React.JSX.Element {
  const now = useNow();
  const { format } = useT();
  const left = props.from === undefined ? props.to - now : Math.min(props.to - now, props.to - props.from);
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

/**
 * Live-ticking time displays: a countdown to a deadline and a relative "5 min ago".
 */
import { formatCountdown, formatRelative, formatSecondsLeft } from '../lib/time-format';
import { useNow } from './use-now';

export function Countdown(props: { to: number; warnBelowMs?: number; testId?: string; label?: string; seconds?: boolean }): React.JSX.Element {
  const now = useNow();
  const left = props.to - now;
  const format = props.seconds ? formatSecondsLeft : formatCountdown;
  const warn = props.warnBelowMs ?? 60_000;
  const tone = left <= 0 ? 'expired' : left < warn ? 'urgent' : 'normal';
  return (
    <time
      className={`countdown countdown-${tone}`}
      dateTime={new Date(props.to).toISOString()}
      title={new Date(props.to).toLocaleString()}
      data-testid={props.testId}
      aria-label={props.label ? `${props.label}: ${format(left)}` : undefined}
    >
      {format(left)}
    </time>
  );
}

export function RelativeTime(props: { at: number; testId?: string }): React.JSX.Element {
  const now = useNow();
  return (
    <time dateTime={new Date(props.at).toISOString()} title={new Date(props.at).toLocaleString()} data-testid={props.testId}>
      {formatRelative(props.at, now)}
    </time>
  );
}

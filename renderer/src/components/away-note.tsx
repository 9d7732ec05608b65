/**
 * A leased phone that went away (unplugged, its connection lost), said the same way on Devices,
 * the phone's view and Bindings: the lease waits for it for the disconnect grace, so the person
 * sees how long and what brings it back, rather than the phone vanishing or an idle timer that
 * does not run meanwhile (bindings/lease-timer.ts).
 */
import { useT } from '../i18n/i18n-context';
import { useNow } from './use-now';

export function AwayNote(props: { until: number; testId: string }): React.JSX.Element {
  const { t, format } = useT();
  const now = useNow();
  return (
    <p className="hint hint-warn away-note" role="status" data-testid={props.testId}>
      {t('common.lease.away', { left: format.countdown(props.until - now) })}
    </p>
  );
}

/** In place of the idle countdown while the phone is away: the idle clock waits for it. */
export function AwayIdle(props: { testId?: string }): React.JSX.Element {
  const { t } = useT();
  return (
    <span className="muted" data-testid={props.testId} title={t('common.lease.awayIdleTitle')}>
      {t('common.lease.awayIdle')}
    </span>
  );
}

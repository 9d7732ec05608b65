/**
 * A lease timer standing still while a person holds the phone (take over, issue #26), shown
 * in place of its countdown: the bridge moves the lease's idle and maximum ends on by the time
 * the phone was held (takeover.ts), so counting down meanwhile would tell the person a lie.
 */
import { useT } from '../i18n/i18n-context';

export function LeasePaused(props: { testId?: string }): React.JSX.Element {
  const { t } = useT();
  return (
    <span className="muted" data-testid={props.testId} data-paused="true" title={t('common.lease.pausedTitle')}>
      {t('common.lease.paused')}
    </span>
  );
}

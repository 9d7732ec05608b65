/**
 * The hand-over on a phone's card: the last reset after a lease in words ("Reset in 4.2 s: 2
 * apps removed, 3 files deleted"), a reset that runs or waits for the phone, a failed one with
 * what failed and the person's two answers, and how many lab claims wait in line.
 */
import type { AdminDevice } from '../../../../main/contract/admin-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

export function TurnoverNote(props: { device: AdminDevice; onChanged: () => void }): React.JSX.Element | null {
  const api = useApi();
  const { t } = useT();
  const id = props.device.device_id;
  const answer = useAction(
    (action: 'retry' | 'dismiss') => api.setDeviceTurnover({ device_id: id, action }),
    props.onChanged,
  );
  const report = props.device.turnover ?? null;
  const line = props.device.claim_line ?? 0;
  if (!report && line === 0) return null;
  return (
    <div className="turnover-note" data-testid={`device-turnover-${id}`}>
      {report?.state === 'running' ? <p className="hint">{t('turnover.card.running')}</p> : null}
      {report?.state === 'waiting' ? <p className="hint">{t('turnover.card.waiting')}</p> : null}
      {report?.state === 'done' ? (
        <p className="hint" data-testid={`device-turnover-done-${id}`}>
          {t('turnover.card.done', {
            duration: seconds(report.duration_ms ?? 0),
            removed: report.removed_apps.length,
            deleted: report.deleted_files.length,
            stopped: report.stopped_apps.length,
            restored: report.restored_permissions.length,
          })}
        </p>
      ) : null}
      {report?.state === 'failed' ? (
        <div className="hint hint-warn" role="alert" data-testid={`device-turnover-failed-${id}`}>
          <p>{t('turnover.card.failed', { problems: report.problems.join('; ') })}</p>
          <div className="actions">
            <button
              type="button"
              className="btn"
              disabled={answer.pending}
              onClick={() => answer.run('retry')}
              data-testid={`device-turnover-retry-${id}`}
            >
              {t('turnover.card.retry')}
            </button>
            <button
              type="button"
              className="btn"
              disabled={answer.pending}
              title={t('turnover.card.dismissTitle')}
              onClick={() => answer.run('dismiss')}
              data-testid={`device-turnover-dismiss-${id}`}
            >
              {t('turnover.card.dismiss')}
            </button>
          </div>
        </div>
      ) : null}
      {line > 0 ? (
        <p className="hint" data-testid={`device-claim-line-${id}`}>
          {t('turnover.card.line', { count: line })}
        </p>
      ) : null}
      <ErrorText error={answer.error} testId={`device-turnover-error-${id}`} />
    </div>
  );
}

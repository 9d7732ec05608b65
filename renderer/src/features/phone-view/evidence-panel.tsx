/**
 * The phone view's evidence list: this phone's recent leases whose evidence the bridge keeps,
 * newest first, each downloadable as the offline page (in the console's language) or as JSON.
 * Fetched when the view opens and again on each `evidence` event (a lease ended, or its
 * turnover report joined the bundle). A download goes through the API client (it carries the
 * admin token), then is saved from an object URL released right after.
 */
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';
import { useBridgeQuery } from '../../api/use-bridge-query';
import { formatStampRange, stampParts } from '../../../../main/contract/i18n';

/** The offline page first: it reads without tools; the JSON is for programs. */
const DOWNLOADS = ['html', 'json'] as const;

export function EvidencePanel(props: { deviceId: string }): React.JSX.Element {
  const { t, locale } = useT();
  const api = useApi();
  const { deviceId } = props;
  // Any phone's event: the hub keeps one event per type in a burst, so another phone's may stand
  // for this one's. A failed fetch leaves the list as it was; the next event tries again.
  const list = useBridgeQuery((client) => client.listEvidence(deviceId), [deviceId], {
    refetchOn: (event) => event.type === 'evidence',
  });
  const leases = list.data?.evidence ?? null;

  const download = useAction(async (leaseId: string, kind: 'html' | 'json') => {
    const file = await api.getEvidence({ lease_id: leaseId, format: kind, locale });
    const url = URL.createObjectURL(file.blob);
    try {
      const link = document.createElement('a');
      link.href = url;
      link.download = file.filename;
      link.rel = 'noopener';
      document.body.append(link);
      link.click();
      link.remove();
    } finally {
      // The click has handed the bytes to the browser's download by now.
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    }
  });

  return (
    <section className="card pv-evidence" aria-labelledby="pv-evidence-heading" data-testid="phone-view-evidence">
      <h3 id="pv-evidence-heading" className="pv-section-title">
        {t('evidence.view.title')}
      </h3>
      <p className="hint">{t('evidence.view.hint')}</p>
      {leases !== null && leases.length === 0 ? (
        <p className="muted" data-testid="pv-evidence-empty">
          {t('evidence.view.empty')}
        </p>
      ) : null}
      {leases && leases.length > 0 ? (
        <ul className="pv-evidence-list">
          {leases.map((lease) => (
            <li key={lease.lease_id} data-testid="pv-evidence-row" data-lease={lease.lease_id}>
              <span className="pv-evidence-when">
                {t('evidence.view.row', {
                  // The bundle's own form of a moment, in this computer's zone, the zone said.
                  span: formatStampRange(lease.started_at, lease.ended_at, 'local'),
                  calls: lease.calls,
                })}
              </span>
              <span className="pv-evidence-links">
                {DOWNLOADS.map((kind) => (
                  <button
                    key={kind}
                    type="button"
                    className="btn btn-small"
                    disabled={download.pending}
                    onClick={() => download.run(lease.lease_id, kind)}
                    data-testid={`pv-evidence-${kind}`}
                  >
                    {t(`evidence.view.${kind}`)}
                  </button>
                ))}
              </span>
            </li>
          ))}
        </ul>
      ) : null}
      {leases && leases.length > 0 ? (
        <p className="muted small" data-testid="pv-evidence-zone">
          {t('evidence.view.zone', { zone: stampParts(Date.now(), 'local').zone })}
        </p>
      ) : null}
      <ErrorText error={download.error} testId="pv-evidence-error" />
    </section>
  );
}

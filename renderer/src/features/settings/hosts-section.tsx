/**
 * Settings → Hosts: each ADB host the bridge takes phones from, direct or over SSH, with its
 * link's state and, when it is not connected, why and since when; its phones, round trip and
 * reconnects; for SSH, the host key and what vouches for it (a key trusted on first use is
 * shown so the person can compare it on the host).
 */
import type { AdminHost } from '../../../../main/contract/admin-api';
import { Countdown, RelativeTime } from '../../components/countdown';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useT } from '../../i18n/i18n-context';

const STATE_TONE: Record<AdminHost['state'], Tone> = {
  connected: 'ok',
  connecting: 'info',
  reconnecting: 'danger',
  host_key_refused: 'danger',
  auth_failed: 'danger',
};

export function HostsSection(props: { hosts: AdminHost[] }): React.JSX.Element {
  const { t } = useT();
  return (
    <section className="settings-section" aria-labelledby="hosts-heading" data-testid="hosts-section">
      <h3 id="hosts-heading">{t('settings.hosts.title')}</h3>
      <p className="hint">{t('settings.hosts.hint')}</p>
      {props.hosts.length === 0 ? <p className="muted">{t('settings.hosts.empty')}</p> : null}
      <ul className="row-list compact" data-testid="hosts-list">
        {props.hosts.map((host) => (
          <HostRow key={host.address} host={host} />
        ))}
      </ul>
    </section>
  );
}

function HostRow(props: { host: AdminHost }): React.JSX.Element {
  const { host } = props;
  const { t } = useT();
  const up = host.state === 'connected';
  return (
    <li className="row" data-testid={`host-${host.address}`} data-state={host.state}>
      <div className="row-main">
        <div className="card-title-row">
          <span className="mono strong">{host.address}</span>
          <StatusBadge tone="neutral">{t(`settings.hosts.via.${host.via}`)}</StatusBadge>
          <StatusBadge tone={STATE_TONE[host.state]} testId={`host-state-${host.address}`}>
            {t(`settings.hosts.state.${host.state}`)}
          </StatusBadge>
        </div>
        <p className="muted small">
          {t('settings.hosts.phones', { online: host.phones_online, count: host.phones })}
          {host.rtt_ms !== null && up ? <> · {t('settings.hosts.rtt', { ms: Math.round(host.rtt_ms) })}</> : null}
          {host.reconnects > 0 ? <> · {t('settings.hosts.reconnects', { count: host.reconnects })}</> : null}
        </p>
        {!up ? (
          <p className="error-text" data-testid={`host-reason-${host.address}`}>
            {host.reason ?? host.last_error}{' '}
            <span className="muted small">
              ({t('settings.hosts.since')} <RelativeTime at={host.since} />
              {host.next_retry_at !== null ? (
                <>
                  , {t('settings.hosts.nextRetry')} <Countdown to={host.next_retry_at} seconds warnBelowMs={0} />
                </>
              ) : null}
              )
            </span>
          </p>
        ) : null}
        {host.host_key ? (
          <p className="small">
            {t('settings.hosts.hostKey')}:{' '}
            <span className="mono" data-testid={`host-key-${host.address}`}>
              {host.host_key.type} {host.host_key.fingerprint}
            </span>{' '}
            {host.host_key.pinned_by ? (
              <span className="muted">({t(`settings.hosts.pinned.${host.host_key.pinned_by}`)})</span>
            ) : null}
          </p>
        ) : null}
        {host.state === 'host_key_refused' ? <p className="hint">{t('settings.hosts.refusedKey')}</p> : null}
      </div>
    </li>
  );
}

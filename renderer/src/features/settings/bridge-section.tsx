/**
 * The bridge itself: where it listens, where it keeps its state, and the health of each ADB
 * server it uses (local and remote lab hosts).
 */
import type { AdminAdbServer, AdminSettings, AdminState } from '../../../../main/contract/admin-api';
import { Countdown } from '../../components/countdown';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { known, useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';

const SERVER_TONE: Record<AdminAdbServer['status'], Tone> = { connected: 'ok', connecting: 'info', down: 'danger' };

export function BridgeSection(props: { settings: AdminSettings; state: AdminState }): React.JSX.Element {
  const { settings, state } = props;
  const { t } = useT();
  // Configured servers without a health record yet still deserve a row.
  const listed = new Set(state.adb_servers.map((s) => s.address));
  const pending = settings.adb_servers.filter((a) => !listed.has(a));
  return (
    <section className="settings-section" aria-labelledby="bridge-heading">
      <h3 id="bridge-heading">{t('settings.bridge.title')}</h3>
      <dl className="facts facts-wide">
        <dt>{t('settings.bridge.listening')}</dt>
        <dd className="mono" data-testid="settings-bind">
          {settings.bind_host}:{settings.port}
        </dd>
        <dt>{t('settings.bridge.dataFolder')}</dt>
        <dd className="mono">{settings.data_dir}</dd>
        <dt>{t('settings.bridge.version')}</dt>
        <dd>{settings.version}</dd>
        <dt>{t('settings.bridge.connectorVersion')}</dt>
        <dd data-testid="settings-connector-version">{settings.connector_version}</dd>
      </dl>
      <h4>{t('settings.bridge.adbServers')}</h4>
      <ul className="row-list compact" data-testid="settings-adb-servers">
        {state.adb_servers.map((server) => (
          <li key={server.address} className="row" data-testid={`adb-server-${server.address}`}>
            <div className="row-main">
              <div className="card-title-row">
                <span className="mono strong">{server.address}</span>
                <StatusBadge tone={SERVER_TONE[server.status]}>
                  {known(t, `settings.server.${server.status}`, server.status)}
                </StatusBadge>
                <span className="muted small">{t('settings.bridge.phones', { count: server.device_count })}</span>
              </div>
              {server.status !== 'connected' && server.last_error ? (
                <p className="error-text">{server.last_error}</p>
              ) : null}
              {server.status !== 'connected' && server.next_retry_at !== null ? (
                <p className="muted small">
                  {t('settings.bridge.nextRetry')} <Countdown to={server.next_retry_at} seconds warnBelowMs={0} />
                </p>
              ) : null}
            </div>
          </li>
        ))}
        {pending.map((address) => (
          <li key={address} className="row">
            <span className="mono strong">{address}</span>{' '}
            <StatusBadge tone="neutral">{t('settings.bridge.notChecked')}</StatusBadge>
          </li>
        ))}
      </ul>
      <p className="hint">
        <Rich text={t('settings.bridge.addLab')} />
      </p>
    </section>
  );
}

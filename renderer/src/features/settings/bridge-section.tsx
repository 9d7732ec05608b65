/**
 * The bridge itself: where it listens, where it keeps its state, and the health of each ADB
 * server it uses (local and remote lab hosts).
 */
import type { AdminAdbServer, AdminSettings, AdminState } from '../../../../main/contract/admin-api';
import { Countdown } from '../../components/countdown';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';

const SERVER_TONE: Record<AdminAdbServer['status'], Tone> = { connected: 'ok', connecting: 'info', down: 'danger' };

export function BridgeSection(props: { settings: AdminSettings; state: AdminState }): React.JSX.Element {
  const { settings, state } = props;
  // Configured servers without a health record yet still deserve a row.
  const known = new Set(state.adb_servers.map((s) => s.address));
  const pending = settings.adb_servers.filter((a) => !known.has(a));
  return (
    <section className="settings-section" aria-labelledby="bridge-heading">
      <h3 id="bridge-heading">Bridge</h3>
      <dl className="facts facts-wide">
        <dt>Listening on</dt>
        <dd className="mono" data-testid="settings-bind">
          {settings.bind_host}:{settings.port}
        </dd>
        <dt>Data folder</dt>
        <dd className="mono">{settings.data_dir}</dd>
        <dt>Version</dt>
        <dd>{settings.version}</dd>
      </dl>
      <h4>ADB servers</h4>
      <ul className="row-list compact" data-testid="settings-adb-servers">
        {state.adb_servers.map((server) => (
          <li key={server.address} className="row" data-testid={`adb-server-${server.address}`}>
            <div className="row-main">
              <div className="card-title-row">
                <span className="mono strong">{server.address}</span>
                <StatusBadge tone={SERVER_TONE[server.status]}>{server.status}</StatusBadge>
                <span className="muted small">
                  {server.device_count} phone{server.device_count === 1 ? '' : 's'}
                </span>
              </div>
              {server.status !== 'connected' && server.last_error ? <p className="error-text">{server.last_error}</p> : null}
              {server.status !== 'connected' && server.next_retry_at !== null ? (
                <p className="muted small">
                  Next retry <Countdown to={server.next_retry_at} seconds warnBelowMs={0} />
                </p>
              ) : null}
            </div>
          </li>
        ))}
        {pending.map((address) => (
          <li key={address} className="row">
            <span className="mono strong">{address}</span> <StatusBadge tone="neutral">not checked yet</StatusBadge>
          </li>
        ))}
      </ul>
      <p className="hint">
        Add lab hosts with <code>--adb HOST:PORT</code> (each running <code>adb -a nodaemon server</code>).
      </p>
    </section>
  );
}

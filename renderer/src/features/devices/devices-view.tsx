/**
 * Devices: every phone the bridge sees, with live thumbnails; teaches the first steps when
 * there is none, and says so when an ADB server is down (the usual reason for "no phones").
 */
import type { AdminState } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { EmptyState } from '../../components/empty-state';
import { useT, type I18n } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { DeviceCard } from './device-card';

export function DevicesView(props: {
  api: BridgeApi;
  state: AdminState;
  onChanged: () => void;
  onOpenLan: () => void;
}): React.JSX.Element {
  const { state } = props;
  const { t } = useT();
  const downServers = state.adb_servers.filter((s) => s.status === 'down');
  return (
    <section aria-labelledby="devices-heading">
      <header className="view-header">
        <h2 id="devices-heading">{t('devices.title')}</h2>
        <p className="view-sub">{countText(t, state)}</p>
      </header>
      {downServers.map((server) => (
        <div
          key={server.address}
          className="banner banner-warn"
          role="status"
          data-testid={`adb-down-${server.address}`}
        >
          {/* One wrapper: the banner is a flex row, and loose text nodes would become columns. */}
          <div>
            <strong>{t('devices.adbDown.title', { address: server.address })}</strong>{' '}
            {server.last_error ? <span>({server.last_error.trim().replace(/\.$/, '')}).</span> : null}{' '}
            {server.address.startsWith('127.') || server.address.startsWith('localhost') ? (
              <Rich text={t('devices.adbDown.start')} />
            ) : null}
          </div>
        </div>
      ))}
      {state.devices.length === 0 ? (
        <NoDevices onOpenLan={props.onOpenLan} />
      ) : (
        <ul className="card-grid" data-testid="device-list">
          {state.devices.map((device) => (
            <DeviceCard
              key={device.device_id}
              api={props.api}
              device={device}
              fastLane={props.state.fast_lane}
              screenStream={props.state.screen_stream}
              idleStopMs={props.state.limits.fast_lane.idle_stop_ms}
              approvalsWaiting={state.approvals.filter((a) => a.device_id === device.device_id).length}
              onChanged={props.onChanged}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function countText(t: I18n['t'], state: AdminState): string {
  const online = state.devices.filter((d) => d.state === 'device').length;
  const total = state.devices.length;
  if (total === 0) return t('devices.countNone');
  return t('devices.countOnline', { online, total });
}

function NoDevices(props: { onOpenLan: () => void }): React.JSX.Element {
  const { t } = useT();
  return (
    <EmptyState title={t('devices.empty.title')} testId="devices-empty">
      <div className="two-col">
        <div>
          <h4>{t('devices.empty.usb.title')}</h4>
          <ol className="steps">
            <li>
              <Rich text={t('devices.empty.usb.step1')} />
            </li>
            <li>
              <Rich text={t('devices.empty.usb.step2')} />
            </li>
            <li>{t('devices.empty.usb.step3')}</li>
            <li>
              <Rich text={t('devices.empty.usb.step4')} />
            </li>
          </ol>
          <p className="hint">{t('devices.empty.usb.appears')}</p>
        </div>
        <div>
          <h4>{t('devices.empty.lan.title')}</h4>
          <p>
            <Rich text={t('devices.empty.lan.text')} />
          </p>
          <button
            type="button"
            className="btn btn-primary"
            onClick={props.onOpenLan}
            data-testid="devices-empty-add-lan"
          >
            {t('devices.empty.lan.add')}
          </button>
        </div>
      </div>
    </EmptyState>
  );
}

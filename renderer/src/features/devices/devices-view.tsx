/**
 * Devices: every phone the bridge sees, with live thumbnails; teaches the first steps when
 * there is none, and says so when an ADB server is down (the usual reason for "no phones").
 */
import type { AdminState } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { EmptyState } from '../../components/empty-state';
import { DeviceCard } from './device-card';

export function DevicesView(props: { api: BridgeApi; state: AdminState; onChanged: () => void; onOpenLan: () => void }): React.JSX.Element {
  const { state } = props;
  const downServers = state.adb_servers.filter((s) => s.status === 'down');
  return (
    <section aria-labelledby="devices-heading">
      <header className="view-header">
        <h2 id="devices-heading">Devices</h2>
        <p className="view-sub">{countText(state)}</p>
      </header>
      {downServers.map((server) => (
        <div key={server.address} className="banner banner-warn" role="status" data-testid={`adb-down-${server.address}`}>
          {/* One wrapper: the banner is a flex row, and loose text nodes would become columns. */}
          <div>
            <strong>ADB server {server.address} is not reachable.</strong> {server.last_error ? <span>({server.last_error.trim().replace(/\.$/, '')}).</span> : null}{' '}
            {server.address.startsWith('127.') || server.address.startsWith('localhost') ? (
              <>
                Start it with <code>adb start-server</code>.
              </>
            ) : null}
          </div>
        </div>
      ))}
      {state.devices.length === 0 ? (
        <NoDevices onOpenLan={props.onOpenLan} />
      ) : (
        <ul className="card-grid" data-testid="device-list">
          {state.devices.map((device) => (
            <DeviceCard key={device.device_id} api={props.api} device={device} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

function countText(state: AdminState): string {
  const online = state.devices.filter((d) => d.state === 'device').length;
  const total = state.devices.length;
  if (total === 0) return 'No phone yet';
  return `${online} of ${total} online`;
}

function NoDevices(props: { onOpenLan: () => void }): React.JSX.Element {
  return (
    <EmptyState title="No phone connected yet" testId="devices-empty">
      <div className="two-col">
        <div>
          <h4>A phone on USB</h4>
          <ol className="steps">
            <li>
              On the phone open <b>Settings → About phone</b> and tap <b>Build number</b> seven times to enable{' '}
              <b>Developer options</b>.
            </li>
            <li>
              In <b>Settings → System → Developer options</b>, turn on <b>USB debugging</b>.
            </li>
            <li>Plug the phone into this computer (or into a lab host whose ADB server this bridge uses).</li>
            <li>
              Unlock the phone and accept the <b>Allow USB debugging</b> prompt (tick “Always allow from this computer”).
            </li>
          </ol>
          <p className="hint">The phone appears here within a second or two.</p>
        </div>
        <div>
          <h4>A phone on the network</h4>
          <p>
            Turn on <b>Wireless debugging</b> in Developer options (Android 11+), or run <code>adb tcpip 5555</code> once over USB.
            Then add the phone by its address.
          </p>
          <button type="button" className="btn btn-primary" onClick={props.onOpenLan} data-testid="devices-empty-add-lan">
            Add a LAN phone
          </button>
        </div>
      </div>
    </EmptyState>
  );
}

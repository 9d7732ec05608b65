/**
 * One phone in the Devices view: live thumbnail, identity, connection, lease holder, queue,
 * a Stop button that aborts its queued and running actions, and the phone check.
 */
import type { AdminDevice } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { RelativeTime } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { shortId } from '../../lib/time-format';
import { useScreenThumbnail } from './use-screen-thumbnail';
import { PhoneCheckPanel } from './phone-check-panel';

const STATE_LABEL: Record<AdminDevice['state'], { text: string; tone: Tone }> = {
  device: { text: 'online', tone: 'ok' },
  offline: { text: 'offline', tone: 'danger' },
  unauthorized: { text: 'unauthorized', tone: 'warn' },
  gone: { text: 'disconnected', tone: 'neutral' },
};

export const UNAUTHORIZED_HINT = "Unlock the phone and accept the 'Allow USB debugging' prompt";

export function DeviceCard(props: { api: BridgeApi; device: AdminDevice; onChanged: () => void }): React.JSX.Element {
  const { api, device } = props;
  const id = device.device_id;
  const online = device.state === 'device';
  const thumb = useScreenThumbnail(api, id, online);
  const stop = useAction(() => api.stopDevice(id), props.onChanged);
  const state = STATE_LABEL[device.state];
  const details = [device.manufacturer, device.model].filter(Boolean).join(' ');

  return (
    <li className="card device-card" data-testid={`device-${id}`}>
      <div className="device-thumb" data-testid={`device-thumb-${id}`}>
        {online && thumb.url ? (
          <img src={thumb.url} alt={`Screen of ${device.display_name}`} />
        ) : (
          <span className="thumb-placeholder">{online ? (thumb.failed ? 'No screen image' : 'Loading screen…') : state.text}</span>
        )}
      </div>
      <div className="device-body">
        <div className="card-title-row">
          <h3 className="card-title">{device.display_name}</h3>
          <StatusBadge tone={state.tone} testId={`device-state-${id}`}>
            {state.text}
          </StatusBadge>
        </div>
        {device.state === 'unauthorized' ? (
          <p className="hint hint-warn" data-testid={`device-hint-${id}`}>
            {UNAUTHORIZED_HINT}
          </p>
        ) : device.reason ? (
          <p className={device.reason_code ? 'hint hint-warn' : 'hint'} data-testid={`device-hint-${id}`}>
            {device.reason}
          </p>
        ) : null}
        <p className="muted small" data-testid={`device-summary-${id}`}>
          {details || 'Unknown model'} · {device.android_version ? `Android ${device.android_version}` : 'Android version unknown'} ·{' '}
          <StatusBadge tone="neutral" testId={`device-transport-${id}`}>
            {device.transport === 'usb' ? 'USB' : 'LAN'}
          </StatusBadge>
        </p>
        <dl className="facts">
          <dt>Serial</dt>
          <dd className="mono">{device.serial}</dd>
          <dt>ADB server</dt>
          <dd className="mono">{device.adb_server}</dd>
          <dt>Lease</dt>
          <dd data-testid={`device-lease-${id}`}>
            {device.lease ? (
              <>
                <span className="mono" title={device.lease.connector_channel_id}>
                  {shortId(device.lease.connector_channel_id)}
                </span>{' '}
                since <RelativeTime at={device.lease.since} />
              </>
            ) : (
              'free'
            )}
          </dd>
          <dt>Queue</dt>
          <dd data-testid={`device-queue-${id}`}>
            {device.queue.running === 0 && device.queue.queued === 0 ? 'idle' : `${device.queue.running} running · ${device.queue.queued} waiting`}
          </dd>
        </dl>
        <div className="actions">
          <button
            type="button"
            className="btn btn-danger-outline"
            onClick={() => stop.run()}
            disabled={stop.pending}
            data-testid={`device-stop-${id}`}
            title="Abort queued and running actions on this phone"
          >
            {stop.pending ? 'Stopping…' : 'Stop'}
          </button>
          {stop.result ? (
            <span className="result" role="status" data-testid={`device-stop-result-${id}`}>
              {stop.result.canceled === 0 ? 'Nothing was running.' : `Stopped ${stop.result.canceled} action${stop.result.canceled === 1 ? '' : 's'}.`}
            </span>
          ) : null}
        </div>
        <ErrorText error={stop.error} testId={`device-stop-error-${id}`} />
        <PhoneCheckPanel api={api} deviceId={id} check={device.check} onChanged={props.onChanged} />
      </div>
    </li>
  );
}

/**
 * The compact list of the Devices view: one line per phone (name, state, model, host, holder,
 * queue), so hundreds fit on a screen; each line opens its full card in place, and its name
 * opens the phone's view. No thumbnails here: a picture is fetched only for a card that is open.
 */
import { Fragment, useState } from 'react';
import type { AdminDevice } from '../../../../main/contract/admin-api';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { phoneHash } from '../../../../main/contract/phone-view-route';
import type { MessageKey } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';
import { DeviceCard } from './device-card';

const STATE_LABEL: Record<AdminDevice['state'], { text: MessageKey; tone: Tone }> = {
  device: { text: 'devices.state.device', tone: 'ok' },
  offline: { text: 'devices.state.offline', tone: 'danger' },
  unauthorized: { text: 'devices.state.unauthorized', tone: 'warn' },
  gone: { text: 'devices.state.gone', tone: 'neutral' },
};

export function DeviceTable(props: {
  devices: AdminDevice[];
  holders: ReadonlyMap<string, string>;
  approvalsWaiting: ReadonlyMap<string, number>;
  /** Settings → Limits' fast lane idle stop, which an open card's programs quote. */
  idleStopMs?: number | undefined;
  onChanged: () => void;
}): React.JSX.Element {
  const { t } = useT();
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const toggle = (id: string): void =>
    setOpen((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <div className="table-wrap">
      <table className="table device-table" data-testid="device-table">
        <thead>
          <tr>
            <th>{t('devices.list.name')}</th>
            <th>{t('devices.list.state')}</th>
            <th>{t('devices.list.model')}</th>
            <th>{t('devices.list.host')}</th>
            <th>{t('devices.list.holder')}</th>
            <th>{t('devices.fact.queue')}</th>
            <th aria-label={t('devices.list.card')} />
          </tr>
        </thead>
        <tbody>
          {props.devices.map((device) => {
            const id = device.device_id;
            const state = STATE_LABEL[device.state];
            const waiting = props.approvalsWaiting.get(id) ?? 0;
            const isOpen = open.has(id);
            return (
              <Fragment key={id}>
                <tr data-testid={`device-row-${id}`} data-state={device.state}>
                  <td>
                    <a href={phoneHash(id)} className="strong" title={t('phone-view.openTitle')}>
                      {device.display_name}
                    </a>
                    {device.reason ? <div className="muted small device-row-reason">{device.reason}</div> : null}
                  </td>
                  <td>
                    <StatusBadge tone={state.tone}>{t(state.text)}</StatusBadge>
                  </td>
                  <td className="nowrap">
                    {device.model ?? t('devices.unknownModel')}
                    {device.android_version ? (
                      <span className="muted"> · {t('devices.android', { version: device.android_version })}</span>
                    ) : null}
                  </td>
                  <td className="mono nowrap">{device.adb_server}</td>
                  <td>
                    {device.lease ? (
                      (props.holders.get(id) ?? '')
                    ) : (
                      <span className="muted">{t('devices.lease.free')}</span>
                    )}
                  </td>
                  <td className="nowrap">
                    {waiting > 0 ? (
                      <strong>{t('devices.queue.needsYou', { count: waiting })}</strong>
                    ) : device.queue.running === 0 && device.queue.queued === 0 ? (
                      <span className="muted">{t('devices.queue.idle')}</span>
                    ) : (
                      t('devices.queue.busy', { running: device.queue.running, queued: device.queue.queued })
                    )}
                  </td>
                  <td className="nowrap">
                    <button
                      type="button"
                      className="btn btn-small"
                      aria-expanded={isOpen}
                      onClick={() => toggle(id)}
                      data-testid={`device-row-card-${id}`}
                    >
                      {isOpen ? t('devices.list.hideCard') : t('devices.list.card')}
                    </button>
                  </td>
                </tr>
                {isOpen ? (
                  <tr className="device-row-card">
                    <td colSpan={7}>
                      <ul className="card-grid card-grid-one">
                        <DeviceCard
                          device={device}
                          idleStopMs={props.idleStopMs}
                          approvalsWaiting={waiting}
                          onChanged={props.onChanged}
                        />
                      </ul>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

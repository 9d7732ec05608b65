/**
 * One phone in the Devices view: live thumbnail (while on screen), identity, connection, lease
 * holder, queue, a Stop button that aborts its queued and running actions, the phone check, and
 * every program the bridge runs on it (one panel: the port-less pair, the open-ports helper, the
 * screen stream).
 */
import type { AdminChannel, AdminDevice } from '../../../../main/contract/admin-api';
import { holderName } from '../../lib/holder-name';
import { RelativeTime } from '../../components/countdown';
import { AwayNote } from '../../components/away-note';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import type { MessageKey } from '../../../../main/contract/i18n';
import { known, useT } from '../../i18n/i18n-context';
import { useRef } from 'react';
import { useScreenThumbnail } from './use-screen-thumbnail';
import { useOnScreen } from '../../components/use-on-screen';
import { PhoneCheckPanel } from './phone-check-panel';
import { ProgramsPanel } from './programs-panel';
import { TurnoverNote } from './turnover-note';
import { phoneHash } from '../../../../main/contract/phone-view-route';
import { toolName } from '../../lib/tool-names';
import { argumentWords } from '../../lib/action-words';
import type { I18n } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

/** "Tap “Pay”", "Wait for “Done”": the running call's name and, when it has a simple shape, its arguments in words. */
function doingWords(t: I18n['t'], doing: NonNullable<AdminDevice['doing']>): string {
  const words = argumentWords(t, doing.tool_id, doing.arguments);
  return words ? `${toolName(t, doing.tool_id)} ${words}` : toolName(t, doing.tool_id);
}

const STATE_LABEL: Record<AdminDevice['state'], { text: MessageKey; tone: Tone }> = {
  device: { text: 'devices.state.device', tone: 'ok' },
  offline: { text: 'devices.state.offline', tone: 'danger' },
  unauthorized: { text: 'devices.state.unauthorized', tone: 'warn' },
  gone: { text: 'devices.state.gone', tone: 'neutral' },
};

export function DeviceCard(props: {
  device: AdminDevice;
  /** Settings → Limits' fast lane idle stop, which the programs' words quote. */
  idleStopMs?: number | undefined;
  /** The agents' calls on this phone held for the person's approval. */
  approvalsWaiting: number;
  /** The channel that holds the lease, for the holder's name. */
  holder?: AdminChannel | undefined;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { device } = props;
  const { t } = useT();
  const id = device.device_id;
  const online = device.state === 'device';
  const cardRef = useRef<HTMLLIElement>(null);
  // Only cards on screen fetch their picture (a lab's hundreds of cards would otherwise all poll).
  const onScreen = useOnScreen(cardRef);
  const thumb = useScreenThumbnail(id, online && onScreen);
  const stop = useAction(() => api.stopDevice({ device_id: id }), props.onChanged);
  const busy = device.queue.running > 0 || device.queue.queued > 0 || props.approvalsWaiting > 0;
  const state = { text: t(STATE_LABEL[device.state].text), tone: STATE_LABEL[device.state].tone };
  const details = [device.manufacturer, device.model].filter(Boolean).join(' ');

  return (
    <li
      ref={cardRef}
      className={device.away_until != null ? 'card device-card device-away' : 'card device-card'}
      data-testid={`device-${id}`}
      data-away={device.away_until != null ? 'true' : undefined}
    >
      {/* The picture opens the phone's view, as its name and the Watch button do. */}
      <a
        className="device-thumb"
        href={phoneHash(id)}
        data-testid={`device-thumb-${id}`}
        title={t('phone-view.openTitle')}
      >
        {online && thumb.url ? (
          <img src={thumb.url} alt={t('devices.thumb.alt', { name: device.display_name })} />
        ) : (
          <span className="thumb-placeholder">
            {online ? (thumb.failed ? t('devices.thumb.none') : t('devices.thumb.loading')) : state.text}
          </span>
        )}
      </a>
      <div className="device-body">
        <div className="card-title-row">
          <h3 className="card-title">
            <a href={phoneHash(id)} data-testid={`device-name-${id}`} title={t('phone-view.openTitle')}>
              {device.display_name}
            </a>
          </h3>
          <StatusBadge tone={state.tone} testId={`device-state-${id}`}>
            {state.text}
          </StatusBadge>
        </div>
        {device.away_until != null ? (
          <AwayNote until={device.away_until} testId={`device-away-${id}`} />
        ) : device.state === 'unauthorized' ? (
          <p className="hint hint-warn" data-testid={`device-hint-${id}`}>
            {t('devices.unauthorizedHint')}
          </p>
        ) : device.reason ? (
          <p className={device.reason_code ? 'hint hint-warn' : 'hint'} data-testid={`device-hint-${id}`}>
            {device.reason_code ? known(t, `devices.reason.${device.reason_code}`, device.reason) : device.reason}
          </p>
        ) : null}
        <p className="muted small" data-testid={`device-summary-${id}`}>
          {details || t('devices.unknownModel')} ·{' '}
          {device.android_version
            ? t('devices.android', { version: device.android_version })
            : t('devices.androidUnknown')}{' '}
          ·{' '}
          {device.simulated ? (
            <StatusBadge tone="info" testId={`device-transport-${id}`} title={t('devices.transport.simulatedTitle')}>
              {t('devices.transport.simulated')}
            </StatusBadge>
          ) : (
            <StatusBadge tone="neutral" testId={`device-transport-${id}`}>
              {device.transport === 'usb' ? 'USB' : 'LAN'}
            </StatusBadge>
          )}
        </p>
        <dl className="facts">
          <dt>{t('devices.fact.serial')}</dt>
          <dd className="mono">{device.serial}</dd>
          <dt>{t('devices.fact.adbServer')}</dt>
          <dd className="mono">{device.adb_server}</dd>
          <dt>{t('devices.fact.lease')}</dt>
          <dd data-testid={`device-lease-${id}`}>
            {device.lease ? (
              <>
                <strong title={device.lease.connector_channel_id} data-testid={`device-holder-${id}`}>
                  {holderName(t, props.holder)}
                </strong>{' '}
                {t('devices.lease.since')} <RelativeTime at={device.lease.since} />
              </>
            ) : (
              t('devices.lease.free')
            )}
          </dd>
          <dt>{t('devices.fact.queue')}</dt>
          <dd data-testid={`device-queue-${id}`}>
            {/* The agents' calls only (a person watching the phone is not work); a held call is the person's turn. */}
            {props.approvalsWaiting > 0 ? (
              <strong data-testid={`device-needs-you-${id}`}>
                {t('devices.queue.needsYou', { count: props.approvalsWaiting })}
              </strong>
            ) : device.taken_over ? (
              <strong data-testid={`device-taken-over-${id}`}>{t('devices.queue.takenOver')}</strong>
            ) : device.queue.running === 0 && device.queue.queued === 0 ? (
              t('devices.queue.idle')
            ) : device.doing ? (
              <span data-testid={`device-doing-${id}`}>
                {t(device.queue.queued > 0 ? 'devices.queue.doingMore' : 'devices.queue.doing', {
                  action: doingWords(t, device.doing),
                  queued: device.queue.queued,
                })}
              </span>
            ) : (
              t('devices.queue.busy', { running: device.queue.running, queued: device.queue.queued })
            )}
          </dd>
        </dl>
        <div className="actions">
          <a
            className="btn btn-primary"
            href={phoneHash(id)}
            data-testid={`device-open-${id}`}
            title={t('phone-view.openTitle')}
          >
            {t('phone-view.open')}
          </a>
          {/* Stop is there when the agent has something to stop: a red button on an idle phone reads as an alarm. */}
          {busy || stop.pending || stop.result ? (
            <button
              type="button"
              className="btn btn-danger-outline"
              onClick={() => stop.run()}
              disabled={stop.pending}
              data-testid={`device-stop-${id}`}
              title={t('devices.stop.title')}
            >
              {stop.pending ? t('devices.stop.pending') : t('devices.stop.button')}
            </button>
          ) : null}
          {stop.result ? (
            <span className="result" role="status" data-testid={`device-stop-result-${id}`}>
              {stop.result.canceled === 0
                ? t('devices.stop.nothing')
                : t('devices.stop.done', { count: stop.result.canceled })}
            </span>
          ) : null}
        </div>
        <ErrorText error={stop.error} testId={`device-stop-error-${id}`} />
        <TurnoverNote device={device} onChanged={props.onChanged} />
        <PhoneCheckPanel deviceId={id} check={device.check} programs={device.programs} onChanged={props.onChanged} />
        <ProgramsPanel
          deviceId={id}
          programs={device.programs}
          idleStopMs={props.idleStopMs}
          online={online}
          onChanged={props.onChanged}
        />
      </div>
    </li>
  );
}

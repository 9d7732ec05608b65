/**
 * The phone view (#/devices/<id>): the phone's screen, large and live while the page is
 * visible, and its fast live screen (minicap) switch; one big Stop button that cancels the
 * running and queued calls; the lease and channel with extend and revoke; the agent's last actions with a picture and a marker each,
 * and a held call's approval inline; the phone check; the evidence of its recent leases.
 */
import { useState } from 'react';
import type { AdminChannel, AdminDevice, AdminState } from '../../../../main/contract/admin-api';
import { ConfirmButton } from '../../components/confirm-button';
import { Countdown, RelativeTime } from '../../components/countdown';
import { LeasePaused } from '../../components/lease-paused';
import { AwayIdle, AwayNote } from '../../components/away-note';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useTouchScreen } from '../../components/use-touch-screen';
import { useT } from '../../i18n/i18n-context';
import { shortId } from '../../lib/time-format';
import { PhoneCheckPanel } from '../devices/phone-check-panel';
import { ProgramRow } from '../devices/programs-panel';
import { ActionTimeline } from './action-timeline';
import { EvidencePanel } from './evidence-panel';
import { useLiveFrames } from './use-live-frames';
import { usePhoneActions } from './use-phone-actions';
import { DrivableScreen } from './drivable-screen';
import { usePersonInput } from './use-person-input';
import { HandBackNote } from '../person-asks/hand-back-note';
import { holderName } from '../../lib/holder-name';
import { useApi } from '../../api/api-context';

/** What "Extend" adds to a lease, as on the Bindings screen. */
const EXTEND_MS = 30 * 60_000;
/** The live screen's picture size (max side, px): sharp on a large screen, cheap to send. */
const LIVE_MAX_SIDE = 720;

export function PhoneView(props: {
  state: AdminState;
  deviceId: string;
  onChanged: () => void;
  onClose: () => void;
}): React.JSX.Element {
  const { t } = useT();
  const api = useApi();
  const { state, deviceId } = props;
  const device = state.devices.find((d) => d.device_id === deviceId);
  // The screen stream's row (its switch, its frame rate for this view), as on the phone's card.
  const minicap = device?.programs?.find((p) => p.program === 'minicap_stream');
  const online = device?.state === 'device';
  const live = useLiveFrames(deviceId, online, LIVE_MAX_SIDE);
  const timeline = usePhoneActions(deviceId);
  const stop = useAction(() => api.stopDevice({ device_id: deviceId }), props.onChanged);
  const takenOver = device?.taken_over ?? null;
  const input = usePersonInput(deviceId);
  const screen = { width: live.screenWidth, height: live.screenHeight };
  const drives = takenOver !== null && live.screenWidth > 0;
  // Taken over because the agent asked: the hand-back may carry a note for the agent.
  const askedFor = takenOver !== null && device?.ask ? device.ask : null;
  const [note, setNote] = useState('');
  // Per take-over, off unless the person ticks it: the agent sees nothing of what they do.
  const [mayWatch, setMayWatch] = useState(false);
  // A finger has no wheel and (usually) no keyboard: the banner teaches what it can do.
  const touch = useTouchScreen();
  const takeover = useAction(
    () =>
      takenOver
        ? api.setDeviceTakeover({
            device_id: deviceId,
            action: 'hand_back',
            note: askedFor && note.trim() ? note.trim() : undefined,
          })
        : api.setDeviceTakeover({ device_id: deviceId, action: 'take', agent_may_watch: mayWatch }),
    () => {
      setNote('');
      setMayWatch(false);
      props.onChanged();
    },
  );
  const channel = device?.lease
    ? state.channels.find((c) => c.connector_channel_id === device.lease?.connector_channel_id)
    : undefined;
  const name = device?.display_name ?? deviceId;

  return (
    <section
      className={device?.away_until != null ? 'phone-view phone-away' : 'phone-view'}
      aria-labelledby="phone-view-heading"
      data-testid="phone-view"
      data-device={deviceId}
    >
      <header className="view-header pv-header">
        <button type="button" className="btn btn-small" onClick={props.onClose} data-testid="phone-view-back">
          {t('phone-view.back')}
        </button>
        <h2 id="phone-view-heading">{name}</h2>
        {device ? <DeviceState device={device} waiting={waitingForYou(state, device)} /> : null}
        <div className="pv-stop">
          <button
            type="button"
            className={
              // Red only while something runs or waits: on an idle phone Stop is there, not alarming.
              device && device.queue.running + device.queue.queued > 0
                ? 'btn btn-danger pv-stop-button'
                : 'btn pv-stop-button'
            }
            onClick={() => stop.run()}
            disabled={stop.pending || !device}
            data-testid="phone-view-stop"
            data-busy={device && device.queue.running + device.queue.queued > 0 ? 'true' : 'false'}
            title={t('phone-view.stop.title')}
          >
            {stop.pending ? t('phone-view.stop.pending') : t('phone-view.stop.label')}
          </button>
          {stop.result ? (
            <span className="result" role="status" data-testid="phone-view-stop-result">
              {stop.result.canceled === 0
                ? t('phone-view.stop.nothing')
                : t('phone-view.stop.done', { count: stop.result.canceled })}
            </span>
          ) : null}
          <ErrorText error={stop.error} testId="phone-view-stop-error" />
        </div>
        <div className="pv-takeover">
          {askedFor ? <HandBackNote value={note} onChange={setNote} disabled={takeover.pending} /> : null}
          {takenOver ? null : (
            <label className="pv-may-watch" title={t('phone-view.takeover.mayWatchTitle')}>
              <input
                type="checkbox"
                checked={mayWatch}
                onChange={(event) => setMayWatch(event.target.checked)}
                disabled={takeover.pending || !online}
                data-testid="phone-view-agent-may-watch"
              />{' '}
              {t('phone-view.takeover.mayWatch')}
            </label>
          )}
          <button
            type="button"
            className={takenOver ? 'btn btn-primary' : 'btn'}
            onClick={() => takeover.run()}
            disabled={takeover.pending || !online}
            data-testid="phone-view-takeover"
            data-taken={takenOver ? 'true' : 'false'}
            title={t(takenOver ? 'phone-view.takeover.handBackTitle' : 'phone-view.takeover.takeTitle')}
          >
            {takeover.pending
              ? t('phone-view.takeover.pending')
              : t(takenOver ? 'phone-view.takeover.handBack' : 'phone-view.takeover.take')}
          </button>
          <ErrorText error={takeover.error} testId="phone-view-takeover-error" />
        </div>
      </header>
      {takenOver ? (
        <p className="banner banner-warn pv-taken-over" role="status" data-testid="phone-view-taken-over">
          {t(touch ? 'phone-view.takeover.bannerTouch' : 'phone-view.takeover.banner')}{' '}
          <strong
            className="pv-watch"
            data-testid="phone-view-watch"
            data-watch={takenOver.agent_may_watch ? 'true' : 'false'}
          >
            {t(takenOver.agent_may_watch ? 'phone-view.takeover.watching' : 'phone-view.takeover.hidden')}
          </strong>
          {askedFor ? (
            <span className="pv-asked" data-testid="phone-view-asked">
              {' '}
              {t('asks.askedBanner', { reason: askedFor.reason })}
            </span>
          ) : null}
        </p>
      ) : null}
      {device?.away_until != null ? <AwayNote until={device.away_until} testId="phone-view-away" /> : null}
      {!device ? (
        <p className="banner banner-warn" data-testid="phone-view-missing">
          {t('phone-view.missing')}
        </p>
      ) : null}
      <div className="pv-layout">
        <div className="pv-screen-col">
          <div className="pv-screen" data-testid="phone-view-screen">
            {online && live.url && drives ? (
              <DrivableScreen
                url={live.url}
                alt={t('phone-view.screen.alt', { name })}
                seq={live.seq}
                shown={live.shown}
                screen={screen}
                input={input}
              />
            ) : online && live.url ? (
              <img
                src={live.url}
                alt={t('phone-view.screen.alt', { name })}
                data-testid="phone-view-frame"
                data-seq={live.seq}
                data-shown={live.shown}
                data-drives="false"
                draggable={false}
                style={live.screenWidth > 0 ? { aspectRatio: `${live.screenWidth} / ${live.screenHeight}` } : undefined}
              />
            ) : (
              <span className="thumb-placeholder">
                {!online
                  ? t('phone-view.screen.offline')
                  : live.failed
                    ? t('phone-view.screen.failed')
                    : t('phone-view.screen.loading')}
              </span>
            )}
          </div>
          {takenOver ? (
            <div className="pv-keys" role="group" aria-label={t('phone-view.takeover.keys')}>
              {(['back', 'home', 'app_switch'] as const).map((key) => (
                <button
                  key={key}
                  type="button"
                  className="btn btn-small"
                  onClick={() => input.send({ kind: 'key', key })}
                  data-testid={`phone-view-key-${key}`}
                >
                  {t(`phone-view.takeover.key.${key}`)}
                </button>
              ))}
              <ErrorText error={input.error} testId="phone-view-input-error" />
            </div>
          ) : null}
          <p className="muted small" data-testid="phone-view-screen-note">
            {live.paused
              ? t('phone-view.screen.paused')
              : live.waiting
                ? t('phone-view.screen.agentBusy')
                : t(
                    live.lane === 'minicap'
                      ? 'phone-view.screen.liveMinicap'
                      : live.lane === 'helper'
                        ? 'phone-view.screen.liveHelper'
                        : 'phone-view.screen.live',
                  )}
          </p>
        </div>
        <div className="pv-side">
          <LeasePanel device={device} channel={channel} paused={takenOver !== null} onChanged={props.onChanged} />
          {minicap ? (
            <div className="card pv-stream">
              <ul className="programs-list">
                <ProgramRow
                  deviceId={deviceId}
                  program={minicap}
                  idle=""
                  online={online}
                  inView
                  onChanged={props.onChanged}
                />
              </ul>
            </div>
          ) : null}
          <ActionTimeline
            actions={timeline.actions}
            pictures={timeline.pictures}
            approvals={state.approvals}
            capacity={timeline.capacity}
            onChanged={props.onChanged}
          />
          {device ? (
            <div className="card pv-check">
              <PhoneCheckPanel deviceId={deviceId} check={device.check} onChanged={props.onChanged} />
            </div>
          ) : null}
          <EvidencePanel deviceId={deviceId} />
        </div>
      </div>
    </section>
  );
}

/** What on this phone waits for the person: its held calls, and the agent's unanswered ask. */
function waitingForYou(state: AdminState, device: AdminDevice): { held: number; asked: number } {
  return {
    held: state.approvals.filter((a) => a.device_id === device.device_id).length,
    asked: device.ask && device.ask.taken_at === null ? 1 : 0,
  };
}

function DeviceState(props: { device: AdminDevice; waiting: { held: number; asked: number } }): React.JSX.Element {
  const { t } = useT();
  const { device } = props;
  const waiting = props.waiting.held + props.waiting.asked;
  // A held call is counted by the queue as running; here it is what waits for the person.
  const running = Math.max(0, device.queue.running - props.waiting.held);
  const busy = running + device.queue.queued > 0;
  return (
    <span className="pv-state">
      <StatusBadge tone={device.state === 'device' ? 'ok' : 'warn'} testId="phone-view-state">
        {device.state === 'device' ? t('phone-view.online') : t('phone-view.offline')}
      </StatusBadge>{' '}
      {waiting > 0 ? (
        <>
          <StatusBadge tone="warn" testId="phone-view-waiting">
            {t('phone-view.queue.forYou', { count: waiting })}
          </StatusBadge>{' '}
        </>
      ) : null}
      <span className="muted small" data-testid="phone-view-queue">
        {busy
          ? t('phone-view.queue.busy', { running, queued: device.queue.queued })
          : waiting > 0
            ? null
            : t('phone-view.queue.idle')}
      </span>
    </span>
  );
}

/** Who holds the phone, until when, and extend / revoke (the Bindings screen's operations). */
function LeasePanel(props: {
  device: AdminDevice | undefined;
  channel: AdminChannel | undefined;
  /** Taken over: the lease's timers stand still until the hand-back (takeover.ts). */
  paused: boolean;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const { channel } = props;
  const id = channel?.connector_channel_id ?? '';
  const extend = useAction(
    () => api.extendChannel({ connector_channel_id: id, extend_ms: EXTEND_MS }),
    props.onChanged,
  );
  const revoke = useAction(() => api.revokeChannel({ connector_channel_id: id }), props.onChanged);
  if (!props.device?.lease || !channel) {
    return (
      <div className="card pv-lease" data-testid="phone-view-lease">
        <h3 className="pv-section-title">{t('phone-view.lease.title')}</h3>
        <p className="muted">{t('phone-view.lease.free')}</p>
      </div>
    );
  }
  return (
    <div className="card pv-lease" data-testid="phone-view-lease">
      <h3 className="pv-section-title">{t('phone-view.lease.title')}</h3>
      <dl className="facts">
        <dt>{t('phone-view.lease.holder')}</dt>
        <dd data-testid="phone-view-holder">{holderName(t, channel)}</dd>
        <dt>{t('phone-view.lease.channel')}</dt>
        <dd className="mono" title={id} data-testid="phone-view-channel">
          {shortId(id)}
        </dd>
        <dt>{t('phone-view.lease.since')}</dt>
        <dd>
          <RelativeTime at={props.device.lease.since} />
        </dd>
        <dt>{t('phone-view.lease.ends')}</dt>
        <dd>
          {channel.lease_expires_at !== null && props.paused ? (
            <LeasePaused testId="phone-view-lease-ends-paused" />
          ) : channel.lease_expires_at !== null ? (
            <Countdown
              to={channel.lease_expires_at}
              warnBelowMs={5 * 60_000}
              testId="phone-view-lease-ends"
              label={t('phone-view.lease.ends')}
            />
          ) : (
            t('phone-view.lease.noMaximum')
          )}
        </dd>
        <dt>{t('phone-view.lease.idle')}</dt>
        <dd>
          {channel.away_until != null ? (
            <AwayIdle testId="phone-view-lease-idle-away" />
          ) : channel.idle_expires_at !== null && props.paused ? (
            <LeasePaused testId="phone-view-lease-idle-paused" />
          ) : channel.idle_expires_at !== null ? (
            <Countdown to={channel.idle_expires_at} warnBelowMs={2 * 60_000} label={t('phone-view.lease.idle')} />
          ) : (
            t('phone-view.lease.noIdle')
          )}
        </dd>
      </dl>
      <div className="actions">
        <button
          type="button"
          className="btn"
          onClick={() => extend.run()}
          disabled={extend.pending}
          data-testid="phone-view-extend"
          title={t('phone-view.lease.extendTitle')}
        >
          {t('phone-view.lease.extend')}
        </button>
        <ConfirmButton
          label={t('phone-view.lease.revoke')}
          prompt={t('phone-view.lease.revokePrompt')}
          confirmLabel={t('phone-view.lease.revoke')}
          onConfirm={() => revoke.run()}
          disabled={revoke.pending}
          danger
          testId="phone-view-revoke"
          confirmTestId="phone-view-revoke-confirm"
          cancelTestId="phone-view-revoke-cancel"
        />
      </div>
      {extend.result ? (
        <p className="result" role="status">
          {t('phone-view.lease.extended')}
        </p>
      ) : null}
      <ErrorText error={extend.error ?? revoke.error} testId="phone-view-lease-error" />
    </div>
  );
}

/**
 * The agent's asks to the person (docs/REFERENCE.md "Ask the person"): one card per phone whose
 * agent waits for someone to take it over, shown above every view so it is seen wherever the
 * person is. The agent's reason is shown as its own words, in a quote. Take over takes the
 * phone and opens its phone view, with the phone view's own choice "The agent may watch" (off
 * unless ticked: the agent sees nothing of what the person does); Decline sends an optional
 * reason to the agent.
 */
import { useState } from 'react';
import type { AdminDevice, AdminPersonAsk, AdminState } from '../../../../main/contract/admin-api';
import type { ConsoleRoute } from '../../../../main/contract/console-route';
import { Countdown } from '../../components/countdown';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

/** The asks nobody has answered yet, oldest first, with their phone. */
export function unansweredAsks(state: AdminState): Array<{ device: AdminDevice; ask: AdminPersonAsk }> {
  return state.devices
    .flatMap((device) => (device.ask && device.ask.taken_at === null ? [{ device, ask: device.ask }] : []))
    .sort((a, b) => a.ask.asked_at - b.ask.asked_at);
}

export function PersonAskCards(props: {
  state: AdminState;
  onChanged: () => void;
  go: (route: ConsoleRoute) => void;
}): React.JSX.Element | null {
  const { t } = useT();
  const asks = unansweredAsks(props.state);
  if (asks.length === 0) return null;
  return (
    <section className="person-asks" aria-label={t('asks.region')} data-testid="person-asks">
      <ul className="person-ask-list">
        {asks.map(({ device, ask }) => (
          <PersonAskCard key={ask.ask_id} {...props} device={device} ask={ask} />
        ))}
      </ul>
    </section>
  );
}

function PersonAskCard(props: {
  device: AdminDevice;
  ask: AdminPersonAsk;
  onChanged: () => void;
  go: (route: ConsoleRoute) => void;
}): React.JSX.Element {
  const { t } = useT();
  const api = useApi();
  const { device, ask } = props;
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState('');
  const [mayWatch, setMayWatch] = useState(false);
  const take = useAction(
    () => api.setDeviceTakeover({ device_id: device.device_id, action: 'take', agent_may_watch: mayWatch }),
    () => {
      props.onChanged();
      props.go({ section: 'phone', deviceId: device.device_id });
    },
  );
  const decline = useAction(
    () => api.declinePersonAsk({ device_id: device.device_id, reason: reason.trim() || undefined }),
    () => props.onChanged(),
  );
  const busy = take.pending || decline.pending;
  return (
    <li className="card person-ask-card" role="alert" data-testid={`person-ask-${device.device_id}`}>
      <h3 className="card-title">{t('asks.title', { phone: device.display_name })}</h3>
      <figure className="person-ask-words">
        <figcaption>{t('asks.saysLabel')}</figcaption>
        <blockquote data-testid="person-ask-reason">{ask.reason}</blockquote>
      </figure>
      <p className="muted person-ask-expires">
        {t('asks.expires')} <Countdown to={ask.expires_at} from={ask.asked_at} seconds testId="person-ask-countdown" />
      </p>
      <div className="actions">
        <label className="pv-may-watch" title={t('phone-view.takeover.mayWatchTitle')}>
          <input
            type="checkbox"
            checked={mayWatch}
            onChange={(event) => setMayWatch(event.target.checked)}
            disabled={busy}
            data-testid="person-ask-agent-may-watch"
          />{' '}
          {t('phone-view.takeover.mayWatch')}
        </label>
        <button
          type="button"
          className="btn btn-primary"
          onClick={() => take.run()}
          disabled={busy}
          data-testid="person-ask-take"
          title={t('phone-view.takeover.takeTitle')}
        >
          {take.pending ? t('phone-view.takeover.pending') : t('phone-view.takeover.take')}
        </button>
        {declining ? null : (
          <button
            type="button"
            className="btn"
            onClick={() => setDeclining(true)}
            disabled={busy}
            data-testid="person-ask-decline"
            title={t('asks.declineTitle')}
          >
            {t('asks.decline')}
          </button>
        )}
      </div>
      {declining ? (
        <form
          className="person-ask-decline"
          onSubmit={(event) => {
            event.preventDefault();
            decline.run();
          }}
        >
          <label>
            {t('asks.declineReason')}
            <input
              type="text"
              value={reason}
              maxLength={2000}
              onChange={(event) => setReason(event.target.value)}
              data-testid="person-ask-decline-reason"
            />
          </label>
          <button type="submit" className="btn btn-danger" disabled={busy} data-testid="person-ask-decline-send">
            {t('asks.declineSend')}
          </button>
          <button type="button" className="btn" onClick={() => setDeclining(false)} disabled={busy}>
            {t('asks.cancel')}
          </button>
        </form>
      ) : null}
      <ErrorText error={take.error ?? decline.error} testId="person-ask-error" />
    </li>
  );
}

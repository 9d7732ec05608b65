/**
 * Pairing requests: xAgent users binding a phone through desktop approval. The person
 * compares the code shown in xAgent with the big code here, picks the phone, and approves.
 */
import { useState } from 'react';
import { phoneHash } from '../../../../main/contract/phone-view-route';
import { DoneNote, type Done } from '../../components/done-note';
import { pairingShown, shownWords } from '../../lib/agent-shown';
import type { AdminDevice, AdminPairing, AdminState } from '../../../../main/contract/admin-api';
import type { PairingDecision } from '../../api/bridge-api';
import { Countdown } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { shortId } from '../../lib/time-format';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

export function PairingsView(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { pairings, devices } = props.state;
  const { t } = useT();
  // The answered card leaves the list: what happened, and the next step, stay here.
  const [done, setDone] = useState<Done | null>(null);
  const decided = (decision: PairingDecision): void => {
    if (decision.action !== 'approve' || !decision.device_id) return setDone({ text: t('pairings.done.denied') });
    const deviceId = decision.device_id;
    const phone = devices.find((d) => d.device_id === deviceId)?.display_name ?? deviceId;
    setDone({
      text: t('pairings.done.bound', { phone }),
      next: {
        href: phoneHash(deviceId),
        text: t('pairings.done.watch'),
        title: t('pairings.done.watchTitle', { phone }),
      },
    });
  };
  return (
    <section aria-labelledby="pairings-heading">
      <header className="view-header">
        <h2 id="pairings-heading">{t('pairings.title')}</h2>
        <p className="view-sub">{t('pairings.sub')}</p>
      </header>
      <DoneNote done={done} onDismiss={() => setDone(null)} testId="pairing-done" />
      {pairings.length === 0 ? (
        <EmptyState title={t('pairings.empty.title')} testId="pairings-empty">
          <p>{t('pairings.empty.text')}</p>
          <p className="hint">
            <Rich text={t('pairings.empty.hint')} />
          </p>
        </EmptyState>
      ) : (
        <ul className="card-grid card-grid-wide" data-testid="pairing-list">
          {pairings.map((pairing) => (
            <PairingCard
              key={pairing.auth_session_id}
              pairing={pairing}
              devices={devices}
              onChanged={props.onChanged}
              onDecided={decided}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function PairingCard(props: {
  pairing: AdminPairing;
  devices: AdminDevice[];
  onChanged: () => void;
  onDecided: (decision: PairingDecision) => void;
}): React.JSX.Element {
  const api = useApi();
  const { pairing } = props;
  const { t } = useT();
  const id = pairing.auth_session_id;
  // Online phones, plus the one the request names (a device claim) even if it just dropped.
  const phones = props.devices.filter((d) => d.state === 'device' || d.device_id === pairing.device_id);
  // Preselect the phone the request names; otherwise the only phone, if nobody holds it.
  const free = phones.filter((p) => p.state === 'device' && !p.lease);
  const preselected =
    pairing.device_id && phones.some((p) => p.device_id === pairing.device_id)
      ? pairing.device_id
      : phones.length === 1 && free.length === 1
        ? (free[0]?.device_id ?? '')
        : '';
  const [deviceId, setDeviceId] = useState(preselected);
  const decide = useAction(
    async (decision: PairingDecision) => {
      await api.decidePairing({ auth_session_id: id, ...decision });
      return decision;
    },
    (decision) => {
      props.onDecided(decision);
      props.onChanged();
    },
  );
  const shown = pairingShown(pairing);
  const chosen = phones.some((p) => p.device_id === deviceId) ? deviceId : '';

  return (
    <li className="card pairing-card" data-testid={`pairing-${id}`}>
      <div
        className="pairing-code"
        data-testid={`pairing-code-${id}`}
        aria-label={t('pairings.codeLabel', { code: pairing.code.split('').join(' ') })}
      >
        {pairing.code}
      </div>
      <p className="muted small">
        {t('pairings.channel')} <span className="mono">{shortId(pairing.connector_channel_id)}</span> ·{' '}
        {t('pairings.expiresIn')} <Countdown to={pairing.expires_at} testId={`pairing-expires-${id}`} />
      </p>
      {/* The bridge's own words to the agent, in the console's language (not the agent speaking). */}
      {shown ? (
        <p
          className="hint"
          title={`${t('pairings.messageTitle')}: ${pairing.message}`}
          data-testid={`pairing-shown-${id}`}
        >
          {t('pairings.shown', { words: shownWords(t, shown, pairing.code) })}
        </p>
      ) : null}
      <label htmlFor={`pairing-device-${id}`}>{t('pairings.phoneToBind')}</label>
      {phones.length === 0 ? (
        <p className="hint hint-warn">{t('pairings.noPhoneOnline')}</p>
      ) : (
        <select
          id={`pairing-device-${id}`}
          value={chosen}
          onChange={(event) => setDeviceId(event.target.value)}
          data-testid={`pairing-device-${id}`}
        >
          <option value="">{t('pairings.choosePhone')}</option>
          {phones.map((phone) => (
            <option key={phone.device_id} value={phone.device_id}>
              {phone.display_name}
              {phone.state !== 'device' ? t(`pairings.state.${phone.state}`) : phone.lease ? t('pairings.inUse') : ''}
            </option>
          ))}
        </select>
      )}
      <div className="actions">
        <button
          type="button"
          className="btn btn-primary"
          disabled={decide.pending || chosen === ''}
          onClick={() => decide.run({ action: 'approve', device_id: chosen })}
          data-testid={`pairing-approve-${id}`}
        >
          {t('pairings.approve')}
        </button>
        <button
          type="button"
          className="btn"
          disabled={decide.pending}
          onClick={() => decide.run({ action: 'deny' })}
          data-testid={`pairing-deny-${id}`}
        >
          {t('pairings.deny')}
        </button>
      </div>
      <ErrorText error={decide.error} testId={`pairing-error-${id}`} />
    </li>
  );
}

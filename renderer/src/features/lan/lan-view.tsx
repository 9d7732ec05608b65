/**
 * LAN phones: the add / pair forms, the phones adb's mDNS browser finds on the network (one
 * click to add, or to start pairing), and every LAN phone the bridge keeps connected, with
 * its reconnect status and a Forget button.
 */
import { useState } from 'react';
import type { AdminLanDevice, AdminState } from '../../../../main/contract/admin-api';
import { Countdown } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import type { Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { known, useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { AddLanForm, PairLanForm } from './lan-forms';
import { DiscoveredPhones } from './discovered-phones';
import { useApi } from '../../api/api-context';

const STATUS_TONE: Record<AdminLanDevice['status'], Tone> = {
  connected: 'ok',
  connecting: 'info',
  reconnecting: 'warn',
  unauthorized: 'warn',
  failed: 'danger',
};

export function LanView(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { state } = props;
  const { t } = useT();
  const [pairAddress, setPairAddress] = useState<{ address: string; n: number }>({ address: '', n: 0 });
  return (
    <section aria-labelledby="lan-heading">
      <header className="view-header">
        <h2 id="lan-heading">{t('lan.title')}</h2>
        <p className="view-sub">
          <Rich text={t('lan.sub')} />
        </p>
      </header>
      <div className="two-col">
        <AddLanForm onChanged={props.onChanged} />
        <PairLanForm key={pairAddress.n} onChanged={props.onChanged} initialAddress={pairAddress.address} />
      </div>
      <DiscoveredPhones
        state={state}
        onChanged={props.onChanged}
        onPair={(address) => setPairAddress((p) => ({ address, n: p.n + 1 }))}
      />
      <h3 className="section-title">{t('lan.known')}</h3>
      {state.lan_devices.length === 0 ? (
        <EmptyState title={t('lan.empty.title')} testId="lan-empty">
          <p>{t('lan.empty.text')}</p>
        </EmptyState>
      ) : (
        <ul className="row-list" data-testid="lan-list">
          {state.lan_devices.map((lan) => (
            <LanRow key={lan.address} lan={lan} state={state} onChanged={props.onChanged} />
          ))}
        </ul>
      )}
    </section>
  );
}

function LanRow(props: { lan: AdminLanDevice; state: AdminState; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { lan } = props;
  const { t } = useT();
  const forget = useAction(() => api.forgetLanDevice({ address: lan.address }), props.onChanged);
  const phone = lan.device_id ? props.state.devices.find((d) => d.device_id === lan.device_id) : undefined;
  return (
    <li className="row" data-testid={`lan-device-${lan.address}`}>
      <div className="row-main">
        <div className="card-title-row">
          <span className="mono strong">{lan.address}</span>
          <StatusBadge tone={STATUS_TONE[lan.status]} testId={`lan-status-${lan.address}`}>
            {known(t, `lan.status.${lan.status}`, lan.status)}
          </StatusBadge>
          {phone && phone.display_name !== lan.address ? <span className="muted">{phone.display_name}</span> : null}
        </div>
        <p className="muted small">
          {t('lan.via')} <span className="mono">{lan.adb_server}</span>
          {lan.attempts > 0 ? ` · ${t('lan.attempts', { count: lan.attempts })}` : ''}
          {lan.status === 'reconnecting' && lan.next_attempt_at !== null ? (
            <>
              {' '}
              · {t('lan.nextAttempt')}{' '}
              <Countdown to={lan.next_attempt_at} warnBelowMs={0} seconds testId={`lan-next-${lan.address}`} />
            </>
          ) : null}
        </p>
        {lan.status === 'unauthorized' ? <p className="hint hint-warn">{t('lan.acceptPrompt')}</p> : null}
        {lan.last_error && lan.status !== 'connected' ? (
          <p className="error-text" data-testid={`lan-error-${lan.address}`}>
            {lan.last_error}
          </p>
        ) : null}
        <ErrorText error={forget.error} testId={`lan-forget-error-${lan.address}`} />
      </div>
      <button
        type="button"
        className="btn"
        onClick={() => forget.run()}
        disabled={forget.pending}
        data-testid={`lan-forget-${lan.address}`}
      >
        {forget.pending ? t('lan.forgetting') : t('lan.forget')}
      </button>
    </li>
  );
}

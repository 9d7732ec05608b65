/**
 * Settings → Hosts: each ADB host the bridge takes phones from, direct or over SSH, with its
 * link's state and, when it is not connected, why and since when; its phones, round trip and
 * reconnects; for SSH, the host key and what vouches for it (a key trusted on first use is
 * shown so the person can compare it on the host). A form adds a host while the bridge runs;
 * an SSH host's key comes back first and is trusted only once the person has compared and
 * confirmed it. A host added here can be removed here.
 */
import { useState } from 'react';
import type { AdminHost } from '../../../../main/contract/admin-api';
import { inputError, type ApiError } from '../../api/bridge-api';
import { ConfirmButton } from '../../components/confirm-button';
import { Countdown, RelativeTime } from '../../components/countdown';
import { FormCard, SubmitButton } from '../../components/form-fields';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge, type Tone } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

const STATE_TONE: Record<AdminHost['state'], Tone> = {
  connected: 'ok',
  connecting: 'info',
  reconnecting: 'danger',
  host_key_refused: 'danger',
  auth_failed: 'danger',
};

export function HostsSection(props: { hosts: AdminHost[]; onChanged: () => void }): React.JSX.Element {
  const { t } = useT();
  return (
    <section className="settings-section" aria-labelledby="hosts-heading" data-testid="hosts-section">
      <h3 id="hosts-heading">{t('settings.hosts.title')}</h3>
      <p className="hint">{t('settings.hosts.hint')}</p>
      {props.hosts.length === 0 ? <p className="muted">{t('settings.hosts.empty')}</p> : null}
      <ul className="row-list compact" data-testid="hosts-list">
        {props.hosts.map((host) => (
          <HostRow key={host.address} host={host} onChanged={props.onChanged} />
        ))}
      </ul>
      <AddHostForm onChanged={props.onChanged} />
    </section>
  );
}

function HostRow(props: { host: AdminHost; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { host } = props;
  const { t } = useT();
  const remove = useAction(() => api.removeHost({ address: host.address }), props.onChanged);
  const up = host.state === 'connected';
  return (
    <li className="row" data-testid={`host-${host.address}`} data-state={host.state}>
      <div className="row-main">
        <div className="card-title-row">
          <span className="mono strong">{host.address}</span>
          <StatusBadge tone="neutral">{t(`settings.hosts.via.${host.via}`)}</StatusBadge>
          <StatusBadge tone={STATE_TONE[host.state]} testId={`host-state-${host.address}`}>
            {t(`settings.hosts.state.${host.state}`)}
          </StatusBadge>
          {host.origin === 'added' ? <span className="muted small">{t('settings.hosts.origin.added')}</span> : null}
        </div>
        <p className="muted small">
          {t('settings.hosts.phones', { online: host.phones_online, count: host.phones })}
          {host.rtt_ms !== null && up ? <> · {t('settings.hosts.rtt', { ms: Math.round(host.rtt_ms) })}</> : null}
          {host.reconnects > 0 ? <> · {t('settings.hosts.reconnects', { count: host.reconnects })}</> : null}
        </p>
        {!up ? (
          <p className="error-text" data-testid={`host-reason-${host.address}`}>
            {host.reason ?? host.last_error}{' '}
            <span className="muted small">
              ({t('settings.hosts.since')} <RelativeTime at={host.since} />
              {host.next_retry_at !== null ? (
                <>
                  , {t('settings.hosts.nextRetry')} <Countdown to={host.next_retry_at} seconds warnBelowMs={0} />
                </>
              ) : null}
              )
            </span>
          </p>
        ) : null}
        {host.host_key ? (
          <p className="small">
            {t('settings.hosts.hostKey')}:{' '}
            <span className="mono" data-testid={`host-key-${host.address}`}>
              {host.host_key.type} {host.host_key.fingerprint}
            </span>{' '}
            {host.host_key.pinned_by ? (
              <span className="muted">({t(`settings.hosts.pinned.${host.host_key.pinned_by}`)})</span>
            ) : null}
          </p>
        ) : null}
        {host.state === 'host_key_refused' ? <p className="hint">{t('settings.hosts.refusedKey')}</p> : null}
        <ErrorText error={remove.error} testId={`host-remove-error-${host.address}`} />
      </div>
      {host.origin === 'added' ? (
        <ConfirmButton
          label={t('settings.hosts.remove')}
          prompt={t('settings.hosts.removePrompt', { address: host.address })}
          confirmLabel={t('settings.hosts.removeConfirm')}
          danger
          disabled={remove.pending}
          onConfirm={() => remove.run()}
          testId={`host-remove-${host.address}`}
          confirmTestId={`host-remove-confirm-${host.address}`}
          cancelTestId={`host-remove-cancel-${host.address}`}
        />
      ) : null}
    </li>
  );
}

/** The key an SSH host presented, waiting for the person's comparison. */
interface KeyToConfirm {
  url: string;
  keyPath: string;
  address: string;
  type: string;
  fingerprint: string;
}

function AddHostForm(props: { onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const [url, setUrl] = useState('');
  const [keyPath, setKeyPath] = useState('');
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const [confirm, setConfirm] = useState<KeyToConfirm | null>(null);
  const [added, setAdded] = useState<{ address: string; warning: string | null } | null>(null);
  const add = useAction(
    (request: { url: string; keyPath: string; fingerprint?: string }) =>
      api.addHost({
        url: request.url,
        ...(request.keyPath ? { key_path: request.keyPath } : {}),
        ...(request.fingerprint ? { host_key_fingerprint: request.fingerprint } : {}),
      }),
    (answer) => {
      if (answer.status === 'confirm_host_key') {
        setConfirm({ url, keyPath, address: answer.address, ...answer.host_key });
        return;
      }
      setConfirm(null);
      setAdded({ address: answer.host.address, warning: answer.warning });
      setUrl('');
      setKeyPath('');
      props.onChanged();
    },
  );

  return (
    <FormCard
      id="host-add"
      title={t('settings.hosts.add.title')}
      hint={t('settings.hosts.add.hint')}
      testId="host-add-form"
      onSubmit={() => {
        if (url.trim() === '') {
          setInvalid(inputError(t('settings.hosts.add.empty')));
          return;
        }
        setInvalid(null);
        setAdded(null);
        setConfirm(null);
        add.run({ url: url.trim(), keyPath: keyPath.trim() });
      }}
    >
      <label htmlFor="host-add-url">{t('settings.hosts.add.urlLabel')}</label>
      <input
        id="host-add-url"
        type="text"
        inputMode="url"
        autoComplete="off"
        spellCheck={false}
        placeholder={t('settings.hosts.add.urlExample')}
        value={url}
        onChange={(event) => {
          setUrl(event.target.value);
          setConfirm(null);
        }}
        aria-invalid={invalid ? true : undefined}
        data-testid="host-add-url"
      />
      <label htmlFor="host-add-key">{t('settings.hosts.add.keyLabel')}</label>
      <input
        id="host-add-key"
        type="text"
        autoComplete="off"
        spellCheck={false}
        placeholder={t('settings.hosts.add.keyExample')}
        value={keyPath}
        onChange={(event) => {
          setKeyPath(event.target.value);
          setConfirm(null);
        }}
        aria-describedby="host-add-key-hint"
        data-testid="host-add-key"
      />
      <p className="hint small" id="host-add-key-hint">
        {t('settings.hosts.add.keyHint')}
      </p>
      <div className="inline-form">
        <SubmitButton pending={add.pending} testId="host-add-submit">
          {add.pending ? t('settings.hosts.add.pending') : t('settings.hosts.add.button')}
        </SubmitButton>
      </div>
      <ErrorText error={invalid ?? add.error} testId="host-add-error" />
      {confirm ? (
        <div className="banner banner-warn host-confirm" role="alert" data-testid="host-confirm">
          <p className="strong">{t('settings.hosts.confirm.title')}</p>
          <p>
            <Rich text={t('settings.hosts.confirm.body', { address: confirm.address })} />
          </p>
          <p className="mono strong" data-testid="host-confirm-key">
            {confirm.type} {confirm.fingerprint}
          </p>
          <div className="inline-form">
            <button
              type="button"
              className="btn btn-primary"
              disabled={add.pending}
              onClick={() => add.run({ url: confirm.url, keyPath: confirm.keyPath, fingerprint: confirm.fingerprint })}
              data-testid="host-confirm-trust"
            >
              {t('settings.hosts.confirm.trust')}
            </button>
            <button type="button" className="btn" onClick={() => setConfirm(null)} data-testid="host-confirm-cancel">
              {t('settings.hosts.confirm.cancel')}
            </button>
          </div>
        </div>
      ) : null}
      {added ? (
        <div role="status" data-testid="host-add-result">
          <p className="result">{t('settings.hosts.add.added', { address: added.address })}</p>
          {added.warning ? <p className="error-text">{added.warning}</p> : null}
        </div>
      ) : null}
    </FormCard>
  );
}

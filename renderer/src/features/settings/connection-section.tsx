/**
 * "Connect xAgent": the base URL and API key to enter in xAgent (Reveal / Copy / Rotate) and
 * whether xAgent is connected right now. The revealed key lives only in this component's
 * state, so it disappears when the person navigates away.
 */
import { useState } from 'react';
import type { AdminSettings, AdminState } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import { ConfirmButton } from '../../components/confirm-button';
import { CopyButton } from '../../components/copy-button';
import { Countdown } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { StatusBadge } from '../../components/status-badge';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { NetworkFacts } from './network-facts';

export function ConnectionSection(props: {
  api: BridgeApi;
  settings: AdminSettings;
  state: AdminState;
}): React.JSX.Element {
  const { api, settings } = props;
  const { t } = useT();
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [rotated, setRotated] = useState(false);
  const reveal = useAction(
    () => api.revealApiKey(),
    (r) => setApiKey(r.api_key),
  );
  const rotate = useAction(
    () => api.rotateApiKey(),
    (r) => {
      setApiKey(r.api_key);
      setRotated(true);
    },
  );

  const fetchKey = async (): Promise<string> => {
    if (apiKey) return apiKey;
    const answer = await api.revealApiKey();
    setApiKey(answer.api_key);
    return answer.api_key;
  };

  return (
    <section className="settings-section" aria-labelledby="connect-heading">
      <h3 id="connect-heading">{t('settings.connect.title')}</h3>
      <dl className="facts facts-wide">
        <dt>{t('settings.connect.baseUrl')}</dt>
        <dd className="with-actions">
          <code data-testid="settings-base-url">{settings.base_url}</code>
          <CopyButton getText={() => settings.base_url} testId="settings-base-url-copy" />
        </dd>
        <dt>{t('settings.connect.apiKey')}</dt>
        <dd className="with-actions">
          <code className="secret" data-testid="settings-api-key">
            {apiKey ?? settings.api_key_hint}
          </code>
          {apiKey ? (
            <button type="button" className="btn" onClick={() => setApiKey(null)} data-testid="settings-api-key-hide">
              {t('settings.connect.hide')}
            </button>
          ) : (
            <button
              type="button"
              className="btn"
              onClick={() => reveal.run()}
              disabled={reveal.pending}
              data-testid="settings-api-key-reveal"
            >
              {t('settings.connect.reveal')}
            </button>
          )}
          <CopyButton getText={fetchKey} testId="settings-api-key-copy" />
          <ConfirmButton
            label={rotate.pending ? t('settings.connect.rotating') : t('settings.connect.rotate')}
            prompt={t('settings.connect.rotatePrompt')}
            confirmLabel={t('settings.connect.rotateConfirm')}
            danger
            disabled={rotate.pending}
            onConfirm={() => rotate.run()}
            testId="settings-api-key-rotate"
            confirmTestId="settings-api-key-rotate-confirm"
            cancelTestId="settings-api-key-rotate-cancel"
          />
        </dd>
      </dl>
      {props.state.api_key.source === 'env' ? (
        <p className="hint" data-testid="settings-api-key-env">
          {t('settings.connect.envKey')}
        </p>
      ) : null}
      <NetworkFacts settings={settings} />
      <ErrorText error={reveal.error ?? rotate.error} testId="settings-api-key-error" />
      {rotated ? (
        <p className="banner banner-warn" role="status" data-testid="settings-api-key-rotated">
          {t('settings.connect.rotated')}
        </p>
      ) : null}
      <XAgentStatus state={props.state} baseUrl={settings.base_url} />
    </section>
  );
}

function loopbackOnly(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'localhost' || host.startsWith('127.') || host === '[::1]';
  } catch {
    return false;
  }
}

function XAgentStatus(props: { state: AdminState; baseUrl: string }): React.JSX.Element {
  const { connector } = props.state;
  const { t } = useT();
  if (connector.connector_id === null) {
    return (
      <EmptyState title={t('settings.xagent.emptyTitle')} testId="settings-xagent-empty">
        <ol className="steps">
          <li>{t('settings.xagent.step1')}</li>
          <li>
            <Rich text={t('settings.xagent.step2', { url: props.baseUrl })} />
          </li>
          <li>
            <Rich text={t('settings.xagent.step3')} />
          </li>
          <li>{t('settings.xagent.step4')}</li>
        </ol>
        {loopbackOnly(props.baseUrl) ? (
          <p className="hint">
            <Rich text={t('settings.xagent.loopback')} />
          </p>
        ) : null}
      </EmptyState>
    );
  }
  const connected = connector.data_planes > 0;
  return (
    <dl className="facts facts-wide" data-testid="settings-xagent">
      <dt>{t('settings.xagent.label')}</dt>
      <dd>
        <StatusBadge tone={connected ? 'ok' : 'warn'} testId="settings-xagent-status">
          {connected ? t('settings.xagent.connected') : t('settings.xagent.disconnected')}
        </StatusBadge>{' '}
        <span className="mono">{connector.connector_id}</span>
      </dd>
      <dt>{t('settings.xagent.dataPlanes')}</dt>
      <dd>{connector.data_planes}</dd>
      {!connected && connector.runtime_lease_expires_at !== null ? (
        <>
          <dt>{t('settings.xagent.keptFor')}</dt>
          <dd>
            <Countdown
              to={connector.runtime_lease_expires_at}
              warnBelowMs={10 * 60_000}
              testId="settings-runtime-lease"
            />{' '}
            {t('settings.xagent.keptText')}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

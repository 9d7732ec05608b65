/**
 * Connect xAgent: the page the console opens on until an xAgent has said hello. A live status
 * first ("Waiting for xAgent…" turns into "xAgent connected" as the state changes, with the
 * next step), then what to paste where in xAgent: the base URL and the API key (Reveal / Copy /
 * Rotate). The revealed key lives only in this component's state, so it disappears when the
 * person navigates away.
 */
import { useState } from 'react';
import type { AdminState } from '../../../../main/contract/admin-api';
import { routeHash } from '../../../../main/contract/console-route';
import { ConfirmButton } from '../../components/confirm-button';
import { CopyButton } from '../../components/copy-button';
import { Countdown } from '../../components/countdown';
import { ErrorBanner, ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useNow } from '../../components/use-now';
import { useT } from '../../i18n/i18n-context';
import { useAdminSettings } from '../settings/use-admin-settings';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

export function ConnectView(props: { state: AdminState }): React.JSX.Element {
  const { state } = props;
  const { t } = useT();
  const { settings, error, retry } = useAdminSettings();

  return (
    <section aria-labelledby="connect-heading" className="connect-view">
      <header className="view-header">
        <h2 id="connect-heading">{t('connect.title')}</h2>
        <p className="view-sub">{t('connect.sub')}</p>
      </header>
      <div aria-live="polite">
        <XAgentStatus connector={state.connector} />
        <RefusedKeys connector={state.connector} />
      </div>
      <section className="settings-section" aria-labelledby="connect-steps-heading">
        <h3 id="connect-steps-heading">{t('connect.steps.title')}</h3>
        {error ? (
          <ErrorBanner title={t('connect.loadFailed')} error={error} onRetry={retry} testId="connect-error" />
        ) : null}
        <ol className="steps connect-steps">
          <li>{t('connect.step1')}</li>
          <li>
            <Rich text={t('connect.step2')} />
            <div className="with-actions connect-value">
              <code data-testid="connect-base-url">{state.connector.base_url}</code>
              <CopyButton getText={() => state.connector.base_url} testId="connect-base-url-copy" />
            </div>
            {loopbackOnly(state.connector.base_url) ? (
              <p className="hint">
                <Rich text={t('connect.loopback')} />
              </p>
            ) : null}
          </li>
          <li>
            <Rich text={t('connect.step3')} />
            <ApiKey hint={settings?.api_key_hint ?? null} fromEnv={state.api_key.source === 'env'} />
          </li>
          <li>{t('connect.step4')}</li>
        </ol>
      </section>
    </section>
  );
}

/** Live: waiting, connected (with the connector and since when, and the next step), or away. */
function XAgentStatus(props: { connector: AdminState['connector'] }): React.JSX.Element {
  const { connector } = props;
  const { t, format } = useT();
  const now = useNow();
  if (connector.connected_since !== null) {
    return (
      <StatusFrame
        state="connected"
        title={
          <>
            <span className="connect-check" aria-hidden="true">
              ✓
            </span>
            {t('connect.status.connected')}
          </>
        }
      >
        <dl className="facts">
          <dt>{t('connect.status.connector')}</dt>
          <dd className="mono" data-testid="connect-connector-id">
            {connector.connector_id}
          </dd>
          <dt>{t('connect.status.since')}</dt>
          <dd data-testid="connect-connected-since">{format.relative(connector.connected_since, now)}</dd>
        </dl>
        <div className="connect-next" data-testid="connect-next">
          <h4>{t('connect.next.title')}</h4>
          <p>{t('connect.next.text')}</p>
          <div className="actions">
            <a
              className="btn btn-primary"
              href={routeHash({ section: 'pairings' })}
              data-testid="connect-next-pairings"
            >
              {t('connect.next.pairings')}
            </a>
            <a className="btn" href={routeHash({ section: 'devices' })} data-testid="connect-next-devices">
              {t('connect.next.devices')}
            </a>
          </div>
        </div>
      </StatusFrame>
    );
  }
  if (connector.last_hello_at !== null) {
    return (
      <StatusFrame state="away" title={t('connect.status.away')}>
        <p>{t('connect.status.lastHello', { time: format.relative(connector.last_hello_at, now) })}</p>
        {connector.runtime_lease_expires_at !== null ? (
          <p>
            {t('connect.status.keptFor')}{' '}
            <Countdown
              to={connector.runtime_lease_expires_at}
              warnBelowMs={10 * 60_000}
              testId="connect-runtime-lease"
            />{' '}
            {t('connect.status.keptText')}
          </p>
        ) : null}
      </StatusFrame>
    );
  }
  return (
    <StatusFrame
      state="waiting"
      title={
        <>
          <span className="spinner" aria-hidden="true" />
          {t('connect.status.waiting')}
        </>
      }
    >
      <p className="hint">{t('connect.status.waitingHint')}</p>
    </StatusFrame>
  );
}

const STATUS_CLASS = { connected: 'connect-status-ok', away: 'connect-status-away', waiting: 'connect-status-waiting' };

/** The frame of each of the xAgent's three states; the wait's title is a status region, so a screen reader hears it change. */
function StatusFrame(props: {
  state: keyof typeof STATUS_CLASS;
  title: React.ReactNode;
  children: React.ReactNode;
}): React.JSX.Element {
  return (
    <section
      className={`settings-section connect-status ${STATUS_CLASS[props.state]}`}
      data-testid="connect-status"
      data-state={props.state}
    >
      <h3
        className="connect-status-title"
        data-testid="connect-status-title"
        role={props.state === 'waiting' ? 'status' : undefined}
      >
        {props.title}
      </h3>
      {props.children}
    </section>
  );
}

/** How long a refusal stays on the page: long enough to walk to the agent's settings and back. */
const REFUSED_SHOWN_MS = 30 * 60_000;

/**
 * xAgents the bridge turned away for their key (the agent only sees a 401): where from, when,
 * and what to do. A refusal older than the connection that works now is over and not shown.
 */
function RefusedKeys(props: { connector: AdminState['connector'] }): React.JSX.Element | null {
  const { t, format } = useT();
  const now = useNow();
  const since = props.connector.connected_since ?? 0;
  const shown = (props.connector.refused_keys ?? []).filter(
    (r) => r.last_at > since && now - r.last_at < REFUSED_SHOWN_MS,
  );
  if (shown.length === 0) return null;
  return (
    <section className="banner banner-warn connect-refused" data-testid="connect-refused">
      <h3 className="connect-status-title">{t('connect.refused.title')}</h3>
      <ul>
        {shown.map((r) => (
          <li key={r.address} data-testid={`connect-refused-${r.address}`}>
            {t(r.reason === 'wrong_key' ? 'connect.refused.wrong_key' : 'connect.refused.no_key', {
              address: r.address,
              time: format.relative(r.last_at, now),
            })}
            {r.count > 1 ? (
              <span className="muted small"> ({t('connect.refused.count', { count: r.count })})</span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ApiKey(props: { hint: string | null; fromEnv: boolean }): React.JSX.Element {
  const api = useApi();
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
    <>
      <div className="with-actions connect-value">
        <code className="secret" data-testid="connect-api-key">
          {apiKey ?? props.hint ?? '••••••••'}
        </code>
        <CopyButton getText={fetchKey} testId="connect-api-key-copy" />
        {apiKey ? (
          <button type="button" className="btn" onClick={() => setApiKey(null)} data-testid="connect-api-key-hide">
            {t('connect.hide')}
          </button>
        ) : (
          <button
            type="button"
            className="btn"
            onClick={() => reveal.run()}
            disabled={reveal.pending}
            data-testid="connect-api-key-reveal"
          >
            {t('connect.reveal')}
          </button>
        )}
        <ConfirmButton
          label={rotate.pending ? t('connect.rotating') : t('connect.rotate')}
          prompt={t('connect.rotatePrompt')}
          confirmLabel={t('connect.rotateConfirm')}
          danger
          disabled={rotate.pending}
          onConfirm={() => rotate.run()}
          testId="connect-api-key-rotate"
          confirmTestId="connect-api-key-rotate-confirm"
          cancelTestId="connect-api-key-rotate-cancel"
        />
      </div>
      {props.fromEnv ? (
        <p className="hint" data-testid="connect-api-key-env">
          {t('connect.envKey')}
        </p>
      ) : null}
      <ErrorText error={reveal.error ?? rotate.error} testId="connect-api-key-error" />
      {rotated ? (
        <p className="banner banner-warn" role="status" data-testid="connect-api-key-rotated">
          {t('connect.rotated')}
        </p>
      ) : null}
    </>
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

/**
 * The app shell: left navigation with pending counts, the live-update indicator, page-level
 * error and warning banners, and the current view, in the language of the bridge's setting (else
 * the browser's). Transport-agnostic: it only sees BridgeApi.
 */
import { useEffect, useState } from 'react';
import type { BridgeApi, LiveStatus } from './api/bridge-api';
import { Loading } from './components/empty-state';
import { ErrorBanner, WarningBanner } from './components/error-banner';
import { CountBadge } from './components/status-badge';
import { TokenScreen } from './components/token-screen';
import { ActivityView } from './features/activity/activity-view';
import { ApprovalsView } from './features/approvals/approvals-view';
import { BindingsView } from './features/bindings/bindings-view';
import { DevicesView } from './features/devices/devices-view';
import { PhoneView } from './features/phone-view/phone-view';
import { usePhoneRoute } from './features/phone-view/use-phone-route';
import { LanView } from './features/lan/lan-view';
import { PairingsView } from './features/pairings/pairings-view';
import { SettingsView } from './features/settings/settings-view';
import type { MessageKey } from '../../main/contract/i18n';
import { I18nProvider, useT } from './i18n/i18n-context';
import { useApprovalAnnouncer } from './state/use-approval-announcer';
import { useBridgeState, type BridgeStateView } from './state/use-bridge-state';

export type Area = 'devices' | 'lan' | 'bindings' | 'pairings' | 'approvals' | 'activity' | 'settings';

const AREAS: ReadonlyArray<{ id: Area; label: MessageKey }> = [
  { id: 'devices', label: 'common.nav.devices' },
  { id: 'lan', label: 'common.nav.lan' },
  { id: 'bindings', label: 'common.nav.bindings' },
  { id: 'pairings', label: 'common.nav.pairings' },
  { id: 'approvals', label: 'common.nav.approvals' },
  { id: 'activity', label: 'common.nav.activity' },
  { id: 'settings', label: 'common.nav.settings' },
];

const LIVE_TEXT: Record<LiveStatus, MessageKey> = {
  connecting: 'common.live.connecting',
  live: 'common.live.live',
  reconnecting: 'common.live.reconnecting',
  unauthorized: 'common.live.unauthorized',
  closed: 'common.live.closed',
};

export function App(props: { api: BridgeApi; onUnauthorized?: () => void }): React.JSX.Element {
  const bridge = useBridgeState(props.api);
  return (
    <I18nProvider setting={bridge.state?.language}>
      <Shell
        api={props.api}
        bridge={bridge}
        {...(props.onUnauthorized ? { onUnauthorized: props.onUnauthorized } : {})}
      />
    </I18nProvider>
  );
}

function Shell(props: { api: BridgeApi; bridge: BridgeStateView; onUnauthorized?: () => void }): React.JSX.Element {
  const { api, bridge } = props;
  const { t } = useT();
  const title = t('common.app.title');
  const [area, setArea] = useState<Area>('devices');
  // A phone's own view (#/devices/<id>) shows over the Devices area; any section closes it.
  const phone = usePhoneRoute();
  const announcement = useApprovalAnnouncer(bridge.state, title);
  const { state } = bridge;
  const unauthorized = bridge.error?.code === 'unauthorized' || bridge.live === 'unauthorized';
  const { onUnauthorized } = props;

  useEffect(() => {
    if (unauthorized) onUnauthorized?.();
  }, [unauthorized, onUnauthorized]);

  if (unauthorized) return <TokenScreen reason="invalid" />;

  const counts: Partial<Record<Area, { n: number; label: string; urgent: boolean }>> = state
    ? {
        approvals: {
          n: state.approvals.length,
          label: t('common.nav.approvalsWaiting', { count: state.approvals.length }),
          urgent: true,
        },
        pairings: {
          n: state.pairings.length,
          label: t('common.nav.pairingsWaiting', { count: state.pairings.length }),
          urgent: true,
        },
      }
    : {};

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        {t('common.skipToContent')}
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          {title}
        </div>
        <nav aria-label={t('common.nav.sections')}>
          <ul>
            {AREAS.map(({ id, label }) => {
              const count = counts[id];
              return (
                <li key={id}>
                  <button
                    type="button"
                    className="nav-item"
                    aria-current={area === id ? 'page' : undefined}
                    onClick={() => {
                      phone.close();
                      setArea(id);
                    }}
                    data-testid={`nav-${id}`}
                  >
                    <span>{t(label)}</span>
                    {count ? (
                      <CountBadge count={count.n} label={count.label} urgent={count.urgent} testId={`badge-${id}`} />
                    ) : null}
                  </button>
                </li>
              );
            })}
          </ul>
        </nav>
        <p className={`live live-${bridge.live}`} data-testid="live-status" title={t('common.live.title')}>
          <span className="live-dot" aria-hidden="true" />
          <span>{t(LIVE_TEXT[bridge.live])}</span>
          {api.kind === 'http' ? <span className="live-mode">{t('common.live.webConsole')}</span> : null}
        </p>
      </aside>
      <main id="main" className="content" tabIndex={-1}>
        {bridge.error && state ? (
          <ErrorBanner title={t('common.bridge.staleState')} error={bridge.error} onRetry={bridge.refresh} />
        ) : null}
        {state ? <WarningBanner messages={state.warnings} /> : null}
        {!state ? (
          bridge.error ? (
            <ErrorBanner title={t('common.bridge.unreachable')} error={bridge.error} onRetry={bridge.refresh} />
          ) : (
            <Loading label={t('common.bridge.connecting')} />
          )
        ) : phone.deviceId !== null ? (
          <PhoneView
            api={api}
            state={state}
            deviceId={phone.deviceId}
            onChanged={bridge.refresh}
            onClose={phone.close}
          />
        ) : area === 'devices' ? (
          <DevicesView api={api} state={state} onChanged={bridge.refresh} onOpenLan={() => setArea('lan')} />
        ) : area === 'lan' ? (
          <LanView api={api} state={state} onChanged={bridge.refresh} />
        ) : area === 'bindings' ? (
          <BindingsView api={api} state={state} onChanged={bridge.refresh} />
        ) : area === 'pairings' ? (
          <PairingsView api={api} state={state} onChanged={bridge.refresh} />
        ) : area === 'approvals' ? (
          <ApprovalsView api={api} state={state} onChanged={bridge.refresh} />
        ) : area === 'activity' ? (
          <ActivityView api={api} state={state} stateVersion={bridge.version} />
        ) : (
          <SettingsView api={api} state={state} onChanged={bridge.refresh} />
        )}
      </main>
      <div className="sr-only" aria-live="assertive" aria-atomic="true" data-testid="announcer">
        {announcement}
      </div>
    </div>
  );
}

/**
 * The app shell: the navigation with pending counts (a side bar, a scrolling strip on a phone),
 * the live-update indicator, page-level error and warning banners, and the section the address
 * names (state/use-console-route.ts), opened at its top, in the language of the bridge's setting
 * (else the browser's). Transport-agnostic: it only sees the BridgeApi of the ApiProvider around it.
 */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { useApi } from './api/api-context';
import type { LiveStatus } from './api/bridge-api';
import { Loading } from './components/empty-state';
import { ErrorBanner, WarningBanner } from './components/error-banner';
import { CountBadge } from './components/status-badge';
import { TokenScreen } from './components/token-screen';
import { ActivityView } from './features/activity/activity-view';
import { ApprovalBanner } from './features/approvals/approval-banner';
import { ApprovalsView } from './features/approvals/approvals-view';
import { BindingsView } from './features/bindings/bindings-view';
import { ConnectView } from './features/connect/connect-view';
import { DevicesView } from './features/devices/devices-view';
import { PhoneView } from './features/phone-view/phone-view';
import { PersonAskCards } from './features/person-asks/person-ask-cards';
import { LanView } from './features/lan/lan-view';
import { PairingsView } from './features/pairings/pairings-view';
import { SettingsView } from './features/settings/settings-view';
import type { MessageKey } from '../../main/contract/i18n';
import { routeHash, type ConsoleRoute, type ConsoleSection } from '../../main/contract/console-route';
import { I18nProvider, useT } from './i18n/i18n-context';
import { useApprovalAnnouncer } from './state/use-approval-announcer';
import { usePersonAskNotifier } from './state/use-person-ask-notifier';
import { useBridgeState, type BridgeStateView } from './state/use-bridge-state';
import { useConsoleRoute } from './state/use-console-route';
import { revealSideways } from './lib/reveal-sideways';

const AREAS: ReadonlyArray<{ id: ConsoleSection; label: MessageKey }> = [
  { id: 'connect', label: 'common.nav.connect' },
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

/** The console; its client (HTTP or IPC) comes from the ApiProvider around it (main.tsx). */
export function App(props: { onUnauthorized?: () => void }): React.JSX.Element {
  const bridge = useBridgeState();
  return (
    <I18nProvider setting={bridge.state?.language}>
      <Shell bridge={bridge} onUnauthorized={props.onUnauthorized} />
    </I18nProvider>
  );
}

function Shell(props: { bridge: BridgeStateView; onUnauthorized?: (() => void) | undefined }): React.JSX.Element {
  const { bridge } = props;
  const api = useApi();
  const { t } = useT();
  const title = t('common.app.title');
  const { state } = bridge;
  // Until an xAgent has said hello the console opens on its connect guide; an address wins.
  const firstSection: ConsoleSection | null = state
    ? state.connector.last_hello_at === null
      ? 'connect'
      : 'devices'
    : null;
  const { route, go } = useConsoleRoute(firstSection);
  const section: ConsoleSection | null = route ? (route.section === 'phone' ? 'devices' : route.section) : null;
  const mainRef = useRef<HTMLElement>(null);
  const navRef = useRef<HTMLElement>(null);
  // Every section opens at its top: the content area scrolls, and on a phone the page does.
  useLayoutEffect(() => {
    mainRef.current?.scrollTo(0, 0);
    window.scrollTo(0, 0);
  }, [route]);
  // On a phone the sections' bar scrolls sideways: the current one is kept in view (a deep link, Back).
  useLayoutEffect(() => {
    revealSideways(navRef.current, navRef.current?.querySelector<HTMLElement>('[aria-current="page"]') ?? null);
  }, [section]);
  const announcement = useApprovalAnnouncer(bridge.state, title);
  // The desktop app notifies through Electron; the web console through the browser, once allowed.
  const askNotifier = usePersonAskNotifier(bridge.state, api.kind === 'http');
  const unauthorized = bridge.error?.code === 'unauthorized' || bridge.live === 'unauthorized';
  const { onUnauthorized } = props;

  useEffect(() => {
    if (unauthorized) onUnauthorized?.();
  }, [unauthorized, onUnauthorized]);

  if (unauthorized) return <TokenScreen reason="invalid" />;

  const counts: Partial<Record<ConsoleSection, { n: number; label: string; urgent: boolean }>> = state
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
        <nav aria-label={t('common.nav.sections')} ref={navRef}>
          <ul>
            {AREAS.map(({ id, label }) => {
              const count = counts[id];
              return (
                <li key={id} className={count && count.n > 0 ? 'nav-waiting' : undefined}>
                  <a
                    href={routeHash(id === 'settings' ? { section: id, part: null } : { section: id })}
                    className="nav-item"
                    aria-current={section === id ? 'page' : undefined}
                    onClick={(event) => {
                      // Through go(): the section already shown goes back to its top, where the link alone does nothing.
                      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
                      event.preventDefault();
                      go(id === 'settings' ? { section: id, part: null } : { section: id });
                    }}
                    data-testid={`nav-${id}`}
                  >
                    <span>{t(label)}</span>
                    {count ? (
                      <CountBadge count={count.n} label={count.label} urgent={count.urgent} testId={`badge-${id}`} />
                    ) : null}
                  </a>
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
        {api.kind === 'http' && askNotifier.permission === 'default' ? (
          <button
            type="button"
            className="btn btn-small notify-allow"
            onClick={askNotifier.allow}
            title={t('asks.notify.allowTitle')}
            data-testid="notify-allow"
          >
            {t('asks.notify.allow')}
          </button>
        ) : null}
      </aside>
      <main id="main" className="content" tabIndex={-1} ref={mainRef}>
        {bridge.error && state ? (
          <ErrorBanner title={t('common.bridge.staleState')} error={bridge.error} onRetry={bridge.refresh} />
        ) : null}
        {state ? <WarningBanner messages={state.warnings} /> : null}
        {!state || !route ? (
          bridge.error ? (
            <ErrorBanner title={t('common.bridge.unreachable')} error={bridge.error} onRetry={bridge.refresh} />
          ) : (
            <Loading label={t('common.bridge.connecting')} />
          )
        ) : (
          <>
            {/* What waits for the person comes first in every view (Approvals lists it in full already). */}
            {route.section === 'approvals' ? null : <ApprovalBanner state={state} onChanged={bridge.refresh} go={go} />}
            <PersonAskCards state={state} onChanged={bridge.refresh} go={go} />
            <Section bridge={bridge} state={state} route={route} go={go} />
          </>
        )}
      </main>
      <div className="sr-only" aria-live="assertive" aria-atomic="true" data-testid="announcer">
        {announcement}
      </div>
    </div>
  );
}

/** The view a route names. */
function Section(props: {
  bridge: BridgeStateView;
  state: NonNullable<BridgeStateView['state']>;
  route: ConsoleRoute;
  go: (route: ConsoleRoute) => void;
}): React.JSX.Element {
  const { bridge, state, route, go } = props;
  switch (route.section) {
    case 'phone':
      return (
        <PhoneView
          state={state}
          deviceId={route.deviceId}
          onChanged={bridge.refresh}
          onClose={() => go({ section: 'devices' })}
        />
      );
    case 'connect':
      return <ConnectView state={state} />;
    case 'devices':
      return <DevicesView state={state} onChanged={bridge.refresh} onOpenLan={() => go({ section: 'lan' })} />;
    case 'lan':
      return <LanView state={state} onChanged={bridge.refresh} />;
    case 'bindings':
      return <BindingsView state={state} onChanged={bridge.refresh} />;
    case 'pairings':
      return <PairingsView state={state} onChanged={bridge.refresh} />;
    case 'approvals':
      return <ApprovalsView state={state} onChanged={bridge.refresh} />;
    case 'activity':
      return <ActivityView state={state} stateVersion={bridge.version} />;
    case 'settings':
      return <SettingsView state={state} part={route.part} onChanged={bridge.refresh} />;
  }
}

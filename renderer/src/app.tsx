/**
 * The app shell: left navigation with pending counts, the live-update indicator, page-level
 * error and warning banners, and the current view. Transport-agnostic: it only sees BridgeApi.
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
import { LanView } from './features/lan/lan-view';
import { PairingsView } from './features/pairings/pairings-view';
import { SettingsView } from './features/settings/settings-view';
import { useApprovalAnnouncer } from './state/use-approval-announcer';
import { useBridgeState } from './state/use-bridge-state';

export type Area = 'devices' | 'lan' | 'bindings' | 'pairings' | 'approvals' | 'activity' | 'settings';

const AREAS: Array<{ id: Area; label: string }> = [
  { id: 'devices', label: 'Devices' },
  { id: 'lan', label: 'LAN phones' },
  { id: 'bindings', label: 'Bindings & leases' },
  { id: 'pairings', label: 'Pairing requests' },
  { id: 'approvals', label: 'Approvals' },
  { id: 'activity', label: 'Activity' },
  { id: 'settings', label: 'Settings' },
];

const LIVE_TEXT: Record<LiveStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  unauthorized: 'Not authorised',
  closed: 'Offline',
};

const TITLE = 'Device Bridge';

export function App(props: { api: BridgeApi; onUnauthorized?: () => void }): React.JSX.Element {
  const { api } = props;
  const bridge = useBridgeState(api);
  const [area, setArea] = useState<Area>('devices');
  const announcement = useApprovalAnnouncer(bridge.state, TITLE);
  const { state } = bridge;
  const unauthorized = bridge.error?.code === 'unauthorized' || bridge.live === 'unauthorized';
  const { onUnauthorized } = props;

  useEffect(() => {
    if (unauthorized) onUnauthorized?.();
  }, [unauthorized, onUnauthorized]);

  if (unauthorized) return <TokenScreen reason="invalid" />;

  const counts: Partial<Record<Area, { n: number; label: string; urgent: boolean }>> = state
    ? {
        approvals: { n: state.approvals.length, label: 'approvals waiting', urgent: true },
        pairings: { n: state.pairings.length, label: 'pairing requests waiting', urgent: true },
      }
    : {};

  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <aside className="sidebar">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          {TITLE}
        </div>
        <nav aria-label="Sections">
          <ul>
            {AREAS.map(({ id, label }) => {
              const count = counts[id];
              return (
                <li key={id}>
                  <button
                    type="button"
                    className="nav-item"
                    aria-current={area === id ? 'page' : undefined}
                    onClick={() => setArea(id)}
                    data-testid={`nav-${id}`}
                  >
                    <span>{label}</span>
                    {count ? <CountBadge count={count.n} label={count.label} urgent={count.urgent} testId={`badge-${id}`} /> : null}
                  </button>
                </li>
              );
            })}
          </ul>
        </nav>
        <p className={`live live-${bridge.live}`} data-testid="live-status" title="Live updates from the bridge">
          <span className="live-dot" aria-hidden="true" />
          <span>{LIVE_TEXT[bridge.live]}</span>
          {api.kind === 'http' ? <span className="live-mode">web console</span> : null}
        </p>
      </aside>
      <main id="main" className="content" tabIndex={-1}>
        {bridge.error && state ? (
          <ErrorBanner title="The bridge is not answering; showing the last known state." error={bridge.error} onRetry={bridge.refresh} />
        ) : null}
        {state ? <WarningBanner messages={state.warnings} /> : null}
        {!state ? (
          bridge.error ? (
            <ErrorBanner title="Cannot reach the bridge." error={bridge.error} onRetry={bridge.refresh} />
          ) : (
            <Loading label="Connecting to the bridge…" />
          )
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

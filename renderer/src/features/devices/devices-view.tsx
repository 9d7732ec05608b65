/**
 * Devices: every phone the bridge sees; teaches the first steps when there is none, and says so
 * when an ADB server is down (the usual reason for "no phones"). A lab's hundreds of phones are
 * found by search and filters (host, state, lease) and shown as a compact list whose lines open
 * their cards; a few phones are shown as cards with live thumbnails. The person's choice of
 * view is kept in this browser.
 */
import { useMemo, useState } from 'react';
import type { AdminState } from '../../../../main/contract/admin-api';
import { EmptyState } from '../../components/empty-state';
import { useT, type I18n } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { DeviceCard } from './device-card';
import { DeviceTable } from './device-table';
import {
  filterDevices,
  holderWords,
  NO_FILTERS,
  type DeviceFilters,
  type LeaseFilter,
  type StateFilter,
} from './device-filter';
import { FilterSelect } from '../../components/form-fields';

type ViewMode = 'cards' | 'list';
const VIEW_KEY = 'device-bridge.devices.view';
/** Up to this many phones the cards fit; beyond, the list is the default. */
const CARDS_UP_TO = 12;

function savedView(): ViewMode | null {
  try {
    const value = window.localStorage.getItem(VIEW_KEY);
    return value === 'cards' || value === 'list' ? value : null;
  } catch {
    return null;
  }
}

function saveView(mode: ViewMode): void {
  try {
    window.localStorage.setItem(VIEW_KEY, mode);
  } catch {
    // a browser that keeps nothing still switches for this visit
  }
}

export function DevicesView(props: {
  state: AdminState;
  onChanged: () => void;
  onOpenLan: () => void;
}): React.JSX.Element {
  const { state } = props;
  const { t } = useT();
  const downServers = state.adb_servers.filter((s) => s.status === 'down');
  const [filters, setFilters] = useState<DeviceFilters>(NO_FILTERS);
  const [chosenView, setChosenView] = useState<ViewMode | null>(savedView);
  const view: ViewMode = chosenView ?? (state.devices.length > CARDS_UP_TO ? 'list' : 'cards');
  const shown = useMemo(() => filterDevices(state, filters), [state, filters]);
  const holders = useMemo(
    () => new Map(state.devices.map((d) => [d.device_id, holderWords(d, state.channels)] as const)),
    [state.devices, state.channels],
  );
  const waiting = useMemo(() => {
    const counts = new Map<string, number>();
    for (const a of state.approvals) counts.set(a.device_id, (counts.get(a.device_id) ?? 0) + 1);
    return counts;
  }, [state.approvals]);
  const hosts = state.hosts.map((h) => h.address);
  const set = (patch: Partial<DeviceFilters>): void => setFilters((current) => ({ ...current, ...patch }));
  const choose = (mode: ViewMode): void => {
    setChosenView(mode);
    saveView(mode);
  };
  return (
    <section aria-labelledby="devices-heading">
      <header className="view-header">
        <h2 id="devices-heading">{t('devices.title')}</h2>
        <p className="view-sub">{countText(t, state)}</p>
      </header>
      {downServers.map((server) => (
        <div
          key={server.address}
          className="banner banner-warn"
          role="status"
          data-testid={`adb-down-${server.address}`}
        >
          {/* One wrapper: the banner is a flex row, and loose text nodes would become columns. */}
          <div>
            <strong>{t('devices.adbDown.title', { address: server.address })}</strong>{' '}
            {server.last_error ? <span>({server.last_error.trim().replace(/\.$/, '')}).</span> : null}{' '}
            {server.address.startsWith('127.') || server.address.startsWith('localhost') ? (
              <Rich text={t('devices.adbDown.start')} />
            ) : null}
          </div>
        </div>
      ))}
      {state.devices.length === 0 ? (
        <NoDevices onOpenLan={props.onOpenLan} />
      ) : (
        <>
          <div className="toolbar device-toolbar" role="search">
            <input
              type="search"
              className="device-search"
              value={filters.query}
              onChange={(e) => set({ query: e.target.value })}
              placeholder={t('devices.search.placeholder')}
              aria-label={t('devices.search.label')}
              data-testid="devices-search"
            />
            {hosts.length > 1 ? (
              <FilterSelect
                id="devices-filter-host"
                label={t('devices.filter.host')}
                value={filters.host}
                onValue={(host) => set({ host })}
                options={[
                  { value: 'all', label: t('devices.filter.allHosts') },
                  ...hosts.map((address) => ({ value: address, label: address })),
                ]}
              />
            ) : null}
            <FilterSelect<StateFilter>
              id="devices-filter-state"
              label={t('devices.filter.state')}
              value={filters.state}
              onValue={(choice) => set({ state: choice })}
              options={[
                { value: 'all', label: t('devices.filter.allStates') },
                { value: 'device', label: t('devices.state.device') },
                { value: 'offline', label: t('devices.state.offline') },
                { value: 'unauthorized', label: t('devices.state.unauthorized') },
                { value: 'gone', label: t('devices.state.gone') },
                { value: 'problem', label: t('devices.filter.problem') },
              ]}
            />
            <FilterSelect<LeaseFilter>
              id="devices-filter-lease"
              label={t('devices.filter.lease')}
              value={filters.lease}
              onValue={(lease) => set({ lease })}
              options={[
                { value: 'all', label: t('devices.filter.anyLease') },
                { value: 'leased', label: t('devices.filter.leased') },
                { value: 'free', label: t('devices.lease.free') },
              ]}
            />
            <span className="toolbar-spacer" />
            <span className="muted small" data-testid="devices-shown" role="status">
              {t('devices.shown', { shown: shown.length, total: state.devices.length })}
            </span>
            <div className="segmented" role="group" aria-label={t('devices.view.label')}>
              {(['list', 'cards'] as const).map((mode) => (
                <button
                  key={mode}
                  type="button"
                  className={view === mode ? 'btn btn-small active' : 'btn btn-small'}
                  aria-pressed={view === mode}
                  onClick={() => choose(mode)}
                  data-testid={`devices-view-${mode}`}
                >
                  {t(mode === 'list' ? 'devices.view.list' : 'devices.view.cards')}
                </button>
              ))}
            </div>
          </div>
          {shown.length === 0 ? (
            <p className="muted" data-testid="devices-no-match">
              {t('devices.noMatch')}{' '}
              <button type="button" className="btn btn-small" onClick={() => setFilters(NO_FILTERS)}>
                {t('devices.clearFilters')}
              </button>
            </p>
          ) : view === 'list' ? (
            <DeviceTable
              devices={shown}
              holders={holders}
              approvalsWaiting={waiting}
              idleStopMs={state.limits.fast_lane.idle_stop_ms}
              onChanged={props.onChanged}
            />
          ) : (
            <ul className="card-grid" data-testid="device-list">
              {shown.map((device) => (
                <DeviceCard
                  key={device.device_id}
                  device={device}
                  idleStopMs={state.limits.fast_lane.idle_stop_ms}
                  approvalsWaiting={waiting.get(device.device_id) ?? 0}
                  holder={props.state.channels.find(
                    (c) => c.connector_channel_id === device.lease?.connector_channel_id,
                  )}
                  onChanged={props.onChanged}
                />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function countText(t: I18n['t'], state: AdminState): string {
  const online = state.devices.filter((d) => d.state === 'device').length;
  const total = state.devices.length;
  if (total === 0) return t('devices.countNone');
  return t('devices.countOnline', { online, total });
}

function NoDevices(props: { onOpenLan: () => void }): React.JSX.Element {
  const { t } = useT();
  return (
    <EmptyState title={t('devices.empty.title')} testId="devices-empty">
      <div className="two-col">
        <div>
          <h4>{t('devices.empty.usb.title')}</h4>
          <ol className="steps">
            <li>
              <Rich text={t('devices.empty.usb.step1')} />
            </li>
            <li>
              <Rich text={t('devices.empty.usb.step2')} />
            </li>
            <li>{t('devices.empty.usb.step3')}</li>
            <li>
              <Rich text={t('devices.empty.usb.step4')} />
            </li>
          </ol>
          <p className="hint">{t('devices.empty.usb.appears')}</p>
        </div>
        <div>
          <h4>{t('devices.empty.lan.title')}</h4>
          <p>
            <Rich text={t('devices.empty.lan.text')} />
          </p>
          <button
            type="button"
            className="btn btn-primary"
            onClick={props.onOpenLan}
            data-testid="devices-empty-add-lan"
          >
            {t('devices.empty.lan.add')}
          </button>
        </div>
      </div>
    </EmptyState>
  );
}

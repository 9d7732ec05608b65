/**
 * Settings: the app's language, the connection, the bridge and its ADB servers, its hosts, lab access
 * codes, the lab's secrets, policies, the fast lane, the screen stream, the hand-over and limits.
 * A list of these parts leads to each on its own (`#/settings/limits`, so it opens at its top and
 * can be bookmarked); `#/settings` shows them all. Loads `GET settings` once per visit.
 */
import { useLayoutEffect, useRef } from 'react';
import type { AdminState } from '../../../../main/contract/admin-api';
import type { MessageKey } from '../../../../main/contract/i18n';
import { routeHash, SETTINGS_PARTS, type SettingsPart } from '../../../../main/contract/console-route';
import { Loading } from '../../components/empty-state';
import { ErrorBanner } from '../../components/error-banner';
import { AccessCodesSection } from './access-codes-section';
import { BridgeSection } from './bridge-section';
import { HostsSection } from './hosts-section';
import { ConnectionSection } from './connection-section';
import { LanguageSection } from './language-section';
import { FastLaneSection } from './fast-lane-section';
import { ScreenStreamSection } from './screen-stream-section';
import { TurnoverSection } from './turnover-section';
import { useT } from '../../i18n/i18n-context';
import { useAdminSettings } from './use-admin-settings';
import { revealSideways } from '../../lib/reveal-sideways';
import { LimitsSection } from './limits-section';
import { PoliciesSection } from './policies-section';
import { SecretsSection } from './secrets-section';

const PART_TITLES: Record<SettingsPart, MessageKey> = {
  language: 'settings.language.title',
  connection: 'settings.connection.title',
  bridge: 'settings.bridge.title',
  hosts: 'settings.hosts.title',
  'access-codes': 'settings.codes.title',
  secrets: 'settings.secrets.title',
  policies: 'settings.policies.title',
  'fast-lane': 'helper.settings.title',
  'screen-stream': 'stream.settings.title',
  'hand-over': 'turnover.settings.title',
  limits: 'settings.limits.title',
};

export function SettingsView(props: {
  state: AdminState;
  /** The one part shown, or null for all of them. */
  part: SettingsPart | null;
  onChanged: () => void;
}): React.JSX.Element {
  const { state, part } = props;
  const shows = (name: SettingsPart): boolean => part === null || part === name;
  const needsSettings = shows('connection') || shows('bridge');
  const { t } = useT();
  const { settings, error, retry, set: setSettings } = useAdminSettings();

  return (
    <section aria-labelledby="settings-heading">
      <header className="view-header">
        <h2 id="settings-heading">{t('settings.title')}</h2>
      </header>
      <SettingsParts current={part} />
      {shows('language') ? <LanguageSection setting={state.language} onChanged={props.onChanged} /> : null}
      {error && needsSettings ? (
        <ErrorBanner title={t('settings.loadFailed')} error={error} onRetry={retry} testId="settings-error" />
      ) : null}
      {settings ? (
        <>
          {shows('connection') ? <ConnectionSection settings={settings} /> : null}
          {shows('bridge') ? <BridgeSection settings={settings} state={state} /> : null}
        </>
      ) : error || !needsSettings ? null : (
        <Loading label={t('settings.loading')} />
      )}
      {shows('hosts') ? <HostsSection hosts={state.hosts} onChanged={props.onChanged} /> : null}
      {shows('access-codes') ? <AccessCodesSection state={state} onChanged={props.onChanged} /> : null}
      {shows('secrets') ? <SecretsSection state={state} onChanged={props.onChanged} /> : null}
      {shows('policies') ? <PoliciesSection /> : null}
      {shows('fast-lane') ? <FastLaneSection fastLane={state.fast_lane} /> : null}
      {shows('screen-stream') ? (
        <ScreenStreamSection settings={state.screen_stream} onChanged={props.onChanged} />
      ) : null}
      {shows('hand-over') ? <TurnoverSection policy={state.turnover_policy} onChanged={props.onChanged} /> : null}
      {shows('limits') ? (
        <LimitsSection
          limits={state.limits}
          sources={settings?.limit_sources ?? null}
          onSaved={(next) => {
            setSettings(next);
            props.onChanged();
          }}
        />
      ) : null}
    </section>
  );
}

/** The list of Settings' parts: each opens on its own, "All" shows the whole page. */
function SettingsParts(props: { current: SettingsPart | null }): React.JSX.Element {
  const { t } = useT();
  const navRef = useRef<HTMLElement>(null);
  // The part shown changes which entry is marked current: bring that one into view.
  const shown = props.current;
  useLayoutEffect(() => {
    revealSideways(navRef.current, navRef.current?.querySelector<HTMLElement>('[aria-current="page"]') ?? null);
  }, [shown]);
  const entries: ReadonlyArray<{ part: SettingsPart | null; label: string }> = [
    { part: null, label: t('settings.parts.all') },
    ...SETTINGS_PARTS.map((part) => ({ part, label: t(PART_TITLES[part]) })),
  ];
  return (
    <nav className="subnav" aria-label={t('settings.parts')} data-testid="settings-parts" ref={navRef}>
      <ul>
        {entries.map(({ part, label }) => (
          <li key={part ?? 'all'}>
            <a
              href={routeHash({ section: 'settings', part })}
              aria-current={props.current === part ? 'page' : undefined}
              data-testid={`settings-part-${part ?? 'all'}`}
            >
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Settings: the app's language, how to connect xAgent, the bridge and its ADB servers, lab
 * access codes, the lab's secrets, policies and limits. Loads `GET settings` once per visit.
 */
import { useEffect, useState } from 'react';
import type { AdminSettings, AdminState } from '../../../../main/contract/admin-api';
import type { ApiError, BridgeApi } from '../../api/bridge-api';
import { toApiError } from '../../api/bridge-api';
import { Loading } from '../../components/empty-state';
import { ErrorBanner } from '../../components/error-banner';
import { AccessCodesSection } from './access-codes-section';
import { BridgeSection } from './bridge-section';
import { ConnectionSection } from './connection-section';
import { LanguageSection } from './language-section';
import { FastLaneSection } from './fast-lane-section';
import { useT } from '../../i18n/i18n-context';
import { LimitsSection } from './limits-section';
import { PoliciesSection } from './policies-section';
import { SecretsSection } from './secrets-section';

export function SettingsView(props: { api: BridgeApi; state: AdminState; onChanged: () => void }): React.JSX.Element {
  const { api, state } = props;
  const { t } = useT();
  const [settings, setSettings] = useState<AdminSettings | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let active = true;
    api.getSettings().then(
      (answer) => {
        if (!active) return;
        setSettings(answer);
        setError(null);
      },
      (caught: unknown) => {
        if (active) setError(toApiError(caught));
      },
    );
    return () => {
      active = false;
    };
  }, [api, attempt]);

  return (
    <section aria-labelledby="settings-heading">
      <header className="view-header">
        <h2 id="settings-heading">{t('settings.title')}</h2>
      </header>
      <LanguageSection api={api} setting={state.language} onChanged={props.onChanged} />
      {error ? (
        <ErrorBanner
          title={t('settings.loadFailed')}
          error={error}
          onRetry={() => setAttempt((n) => n + 1)}
          testId="settings-error"
        />
      ) : null}
      {settings ? (
        <>
          <ConnectionSection api={api} settings={settings} state={state} />
          <BridgeSection settings={settings} state={state} />
        </>
      ) : error ? null : (
        <Loading label={t('settings.loading')} />
      )}
      <AccessCodesSection api={api} state={state} onChanged={props.onChanged} />
      <SecretsSection api={api} state={state} onChanged={props.onChanged} />
      <PoliciesSection api={api} />
      <FastLaneSection api={api} fastLane={state.fast_lane} onChanged={props.onChanged} />
      <LimitsSection
        api={api}
        limits={state.limits}
        sources={settings?.limit_sources ?? null}
        onSaved={(next) => {
          setSettings(next);
          props.onChanged();
        }}
      />
    </section>
  );
}

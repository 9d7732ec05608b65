/**
 * Settings → Hand-over (docs/REFERENCE.md "Hand-over"): whether a lease's end resets its
 * phone — after lab access codes (on by default), after the person's own approvals (off: their
 * own phone) — and the apps whose data every reset clears. A phone's own choice, set over the
 * admin API, overrides both; the count of such phones is shown so nothing is hidden.
 */
import { useEffect, useState } from 'react';
import type { AdminTurnoverPolicy } from '../../../../main/contract/admin-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

const packagesOf = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);

export function TurnoverSection(props: {
  policy: AdminTurnoverPolicy | undefined;
  onChanged: () => void;
}): React.JSX.Element | null {
  const api = useApi();
  const { t } = useT();
  const save = useAction(
    (change: { claims?: boolean; approvals?: boolean; clear_data?: string[] }) => api.putTurnover(change),
    props.onChanged,
  );
  const saved = props.policy?.clear_data.join('\n') ?? '';
  const [apps, setApps] = useState(saved);
  // A change saved elsewhere (another console, the admin API) shows here unless the person is typing.
  useEffect(() => setApps(saved), [saved]);
  if (!props.policy) return null;
  const policy = props.policy;
  return (
    <section className="settings-section" aria-labelledby="hand-over-heading" data-testid="settings-hand-over">
      <h3 id="hand-over-heading">{t('turnover.settings.title')}</h3>
      <p className="hint">{t('turnover.settings.explain')}</p>
      {(['claims', 'approvals'] as const).map((key) => (
        <div className="field field-check" key={key}>
          <label>
            <input
              type="checkbox"
              checked={policy[key]}
              disabled={save.pending}
              onChange={(event) => save.run({ [key]: event.target.checked })}
              data-testid={`settings-hand-over-${key}`}
            />{' '}
            {t(key === 'claims' ? 'turnover.settings.claims' : 'turnover.settings.approvals')}
          </label>
        </div>
      ))}
      <div className="field">
        <label htmlFor="settings-hand-over-apps">{t('turnover.settings.clearData')}</label>
        <textarea
          id="settings-hand-over-apps"
          rows={3}
          className="mono"
          value={apps}
          onChange={(event) => setApps(event.target.value)}
          data-testid="settings-hand-over-apps"
        />
        <div className="actions">
          <button
            type="button"
            className="btn"
            disabled={save.pending || apps === saved}
            onClick={() => save.run({ clear_data: packagesOf(apps) })}
            data-testid="settings-hand-over-save"
          >
            {t('turnover.settings.save')}
          </button>
        </div>
      </div>
      <p className="hint">{t('turnover.settings.perPhone', { count: Object.keys(policy.devices).length })}</p>
      <ErrorText error={save.error} testId="settings-hand-over-error" />
    </section>
  );
}

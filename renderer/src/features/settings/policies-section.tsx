/**
 * Policies: per risk class, whether the bridge allows, asks or denies; the person's
 * additions to the sensitive-app list; and how the activity log keeps typed text. Edited as
 * a draft and saved with PUT; per-phone overrides are kept untouched.
 */
import { useCallback, useEffect, useState } from 'react';
import type { AdminPolicies, PolicyDecision } from '../../../../main/contract/admin-api';
import type { ApiError } from '../../api/bridge-api';
import { inputError } from '../../api/bridge-api';
import { useApi } from '../../api/api-context';
import { useBridgeQuery } from '../../api/use-bridge-query';
import { Loading } from '../../components/empty-state';
import { ErrorBanner, ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import {
  POLICY_DECISIONS,
  formatPackageList,
  orderedRiskClasses,
  parsePackageList,
  withDefault,
} from '../../lib/policy-edit';
import { TYPED_TEXT_CHOICES, typedTextHint } from '../../lib/typed-text-wording';
import { known, useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';

export function PoliciesSection(): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const [saved, setSaved] = useState<AdminPolicies | null>(null);
  const [draft, setDraft] = useState<AdminPolicies | null>(null);
  const [appsText, setAppsText] = useState('');
  const [invalid, setInvalid] = useState<ApiError | null>(null);

  const adopt = useCallback((policies: AdminPolicies): void => {
    setSaved(policies);
    setDraft(policies);
    setAppsText(formatPackageList(policies.sensitive_apps));
  }, []);

  const loaded = useBridgeQuery((client) => client.getPolicies(), []);
  const loadError = loaded.error;
  // A fresh answer becomes the saved policies and the draft (edits so far are dropped, as on a reload).
  useEffect(() => {
    if (loaded.data) adopt(loaded.data);
  }, [loaded.data, adopt]);

  const save = useAction((policies: AdminPolicies) => api.putPolicies(policies), adopt);

  if (loadError || !draft || !saved) {
    return (
      <section className="settings-section" aria-labelledby="policies-heading">
        <h3 id="policies-heading">{t('settings.policies.title')}</h3>
        {loadError ? (
          <ErrorBanner
            title={t('settings.policies.loadFailed')}
            error={loadError}
            onRetry={loaded.refetch}
            testId="policy-error-banner"
          />
        ) : (
          <Loading label={t('settings.policies.loading')} />
        )}
      </section>
    );
  }

  const parsed = parsePackageList(appsText);
  const dirty =
    JSON.stringify(draft.defaults) !== JSON.stringify(saved.defaults) ||
    parsed.packages.join('\n') !== saved.sensitive_apps.join('\n') ||
    draft.audit_typed_text !== saved.audit_typed_text;
  const classes = orderedRiskClasses(draft.defaults, t);
  const overrides = Object.keys(draft.per_device).length;

  return (
    <section className="settings-section" aria-labelledby="policies-heading">
      <h3 id="policies-heading">{t('settings.policies.title')}</h3>
      <p className="hint">
        <Rich text={t('settings.policies.hint')} />
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (parsed.invalid.length > 0) {
            const first = parsed.invalid[0];
            setInvalid(
              inputError(t('settings.policies.badPackage', { line: first?.line ?? '?', text: first?.text ?? '' })),
            );
            return;
          }
          setInvalid(null);
          save.run({ ...draft, sensitive_apps: parsed.packages });
        }}
      >
        <div className="two-col">
          <table className="table policy-table" data-testid="policy-table">
            <thead>
              <tr>
                <th scope="col">{t('settings.policies.riskClass')}</th>
                <th scope="col">{t('settings.policies.decision')}</th>
              </tr>
            </thead>
            <tbody>
              {classes.map(({ id: riskClass, label, hint }) => (
                <tr key={riskClass}>
                  <th scope="row">
                    <label htmlFor={`policy-${riskClass}`}>{label}</label>
                    {hint ? <span className="policy-hint">{hint}</span> : null}
                  </th>
                  <td>
                    <select
                      id={`policy-${riskClass}`}
                      value={draft.defaults[riskClass]}
                      onChange={(e) => setDraft(withDefault(draft, riskClass, e.target.value as PolicyDecision))}
                      data-testid={`policy-${riskClass}`}
                    >
                      {POLICY_DECISIONS.map((decision) => (
                        <option key={decision} value={decision}>
                          {known(t, `settings.policies.decision.${decision}`, decision)}
                        </option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div>
            <div className="field">
              <label htmlFor="policy-sensitive-apps">{t('settings.policies.apps')}</label>
              <textarea
                id="policy-sensitive-apps"
                rows={8}
                spellCheck={false}
                placeholder={'com.example.bank\ncom.example.wallet'}
                value={appsText}
                onChange={(e) => setAppsText(e.target.value)}
                aria-invalid={parsed.invalid.length > 0 ? true : undefined}
                data-testid="policy-sensitive-apps"
              />
              <p className="hint">{t('settings.policies.appsHint')}</p>
            </div>
            <div
              className="field"
              role="radiogroup"
              aria-labelledby="policy-typed-text-label"
              data-testid="policy-typed-text"
            >
              <span id="policy-typed-text-label" className="field-label">
                {t('settings.policies.typedText')}
              </span>
              {TYPED_TEXT_CHOICES.map((choice) => (
                <div className="field-check" key={choice.value}>
                  <input
                    type="radio"
                    id={`policy-typed-text-${choice.value}`}
                    name="audit_typed_text"
                    value={choice.value}
                    checked={draft.audit_typed_text === choice.value}
                    onChange={() => setDraft({ ...draft, audit_typed_text: choice.value })}
                    data-testid={`policy-typed-text-${choice.value}`}
                  />
                  <label htmlFor={`policy-typed-text-${choice.value}`}>{t(choice.label)}</label>
                </div>
              ))}
              <p className="hint" data-testid="policy-typed-text-hint">
                {typedTextHint(draft.audit_typed_text, t)}
              </p>
            </div>
          </div>
        </div>
        {overrides > 0 ? <p className="hint">{t('settings.policies.overrides', { count: overrides })}</p> : null}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={!dirty || save.pending} data-testid="policy-save">
            {save.pending ? t('common.saving') : t('settings.policies.save')}
          </button>
          <button
            type="button"
            className="btn"
            disabled={!dirty || save.pending}
            onClick={() => adopt(saved)}
            data-testid="policy-reset"
          >
            {t('settings.policies.discard')}
          </button>
          {save.result && !dirty ? (
            <span className="result" role="status" data-testid="policy-saved">
              {t('common.saved')}
            </span>
          ) : null}
        </div>
        <ErrorText error={invalid ?? save.error} testId="policy-error" />
      </form>
    </section>
  );
}

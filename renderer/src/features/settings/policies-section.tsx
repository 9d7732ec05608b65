/**
 * Policies: per risk class, whether the bridge allows, asks or denies; the person's
 * additions to the sensitive-app list; and how the activity log keeps typed text. Edited as
 * a draft and saved with PUT; per-phone overrides are kept untouched.
 */
import { useEffect, useState } from 'react';
import type { AdminPolicies, PolicyDecision } from '../../../../main/contract/admin-api';
import type { BridgeApi } from '../../api/bridge-api';
import type { ApiError } from '../../api/bridge-api';
import { inputError, toApiError } from '../../api/bridge-api';
import { Loading } from '../../components/empty-state';
import { ErrorBanner, ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { POLICY_DECISIONS, formatPackageList, orderedRiskClasses, parsePackageList, withDefault } from '../../lib/policy-edit';
import { TYPED_TEXT_CHOICES, typedTextHint } from '../../lib/typed-text-wording';

export function PoliciesSection(props: { api: BridgeApi }): React.JSX.Element {
  const { api } = props;
  const [saved, setSaved] = useState<AdminPolicies | null>(null);
  const [draft, setDraft] = useState<AdminPolicies | null>(null);
  const [appsText, setAppsText] = useState('');
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);

  const adopt = (policies: AdminPolicies): void => {
    setSaved(policies);
    setDraft(policies);
    setAppsText(formatPackageList(policies.sensitive_apps));
  };

  useEffect(() => {
    let active = true;
    api.getPolicies().then(
      (policies) => {
        if (!active) return;
        adopt(policies);
        setLoadError(null);
      },
      (error: unknown) => {
        if (active) setLoadError(toApiError(error));
      },
    );
    return () => {
      active = false;
    };
  }, [api, attempt]);

  const save = useAction((policies: AdminPolicies) => api.putPolicies(policies), adopt);

  if (loadError || !draft || !saved) {
    return (
      <section className="settings-section" aria-labelledby="policies-heading">
        <h3 id="policies-heading">Policies</h3>
        {loadError ? (
          <ErrorBanner title="Could not load the policies." error={loadError} onRetry={() => setAttempt((n) => n + 1)} testId="policy-error-banner" />
        ) : (
          <Loading label="Loading policies…" />
        )}
      </section>
    );
  }

  const parsed = parsePackageList(appsText);
  const dirty =
    JSON.stringify(draft.defaults) !== JSON.stringify(saved.defaults) ||
    parsed.packages.join('\n') !== saved.sensitive_apps.join('\n') ||
    draft.audit_typed_text !== saved.audit_typed_text;
  const classes = orderedRiskClasses(draft.defaults);
  const overrides = Object.keys(draft.per_device).length;

  return (
    <section className="settings-section" aria-labelledby="policies-heading">
      <h3 id="policies-heading">Policies</h3>
      <p className="hint">
        For every phone: <b>allow</b> runs the action, <b>ask</b> holds it under Approvals until you decide, <b>deny</b> refuses it.
        When an action falls into several classes, the strictest decision wins.
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (parsed.invalid.length > 0) {
            const first = parsed.invalid[0];
            setInvalid(inputError(`Line ${first?.line ?? '?'}: "${first?.text ?? ''}" is not an Android package name (like com.example.bank).`));
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
                <th scope="col">Risk class</th>
                <th scope="col">Decision</th>
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
                          {decision}
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
              <label htmlFor="policy-sensitive-apps">Extra sensitive apps (one package per line)</label>
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
              <p className="hint">Added to the built-in list (payments, banking, settings, app stores). Actions in these apps are treated as high risk.</p>
            </div>
            <div className="field" role="radiogroup" aria-labelledby="policy-typed-text-label" data-testid="policy-typed-text">
              <span id="policy-typed-text-label" className="field-label">
                Typed text in the activity log
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
                  <label htmlFor={`policy-typed-text-${choice.value}`}>{choice.label}</label>
                </div>
              ))}
              <p className="hint" data-testid="policy-typed-text-hint">
                {typedTextHint(draft.audit_typed_text)}
              </p>
            </div>
          </div>
        </div>
        {overrides > 0 ? (
          <p className="hint">
            {overrides} phone{overrides === 1 ? ' has' : 's have'} its own overrides; they are kept as they are.
          </p>
        ) : null}
        <div className="actions">
          <button type="submit" className="btn btn-primary" disabled={!dirty || save.pending} data-testid="policy-save">
            {save.pending ? 'Saving…' : 'Save policies'}
          </button>
          <button type="button" className="btn" disabled={!dirty || save.pending} onClick={() => adopt(saved)} data-testid="policy-reset">
            Discard changes
          </button>
          {save.result && !dirty ? (
            <span className="result" role="status" data-testid="policy-saved">
              Saved.
            </span>
          ) : null}
        </div>
        <ErrorText error={invalid ?? save.error} testId="policy-error" />
      </form>
    </section>
  );
}

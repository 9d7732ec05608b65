/**
 * Lab access codes for the `device_claim` binding flow: one per phone or `*` for the whole
 * pool, optionally still requiring a local approval. Codes are write-only: the list shows
 * scopes, never the codes.
 */
import { useState } from 'react';
import { ACCESS_CODE_MIN_LENGTH, type AdminState } from '../../../../main/contract/admin-api';
import type { ApiError } from '../../api/bridge-api';
import { inputError } from '../../api/bridge-api';
import { EmptyState } from '../../components/empty-state';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import type { AdminRequest } from '../../../../main/contract/admin-operations';

type AccessCodeRequest = AdminRequest<'setAccessCode'>;
import type { Translate } from '../../../../main/contract/i18n';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

export const POOL_SCOPE = '*';

/** A real phone of this bridge as the example of what a claimant types ("Pixel 7", "4F2A"); a generic one when none is here. */
function namingExample(state: AdminState): { model: string; tail: string } {
  const label = state.devices.find((d) => d.state === 'device')?.display_name ?? 'Pixel 7 ···4F2A';
  const [model = label, tail = ''] = label.split(' ···');
  return { model, tail: tail || '4F2A' };
}

function scopeName(t: Translate, scope: string, state: AdminState): string {
  if (scope === POOL_SCOPE) return t('settings.codes.pool');
  const device = state.devices.find((d) => d.device_id === scope || d.serial === scope);
  return device ? device.display_name : scope;
}

export function AccessCodesSection(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { state } = props;
  const { t } = useT();
  const [scope, setScope] = useState(POOL_SCOPE);
  const [code, setCode] = useState('');
  const [requireApproval, setRequireApproval] = useState(false);
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const save = useAction(
    (request: AccessCodeRequest) => api.setAccessCode(request),
    () => {
      setCode('');
      props.onChanged();
    },
  );

  return (
    <section className="settings-section" aria-labelledby="codes-heading">
      <h3 id="codes-heading">{t('settings.codes.title')}</h3>
      <p className="hint">{t('settings.codes.hint')}</p>
      <p className="hint" data-testid="access-code-naming">
        <Rich text={t('settings.codes.naming', namingExample(state))} />
      </p>
      <form
        className="field-row"
        onSubmit={(event) => {
          event.preventDefault();
          if (code.trim().length < ACCESS_CODE_MIN_LENGTH) {
            setInvalid(inputError(t('settings.codes.tooShort', { min: ACCESS_CODE_MIN_LENGTH })));
            return;
          }
          setInvalid(null);
          save.run({ scope, code: code.trim(), require_approval: requireApproval });
        }}
      >
        <div className="field">
          <label htmlFor="access-code-scope">{t('settings.codes.appliesTo')}</label>
          <select
            id="access-code-scope"
            value={scope}
            onChange={(e) => setScope(e.target.value)}
            data-testid="access-code-scope"
          >
            <option value={POOL_SCOPE}>{t('settings.codes.pool')}</option>
            {state.devices.map((d) => (
              <option key={d.device_id} value={d.device_id}>
                {d.display_name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="access-code-input">{t('settings.codes.code')}</label>
          <input
            id="access-code-input"
            type="password"
            autoComplete="new-password"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            data-testid="access-code-input"
          />
        </div>
        <div className="field field-check">
          <input
            id="access-code-require-approval"
            type="checkbox"
            checked={requireApproval}
            onChange={(e) => setRequireApproval(e.target.checked)}
            data-testid="access-code-require-approval"
          />
          <label htmlFor="access-code-require-approval">{t('settings.codes.stillAsk')}</label>
        </div>
        <button
          type="submit"
          className="btn btn-primary field-button"
          disabled={save.pending}
          data-testid="access-code-submit"
        >
          {t('settings.codes.save')}
        </button>
      </form>
      <ErrorText error={invalid ?? save.error} testId="access-code-error" />
      {state.access_codes.length === 0 ? (
        <EmptyState title={t('settings.codes.emptyTitle')}>
          <p>{t('settings.codes.emptyText')}</p>
        </EmptyState>
      ) : (
        <ul className="row-list compact" data-testid="access-code-list">
          {state.access_codes.map((entry) => (
            <AccessCodeRow
              key={entry.scope}
              entry={entry}
              name={scopeName(t, entry.scope, state)}
              onChanged={props.onChanged}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function AccessCodeRow(props: {
  entry: AdminState['access_codes'][number];
  name: string;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { entry } = props;
  const { t } = useT();
  const remove = useAction(
    () => api.setAccessCode({ scope: entry.scope, code: null, require_approval: false }),
    props.onChanged,
  );
  return (
    <li className="row" data-testid={`access-code-${entry.scope}`}>
      <div className="row-main">
        <span className="strong">{props.name}</span>{' '}
        <span className="muted small">
          {entry.require_approval ? t('settings.codes.withApproval') : t('settings.codes.codeOnly')}
        </span>
        <ErrorText error={remove.error} />
      </div>
      <button
        type="button"
        className="btn"
        onClick={() => remove.run()}
        disabled={remove.pending}
        data-testid={`access-code-remove-${entry.scope}`}
      >
        {t('settings.codes.remove')}
      </button>
    </li>
  );
}

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
import { CheckField, SelectField, SubmitButton, TextField } from '../../components/form-fields';
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
        <SelectField
          id="access-code-scope"
          label={t('settings.codes.appliesTo')}
          value={scope}
          onValue={setScope}
          options={[
            { value: POOL_SCOPE, label: t('settings.codes.pool') },
            ...state.devices.map((d) => ({ value: d.device_id, label: d.display_name })),
          ]}
        />
        <TextField
          id="access-code-input"
          label={t('settings.codes.code')}
          type="password"
          autoComplete="new-password"
          value={code}
          onValue={setCode}
        />
        <CheckField
          id="access-code-require-approval"
          label={t('settings.codes.stillAsk')}
          checked={requireApproval}
          onChecked={setRequireApproval}
        />
        <SubmitButton pending={save.pending} testId="access-code-submit" inRow>
          {t('settings.codes.save')}
        </SubmitButton>
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

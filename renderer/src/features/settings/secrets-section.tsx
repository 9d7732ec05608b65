/**
 * The lab's named secrets (docs/REFERENCE.md "Secrets by reference"): passwords an agent types by name
 * with android_type_text `secret` and never sees. Write-only like access codes: the list
 * shows names, phones and when each changed, never a value; saving under an existing name
 * replaces it, and deleting asks first.
 */
import { useRef, useState } from 'react';
import {
  SECRET_NAME_PATTERN,
  SECRET_VALUE_MAX_LENGTH,
  type AdminSecret,
  type AdminState,
} from '../../../../main/contract/admin-api';
import type { Translate } from '../../../../main/contract/i18n';
import type { AdminRequest } from '../../../../main/contract/admin-operations';
import type { ApiError } from '../../api/bridge-api';

type SecretRequest = AdminRequest<'putSecret'>;
import { inputError } from '../../api/bridge-api';
import { ConfirmButton } from '../../components/confirm-button';
import { RelativeTime } from '../../components/countdown';
import { EmptyState } from '../../components/empty-state';
import { CheckField, SelectField, SubmitButton, TextField } from '../../components/form-fields';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
import { useApi } from '../../api/api-context';

/** A phone's name as the console shows it; a phone not connected now keeps its device id. */
function phoneName(state: AdminState, deviceId: string): string {
  return state.devices.find((d) => d.device_id === deviceId)?.display_name ?? deviceId;
}

/** What is wrong with the form before it is sent, in the person's language; null when nothing. */
export function secretFormProblem(
  t: Translate,
  form: { name: string; value: string; everyPhone: boolean; phones: readonly string[] },
): string | null {
  if (!SECRET_NAME_PATTERN.test(form.name)) return t('settings.secrets.badName');
  if (form.value.length === 0) return t('settings.secrets.noValue');
  if (form.value.length > SECRET_VALUE_MAX_LENGTH)
    return t('settings.secrets.tooLong', { max: SECRET_VALUE_MAX_LENGTH });
  if (form.name.includes(form.value)) return t('settings.secrets.nameInValue');
  if (!form.everyPhone && form.phones.length === 0) return t('settings.secrets.noPhoneChosen');
  return null;
}

export function SecretsSection(props: { state: AdminState; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { state } = props;
  const { t } = useT();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [everyPhone, setEveryPhone] = useState(true);
  const [phones, setPhones] = useState<string[]>([]);
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const valueRef = useRef<HTMLInputElement>(null);
  const save = useAction(
    (secretName: string, request: SecretRequest) => api.putSecret({ name: secretName, ...request }),
    () => {
      setName('');
      setValue('');
      props.onChanged();
    },
  );
  // Phones to choose from: those connected now, and those a secret being replaced names.
  const choices = [...new Set([...state.devices.map((d) => d.device_id), ...phones])];
  const toggle = (deviceId: string, on: boolean): void =>
    setPhones((now) => (on ? [...now.filter((d) => d !== deviceId), deviceId] : now.filter((d) => d !== deviceId)));
  const replace = (secret: AdminSecret): void => {
    setName(secret.name);
    setValue('');
    setEveryPhone(secret.devices === null);
    setPhones(secret.devices ?? []);
    setInvalid(null);
    valueRef.current?.focus();
  };

  return (
    <section className="settings-section" aria-labelledby="secrets-heading" data-testid="secrets-section">
      <h3 id="secrets-heading">{t('settings.secrets.title')}</h3>
      <p className="hint">
        <Rich text={t('settings.secrets.hint')} />
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          const problem = secretFormProblem(t, { name: name.trim(), value, everyPhone, phones });
          if (problem !== null) {
            setInvalid(inputError(problem));
            return;
          }
          setInvalid(null);
          save.run(name.trim(), { value, devices: everyPhone ? null : phones });
        }}
      >
        <div className="field-row">
          <TextField
            id="secret-name"
            label={t('settings.secrets.name')}
            value={name}
            onValue={setName}
            autoComplete="off"
            spellCheck={false}
          />
          <TextField
            id="secret-value"
            label={t('settings.secrets.value')}
            ref={valueRef}
            type="password"
            autoComplete="new-password"
            value={value}
            onValue={setValue}
          />
          <SelectField
            id="secret-scope"
            label={t('settings.secrets.scope')}
            value={everyPhone ? 'every' : 'some'}
            onValue={(choice) => setEveryPhone(choice === 'every')}
            options={[
              { value: 'every', label: t('settings.secrets.everyPhone') },
              { value: 'some', label: t('settings.secrets.somePhones') },
            ]}
          />
          <SubmitButton pending={save.pending} testId="secret-submit" inRow>
            {t('settings.secrets.save')}
          </SubmitButton>
        </div>
        {everyPhone ? null : (
          <fieldset className="field-row" data-testid="secret-phones">
            <legend className="muted small">{t('settings.secrets.choosePhones')}</legend>
            {choices.length === 0 ? <p className="hint">{t('settings.secrets.noPhones')}</p> : null}
            {choices.map((deviceId) => (
              <CheckField
                key={deviceId}
                id={`secret-phone-${deviceId}`}
                label={phoneName(state, deviceId)}
                checked={phones.includes(deviceId)}
                onChecked={(on) => toggle(deviceId, on)}
              />
            ))}
          </fieldset>
        )}
      </form>
      <p className="hint">{t('settings.secrets.sameName')}</p>
      <ErrorText error={invalid ?? save.error} testId="secret-error" />
      {state.secrets.length === 0 ? (
        <EmptyState title={t('settings.secrets.emptyTitle')}>
          <p>{t('settings.secrets.emptyText')}</p>
        </EmptyState>
      ) : (
        <ul className="row-list compact" data-testid="secret-list">
          {state.secrets.map((secret) => (
            <SecretRow
              key={secret.name}
              secret={secret}
              state={state}
              onReplace={() => replace(secret)}
              onChanged={props.onChanged}
            />
          ))}
        </ul>
      )}
    </section>
  );
}

function SecretRow(props: {
  secret: AdminSecret;
  state: AdminState;
  onReplace: () => void;
  onChanged: () => void;
}): React.JSX.Element {
  const api = useApi();
  const { secret, state } = props;
  const { t } = useT();
  const remove = useAction(() => api.deleteSecret({ name: secret.name }), props.onChanged);
  const scope =
    secret.devices === null
      ? t('settings.secrets.onEveryPhone')
      : t('settings.secrets.onPhones', { phones: secret.devices.map((d) => phoneName(state, d)).join(', ') });
  return (
    <li className="row" data-testid={`secret-${secret.name}`}>
      <div className="row-main">
        <code className="strong">{secret.name}</code> <span className="muted small">{scope}</span>{' '}
        <span className="muted small">
          {t('settings.secrets.updated')} <RelativeTime at={secret.updated_at} />
        </span>
        <ErrorText error={remove.error} />
      </div>
      <button type="button" className="btn" onClick={props.onReplace} data-testid={`secret-replace-${secret.name}`}>
        {t('settings.secrets.replace')}
      </button>
      <ConfirmButton
        label={t('settings.secrets.delete')}
        prompt={t('settings.secrets.deletePrompt', { name: secret.name })}
        confirmLabel={t('settings.secrets.delete')}
        danger
        disabled={remove.pending}
        onConfirm={() => remove.run()}
        testId={`secret-delete-${secret.name}`}
        confirmTestId={`secret-delete-confirm-${secret.name}`}
        cancelTestId={`secret-delete-cancel-${secret.name}`}
      />
    </li>
  );
}

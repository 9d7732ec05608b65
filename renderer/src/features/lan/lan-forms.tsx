/**
 * The two LAN forms: add a phone by address (adb connect) and pair one with a
 * wireless-debugging code (adb pair). Input is checked here first for a precise message;
 * the bridge's own error (`{error:{code,message}}`) is shown next to the form.
 */
import { useState } from 'react';
import type { ApiError } from '../../api/bridge-api';
import { inputError } from '../../api/bridge-api';
import { FormCard, SubmitButton, TextField } from '../../components/form-fields';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { checkLanAddress, checkPairingCode } from '../../lib/lan-address';
import { known, useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

export function AddLanForm(props: { onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const lanStatus = (status: string): string => known(t, `lan.status.${status}`, status);
  const [address, setAddress] = useState('');
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const add = useAction(
    (value: string) => api.addLanDevice({ address: value }),
    () => {
      setAddress('');
      props.onChanged();
    },
  );

  return (
    <FormCard
      id="lan-add"
      title={t('lan.add.title')}
      hint={t('lan.add.hint')}
      onSubmit={() => {
        const check = checkLanAddress(address, false, t);
        if (!check.ok) {
          setInvalid(inputError(check.message ?? t('lan.check.empty')));
          return;
        }
        setInvalid(null);
        add.run(address.trim());
      }}
    >
      <label htmlFor="lan-add-input">{t('lan.add.label')}</label>
      <div className="inline-form">
        <input
          id="lan-add-input"
          type="text"
          inputMode="url"
          autoComplete="off"
          spellCheck={false}
          placeholder="192.168.1.20:5555"
          value={address}
          onChange={(event) => setAddress(event.target.value)}
          aria-invalid={invalid ? true : undefined}
          data-testid="lan-add-input"
        />
        <SubmitButton pending={add.pending} testId="lan-add-submit">
          {add.pending ? t('lan.add.pending') : t('lan.add.button')}
        </SubmitButton>
      </div>
      <ErrorText error={invalid ?? add.error} testId="lan-add-error" />
      {add.result ? (
        <p className="result" role="status" data-testid="lan-add-result">
          {t('lan.add.result', {
            address: add.result.lan_device.address,
            status: lanStatus(add.result.lan_device.status),
          })}
        </p>
      ) : null}
    </FormCard>
  );
}

/** `initialAddress`: prefilled from a discovered phone (the parent re-mounts the form with a new key). */
export function PairLanForm(props: { onChanged: () => void; initialAddress?: string }): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const [address, setAddress] = useState(props.initialAddress ?? '');
  const [code, setCode] = useState('');
  const [invalid, setInvalid] = useState<ApiError | null>(null);
  const pair = useAction(
    (a: string, c: string) => api.pairLanDevice({ address: a, code: c }),
    () => {
      setCode('');
      props.onChanged();
    },
  );

  return (
    <FormCard
      id="lan-pair"
      title={t('lan.pair.title')}
      hint={t('lan.pair.hint')}
      onSubmit={() => {
        const check = checkLanAddress(address, true, t);
        const codeCheck = checkPairingCode(code, t);
        const problem = !check.ok ? check.message : !codeCheck.ok ? codeCheck.message : undefined;
        if (problem) {
          setInvalid(inputError(problem));
          return;
        }
        setInvalid(null);
        pair.run(address.trim(), code.trim());
      }}
    >
      <div className="field-row">
        <TextField
          id="lan-pair-address"
          label={t('lan.pair.address')}
          autoComplete="off"
          spellCheck={false}
          placeholder="192.168.1.20:37123"
          value={address}
          onValue={setAddress}
        />
        <TextField
          id="lan-pair-code"
          label={t('lan.pair.code')}
          narrow
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          // Coming from "Pair…" on a discovered phone, the code is the one thing left to type.
          autoFocus={Boolean(props.initialAddress)}
          placeholder="123456"
          value={code}
          onValue={(typed) => setCode(typed.replace(/\D/g, ''))}
        />
        <SubmitButton pending={pair.pending} testId="lan-pair-submit" inRow>
          {pair.pending ? t('lan.pair.pending') : t('lan.pair.button')}
        </SubmitButton>
      </div>
      <ErrorText error={invalid ?? pair.error} testId="lan-pair-error" />
      {pair.result ? (
        <p className="result" role="status" data-testid="lan-pair-result">
          {pair.result.message}
        </p>
      ) : null}
    </FormCard>
  );
}

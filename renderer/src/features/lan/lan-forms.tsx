/**
 * The two LAN forms: add a phone by address (adb connect) and pair one with a
 * wireless-debugging code (adb pair). Input is checked here first for a precise message;
 * the bridge's own error (`{error:{code,message}}`) is shown next to the form.
 */
import { useState } from 'react';
import type { ApiError } from '../../api/bridge-api';
import { inputError } from '../../api/bridge-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { checkLanAddress, checkPairingCode } from '../../lib/lan-address';
import { known, useT } from '../../i18n/i18n-context';
import { Rich } from '../../i18n/rich-text';
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
    <form
      className="form-card"
      aria-labelledby="lan-add-heading"
      onSubmit={(event) => {
        event.preventDefault();
        const check = checkLanAddress(address, false, t);
        if (!check.ok) {
          setInvalid(inputError(check.message ?? t('lan.check.empty')));
          return;
        }
        setInvalid(null);
        add.run(address.trim());
      }}
    >
      <h3 id="lan-add-heading">{t('lan.add.title')}</h3>
      <p className="hint">
        <Rich text={t('lan.add.hint')} />
      </p>
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
        <button type="submit" className="btn btn-primary" disabled={add.pending} data-testid="lan-add-submit">
          {add.pending ? t('lan.add.pending') : t('lan.add.button')}
        </button>
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
    </form>
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
    <form
      className="form-card"
      aria-labelledby="lan-pair-heading"
      onSubmit={(event) => {
        event.preventDefault();
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
      <h3 id="lan-pair-heading">{t('lan.pair.title')}</h3>
      <p className="hint">
        <Rich text={t('lan.pair.hint')} />
      </p>
      <div className="field-row">
        <div className="field">
          <label htmlFor="lan-pair-address">{t('lan.pair.address')}</label>
          <input
            id="lan-pair-address"
            type="text"
            autoComplete="off"
            spellCheck={false}
            placeholder="192.168.1.20:37123"
            value={address}
            onChange={(event) => setAddress(event.target.value)}
            data-testid="lan-pair-address"
          />
        </div>
        <div className="field field-narrow">
          <label htmlFor="lan-pair-code">{t('lan.pair.code')}</label>
          <input
            id="lan-pair-code"
            type="text"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            // Coming from "Pair…" on a discovered phone, the code is the one thing left to type.
            autoFocus={Boolean(props.initialAddress)}
            placeholder="123456"
            value={code}
            onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
            data-testid="lan-pair-code"
          />
        </div>
        <button
          type="submit"
          className="btn btn-primary field-button"
          disabled={pair.pending}
          data-testid="lan-pair-submit"
        >
          {pair.pending ? t('lan.pair.pending') : t('lan.pair.button')}
        </button>
      </div>
      <ErrorText error={invalid ?? pair.error} testId="lan-pair-error" />
      {pair.result ? (
        <p className="result" role="status" data-testid="lan-pair-result">
          {pair.result.message}
        </p>
      ) : null}
    </form>
  );
}

/**
 * Settings → Screen stream: the lab-wide default for minicap (docs/REFERENCE.md "Screen stream"),
 * with what it is, where it goes on the phone, when it runs and how it is reached, in plain
 * words, since turning it on is the person's consent. `ask`: only phones a person turned it on
 * for ("Fast live screen" on the phone's card or view); `on`: every phone unless turned off there.
 */
import type { AdminScreenStreamSettings } from '../../../../main/contract/admin-api';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

export function ScreenStreamSection(props: {
  settings: AdminScreenStreamSettings | undefined;
  onChanged: () => void;
}): React.JSX.Element | null {
  const api = useApi();
  const { t } = useT();
  const save = useAction(
    (mode: AdminScreenStreamSettings['default']) => api.putScreenStream({ default: mode }),
    props.onChanged,
  );
  if (!props.settings) return null;
  const { available, version } = props.settings;
  return (
    <section className="settings-section" aria-labelledby="screen-stream-heading" data-testid="settings-screen-stream">
      <h3 id="screen-stream-heading">{t('stream.settings.title')}</h3>
      <p className="hint">{t('stream.settings.explain')}</p>
      <div className="field">
        <label htmlFor="settings-screen-stream">{t('stream.settings.default')}</label>
        <select
          id="settings-screen-stream"
          value={props.settings.default}
          disabled={save.pending || !available}
          onChange={(event) => save.run(event.target.value === 'on' ? 'on' : 'ask')}
          data-testid="settings-screen-stream-default"
        >
          <option value="ask">{t('stream.settings.ask')}</option>
          <option value="on">{t('stream.settings.on')}</option>
        </select>
      </div>
      {available ? (
        version ? (
          <p className="muted small" data-testid="settings-screen-stream-version">
            {t('stream.settings.version', { version })}
          </p>
        ) : null
      ) : (
        <p className="hint hint-warn" data-testid="settings-screen-stream-unavailable">
          {t('stream.settings.unavailable')}
        </p>
      )}
      <ErrorText error={save.error} testId="settings-screen-stream-error" />
    </section>
  );
}

/**
 * Settings → Language: English, 简体中文, or follow the system (the browser's languages in the
 * web console, the system's in the desktop app). Saved in the bridge's settings, so every
 * console, the desktop app, its tray and its notifications switch together, and live.
 */
import { LANGUAGE_SETTINGS, pickLocale, type LanguageSetting } from '../../../../main/contract/i18n';
import { ErrorText } from '../../components/error-banner';
import { useAction } from '../../components/use-action';
import { useT } from '../../i18n/i18n-context';
import { useApi } from '../../api/api-context';

export function LanguageSection(props: { setting: LanguageSetting; onChanged: () => void }): React.JSX.Element {
  const api = useApi();
  const { t } = useT();
  const save = useAction((language: LanguageSetting) => api.patchSettings({ language }), props.onChanged);
  const system = pickLocale(typeof navigator === 'undefined' ? [] : navigator.languages);
  const label = (setting: LanguageSetting): string =>
    setting === 'system'
      ? t('settings.language.system', { current: t(`settings.language.${system}`) })
      : t(`settings.language.${setting}`);
  return (
    <section className="settings-section" aria-labelledby="language-heading">
      <h3 id="language-heading">{t('settings.language.title')}</h3>
      <div className="field">
        <label htmlFor="settings-language">{t('settings.language.label')}</label>
        <select
          id="settings-language"
          className="language-select"
          value={props.setting}
          disabled={save.pending}
          onChange={(event) => save.run(event.target.value as LanguageSetting)}
          data-testid="settings-language"
        >
          {LANGUAGE_SETTINGS.map((setting) => (
            <option key={setting} value={setting} lang={setting === 'system' ? undefined : setting}>
              {label(setting)}
            </option>
          ))}
        </select>
      </div>
      <p className="hint">{t('settings.language.hint')}</p>
      <ErrorText error={save.error} testId="settings-language-error" />
    </section>
  );
}

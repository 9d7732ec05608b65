/**
 * The UI's language: a React provider over the one catalogue (main/contract/i18n) and the
 * `useT()` hook every component uses for its words, times and durations. The locale is the
 * person's choice in Settings (kept in the bridge's settings, so the desktop app and the web
 * console agree), else the browser's languages; `<html lang>` follows it.
 */
import { createContext, useContext, useEffect, useMemo, useState } from 'react';
import {
  formatters,
  hasMessage,
  resolveLocale,
  translator,
  type Formatters,
  type LanguageSetting,
  type Locale,
  type Translate,
} from '../../../main/contract/i18n';

export interface I18n {
  locale: Locale;
  /** `t('devices.title')`, `t('approvals.waiting', { count })`. */
  t: Translate;
  /** Times, durations and dates in the locale's words. */
  format: Formatters;
}

function i18nFor(locale: Locale): I18n {
  return { locale, t: translator(locale), format: formatters(locale) };
}

const I18nContext = createContext<I18n>(i18nFor('en'));

function browserLanguages(): readonly string[] {
  if (typeof navigator === 'undefined') return [];
  return navigator.languages.length > 0 ? navigator.languages : [navigator.language];
}

/** navigator.languages, updated when the browser's language list changes. */
function useBrowserLanguages(): readonly string[] {
  const [languages, setLanguages] = useState(browserLanguages);
  useEffect(() => {
    const update = (): void => setLanguages(browserLanguages());
    window.addEventListener('languagechange', update);
    return () => window.removeEventListener('languagechange', update);
  }, []);
  return languages;
}

/** Provides the language; `setting` is the bridge's (undefined until known: browser languages). */
export function I18nProvider(props: {
  setting?: LanguageSetting | undefined;
  children: React.ReactNode;
}): React.JSX.Element {
  const languages = useBrowserLanguages();
  const locale = resolveLocale(props.setting, languages);
  const value = useMemo(() => i18nFor(locale), [locale]);
  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);
  return <I18nContext.Provider value={value}>{props.children}</I18nContext.Provider>;
}

export function useT(): I18n {
  return useContext(I18nContext);
}

/**
 * The catalogue's word for a value the bridge sends (a status, an outcome), built as a key at
 * run time: `known(t, 'lan.status.' + status, status)`; the value itself when the catalogue
 * has no such key (a value added later still shows, untranslated).
 */
export function known(t: Translate, key: string, fallback: string): string {
  return hasMessage(key) ? t(key) : fallback;
}

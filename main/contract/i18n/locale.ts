/**
 * Which language to speak: the person's choice in Settings (`language`), else the first of
 * the system's or browser's preferred languages that we speak, else English.
 */
import type { Locale } from './define';

/** The Settings choice, stored in the bridge's settings (state.json) and in the admin API. */
export type LanguageSetting = 'system' | Locale;

export const LANGUAGE_SETTINGS: readonly LanguageSetting[] = ['system', 'en', 'zh-CN'];

export function isLanguageSetting(value: unknown): value is LanguageSetting {
  return typeof value === 'string' && (LANGUAGE_SETTINGS as readonly string[]).includes(value);
}

/**
 * The first preferred language we speak. Any Chinese (zh, zh-CN, zh-Hans-SG, zh-TW …) reads
 * Simplified Chinese: for a Traditional Chinese reader it is closer than English. Any English
 * reads English. Languages we do not speak are skipped; none left means English.
 */
export function pickLocale(languages: readonly string[]): Locale {
  for (const tag of languages) {
    const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
    if (primary === 'zh') return 'zh-CN';
    if (primary === 'en') return 'en';
  }
  return 'en';
}

/** The locale to use for a setting, given the system's or browser's languages. */
export function resolveLocale(setting: LanguageSetting | undefined, languages: readonly string[]): Locale {
  return setting === 'en' || setting === 'zh-CN' ? setting : pickLocale(languages);
}

/**
 * The shape every messages module has: an English object, and a Simplified Chinese object
 * typed to have exactly the English keys (a key missing or extra in zh-CN is a compile
 * error; test/unit/i18n-catalogue.test.ts checks the same at run time, with placeholders).
 */

export type Locale = 'en' | 'zh-CN';

/** Every locale the app speaks, English first (the fallback). */
export const LOCALES: readonly Locale[] = ['en', 'zh-CN'];

/** The other language's object for an English one: the same keys, string values. */
export type Translation<En> = { readonly [K in keyof En]: string };

export interface AreaMessages<En> {
  readonly en: En;
  readonly 'zh-CN': Translation<En>;
}

/** Pairs an area's two languages; the type parameter is read from the English object. */
export function defineMessages<En extends Record<string, string>>(en: En, zhCN: Translation<En>): AreaMessages<En> {
  return { en, 'zh-CN': zhCN };
}

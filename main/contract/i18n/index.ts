/**
 * Two languages for the whole app (English, Simplified Chinese), one catalogue for the
 * renderer, the desktop app's tray and notifications, and tests. No DOM, no electron.
 *
 *   translate('zh-CN', 'devices.title')          → 设备
 *   translate('en', 'approvals.waiting', { count: 2 })
 *   pickLocale(navigator.languages)              → 'zh-CN' | 'en'
 *   formatters('zh-CN').relative(then, now)      → 5 分钟前
 *
 * Messages live in messages/<area>.ts; see define.ts for their shape.
 */
export { LOCALES, defineMessages, type AreaMessages, type Locale, type Translation } from './define';
export { interpolate, placeholderNames, type MessageParams } from './interpolate';
export {
  catalogue,
  hasMessage,
  translate,
  translator,
  type Area,
  type Catalogue,
  type MessageKey,
  type Translate,
} from './catalogue';
export { LANGUAGE_SETTINGS, isLanguageSetting, pickLocale, resolveLocale, type LanguageSetting } from './locale';
export {
  formatClock,
  formatCountdown,
  formatDateTime,
  formatDuration,
  formatLimit,
  formatNumber,
  formatRelative,
  formatSecondsLeft,
  formatStamp,
  formatStampRange,
  formatters,
  stampParts,
  type Formatters,
} from './format';

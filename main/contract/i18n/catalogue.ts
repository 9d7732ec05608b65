/**
 * The one catalogue: every area's messages under its name, and `translate` over it. Keys are
 * written `area.key` (e.g. `devices.card.stop`), checked at compile time through MessageKey.
 */
import type { Locale } from './define';
import { interpolate, type MessageParams } from './interpolate';
import actions from './messages/actions';
import activity from './messages/activity';
import approvals from './messages/approvals';
import asks from './messages/asks';
import bindings from './messages/bindings';
import common from './messages/common';
import connect from './messages/connect';
import devices from './messages/devices';
import errors from './messages/errors';
import evidence from './messages/evidence';
import helper from './messages/helper';
import lan from './messages/lan';
import pairings from './messages/pairings';
import phoneCheck from './messages/phone-check';
import phoneView from './messages/phone-view';
import programs from './messages/programs';
import settings from './messages/settings';
import stream from './messages/stream';
import tools from './messages/tools';
import tray from './messages/tray';
import turnover from './messages/turnover';

export const catalogue = {
  common,
  connect,
  devices,
  'phone-check': phoneCheck,
  'phone-view': phoneView,
  programs,
  helper,
  stream,
  bindings,
  approvals,
  asks,
  activity,
  settings,
  lan,
  pairings,
  tray,
  turnover,
  tools,
  actions,
  errors,
  evidence,
} as const;

export type Catalogue = typeof catalogue;
export type Area = keyof Catalogue;

/** Every key of the catalogue, as `area.key`. */
export type MessageKey = {
  [A in Area]: `${A}.${Extract<keyof Catalogue[A]['en'], string>}`;
}[Area];

function lookup(locale: Locale, key: string): string | undefined {
  const dot = key.indexOf('.');
  if (dot < 0) return undefined;
  const area = (
    catalogue as Record<string, { en: Record<string, string>; 'zh-CN': Record<string, string> } | undefined>
  )[key.slice(0, dot)];
  if (!area) return undefined;
  const name = key.slice(dot + 1);
  return Object.hasOwn(area[locale], name) ? area[locale][name] : undefined;
}

/** True when `key` is in the catalogue (for keys built at run time, such as `errors.<code>`). */
export function hasMessage(key: string): key is MessageKey {
  return lookup('en', key) !== undefined;
}

/**
 * The message for `key` in `locale`, placeholders filled. Falls back to English, then to the
 * key itself, so a gap shows as text in review and never throws.
 */
export function translate(locale: Locale, key: MessageKey, params?: MessageParams): string {
  const message = lookup(locale, key) ?? lookup('en', key);
  return message === undefined ? key : interpolate(locale, message, params);
}

/** The translation function for one locale: `t('devices.title')`. */
export type Translate = (key: MessageKey, params?: MessageParams) => string;

export function translator(locale: Locale): Translate {
  return (key, params) => translate(locale, key, params);
}

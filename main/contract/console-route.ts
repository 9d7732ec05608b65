/**
 * The console's addresses inside its page: `#/<section>`, `#/settings/<part>` and a phone's
 * view `#/devices/<device_id>` (phone-view-route.ts). They live in the fragment, so they work
 * alike in the web console (under a proxy's path prefix too) and in the desktop app's page,
 * and never reach the server; Back, Forward and bookmarks follow them. The web console's
 * token may ride along once, after a `?` (`#/pairings?token=…`), as the CLI's links carry it;
 * renderer/src/api/console-token.ts takes it out. Plain functions only.
 */
import { phoneFromHash, phoneHash } from './phone-view-route';

/** The sections of the console's navigation, in its order. */
export const CONSOLE_SECTIONS = [
  'connect',
  'devices',
  'lan',
  'bindings',
  'pairings',
  'approvals',
  'activity',
  'settings',
] as const;
export type ConsoleSection = (typeof CONSOLE_SECTIONS)[number];

/** The parts of Settings, in the page's order; `#/settings` alone shows them all. */
export const SETTINGS_PARTS = [
  'language',
  'connection',
  'bridge',
  'hosts',
  'access-codes',
  'secrets',
  'policies',
  'fast-lane',
  'screen-stream',
  'hand-over',
  'limits',
] as const;
export type SettingsPart = (typeof SETTINGS_PARTS)[number];

export type ConsoleRoute =
  | { section: Exclude<ConsoleSection, 'settings'> }
  | { section: 'settings'; part: SettingsPart | null }
  | { section: 'phone'; deviceId: string };

const isSection = (text: string): text is ConsoleSection => (CONSOLE_SECTIONS as readonly string[]).includes(text);
const isPart = (text: string): text is SettingsPart => (SETTINGS_PARTS as readonly string[]).includes(text);

/** The route a fragment names ("#/settings/limits", "#/devices/<id>?token=…"), or null for anything else. */
export function routeFromHash(hash: string): ConsoleRoute | null {
  const path = (hash.startsWith('#') ? hash.slice(1) : hash).split('?')[0] ?? '';
  if (!path.startsWith('/')) return null;
  const deviceId = phoneFromHash(`#${path}`);
  if (deviceId !== null) return { section: 'phone', deviceId };
  const [section = '', part, ...rest] = path.slice(1).split('/');
  if (rest.length > 0 || !isSection(section)) return null;
  if (section === 'settings') {
    if (part === undefined || part === '') return { section, part: null };
    return isPart(part) ? { section, part } : null;
  }
  return part === undefined || part === '' ? { section } : null;
}

/** The fragment of a route: "#/devices", "#/settings/limits", "#/devices/<id>". */
export function routeHash(route: ConsoleRoute): string {
  if (route.section === 'phone') return phoneHash(route.deviceId);
  if (route.section === 'settings' && route.part !== null) return `#/settings/${route.part}`;
  return `#/${route.section}`;
}

/**
 * A link to a route of the web console that also brings the admin token, for a tab that has
 * none yet: `<consoleUrl>#/pairings?token=…` (consoleUrl ends in `/console/`).
 */
export function consoleLink(consoleUrl: string, route: ConsoleRoute, token: string): string {
  return `${consoleUrl}${routeHash(route)}?token=${encodeURIComponent(token)}`;
}

/**
 * The web console's admin token: it arrives once in the URL fragment (`/console/#token=XYZ`,
 * or after a section's address, `/console/#/pairings?token=XYZ`; never sent to the server,
 * not in access logs), is kept in sessionStorage for reloads of this tab, and removed from the
 * address bar so it is not bookmarked or shared by accident. A link pasted into a tab that is
 * already open brings its token the same way (main.tsx listens for the fragment's change).
 */

/**
 * A fragment's route and its parameters: "#/pairings?token=X" is the route "/pairings" with
 * "token=X" (main/contract/console-route.ts); "#token=X" (the CLI's console link) is
 * parameters alone.
 */
function splitFragment(hash: string): { route: string; params: URLSearchParams } {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!raw.startsWith('/')) return { route: '', params: new URLSearchParams(raw) };
  const mark = raw.indexOf('?');
  return mark < 0
    ? { route: raw, params: new URLSearchParams() }
    : { route: raw.slice(0, mark), params: new URLSearchParams(raw.slice(mark + 1)) };
}

/** The token in a location hash like "#token=XYZ" (also "#a=b&token=XYZ", "#/pairings?token=XYZ"), else null. */
export function tokenFromFragment(hash: string): string | null {
  const value = splitFragment(hash).params.get('token');
  return value && value.trim() ? value.trim() : null;
}

/** The fragment with the token removed, its route kept ('' when nothing else was in it). */
export function fragmentWithoutToken(hash: string): string {
  const { route, params } = splitFragment(hash);
  params.delete('token');
  const rest = params.toString();
  if (route) return rest ? `#${route}?${rest}` : `#${route}`;
  return rest ? `#${rest}` : '';
}

const STORAGE_KEY = 'device-bridge.admin-token';

export interface TokenHost {
  location: { hash: string; pathname: string; search: string };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
  sessionStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
}

/**
 * Reads the token from the fragment (storing it and cleaning the address bar) or, failing
 * that, from sessionStorage. Storage may be unavailable (privacy modes); the token then
 * lives only as long as the page.
 */
export function takeConsoleToken(host: TokenHost): string | null {
  const fromFragment = tokenFromFragment(host.location.hash);
  if (fromFragment) {
    try {
      host.sessionStorage.setItem(STORAGE_KEY, fromFragment);
    } catch {
      // storage blocked: keep it in memory only
    }
    const { pathname, search, hash } = host.location;
    host.history.replaceState(null, '', `${pathname}${search}${fragmentWithoutToken(hash)}`);
    return fromFragment;
  }
  try {
    return host.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

/** Forgets a token the bridge refused, so a reload does not retry it. */
export function forgetConsoleToken(host: Pick<TokenHost, 'sessionStorage'>): void {
  try {
    host.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing stored
  }
}

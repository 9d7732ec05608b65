/**
 * The web console's admin token: it arrives once in the URL fragment (`/console/#token=XYZ`,
 * never sent to the server, not in access logs), is kept in sessionStorage for reloads of
 * this tab, and removed from the address bar so it is not bookmarked or shared by accident.
 */

/** The token in a location hash like "#token=XYZ" (also "#a=b&token=XYZ"), else null. */
export function tokenFromFragment(hash: string): string | null {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  if (!raw) return null;
  const value = new URLSearchParams(raw).get('token');
  return value && value.trim() ? value.trim() : null;
}

/** The fragment with the token removed ('' when nothing else was in it). */
export function fragmentWithoutToken(hash: string): string {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  params.delete('token');
  const rest = params.toString();
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

/**
 * Which section the console shows, read from the page's fragment (main/contract/console-route.ts)
 * and followed on every change, so Back, Forward, bookmarks and a link pasted into the open tab
 * all move the console without a reload. Going to a section writes the fragment (one history
 * entry each). An address that names no section is replaced, once the bridge's state is known,
 * by the first page: the connect guide until an xAgent has said hello, Devices after.
 */
import { useCallback, useEffect, useState } from 'react';
import { routeFromHash, routeHash, type ConsoleRoute, type ConsoleSection } from '../../../main/contract/console-route';
import { tokenFromFragment } from '../api/console-token';

export interface ConsoleRouteView {
  /** null until the first page is known (no section in the address, state not loaded yet). */
  route: ConsoleRoute | null;
  go: (route: ConsoleRoute) => void;
}

/** `firstSection`: where an address without a section opens; null while that is not known yet. */
export function useConsoleRoute(firstSection: ConsoleSection | null): ConsoleRouteView {
  const [route, setRoute] = useState<ConsoleRoute | null>(() => routeFromHash(window.location.hash));

  useEffect(() => {
    const update = (): void => setRoute(routeFromHash(window.location.hash));
    window.addEventListener('hashchange', update);
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);

  useEffect(() => {
    // A token still in the fragment is main.tsx's to take first; it rewrites the address then.
    if (route !== null || firstSection === null || tokenFromFragment(window.location.hash) !== null) return;
    const first: ConsoleRoute =
      firstSection === 'settings' ? { section: 'settings', part: null } : { section: firstSection };
    // Replaced, not pushed: Back from the first page leaves the console as it did before.
    const { pathname, search } = window.location;
    window.history.replaceState(window.history.state, '', `${pathname}${search}${routeHash(first)}`);
    setRoute(first);
  }, [route, firstSection]);

  const go = useCallback((next: ConsoleRoute) => {
    const hash = routeHash(next);
    if (window.location.hash === hash) setRoute(routeFromHash(hash));
    else window.location.hash = hash;
  }, []);

  return { route, go };
}

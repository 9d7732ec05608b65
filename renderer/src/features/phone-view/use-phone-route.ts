/**
 * The phone view's address: `#/devices/<device_id>` in the page's fragment (format in
 * main/contract/phone-view-route.ts), so a link, the device card and the desktop app's tray
 * can all open it, and Back closes it. The console's
 * token travels in the fragment only on the first load (`#token=…`), before this is read.
 */
import { useCallback, useEffect, useState } from 'react';
import { phoneFromHash, phoneHash } from '../../../../main/contract/phone-view-route';

export { phoneFromHash, phoneHash };

export interface PhoneRoute {
  deviceId: string | null;
  open: (deviceId: string) => void;
  close: () => void;
}

export function usePhoneRoute(): PhoneRoute {
  const [deviceId, setDeviceId] = useState<string | null>(() => phoneFromHash(window.location.hash));
  useEffect(() => {
    const update = (): void => setDeviceId(phoneFromHash(window.location.hash));
    window.addEventListener('hashchange', update);
    update();
    return () => window.removeEventListener('hashchange', update);
  }, []);
  const open = useCallback((id: string) => {
    window.location.hash = phoneHash(id);
  }, []);
  const close = useCallback(() => {
    if (phoneFromHash(window.location.hash) === null) return;
    const { pathname, search } = window.location;
    window.history.pushState(null, '', `${pathname}${search}`);
    setDeviceId(null);
  }, []);
  return { deviceId, open, close };
}

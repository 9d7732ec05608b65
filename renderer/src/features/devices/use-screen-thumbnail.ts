/**
 * Live thumbnail of one phone's screen: fetched as a blob (so the admin token can ride in a
 * header) and shown through an object URL. Refreshes every ~2 s only while mounted (the
 * Devices view is open) and the document is visible; old object URLs are revoked. The last
 * image of each phone is kept (a few KB), so coming back to Devices shows it at once
 * instead of "Loading screen…" until the next capture.
 */
import { useEffect, useState } from 'react';
import { useApi } from '../../api/api-context';

const REFRESH_MS = 2_000;
const LAST_KEPT = 64;
const lastImage = new Map<string, Blob>();

function remember(deviceId: string, blob: Blob): void {
  lastImage.delete(deviceId);
  lastImage.set(deviceId, blob);
  // Oldest first in a Map: drop phones not seen for a long while.
  for (const key of lastImage.keys()) {
    if (lastImage.size <= LAST_KEPT) break;
    lastImage.delete(key);
  }
}

export interface Thumbnail {
  url: string | null;
  failed: boolean;
}

export function useScreenThumbnail(deviceId: string, enabled: boolean): Thumbnail {
  const api = useApi();
  const [thumb, setThumb] = useState<Thumbnail>({ url: null, failed: false });

  useEffect(() => {
    if (!enabled) {
      setThumb({ url: null, failed: false });
      return;
    }
    let stopped = false;
    let inFlight = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let controller: AbortController | undefined;
    // The URL on screen and the one before it: the older is revoked only once a newer one
    // has been rendered, so the <img> never points at a revoked URL.
    const kept = lastImage.get(deviceId);
    let shown: string | null = kept ? URL.createObjectURL(kept) : null;
    let previous: string | null = null;
    setThumb({ url: shown, failed: false });
    const visible = (): boolean => document.visibilityState === 'visible';

    const tick = async (): Promise<void> => {
      timer = undefined;
      if (stopped || inFlight || !visible()) return;
      inFlight = true;
      controller = new AbortController();
      try {
        const blob = await api.getDeviceScreen({ device_id: deviceId }, { signal: controller.signal });
        if (stopped) return;
        remember(deviceId, blob);
        if (previous) URL.revokeObjectURL(previous);
        previous = shown;
        shown = URL.createObjectURL(blob);
        setThumb({ url: shown, failed: false });
      } catch {
        if (!stopped) setThumb((t) => ({ url: t.url, failed: true }));
      } finally {
        inFlight = false;
      }
      if (!stopped && visible()) timer = setTimeout(() => void tick(), REFRESH_MS);
    };

    const onVisibility = (): void => {
      if (visible() && timer === undefined && !inFlight) void tick();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void tick();

    return () => {
      stopped = true;
      clearTimeout(timer);
      controller?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
      for (const url of [shown, previous]) if (url) URL.revokeObjectURL(url);
    };
  }, [api, deviceId, enabled]);

  return thumb;
}

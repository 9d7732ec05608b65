/**
 * Live thumbnail of one phone's screen: fetched as a blob (so the admin token can ride in a
 * header) and shown through an object URL (use-frame-loop.ts). Refreshes every ~2 s only
 * while mounted (the Devices view is open) and the document is visible. The last
 * image of each phone is kept (a few KB), so coming back to Devices shows it at once
 * instead of "Loading screen…" until the next capture.
 */
import { useState } from 'react';
import { useApi } from '../../api/api-context';
import { useFrameLoop } from '../../components/use-frame-loop';

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

const IDLE: Thumbnail = { url: null, failed: false };

export function useScreenThumbnail(deviceId: string, enabled: boolean): Thumbnail {
  const api = useApi();
  const [thumb, setThumb] = useState<Thumbnail>(IDLE);

  useFrameLoop(enabled, [deviceId], {
    begin(urls) {
      const kept = lastImage.get(deviceId);
      setThumb({ url: kept ? urls.show(kept) : null, failed: false });
    },
    fetch: (signal) => api.getDeviceScreen({ device_id: deviceId }, { signal }),
    present(blob, urls) {
      remember(deviceId, blob);
      setThumb({ url: urls.show(blob), failed: false });
      return REFRESH_MS;
    },
    failed() {
      setThumb((t) => ({ url: t.url, failed: true }));
      return REFRESH_MS;
    },
    ended: () => setThumb(IDLE),
  });

  return thumb;
}

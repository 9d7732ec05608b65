/**
 * The phone view's address inside the app's page: `#/devices/<device_id>`. The renderer reads
 * it (state/use-console-route.ts; the other sections' addresses are in console-route.ts) and
 * the desktop app's tray writes it to open a phone's view in the window, so the format lives
 * here, at the boundary. Plain functions only.
 */

const ROUTE = /^#\/devices\/([^/?#]+)$/;

/** The phone a fragment opens, or null. */
export function phoneFromHash(hash: string): string | null {
  const match = ROUTE.exec(hash);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

/** The fragment that opens a phone's view. */
export function phoneHash(deviceId: string): string {
  return `#/devices/${encodeURIComponent(deviceId)}`;
}

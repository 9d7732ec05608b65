/**
 * Where the bridge's own paths (/admin/api/…, /files/refs/…) live for this page. The web
 * console is served at /console/, or under a reverse proxy's prefix (/devices/console/ when
 * the bridge runs behind https://lab.example/devices); its requests keep that prefix. The
 * desktop app's page (app://bridge/index.html) has none.
 */

/** '' at /console/, '/devices' at /devices/console/, '' for any page not under console/. */
export function bridgePathBase(pathname: string = globalThis.location?.pathname ?? ''): string {
  const at = pathname.lastIndexOf('/console');
  if (at < 0) return '';
  const rest = pathname.slice(at + '/console'.length);
  return rest === '' || rest.startsWith('/') ? pathname.slice(0, at) : '';
}

/** A bridge path (`/files/refs/…`) as this page must request it. */
export function bridgePath(path: string, pathname?: string): string {
  return path.startsWith('/') ? `${bridgePathBase(pathname)}${path}` : path;
}

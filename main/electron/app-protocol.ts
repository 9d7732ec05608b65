/**
 * The `app://bridge/` origin the window loads the UI from (instead of file://, which would
 * open the whole disk to the page and give it no CSP header). What it may serve is decided
 * by window-security.ts resolveAppRequest; signed screenshot URLs are fetched from the
 * bridge itself, which checks their signature (over https pinned to its own certificate
 * when TLS is on: own-bridge-fetch.ts).
 */
import { protocol } from 'electron';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchFromOwnBridge, type OwnBridge } from './own-bridge-fetch';
import { APP_SCHEME, appResponseHeaders, resolveAppRequest } from './window-security';

const BRIDGE_FETCH_TIMEOUT_MS = 10_000;

/** Must run before app 'ready': makes app:// a standard, secure origin ('self' in the CSP works). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    {
      scheme: APP_SCHEME,
      privileges: { standard: true, secure: true, supportFetchAPI: false, corsEnabled: false, stream: false },
    },
  ]);
}

function notFound(): Response {
  return new Response('not found', { status: 404, headers: appResponseHeaders('text/plain; charset=utf-8') });
}

/** Serves app:// from the built renderer folder; returns a function that unregisters it. */
export function serveAppProtocol(rendererDir: string, bridge: OwnBridge): () => void {
  protocol.handle(APP_SCHEME, async (request) => {
    if (request.method !== 'GET') return notFound();
    const resource = resolveAppRequest(request.url);
    if (!resource) return notFound();
    try {
      if (resource.kind === 'file') {
        const body = await readFile(join(rendererDir, resource.file));
        return new Response(new Uint8Array(body), { status: 200, headers: appResponseHeaders(resource.type) });
      }
      const upstream = await fetchFromOwnBridge(bridge, resource.pathAndQuery, BRIDGE_FETCH_TIMEOUT_MS);
      const type = upstream.contentType;
      // Only pictures go back to the page: a signed URL of any other file is not for the UI.
      if (upstream.status !== 200 || !/^image\/(jpeg|png|webp)$/.test(type)) return notFound();
      return new Response(new Uint8Array(upstream.body), { status: 200, headers: appResponseHeaders(type) });
    } catch {
      return notFound();
    }
  });
  return () => protocol.unhandle(APP_SCHEME);
}

/**
 * The desktop window's security rules as plain data and pure functions (no electron import,
 * so they are unit-tested without the Electron binary): the renderer is served from a
 * private `app://bridge/` origin with a strict CSP, only a fixed list of files (plus signed
 * screenshot URLs, proxied to the bridge) is reachable there, and IPC is answered only for
 * frames showing that page.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'bridge';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

/**
 * CSP of every app:// response. Images may be blob:/data: (phone thumbnails arrive as bytes
 * over IPC) or same-origin (approval screenshots, proxied). The UI talks to the bridge only
 * through the preload, so it may open no connection at all.
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "connect-src 'none'",
  "font-src 'none'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** webPreferences of the one window: the renderer gets no Node and runs in Chromium's sandbox. */
export const WINDOW_WEB_PREFERENCES = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  webviewTag: false,
  experimentalFeatures: false,
  navigateOnDragDrop: false,
  spellcheck: false,
} as const;

/** Built renderer files the app:// origin serves, by URL path. */
const APP_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/index.html': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
  '/icon.png': { file: 'icon.png', type: 'image/png' },
};

/**
 * The path shape of a signed download URL (main/core/files/signed-url.ts); approval
 * screenshots come under /console/ (gated like the console, not by --allow-from).
 */
const SIGNED_FILE_PATH = /^(?:\/console)?\/files\/refs\/file_[A-Za-z0-9_-]{32}$/;

export type AppResource =
  { kind: 'file'; file: string; type: string } | { kind: 'bridge'; pathAndQuery: string } | null;

/**
 * What an app:// request may load: one of the renderer's files, or a signed file URL that is
 * fetched from the bridge (which checks the signature). Anything else is null (404). The
 * request path never reaches the filesystem: only names from the fixed list do.
 */
export function resolveAppRequest(rawUrl: string): AppResource {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST || url.username || url.password) return null;
  const entry = APP_FILES[url.pathname];
  if (entry) return { kind: 'file', ...entry };
  if (SIGNED_FILE_PATH.test(url.pathname)) {
    const exp = url.searchParams.get('exp');
    const sig = url.searchParams.get('sig');
    if (!exp || !sig || !/^\d{1,16}$/.test(exp) || !/^[A-Za-z0-9_-]{16,128}$/.test(sig)) return null;
    return { kind: 'bridge', pathAndQuery: `${url.pathname}?exp=${exp}&sig=${encodeURIComponent(sig)}` };
  }
  return null;
}

/** Response headers for every app:// answer. */
export function appResponseHeaders(contentType: string): Record<string, string> {
  return {
    'Content-Type': contentType,
    'Content-Security-Policy': RENDERER_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  };
}

/** True only for the app's own page (`app://bridge/` or `app://bridge/index.html`, any fragment). */
export function isAppPageUrl(rawUrl: string): boolean {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return false;
  }
  return (
    url.protocol === `${APP_SCHEME}:` &&
    url.host === APP_HOST &&
    !url.username &&
    !url.password &&
    url.search === '' &&
    (url.pathname === '/' || url.pathname === '/index.html')
  );
}

/** The parts of Electron's IpcMainInvokeEvent the sender check reads (structural, for tests). */
export interface IpcSenderFrame {
  url: string;
  parent: unknown;
}
export interface IpcEventLike {
  sender: unknown;
  senderFrame: IpcSenderFrame | null;
}
export interface WindowContentsLike {
  mainFrame: unknown;
  isDestroyed(): boolean;
}

/**
 * An IPC call is answered only when it comes from our window's webContents, from its top
 * frame (never an iframe), and that frame shows the app's own page. A page the renderer was
 * somehow navigated to, or a frame inside it, gets nothing.
 */
export function isTrustedIpcSender(event: IpcEventLike, contents: WindowContentsLike | null): boolean {
  if (!contents || contents.isDestroyed()) return false;
  if (event.sender !== contents) return false;
  const frame = event.senderFrame;
  if (!frame || frame !== contents.mainFrame || frame.parent !== null) return false;
  return isAppPageUrl(frame.url);
}

/** The window never navigates: the UI is one page, and links to elsewhere are not followed. */
export function allowNavigation(_url: string): boolean {
  return false;
}

/** Camera, microphone, notifications-from-page, geolocation, clipboard-read…: all refused. */
export function allowPermission(_permission: string): boolean {
  return false;
}

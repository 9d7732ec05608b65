import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  APP_ENTRY_URL,
  RENDERER_CSP,
  WINDOW_WEB_PREFERENCES,
  allowNavigation,
  allowPermission,
  appResponseHeaders,
  isAppPageUrl,
  isTrustedIpcSender,
  resolveAppRequest,
} from '../../main/electron/window-security';
import { ADMIN_OPERATION_NAMES } from '../../main/contract/admin-operations';
import { DEVICE_BRIDGE_IPC_METHODS } from '../../main/contract/ipc-api';

const ROOT = join(__dirname, '..', '..');
const SIGNED =
  'app://bridge/files/refs/file_abcdefghijklmnopqrstuvwxyz012345?exp=1767000000000&sig=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde';

function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => [d.split(/\s+/)[0]!, d.split(/\s+/).slice(1).join(' ')]),
  );
}

describe('Electron window security (pure rules)', () => {
  test('the window runs the renderer isolated, sandboxed and without Node', () => {
    assert.equal(WINDOW_WEB_PREFERENCES.contextIsolation, true);
    assert.equal(WINDOW_WEB_PREFERENCES.sandbox, true);
    assert.equal(WINDOW_WEB_PREFERENCES.nodeIntegration, false);
    assert.equal(WINDOW_WEB_PREFERENCES.nodeIntegrationInSubFrames, false);
    assert.equal(WINDOW_WEB_PREFERENCES.nodeIntegrationInWorker, false);
    assert.equal(WINDOW_WEB_PREFERENCES.webSecurity, true);
    assert.equal(WINDOW_WEB_PREFERENCES.webviewTag, false);
    assert.equal(WINDOW_WEB_PREFERENCES.allowRunningInsecureContent, false);
    // The shell passes these exact preferences (plus the preload path).
    const shell = readFileSync(join(ROOT, 'main', 'electron', 'desktop-app.ts'), 'utf8');
    assert.match(shell, /webPreferences: \{ \.\.\.WINDOW_WEB_PREFERENCES, preload: PRELOAD \}/);
    assert.match(shell, /app\.enableSandbox\(\)/);
  });

  test('the CSP allows only own scripts and styles, thumbnails as blob:/data:, and no network', () => {
    const d = directives(RENDERER_CSP);
    assert.equal(d.get('default-src'), "'none'");
    assert.equal(d.get('script-src'), "'self'");
    assert.equal(d.get('style-src'), "'self'");
    assert.equal(d.get('img-src'), "'self' blob: data:");
    assert.equal(d.get('connect-src'), "'none'");
    assert.equal(d.get('object-src'), "'none'");
    assert.equal(d.get('base-uri'), "'none'");
    assert.equal(d.get('frame-ancestors'), "'none'");
    assert.doesNotMatch(RENDERER_CSP, /unsafe-inline|unsafe-eval|\*|https?:/);
    const headers = appResponseHeaders('text/html; charset=utf-8');
    assert.equal(headers['Content-Security-Policy'], RENDERER_CSP);
    assert.equal(headers['X-Content-Type-Options'], 'nosniff');
  });

  test('app:// serves the fixed renderer files and signed screenshot URLs only', () => {
    assert.deepEqual(resolveAppRequest('app://bridge/'), {
      kind: 'file',
      file: 'index.html',
      type: 'text/html; charset=utf-8',
    });
    assert.deepEqual(resolveAppRequest(APP_ENTRY_URL), {
      kind: 'file',
      file: 'index.html',
      type: 'text/html; charset=utf-8',
    });
    assert.equal(resolveAppRequest('app://bridge/app.js')?.kind, 'file');
    assert.equal(resolveAppRequest('app://bridge/app.css')?.kind, 'file');
    const signed = resolveAppRequest(SIGNED);
    assert.equal(signed?.kind, 'bridge');
    assert.match(
      (signed as { pathAndQuery: string }).pathAndQuery,
      /^\/files\/refs\/file_[A-Za-z0-9]{32}\?exp=\d+&sig=[A-Za-z0-9_-]+$/,
    );
    const approvalShot = resolveAppRequest(SIGNED.replace('app://bridge/files/', 'app://bridge/console/files/'));
    assert.match(
      (approvalShot as { pathAndQuery: string }).pathAndQuery,
      /^\/console\/files\/refs\/file_[A-Za-z0-9]{32}\?exp=\d+&sig=[A-Za-z0-9_-]+$/,
    );
    assert.equal(resolveAppRequest(SIGNED.replace('app://bridge/files/', 'app://bridge/other/files/')), null);
    for (const bad of [
      'app://bridge/../../etc/passwd',
      'app://bridge/%2e%2e/%2e%2e/etc/passwd',
      'app://bridge/app.js.map',
      'app://bridge/package.json',
      'app://bridge//etc/passwd',
      'app://other/index.html',
      'app://user:pw@bridge/index.html',
      'file:///etc/passwd',
      'https://bridge/index.html',
      'app://bridge/files/refs/file_short?exp=1&sig=abcdefghijklmnopqrstu',
      'app://bridge/files/refs/file_abcdefghijklmnopqrstuvwxyz012345',
      'app://bridge/files/refs/file_abcdefghijklmnopqrstuvwxyz012345?exp=abc&sig=AbCdEfGhIjKlMnOpQr',
      'app://bridge/files/uploads',
      'app://bridge/admin/api/state',
      'not a url',
    ]) {
      assert.equal(resolveAppRequest(bad), null, bad);
    }
  });

  test('only the app page itself counts as the app page', () => {
    assert.ok(isAppPageUrl('app://bridge/'));
    assert.ok(isAppPageUrl('app://bridge/index.html'));
    assert.ok(isAppPageUrl('app://bridge/index.html#approvals'));
    for (const url of [
      'app://bridge/app.js',
      'app://bridge/index.html?x=1',
      'app://evil/index.html',
      'file:///app/dist/renderer/index.html',
      'http://127.0.0.1:8765/console/',
      'about:blank',
      'devtools://devtools/bundled/inspector.html',
      'data:text/html,hi',
      '',
    ]) {
      assert.equal(isAppPageUrl(url), false, url);
    }
  });

  test('IPC is answered only for our window, its top frame, on the app page', () => {
    const mainFrame = { url: APP_ENTRY_URL, parent: null };
    const contents = { mainFrame, isDestroyed: () => false };
    assert.equal(isTrustedIpcSender({ sender: contents, senderFrame: mainFrame }, contents), true);
    // Another webContents (another window, a devtools page…)
    assert.equal(isTrustedIpcSender({ sender: { mainFrame }, senderFrame: mainFrame }, contents), false);
    // A sub-frame of our window
    const child = { url: APP_ENTRY_URL, parent: mainFrame };
    assert.equal(isTrustedIpcSender({ sender: contents, senderFrame: child }, contents), false);
    // Our top frame, navigated somewhere else
    const navigated = { url: 'https://example.com/', parent: null };
    assert.equal(
      isTrustedIpcSender(
        { sender: { ...contents, mainFrame: navigated }, senderFrame: navigated },
        { ...contents, mainFrame: navigated },
      ),
      false,
    );
    // The frame is gone (navigated away or destroyed before the handler ran)
    assert.equal(isTrustedIpcSender({ sender: contents, senderFrame: null }, contents), false);
    // The window is closed
    assert.equal(
      isTrustedIpcSender({ sender: contents, senderFrame: mainFrame }, { mainFrame, isDestroyed: () => true }),
      false,
    );
    assert.equal(isTrustedIpcSender({ sender: contents, senderFrame: mainFrame }, null), false);
  });

  test('navigation and every permission are refused', () => {
    for (const url of ['https://example.com', 'app://bridge/index.html', 'file:///etc/passwd', 'javascript:alert(1)'])
      assert.equal(allowNavigation(url), false);
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen'])
      assert.equal(allowPermission(p), false);
    const shell = readFileSync(join(ROOT, 'main', 'electron', 'desktop-app.ts'), 'utf8');
    assert.match(shell, /setWindowOpenHandler\(\(\) => \(\{ action: 'deny' \}\)\)/);
    assert.match(shell, /setPermissionRequestHandler/);
    assert.match(shell, /setPermissionCheckHandler/);
    assert.match(shell, /'will-navigate'/);
  });

  test('the preload hands the page no generic invoke or send (test/unit/preload.test.ts runs it)', () => {
    const preload = readFileSync(join(ROOT, 'preload', 'index.ts'), 'utf8');
    assert.doesNotMatch(preload, /exposeInMainWorld\([^)]*ipcRenderer/);
    assert.doesNotMatch(preload, /\b(invoke|send|on)\s*:\s*\(?\s*channel/);
    assert.equal((preload.match(/exposeInMainWorld/g) ?? []).length, 1);
    assert.deepEqual(
      [...ADMIN_OPERATION_NAMES].sort(),
      DEVICE_BRIDGE_IPC_METHODS.filter((m) => m !== 'onAdminEvent').sort(),
    );
  });
});

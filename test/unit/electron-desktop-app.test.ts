/**
 * The desktop shell's wiring, run in plain Node against a stand-in for the `electron` module
 * (the real binary is not needed): the order of the security set-up, the window's options,
 * the app:// handler's CSP, the IPC sender check end to end, the tray, the API key kept
 * encrypted, and a clean stop on quit. A real core runs behind it (port 0, no phones).
 */
// First: the electron stand-in must be in require's cache before the shell is loaded.
import {
  FakeWebContents,
  FakeWindow,
  appProtocol,
  encryptedWith,
  exited,
  fakeApp,
  fakeElectron,
  ipcHandlers,
  log,
  permissionHandlers,
  ready,
  trays,
  userData,
} from './electron-fake';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { SettingsStore } from '../../main/electron/desktop-settings';
import { startDesktopApp } from '../../main/electron/desktop-app';

const storeData: Record<string, unknown> = {
  bindHost: '127.0.0.1',
  port: 0,
  adbServers: [{ host: '127.0.0.1', port: 1 }],
  encryptedApiKey: null,
};
const store: SettingsStore = { get: (k) => storeData[k], set: (k, v) => void (storeData[k] = v), store: storeData };

/** The code the shell gave app.exit(); fails if the quit has not got there within `ms`. */
async function exitCodeWithin(ms: number): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the shell did not call app.exit within ${ms} ms of before-quit`)), ms);
  });
  try {
    return await Promise.race([exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('desktop shell wiring (fake electron, real core)', () => {
  let started: Promise<void>;

  before(async () => {
    started = startDesktopApp({ openStore: async () => store });
    // Everything that must happen before 'ready' has happened by now.
    assert.deepEqual(log.slice(0, 2), ['enableSandbox', 'privileged:app:true:true']);
    ready();
    await started;
  });

  after(async () => {
    if (fakeApp.exitCode === undefined) {
      fakeApp.emit('before-quit', { preventDefault: () => undefined });
      await exitCodeWithin(10_000);
    }
    rmSync(userData, { recursive: true, force: true });
  });

  test('sandbox and the app:// scheme before ready; a hardened window on app://bridge/', () => {
    assert.ok(log.indexOf('ready') > log.indexOf('privileged:app:true:true'));
    const win = FakeWindow.last!;
    assert.equal(win.loadedUrl, 'app://bridge/index.html');
    const prefs = win.options.webPreferences;
    assert.equal(prefs.contextIsolation, true);
    assert.equal(prefs.sandbox, true);
    assert.equal(prefs.nodeIntegration, false);
    assert.match(prefs.preload, /preload[/\\]index\.js$/);
    assert.equal(win.options.minWidth, 1024);
    assert.equal(win.options.minHeight, 700);
  });

  test('navigation, redirects, webviews, new windows and permissions are refused', () => {
    const contents = FakeWindow.last!.webContents;
    for (const event of ['will-navigate', 'will-redirect']) {
      let prevented = false;
      contents.emit(event, { preventDefault: () => (prevented = true) }, 'https://example.com/');
      assert.ok(prevented, event);
    }
    let webview = false;
    contents.emit('will-attach-webview', { preventDefault: () => (webview = true) });
    assert.ok(webview);
    assert.deepEqual(contents.windowOpenHandler?.({ url: 'https://example.com/' }), { action: 'deny' });
    let granted: boolean | undefined;
    permissionHandlers.request?.(contents, 'media', (ok: boolean) => (granted = ok));
    assert.equal(granted, false);
    assert.equal(permissionHandlers.check?.(contents, 'notifications'), false);
  });

  test('app:// serves the page with the strict CSP and refuses other paths', async () => {
    assert.ok(appProtocol.handler);
    const page = (await appProtocol.handler(new Request('app://bridge/index.html'))) as Response;
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'; script-src 'self'/);
    assert.match(await page.text(), /<div id="root">/);
    for (const url of ['app://bridge/../package.json', 'app://bridge/main/index.ts', 'app://evil/index.html']) {
      assert.equal(((await appProtocol.handler(new Request(url))) as Response).status, 404, url);
    }
    assert.equal(
      ((await appProtocol.handler(new Request('app://bridge/index.html', { method: 'POST', body: 'x' }))) as Response)
        .status,
      404,
    );
  });

  test('IPC: our page gets the state; any other sender gets nothing', async () => {
    const contents = FakeWindow.last!.webContents;
    const getState = ipcHandlers.get('device-bridge:getState');
    assert.ok(getState);
    const ok = await getState({ sender: contents, senderFrame: contents.mainFrame }, undefined);
    assert.equal(ok.ok, true);
    assert.ok(Array.isArray(ok.value.devices));
    const iframe = { url: 'app://bridge/index.html', parent: contents.mainFrame };
    const refused = await getState({ sender: contents, senderFrame: iframe }, undefined);
    assert.deepEqual(refused, { ok: false, error: { code: 'permission_denied', message: 'unknown sender' } });
    const other = new FakeWebContents();
    assert.equal((await getState({ sender: other, senderFrame: other.mainFrame }, undefined)).ok, false);
  });

  test('the tray says nothing waits; the API key is kept encrypted, with no plaintext file', () => {
    const tray = trays[0];
    assert.equal(tray.tooltip, 'xAgent Device Bridge');
    assert.equal(tray.title, '');
    assert.ok(log.includes('badge:0'));
    const encrypted = storeData.encryptedApiKey;
    assert.equal(typeof encrypted, 'string');
    assert.ok(
      Buffer.from(encrypted as string, 'base64')
        .toString()
        .startsWith(encryptedWith),
    );
    assert.equal(existsSync(join(userData, 'bridge', 'api-key')), false, 'no plaintext key next to the encrypted one');
  });

  test('a rotated key is saved encrypted at once', async () => {
    const contents = FakeWindow.last!.webContents;
    const before = storeData.encryptedApiKey;
    const rotated = await ipcHandlers.get('device-bridge:rotateApiKey')!(
      { sender: contents, senderFrame: contents.mainFrame },
      undefined,
    );
    assert.equal(rotated.ok, true);
    assert.notEqual(storeData.encryptedApiKey, before);
    const decrypted = fakeElectron.safeStorage.decryptString(
      Buffer.from(storeData.encryptedApiKey as string, 'base64'),
    );
    assert.equal(decrypted, rotated.value.api_key);
  });

  test('quitting stops the core, removes handlers and exits', async () => {
    let prevented = false;
    fakeApp.emit('before-quit', { preventDefault: () => (prevented = true) });
    assert.ok(prevented, 'the quit waits for the core to stop');
    assert.equal(fakeApp.exitCode, undefined, 'not before the core has stopped');
    assert.equal(await exitCodeWithin(10_000), 0);
    assert.equal(ipcHandlers.size, 0);
    assert.ok(log.includes('protocol.unhandle:app'));
    assert.ok(log.includes('tray.destroy'));
  });
});

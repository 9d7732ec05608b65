/**
 * The desktop shell: one hardened BrowserWindow on the bundled renderer, IPC handlers that
 * check their sender and forward to the core's admin operations, a tray with the pending
 * approval count, notifications for new approvals, and the API key kept at rest through
 * safeStorage where the OS offers it.
 */
import { app, BrowserWindow, Menu, Notification, Tray, nativeImage, session } from 'electron';
import { join } from 'node:path';
import { createCore, type Core } from '../core/create-core';
import { registerIpcHandlers } from './ipc-main';
import { loadDesktopSettings, saveApiKeySecurely } from './desktop-settings';

const RENDERER_DIR = join(__dirname, '..', '..', 'renderer');

function hardenSession(): void {
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
}

function createWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 1024,
    minHeight: 700,
    title: 'xAgent Device Bridge',
    webPreferences: {
      preload: join(__dirname, '..', '..', 'preload', 'index.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: false,
    },
  });
  win.webContents.on('will-navigate', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
  void win.loadFile(join(RENDERER_DIR, 'index.html'));
  return win;
}

export async function startDesktopApp(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  await app.whenReady();
  hardenSession();
  const settings = await loadDesktopSettings();
  const core: Core = createCore({
    dataDir: join(app.getPath('userData'), 'bridge'),
    host: settings.bindHost,
    port: settings.port,
    adbServers: settings.adbServers,
    ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  });
  await core.start();
  saveApiKeySecurely(core.apiKey());
  const win = createWindow();
  registerIpcHandlers(core, win);

  const tray = new Tray(nativeImage.createFromPath(join(__dirname, '..', '..', '..', 'resources', 'icon.png')));
  tray.setToolTip('xAgent Device Bridge');
  const seenApprovals = new Set<string>();
  const refreshTray = (): void => {
    const state = core.adminState();
    const pending = state.approvals.length;
    tray.setTitle(pending ? String(pending) : '');
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: pending ? `${pending} approval(s) waiting` : 'No approvals waiting', enabled: false },
        { label: 'Open', click: () => win.show() },
        { label: 'Quit', click: () => app.quit() },
      ]),
    );
    for (const approval of state.approvals) {
      if (seenApprovals.has(approval.approval_id)) continue;
      seenApprovals.add(approval.approval_id);
      if (Notification.isSupported()) {
        new Notification({ title: 'Approval needed', body: `${approval.tool_id} on ${approval.device_id}: ${approval.reasons.join(', ')}` }).show();
      }
    }
  };
  core.hub.on('event', refreshTray);
  refreshTray();

  app.on('window-all-closed', () => {
    // Keep serving xAgent from the tray; quitting is explicit.
  });
  app.on('before-quit', () => {
    void core.stop();
  });
}

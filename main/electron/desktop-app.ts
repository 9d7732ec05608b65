/**
 * The desktop shell: one hardened BrowserWindow on the bundled renderer (served from
 * app://bridge/ with a strict CSP), IPC handlers that check their sender, a tray with the
 * pending count, notifications for new approvals, settings in electron-store and the API key
 * at rest through safeStorage where the OS really encrypts. The rules themselves live in
 * electron-free modules (window-security, ipc-handlers, tray-state, api-key-vault,
 * desktop-settings) that are unit-tested.
 */
import {
  app,
  BrowserWindow,
  Menu,
  Notification,
  Tray,
  nativeImage,
  safeStorage,
  session,
  type WebContents,
} from 'electron';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createCore, type Core } from '../core/create-core';
import { ApiKeyVault, corePlainKeyFile } from './api-key-vault';
import { registerAppScheme, serveAppProtocol } from './app-protocol';
import { encryptedKeySlot, loadDesktopSettings, openSettingsStore, type SettingsStore } from './desktop-settings';
import { normalizeDesktopNetwork, startWithTlsFallback } from './desktop-network-settings';
import { registerIpcHandlers } from './ipc-main';
import {
  ApprovalNotifier,
  APP_NAME,
  approvalNotification,
  HelperAlertNotifier,
  helperAlertNotification,
  shouldNotify,
  personAskNotification,
  PersonAskNotifier,
  trayMenuLabels,
  trayPhoneEntries,
  trayTakeoverEntries,
  trayView,
} from './tray-state';
import { phoneHash } from '../contract/phone-view-route';
import { resolveLocale } from '../contract/i18n';
import { APP_ENTRY_URL, WINDOW_WEB_PREFERENCES, allowNavigation, allowPermission } from './window-security';

// dist/main/electron → dist/renderer, dist/preload, resources/ (packaged next to dist/).
const RENDERER_DIR = join(__dirname, '..', '..', 'renderer');
const PRELOAD = join(__dirname, '..', '..', 'preload', 'index.js');
const ICON = join(__dirname, '..', '..', '..', 'resources', 'icon.png');

/** Rules for every webContents the app ever creates (the window, and anything it might try to open). */
function hardenContents(contents: WebContents): void {
  contents.on('will-navigate', (event, url) => {
    if (!allowNavigation(url)) event.preventDefault();
  });
  contents.on('will-redirect', (event, url) => {
    if (!allowNavigation(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
}

function hardenSession(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback) => callback(allowPermission(permission)));
  ses.setPermissionCheckHandler((_wc, permission) => allowPermission(permission));
  ses.setDevicePermissionHandler(() => false);
  ses.on('will-download', (event) => event.preventDefault());
}

function createWindow(hash = ''): BrowserWindow {
  const win = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 1024,
    minHeight: 700,
    title: APP_NAME,
    icon: ICON,
    show: false,
    webPreferences: { ...WINDOW_WEB_PREFERENCES, preload: PRELOAD },
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ENTRY_URL}${hash}`);
  return win;
}

/** `openStore` is replaceable so the wiring can be tested with a fake electron and store. */
export async function startDesktopApp(deps: { openStore?: () => Promise<SettingsStore> } = {}): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  // Before 'ready': every renderer sandboxed, and app:// a secure standard origin.
  app.enableSandbox();
  registerAppScheme();
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
  await app.whenReady();
  hardenSession();

  const store = await (deps.openStore ?? openSettingsStore)();
  const { settings, warnings } = loadDesktopSettings(store);
  const dataDir = join(app.getPath('userData'), 'bridge');
  const vault = new ApiKeyVault({
    safeStorage,
    slot: encryptedKeySlot(store),
    plainFile: corePlainKeyFile(dataDir),
    platform: process.platform,
  });
  const key = vault.load();
  if (key.problem) warnings.push(key.problem);

  const network = normalizeDesktopNetwork(store.store);
  warnings.push(...network.warnings);
  const core: Core = await startWithTlsFallback(
    (fallback) =>
      createCore({
        dataDir,
        host: fallback ? '127.0.0.1' : settings.bindHost,
        port: settings.port,
        adbServers: settings.adbServers,
        // SSH hosts added in Settings → Hosts sign in with their own key file or ssh-agent, and are checked against the person's known_hosts.
        ssh: {
          knownHostsFile: join(homedir(), '.ssh', 'known_hosts'),
          ...(process.env.SSH_AUTH_SOCK ? { agentSocket: process.env.SSH_AUTH_SOCK } : {}),
        },
        ...(key.apiKey ? { apiKey: key.apiKey } : {}),
        ...(fallback ? {} : { network: network.network }),
      }),
    warnings,
  );
  const persistKey = (): void => {
    vault.sync(core.apiKey());
  };
  persistKey();

  const unserve = serveAppProtocol(RENDERER_DIR, { url: () => core.url(), tls: () => core.tls() });
  let win: BrowserWindow | null = null;
  const openWindow = (hash = ''): BrowserWindow => {
    const created = createWindow(hash);
    created.on('closed', () => {
      if (win === created) win = null;
    });
    win = created;
    return created;
  };
  const showWindow = (): void => {
    // Closing the window leaves the bridge running in the tray; opening makes a fresh one.
    const current = win && !win.isDestroyed() ? win : openWindow();
    if (current.isMinimized()) current.restore();
    current.show();
    current.focus();
  };
  /** The tray's "Watch <phone>": the window, on that phone's view (an in-page address change, no reload). */
  const showPhone = (deviceId: string): void => {
    const hash = phoneHash(deviceId);
    if (win && !win.isDestroyed())
      void win.webContents.executeJavaScript(`window.location.hash = ${JSON.stringify(hash)};`);
    else openWindow(hash);
    showWindow();
  };
  /**
   * The tray's Take over / Hand back: taking a phone opens its phone view (where the person drives
   * it and hands it back with a note); a refusal shows there too, as the window's own error.
   */
  const takeoverFromTray = (deviceId: string, action: 'take' | 'hand_back', agentMayWatch = false): void => {
    const request =
      action === 'take'
        ? { device_id: deviceId, action, agent_may_watch: agentMayWatch }
        : { device_id: deviceId, action };
    void core.admin.invoke('setDeviceTakeover', request).then(
      () => {
        if (action === 'take') showPhone(deviceId);
      },
      () => showPhone(deviceId),
    );
  };
  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  const unregisterIpc = registerIpcHandlers(core, () => win, {
    afterCall: (name) => {
      if (name === 'rotateApiKey') persistKey();
    },
    extraWarnings: () => warnings,
  });

  const tray = new Tray(nativeImage.createFromPath(ICON));
  const notifier = new ApprovalNotifier();
  const helperAlerts = new HelperAlertNotifier();
  const askAlerts = new PersonAskNotifier();
  const refreshTray = (): void => {
    const state = core.adminState();
    // The bridge's language setting (Settings → Language), else the system's languages.
    const locale = resolveLocale(state.language, app.getPreferredSystemLanguages());
    const view = trayView(state, locale);
    const labels = trayMenuLabels(locale);
    tray.setToolTip(view.tooltip);
    tray.setTitle(view.title);
    app.setBadgeCount(view.badgeCount);
    tray.setContextMenu(
      Menu.buildFromTemplate([
        { label: view.summary, enabled: false },
        { type: 'separator' },
        { label: labels.open, click: showWindow },
        // A Take over asks, as the phone view does, whether the agent may watch (the first choice: it may not).
        ...trayTakeoverEntries(state, locale).map((entry) =>
          entry.choices.length > 0
            ? {
                label: entry.label,
                submenu: entry.choices.map((choice) => ({
                  label: choice.label,
                  click: () => takeoverFromTray(entry.deviceId, entry.action, choice.agentMayWatch),
                })),
              }
            : { label: entry.label, click: () => takeoverFromTray(entry.deviceId, entry.action) },
        ),
        ...trayPhoneEntries(state, locale).map((phone) => ({
          label: phone.label,
          click: () => showPhone(phone.deviceId),
        })),
        { label: labels.quit, click: () => app.quit() },
      ]),
    );
    const fresh = notifier.fresh(state.approvals);
    const current = win && !win.isDestroyed() ? win : null;
    const visible = current !== null && current.isVisible();
    const focused = current !== null && current.isFocused();
    if (
      fresh.length > 0 &&
      shouldNotify({ supported: Notification.isSupported(), windowVisible: visible, windowFocused: focused })
    ) {
      const text = approvalNotification(fresh, state, locale);
      const notification = new Notification({ title: text.title, body: text.body, silent: false });
      notification.on('click', showWindow);
      notification.show();
    }
    // An agent asks the person to take a phone over: said unless the window is in front (its card shows it).
    for (const ask of askAlerts.fresh(state)) {
      if (!shouldNotify({ supported: Notification.isSupported(), windowVisible: visible, windowFocused: focused }))
        break;
      const text = personAskNotification(ask, locale);
      const notification = new Notification({ title: text.title, body: text.body, silent: false });
      // The ask's card is above every view of the window.
      notification.on('click', showWindow);
      notification.show();
    }
    // The fast lane's guard stopped a helper: always said, even to a person looking at the window.
    for (const alert of helperAlerts.fresh(state)) {
      if (!Notification.isSupported()) break;
      const text = helperAlertNotification(alert, locale);
      const notification = new Notification({ title: text.title, body: text.body, silent: false });
      notification.on('click', () => showPhone(alert.deviceId));
      notification.show();
    }
  };
  core.hub.on('event', refreshTray);
  tray.on('click', showWindow);
  openWindow();
  refreshTray();

  app.on('window-all-closed', () => {
    // Keep serving xAgent from the tray; quitting is explicit (tray menu, or the OS).
  });
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting) return;
    quitting = true;
    event.preventDefault();
    core.hub.off('event', refreshTray);
    unregisterIpc();
    unserve();
    tray.destroy();
    persistKey();
    // Stop the core (close phones' sessions, flush state) before the process goes.
    void core.stop().finally(() => app.exit(0));
  });
}

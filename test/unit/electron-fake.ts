/**
 * A stand-in for the `electron` module, installed in require's cache when this file is
 * imported (import it before anything that imports electron): the package's own index.js
 * needs the Electron binary, which tests do not have. It records what the shell does.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Handler = (...args: any[]) => any;
export const log: string[] = [];
export const userData = mkdtempSync(join(tmpdir(), 'desktop-app-'));

export class FakeWebContents extends EventEmitter {
  readonly mainFrame = { url: 'app://bridge/index.html', parent: null };
  readonly sent: unknown[] = [];
  windowOpenHandler: Handler | undefined;
  send(channel: string, payload: unknown): void {
    this.sent.push({ channel, payload });
  }
  isDestroyed(): boolean {
    return false;
  }
  setWindowOpenHandler(h: Handler): void {
    this.windowOpenHandler = h;
  }
}

export class FakeWindow extends EventEmitter {
  static last: FakeWindow | undefined;
  readonly webContents = new FakeWebContents();
  loadedUrl = '';
  constructor(readonly options: any) {
    super();
    FakeWindow.last = this;
    log.push('BrowserWindow');
    fakeApp.emit('web-contents-created', {}, this.webContents);
  }
  loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    return Promise.resolve();
  }
  isDestroyed = (): boolean => false;
  isMinimized = (): boolean => false;
  isVisible = (): boolean => true;
  isFocused = (): boolean => false;
  restore(): void {}
  show(): void {}
  focus(): void {}
}

let markReady!: () => void;
/** Resolves app.whenReady(). */
export const ready = (): void => markReady();
const readyPromise = new Promise<void>((r) => (markReady = r));
let markExited!: (code: number) => void;
/** Resolves with the code the shell gave app.exit() (the quit is over). */
export const exited = new Promise<number>((r) => (markExited = r));
export const fakeApp = Object.assign(new EventEmitter(), {
  exitCode: undefined as number | undefined,
  requestSingleInstanceLock: () => true,
  enableSandbox: () => log.push('enableSandbox'),
  whenReady: () => readyPromise.then(() => void log.push('ready')),
  getPath: (name: string) => (name === 'userData' ? userData : tmpdir()),
  setBadgeCount: (n: number) => log.push(`badge:${n}`),
  getPreferredSystemLanguages: () => ['en-US'],
  quit: () => log.push('quit'),
  exit: (code: number) => {
    fakeApp.exitCode = code;
    log.push(`exit:${code}`);
    markExited(code);
  },
});

export const permissionHandlers: { request?: Handler; check?: Handler } = {};
export const ipcHandlers = new Map<string, Handler>();
export const appProtocol: { handler?: Handler } = {};
export const trays: any[] = [];
export const encryptedWith = 'fake-keyring:';

export const fakeElectron = {
  app: fakeApp,
  BrowserWindow: FakeWindow,
  Menu: { buildFromTemplate: (template: unknown[]) => ({ template }) },
  Notification: Object.assign(
    class {
      constructor(readonly options: unknown) {}
      on(): void {}
      show(): void {
        log.push('notification');
      }
    },
    { isSupported: () => true },
  ),
  Tray: class {
    tooltip = '';
    title = '';
    menu: unknown;
    constructor() {
      trays.push(this);
    }
    setToolTip(t: string): void {
      this.tooltip = t;
    }
    setTitle(t: string): void {
      this.title = t;
    }
    setContextMenu(m: unknown): void {
      this.menu = m;
    }
    on(): void {}
    destroy(): void {
      log.push('tray.destroy');
    }
  },
  nativeImage: { createFromPath: (p: string) => ({ path: p }) },
  safeStorage: {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (s: string) => Buffer.from(encryptedWith + Buffer.from(s).toString('hex')),
    decryptString: (b: Buffer) => Buffer.from(b.toString().slice(encryptedWith.length), 'hex').toString(),
  },
  session: {
    defaultSession: Object.assign(new EventEmitter(), {
      setPermissionRequestHandler: (h: Handler) => (permissionHandlers.request = h),
      setPermissionCheckHandler: (h: Handler) => (permissionHandlers.check = h),
      setDevicePermissionHandler: () => undefined,
    }),
  },
  protocol: {
    registerSchemesAsPrivileged: (schemes: Array<{ scheme: string; privileges: Record<string, boolean> }>) =>
      log.push(
        `privileged:${schemes.map((s) => `${s.scheme}:${s.privileges.secure}:${s.privileges.standard}`).join(',')}`,
      ),
    handle: (scheme: string, h: Handler) => {
      log.push(`protocol.handle:${scheme}`);
      appProtocol.handler = h;
    },
    unhandle: (scheme: string) => log.push(`protocol.unhandle:${scheme}`),
  },
  ipcMain: {
    handle: (channel: string, h: Handler) => ipcHandlers.set(channel, h),
    removeHandler: (channel: string) => ipcHandlers.delete(channel),
  },
  dialog: { showErrorBox: () => undefined },
};

// Answer `require('electron')` with the stand-in (the package's own index.js needs the binary).
const electronPath = require.resolve('electron');
require.cache[electronPath] = {
  id: electronPath,
  filename: electronPath,
  loaded: true,
  exports: fakeElectron,
} as unknown as NodeModule;

/**
 * Registers the IPC handlers (logic in ipc-handlers.ts) on ipcMain once for the app, bound
 * to whichever window is current (the window may be closed to the tray and opened again),
 * and forwards the core's "something changed" events to it. Returns a function that removes
 * both.
 */
import { ipcMain, type BrowserWindow } from 'electron';
import type { Core } from '../core/create-core';
import type { HubEvent } from '../core/events/event-hub';
import type { AdminOperationName } from '../contract/admin-operations';
import { IPC_EVENT_CHANNEL } from '../contract/ipc-api';
import { createIpcHandlers } from './ipc-handlers';
import { isTrustedIpcSender, type IpcEventLike } from './window-security';

export function registerIpcHandlers(
  core: Core,
  getWindow: () => BrowserWindow | null,
  hooks: { afterCall?: (name: AdminOperationName) => void; extraWarnings?: () => string[] } = {},
): () => void {
  const contents = (): Electron.WebContents | null => {
    const win = getWindow();
    return win && !win.isDestroyed() ? win.webContents : null;
  };
  const handlers = createIpcHandlers({
    isTrusted: (event) => isTrustedIpcSender(event as IpcEventLike, contents()),
    invoke: (name, args) => core.admin.invoke(name, args),
    ...hooks,
  });
  for (const [channel, handler] of handlers) ipcMain.handle(channel, handler);

  const forward = (event: HubEvent): void => {
    contents()?.send(IPC_EVENT_CHANNEL, event);
  };
  core.hub.on('event', forward);
  return () => {
    core.hub.off('event', forward);
    for (const channel of handlers.keys()) ipcMain.removeHandler(channel);
  };
}

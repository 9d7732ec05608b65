/**
 * Registers the IPC handlers (logic in ipc-handlers.ts) on ipcMain once for the app, bound
 * to whichever window is current (the window may be closed to the tray and opened again),
 * and forwards the core's "something changed" events to it. Returns a function that removes
 * both.
 */
import { ipcMain, type BrowserWindow } from 'electron';
import type { Core } from '../core/create-core';
import type { HubEvent } from '../core/admin/event-hub';
import { deviceThumbnail } from '../core/admin/admin-routes';
import { BridgeError } from '../core/errors';
import { createIpcHandlers } from './ipc-handlers';
import { IPC_EVENT_CHANNEL } from './ipc-routes';
import { isTrustedIpcSender, type IpcEventLike } from './window-security';

export function registerIpcHandlers(
  core: Core,
  getWindow: () => BrowserWindow | null,
  hooks: { afterCall?: (name: string) => void; extraWarnings?: () => string[] } = {},
): () => void {
  const contents = (): Electron.WebContents | null => {
    const win = getWindow();
    return win && !win.isDestroyed() ? win.webContents : null;
  };
  const handlers = createIpcHandlers({
    isTrusted: (event) => isTrustedIpcSender(event as IpcEventLike, contents()),
    call: (method, path, body) => core.admin.call(method, path, body),
    thumbnail: (deviceId) => deviceThumbnail(core, deviceId),
    frame: async (deviceId, maxSide, after) => {
      if (!core.registry.get(deviceId)) throw new BridgeError('device_not_found', 'no such phone');
      const { frame, fresh } = await core.phoneView.frames.frame(deviceId, Number.isSafeInteger(after) && after > 0 ? after : 0);
      const out = await core.phoneView.frames.scaled(deviceId, frame, Math.min(1280, Math.max(160, Math.round(maxSide))));
      return { bytes: new Uint8Array(out.jpeg), seq: frame.seq, screen_width: frame.screenWidth, screen_height: frame.screenHeight, fresh, lane: frame.lane };
    },
    actionScreen: async (deviceId, actionId) => {
      const jpeg = core.phoneView.timeline.screen(deviceId, actionId);
      if (!jpeg) throw new BridgeError('file_not_found', 'no picture for that action');
      return jpeg;
    },
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

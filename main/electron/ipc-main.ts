/**
 * IPC handlers for the renderer: one per named preload function, each checking that the
 * call comes from our own window's main frame, each forwarding to the same admin operation
 * the web console calls over HTTP. Errors travel as `{ok:false,error:{code,message}}`.
 */
import { ipcMain, type BrowserWindow, type IpcMainInvokeEvent } from 'electron';
import type { Core } from '../core/create-core';
import { deviceThumbnail } from '../core/admin/admin-routes';
import { toWireError } from '../core/errors';
import { IPC_ROUTES, IPC_EVENT_CHANNEL, ipcChannel } from './ipc-routes';

export function registerIpcHandlers(core: Core, win: BrowserWindow): void {
  const fromOurWindow = (event: IpcMainInvokeEvent): boolean =>
    event.sender === win.webContents && event.senderFrame !== null && event.senderFrame === win.webContents.mainFrame;

  for (const [name, route] of Object.entries(IPC_ROUTES)) {
    ipcMain.handle(ipcChannel(name), async (event, rawArgs: unknown) => {
      if (!fromOurWindow(event)) return { ok: false, error: { code: 'permission_denied', message: 'unknown sender' } };
      const args = typeof rawArgs === 'object' && rawArgs !== null ? (rawArgs as Record<string, unknown>) : {};
      try {
        if (name === 'getDeviceScreen') return { ok: true, value: new Uint8Array(await deviceThumbnail(core, typeof args.device_id === 'string' ? args.device_id : '')) };
        const { method, path } = route(args);
        return { ok: true, value: await core.admin.call(method, path, args) };
      } catch (error) {
        return { ok: false, error: toWireError(error) };
      }
    });
  }
  core.hub.on('event', (event) => {
    if (!win.isDestroyed()) win.webContents.send(IPC_EVENT_CHANNEL, event);
  });
}

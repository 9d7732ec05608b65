/**
 * Preload: the only place that touches ipcRenderer. Exposes `window.deviceBridge` with one
 * function per admin operation, made from the contract's table (main/contract/ipc-api.ts),
 * each bound to its own channel (never a generic send/invoke the page could aim elsewhere).
 * A sandboxed preload may require only electron, so scripts/build.mjs bundles this file with
 * the contract it imports.
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { AdminEvent } from '../main/contract/admin-api';
import { ADMIN_OPERATION_NAMES, type AdminOperationName } from '../main/contract/admin-operations';
import { IPC_EVENT_CHANNEL, ipcChannel, type DeviceBridgeIpcApi } from '../main/contract/ipc-api';

/**
 * The preload function of one operation: its argument goes to the main process's handler on
 * the operation's channel, which checks it and answers the operation's IpcResult
 * (main/electron/ipc-handlers.ts). That is why the object below may be typed as the contract's
 * DeviceBridgeIpcApi: the functions are untyped at run time, their channels are not.
 */
function call(name: AdminOperationName): (args?: unknown) => Promise<unknown> {
  const channel = ipcChannel(name);
  return (args?: unknown) => ipcRenderer.invoke(channel, args) as Promise<unknown>;
}

const api = {
  ...Object.fromEntries(ADMIN_OPERATION_NAMES.map((name) => [name, call(name)])),
  onAdminEvent: (listener: (event: AdminEvent) => void): (() => void) => {
    const handler = (_event: unknown, payload: AdminEvent): void => listener(payload);
    ipcRenderer.on(IPC_EVENT_CHANNEL, handler);
    return () => {
      ipcRenderer.removeListener(IPC_EVENT_CHANNEL, handler);
    };
  },
} as DeviceBridgeIpcApi;

// Only the app's own page gets the API (the main process also refuses other senders, and
// the window cannot navigate; this is one more fence). Same literal as window-security.ts.
if (window.location.protocol === 'app:' && window.location.host === 'bridge')
  contextBridge.exposeInMainWorld('deviceBridge', api);

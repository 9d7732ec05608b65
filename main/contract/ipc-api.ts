/**
 * What the Electron preload exposes as `window.deviceBridge`: one named function per admin
 * operation (admin-operations.ts; never a generic send/invoke), plus the event listener.
 * Each takes at most one argument object and resolves to an IpcResult, because an error
 * thrown across ipcMain.handle loses its `code`: the main process sends
 * `{ok:false, error:{code,message}}` and the renderer rebuilds it. Used by main/electron,
 * preload/ and the renderer's IPC transport alike.
 */
import type { AdminEvent } from './admin-api';
import { ADMIN_OPERATION_NAMES, type AdminArgs, type AdminOperationName, type AdminResponse } from './admin-operations';

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

/** One preload function: the argument may be left out when every field is optional. */
export type IpcFunction<N extends AdminOperationName> =
  Record<never, never> extends AdminArgs<N>
    ? (args?: AdminArgs<N>) => Promise<IpcResult<AdminResponse<N>>>
    : (args: AdminArgs<N>) => Promise<IpcResult<AdminResponse<N>>>;

export type DeviceBridgeIpcApi = { [N in AdminOperationName]: IpcFunction<N> } & {
  /** Registers a listener for admin events; returns a function that removes it. */
  onAdminEvent(listener: (event: AdminEvent) => void): () => void;
};

/** Every function the preload must expose. */
export const DEVICE_BRIDGE_IPC_METHODS: readonly (keyof DeviceBridgeIpcApi)[] = [
  ...ADMIN_OPERATION_NAMES,
  'onAdminEvent',
];

/** The channel of one operation. preload/index.ts spells the same (a sandboxed preload may require only electron). */
export function ipcChannel(name: AdminOperationName): `device-bridge:${AdminOperationName}` {
  return `device-bridge:${name}`;
}

/** Where the main process sends admin events. */
export const IPC_EVENT_CHANNEL = 'device-bridge:event';

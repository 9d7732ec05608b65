/**
 * What the Electron preload exposes as `window.deviceBridge`: one named function per admin
 * operation (never a generic send/invoke). Each takes at most one argument object and
 * resolves to an IpcResult, because errors thrown across ipcMain.handle lose their `code`;
 * the main process sends `{ok:false, error:{code,message}}` and the renderer rebuilds it.
 * Types only plus the method-name list, so preload and main can import it safely.
 */
import type {
  AdminPhoneActions,
  AdminPolicies,
  AdminRoutes,
  AdminSettings,
  AdminSettingsPatch,
  AdminState,
  AuditEntry,
} from '../../../main/contract/admin-api';
import type { AdminEvent } from './bridge-api';

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

type Res<K extends keyof AdminRoutes> = AdminRoutes[K]['response'];
type Req<K extends keyof AdminRoutes> = AdminRoutes[K]['request'];

export interface DeviceBridgeIpcApi {
  getState(): Promise<IpcResult<AdminState>>;
  decidePairing(args: { auth_session_id: string } & Req<'POST /admin/api/pairings/:auth_session_id'>): Promise<IpcResult<Res<'POST /admin/api/pairings/:auth_session_id'>>>;
  decideApproval(args: { approval_id: string } & Req<'POST /admin/api/approvals/:approval_id'>): Promise<IpcResult<Res<'POST /admin/api/approvals/:approval_id'>>>;
  revokeChannel(args: { connector_channel_id: string }): Promise<IpcResult<Res<'POST /admin/api/channels/:connector_channel_id/revoke'>>>;
  extendChannel(args: { connector_channel_id: string } & Req<'POST /admin/api/channels/:connector_channel_id/extend'>): Promise<IpcResult<Res<'POST /admin/api/channels/:connector_channel_id/extend'>>>;
  stopDevice(args: { device_id: string }): Promise<IpcResult<Res<'POST /admin/api/devices/:device_id/stop'>>>;
  checkDevice(args: { device_id: string }): Promise<IpcResult<Res<'GET /admin/api/devices/:device_id/check'>>>;
  /** The fast lane on one phone (README "Fast lane"): enable, disable or remove its helper. */
  setDeviceHelper(args: { device_id: string } & Req<'POST /admin/api/devices/:device_id/helper'>): Promise<IpcResult<Res<'POST /admin/api/devices/:device_id/helper'>>>;
  getFastLane(): Promise<IpcResult<Res<'GET /admin/api/fast-lane'>>>;
  putFastLane(args: Req<'PUT /admin/api/fast-lane'>): Promise<IpcResult<Res<'PUT /admin/api/fast-lane'>>>;
  setAccessCode(args: Req<'POST /admin/api/access-codes'>): Promise<IpcResult<Res<'POST /admin/api/access-codes'>>>;
  addLanDevice(args: Req<'POST /admin/api/lan-devices'>): Promise<IpcResult<Res<'POST /admin/api/lan-devices'>>>;
  forgetLanDevice(args: { address: string }): Promise<IpcResult<Res<'DELETE /admin/api/lan-devices/:address'>>>;
  pairLanDevice(args: Req<'POST /admin/api/lan-pair'>): Promise<IpcResult<Res<'POST /admin/api/lan-pair'>>>;
  getAudit(): Promise<IpcResult<{ entries: AuditEntry[] }>>;
  getLanDiscovered(): Promise<IpcResult<Res<'GET /admin/api/lan-discovered'>>>;
  getSettings(): Promise<IpcResult<AdminSettings>>;
  patchSettings(args: AdminSettingsPatch): Promise<IpcResult<Res<'PATCH /admin/api/settings'>>>;
  revealApiKey(): Promise<IpcResult<{ api_key: string }>>;
  rotateApiKey(): Promise<IpcResult<{ api_key: string }>>;
  getPolicies(): Promise<IpcResult<AdminPolicies>>;
  putPolicies(args: AdminPolicies): Promise<IpcResult<AdminPolicies>>;
  /** JPEG bytes of the phone's screen (max side 360 px), as `GET devices/:id/screen`. */
  getDeviceScreen(args: { device_id: string }): Promise<IpcResult<Uint8Array>>;
  /** The phone view's timeline, as `GET devices/:id/actions`. */
  getDeviceActions(args: { device_id: string }): Promise<IpcResult<AdminPhoneActions>>;
  /** A live frame, as `GET devices/:id/frame` (its headers as fields). */
  getDeviceFrame(args: { device_id: string; max_side: number; after: number }): Promise<IpcResult<IpcLiveFrame>>;
  /** The picture of the screen an action was made on, as `GET devices/:id/actions/:action_id/screen`. */
  getActionScreen(args: { device_id: string; action_id: string }): Promise<IpcResult<Uint8Array>>;
  /** Registers a listener for admin events; returns a function that removes it. */
  onAdminEvent(listener: (event: AdminEvent) => void): () => void;
}

/** A live frame over IPC: JPEG bytes and what the HTTP route sends as headers. */
export interface IpcLiveFrame {
  bytes: Uint8Array;
  seq: number;
  screen_width: number;
  screen_height: number;
  fresh: boolean;
  /** Where the picture came from: the fast lane helper's screen stream, or screencap. */
  lane: 'helper' | 'adb';
}

/** Every function the preload must expose, for the main process to register handlers. */
export const DEVICE_BRIDGE_IPC_METHODS = [
  'getState',
  'decidePairing',
  'decideApproval',
  'revokeChannel',
  'extendChannel',
  'stopDevice',
  'checkDevice',
  'setDeviceHelper',
  'getFastLane',
  'putFastLane',
  'setAccessCode',
  'addLanDevice',
  'forgetLanDevice',
  'pairLanDevice',
  'getAudit',
  'getLanDiscovered',
  'getSettings',
  'patchSettings',
  'revealApiKey',
  'rotateApiKey',
  'getPolicies',
  'putPolicies',
  'getDeviceScreen',
  'getDeviceActions',
  'getDeviceFrame',
  'getActionScreen',
  'onAdminEvent',
] as const satisfies ReadonlyArray<keyof DeviceBridgeIpcApi>;

// Compile-time check that the list names every method (missing ones make this `never`).
type MissingIpcMethods = Exclude<keyof DeviceBridgeIpcApi, (typeof DEVICE_BRIDGE_IPC_METHODS)[number]>;
export const IPC_METHODS_COMPLETE: [MissingIpcMethods] extends [never] ? true : never = true;

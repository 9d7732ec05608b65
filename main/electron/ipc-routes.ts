/**
 * Which admin operation each preload function performs: the single map both the IPC
 * handlers and the type test use. Plain data — no electron import — so it is unit-tested.
 */
import type { DEVICE_BRIDGE_IPC_METHODS } from '../../renderer/src/api/ipc-api';

type Method = Exclude<(typeof DEVICE_BRIDGE_IPC_METHODS)[number], 'onAdminEvent'>;
type Route = (args: Record<string, unknown>) => { method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'; path: string };

const seg = (value: unknown): string => encodeURIComponent(typeof value === 'string' ? value : '');

export const IPC_ROUTES: Record<Method, Route> = {
  getState: () => ({ method: 'GET', path: '/admin/api/state' }),
  decidePairing: (a) => ({ method: 'POST', path: `/admin/api/pairings/${seg(a.auth_session_id)}` }),
  decideApproval: (a) => ({ method: 'POST', path: `/admin/api/approvals/${seg(a.approval_id)}` }),
  revokeChannel: (a) => ({ method: 'POST', path: `/admin/api/channels/${seg(a.connector_channel_id)}/revoke` }),
  extendChannel: (a) => ({ method: 'POST', path: `/admin/api/channels/${seg(a.connector_channel_id)}/extend` }),
  stopDevice: (a) => ({ method: 'POST', path: `/admin/api/devices/${seg(a.device_id)}/stop` }),
  checkDevice: (a) => ({ method: 'GET', path: `/admin/api/devices/${seg(a.device_id)}/check` }),
  setDeviceHelper: (a) => ({ method: 'POST', path: `/admin/api/devices/${seg(a.device_id)}/helper` }),
  getFastLane: () => ({ method: 'GET', path: '/admin/api/fast-lane' }),
  putFastLane: () => ({ method: 'PUT', path: '/admin/api/fast-lane' }),
  setAccessCode: () => ({ method: 'POST', path: '/admin/api/access-codes' }),
  addLanDevice: () => ({ method: 'POST', path: '/admin/api/lan-devices' }),
  forgetLanDevice: (a) => ({ method: 'DELETE', path: `/admin/api/lan-devices/${seg(a.address)}` }),
  pairLanDevice: () => ({ method: 'POST', path: '/admin/api/lan-pair' }),
  getAudit: () => ({ method: 'GET', path: '/admin/api/audit' }),
  getLanDiscovered: () => ({ method: 'GET', path: '/admin/api/lan-discovered' }),
  getSettings: () => ({ method: 'GET', path: '/admin/api/settings' }),
  patchSettings: () => ({ method: 'PATCH', path: '/admin/api/settings' }),
  revealApiKey: () => ({ method: 'POST', path: '/admin/api/api-key/reveal' }),
  rotateApiKey: () => ({ method: 'POST', path: '/admin/api/api-key/rotate' }),
  getPolicies: () => ({ method: 'GET', path: '/admin/api/policies' }),
  putPolicies: () => ({ method: 'PUT', path: '/admin/api/policies' }),
  getDeviceScreen: (a) => ({ method: 'GET', path: `/admin/api/devices/${seg(a.device_id)}/screen` }),
  getDeviceActions: (a) => ({ method: 'GET', path: `/admin/api/devices/${seg(a.device_id)}/actions` }),
  getDeviceFrame: (a) => ({ method: 'GET', path: `/admin/api/devices/${seg(a.device_id)}/frame` }),
  getActionScreen: (a) => ({ method: 'GET', path: `/admin/api/devices/${seg(a.device_id)}/actions/${seg(a.action_id)}/screen` }),
};

export const IPC_EVENT_CHANNEL = 'device-bridge:event';

export function ipcChannel(method: string): string {
  return `device-bridge:${method}`;
}

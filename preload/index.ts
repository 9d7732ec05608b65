/**
 * Preload: the only place that touches ipcRenderer. Exposes `window.deviceBridge` with one
 * named function per admin operation (main/contract/ipc-api.ts; never a generic send/invoke).
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { AdminEvent } from '../main/contract/admin-api';
import type { AdminOperationName } from '../main/contract/admin-operations';
import type { DeviceBridgeIpcApi } from '../main/contract/ipc-api';

/**
 * The preload function of one operation. A sandboxed preload may require only electron, so
 * the channel name of main/contract/ipc-api.ts `ipcChannel` is spelled here again (a test
 * pins both). The one cast: `ipcRenderer.invoke` answers `any`; the main process's handler
 * on this channel answers the operation's IpcResult (main/electron/ipc-handlers.ts).
 */
function call<N extends AdminOperationName>(name: N): DeviceBridgeIpcApi[N] {
  return ((args?: unknown) => ipcRenderer.invoke(`device-bridge:${name}`, args)) as DeviceBridgeIpcApi[N];
}

const api: DeviceBridgeIpcApi = {
  getState: call('getState'),
  decidePairing: call('decidePairing'),
  decideApproval: call('decideApproval'),
  revokeChannel: call('revokeChannel'),
  extendChannel: call('extendChannel'),
  stopDevice: call('stopDevice'),
  checkDevice: call('checkDevice'),
  setDeviceHelper: call('setDeviceHelper'),
  setDevicePrograms: call('setDevicePrograms'),
  getFastLane: call('getFastLane'),
  setDeviceScreenStream: call('setDeviceScreenStream'),
  getScreenStream: call('getScreenStream'),
  putScreenStream: call('putScreenStream'),
  getTurnover: call('getTurnover'),
  putTurnover: call('putTurnover'),
  setDeviceTurnover: call('setDeviceTurnover'),
  setDeviceTakeover: call('setDeviceTakeover'),
  declinePersonAsk: call('declinePersonAsk'),
  sendDeviceInput: call('sendDeviceInput'),
  setAccessCode: call('setAccessCode'),
  listSecrets: call('listSecrets'),
  putSecret: call('putSecret'),
  deleteSecret: call('deleteSecret'),
  addLanDevice: call('addLanDevice'),
  forgetLanDevice: call('forgetLanDevice'),
  pairLanDevice: call('pairLanDevice'),
  getAudit: call('getAudit'),
  getLanDiscovered: call('getLanDiscovered'),
  getHosts: call('getHosts'),
  addHost: call('addHost'),
  removeHost: call('removeHost'),
  getSettings: call('getSettings'),
  patchSettings: call('patchSettings'),
  revealApiKey: call('revealApiKey'),
  rotateApiKey: call('rotateApiKey'),
  getPolicies: call('getPolicies'),
  putPolicies: call('putPolicies'),
  getDeviceScreen: call('getDeviceScreen'),
  getDeviceActions: call('getDeviceActions'),
  getDeviceFrame: call('getDeviceFrame'),
  getActionScreen: call('getActionScreen'),
  listEvidence: call('listEvidence'),
  getEvidence: call('getEvidence'),
  onAdminEvent: (listener) => {
    const handler = (_event: unknown, payload: AdminEvent): void => listener(payload);
    ipcRenderer.on('device-bridge:event', handler);
    return () => {
      ipcRenderer.removeListener('device-bridge:event', handler);
    };
  },
};

// Only the app's own page gets the API (the main process also refuses other senders, and
// the window cannot navigate; this is one more fence). Same literal as window-security.ts.
if (window.location.protocol === 'app:' && window.location.host === 'bridge')
  contextBridge.exposeInMainWorld('deviceBridge', api);

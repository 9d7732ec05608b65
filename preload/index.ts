/**
 * Preload: the only place that touches ipcRenderer. Exposes `window.deviceBridge` with one
 * named function per operation (never a generic send/invoke).
 */
import { contextBridge, ipcRenderer } from 'electron';
import type { DeviceBridgeIpcApi } from '../renderer/src/api/ipc-api';

// A sandboxed preload may require only electron, so the channel names of
// main/electron/ipc-routes.ts are spelled here again (ipc-routes.ts is the source of truth).
const channel = (method: string): string => `device-bridge:${method}`;
const call = (method: string) => (args?: unknown) => ipcRenderer.invoke(channel(method), args);

const api: DeviceBridgeIpcApi = {
  getState: call('getState') as DeviceBridgeIpcApi['getState'],
  decidePairing: call('decidePairing') as DeviceBridgeIpcApi['decidePairing'],
  decideApproval: call('decideApproval') as DeviceBridgeIpcApi['decideApproval'],
  revokeChannel: call('revokeChannel') as DeviceBridgeIpcApi['revokeChannel'],
  extendChannel: call('extendChannel') as DeviceBridgeIpcApi['extendChannel'],
  stopDevice: call('stopDevice') as DeviceBridgeIpcApi['stopDevice'],
  checkDevice: call('checkDevice') as DeviceBridgeIpcApi['checkDevice'],
  setDeviceHelper: call('setDeviceHelper') as DeviceBridgeIpcApi['setDeviceHelper'],
  getFastLane: call('getFastLane') as DeviceBridgeIpcApi['getFastLane'],
  putFastLane: call('putFastLane') as DeviceBridgeIpcApi['putFastLane'],
  setAccessCode: call('setAccessCode') as DeviceBridgeIpcApi['setAccessCode'],
  addLanDevice: call('addLanDevice') as DeviceBridgeIpcApi['addLanDevice'],
  forgetLanDevice: call('forgetLanDevice') as DeviceBridgeIpcApi['forgetLanDevice'],
  pairLanDevice: call('pairLanDevice') as DeviceBridgeIpcApi['pairLanDevice'],
  getAudit: call('getAudit') as DeviceBridgeIpcApi['getAudit'],
  getLanDiscovered: call('getLanDiscovered') as DeviceBridgeIpcApi['getLanDiscovered'],
  getSettings: call('getSettings') as DeviceBridgeIpcApi['getSettings'],
  patchSettings: call('patchSettings') as DeviceBridgeIpcApi['patchSettings'],
  revealApiKey: call('revealApiKey') as DeviceBridgeIpcApi['revealApiKey'],
  rotateApiKey: call('rotateApiKey') as DeviceBridgeIpcApi['rotateApiKey'],
  getPolicies: call('getPolicies') as DeviceBridgeIpcApi['getPolicies'],
  putPolicies: call('putPolicies') as DeviceBridgeIpcApi['putPolicies'],
  getDeviceScreen: call('getDeviceScreen') as DeviceBridgeIpcApi['getDeviceScreen'],
  getDeviceActions: call('getDeviceActions') as DeviceBridgeIpcApi['getDeviceActions'],
  getDeviceFrame: call('getDeviceFrame') as DeviceBridgeIpcApi['getDeviceFrame'],
  getActionScreen: call('getActionScreen') as DeviceBridgeIpcApi['getActionScreen'],
  onAdminEvent: (listener) => {
    const handler = (_event: unknown, payload: Parameters<typeof listener>[0]): void => listener(payload);
    ipcRenderer.on('device-bridge:event', handler);
    return () => {
      ipcRenderer.removeListener('device-bridge:event', handler);
    };
  },
};

// Only the app's own page gets the API (the main process also refuses other senders, and
// the window cannot navigate; this is one more fence). Same literal as window-security.ts.
if (window.location.protocol === 'app:' && window.location.host === 'bridge') contextBridge.exposeInMainWorld('deviceBridge', api);

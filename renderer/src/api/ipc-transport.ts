/**
 * BridgeApi over Electron IPC: calls the named functions the preload exposes on
 * `window.deviceBridge` and rebuilds `{ok:false,error}` results as ApiError.
 */
import type { DeviceBridgeIpcApi, IpcResult } from '../../../main/contract/ipc-api';
import type { AdminEvent, BridgeApi, EvidenceFile, LiveFrameImage, LiveStatus } from './bridge-api';
import { ApiError, helperRequest, takeoverRequest } from './bridge-api';

async function unwrap<T>(call: Promise<IpcResult<T>>): Promise<T> {
  let result: IpcResult<T>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(
      'unreachable',
      `The desktop app did not answer (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (result.ok) return result.value;
  throw new ApiError(result.error.code, result.error.message);
}

export function createIpcTransport(bridge: DeviceBridgeIpcApi): BridgeApi {
  return {
    kind: 'ipc',
    getState: () => unwrap(bridge.getState()),
    decidePairing: (id, decision) => unwrap(bridge.decidePairing({ auth_session_id: id, ...decision })),
    decideApproval: (id, decision) => unwrap(bridge.decideApproval({ approval_id: id, decision })),
    revokeChannel: (id) => unwrap(bridge.revokeChannel({ connector_channel_id: id })),
    extendChannel: (id, extendMs) => unwrap(bridge.extendChannel({ connector_channel_id: id, extend_ms: extendMs })),
    stopDevice: (id) => unwrap(bridge.stopDevice({ device_id: id })),
    checkDevice: (id) => unwrap(bridge.checkDevice({ device_id: id })),
    setDeviceHelper: (id, action) => unwrap(bridge.setDeviceHelper(helperRequest(id, action))),
    setDevicePrograms: (id, action) => unwrap(bridge.setDevicePrograms({ device_id: id, action })),
    getFastLane: () => unwrap(bridge.getFastLane()),
    setDeviceScreenStream: (id, action) => unwrap(bridge.setDeviceScreenStream({ device_id: id, action })),
    getScreenStream: () => unwrap(bridge.getScreenStream()),
    putScreenStream: (change) => unwrap(bridge.putScreenStream(change)),
    putTurnover: (change) => unwrap(bridge.putTurnover(change)),
    setDeviceTurnover: (id, action) => unwrap(bridge.setDeviceTurnover({ device_id: id, action })),
    setDeviceTakeover: (id, action, options) => unwrap(bridge.setDeviceTakeover(takeoverRequest(id, action, options))),
    declinePersonAsk: (id, reason) =>
      unwrap(bridge.declinePersonAsk({ device_id: id, ...(reason !== undefined ? { reason } : {}) })),
    sendDeviceInput: (id, input) => unwrap(bridge.sendDeviceInput({ device_id: id, ...input })),
    setAccessCode: (request) => unwrap(bridge.setAccessCode(request)),
    listSecrets: () => unwrap(bridge.listSecrets()),
    putSecret: (name, request) => unwrap(bridge.putSecret({ name, ...request })),
    deleteSecret: (name) => unwrap(bridge.deleteSecret({ name })),
    addLanDevice: (address) => unwrap(bridge.addLanDevice({ address })),
    forgetLanDevice: (address) => unwrap(bridge.forgetLanDevice({ address })),
    pairLanDevice: (address, code) => unwrap(bridge.pairLanDevice({ address, code })),
    getAudit: () => unwrap(bridge.getAudit()),
    getLanDiscovered: () => unwrap(bridge.getLanDiscovered()),
    getHosts: () => unwrap(bridge.getHosts()),
    addHost: (request) => unwrap(bridge.addHost(request)),
    removeHost: (address) => unwrap(bridge.removeHost({ address })),
    getSettings: () => unwrap(bridge.getSettings()),
    patchSettings: (patch) => unwrap(bridge.patchSettings(patch)),
    revealApiKey: () => unwrap(bridge.revealApiKey()),
    rotateApiKey: () => unwrap(bridge.rotateApiKey()),
    getPolicies: () => unwrap(bridge.getPolicies()),
    putPolicies: (policies) => unwrap(bridge.putPolicies(policies)),
    async getDeviceScreen(id): Promise<Blob> {
      const bytes = await unwrap(bridge.getDeviceScreen({ device_id: id }));
      // Copy into a fresh ArrayBuffer-backed view: Blob wants plain ArrayBuffer memory.
      return new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' });
    },
    getDeviceActions: (id) => unwrap(bridge.getDeviceActions({ device_id: id })),
    async getDeviceFrame(id, maxSide, after): Promise<LiveFrameImage> {
      const frame = await unwrap(
        bridge.getDeviceFrame({ device_id: id, max_side: Math.round(maxSide), after: Math.max(0, Math.round(after)) }),
      );
      return {
        blob: new Blob([new Uint8Array(frame.bytes)], { type: 'image/jpeg' }),
        seq: frame.seq,
        screenWidth: frame.screen_width,
        screenHeight: frame.screen_height,
        fresh: frame.fresh,
        lane: frame.lane,
      };
    },
    listEvidence: (deviceId) => unwrap(bridge.listEvidence({ device_id: deviceId })),
    async getEvidence(leaseId, format, locale): Promise<EvidenceFile> {
      const file = await unwrap(bridge.getEvidence({ lease_id: leaseId, format, locale }));
      const type = file.format === 'json' ? 'application/json' : 'text/html';
      return { filename: file.filename, blob: new Blob([new Uint8Array(file.bytes)], { type }) };
    },
    async getActionScreen(id, actionId): Promise<Blob> {
      const bytes = await unwrap(bridge.getActionScreen({ device_id: id, action_id: actionId }));
      return new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' });
    },
    subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void {
      let closed = false;
      const remove = bridge.onAdminEvent((event) => {
        if (!closed) onEvent(event);
      });
      // IPC is in-process: it is live as soon as the listener is registered.
      onStatus('live');
      return () => {
        if (closed) return;
        closed = true;
        remove();
      };
    },
  };
}

/** The preload's object when running inside the desktop app, else undefined. */
export function findIpcBridge(host: object): DeviceBridgeIpcApi | undefined {
  const candidate = (host as { deviceBridge?: unknown }).deviceBridge;
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  return typeof (candidate as { getState?: unknown }).getState === 'function'
    ? (candidate as DeviceBridgeIpcApi)
    : undefined;
}

/**
 * BridgeApi over Electron IPC: calls the named functions the preload exposes on
 * `window.deviceBridge` and rebuilds `{ok:false,error}` results as ApiError.
 */
import type { AdminArgs, AdminOperationName, AdminResponse } from '../../../main/contract/admin-operations';
import type { DeviceBridgeIpcApi, IpcResult } from '../../../main/contract/ipc-api';
import {
  ApiError,
  createBridgeApi,
  type AdminEvent,
  type BinaryOperation,
  type BridgeApi,
  type ClientResponse,
  type LiveStatus,
} from './bridge-api';

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
  /**
   * Runs one operation through its preload function. The cast: the preload's function of a
   * name not yet known is a union TypeScript cannot call; each takes that name's argument
   * object (ipc-api.ts IpcFunction). A signal is not sent: IPC answers are local and prompt.
   */
  async function run<N extends AdminOperationName>(name: N, args: AdminArgs<N>): Promise<ClientResponse<N>> {
    const call = bridge[name] as unknown as (args: AdminArgs<N>) => Promise<IpcResult<AdminResponse<N>>>;
    const answer = await unwrap(call(args));
    if (!isBinary(name)) return answer as ClientResponse<N>;
    const decode = BINARY_DECODERS[name] as unknown as (answer: AdminResponse<N>) => ClientResponse<N>;
    return decode(answer);
  }

  function subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void {
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
  }

  return createBridgeApi('ipc', run, subscribe);
}

/** A JPEG's bytes as a Blob (copied: Blob wants plain ArrayBuffer memory, not a view on another). */
function jpeg(bytes: Uint8Array): Blob {
  return new Blob([new Uint8Array(bytes)], { type: 'image/jpeg' });
}

/** How each answer with bytes becomes what a page can show or save. */
const BINARY_DECODERS: { readonly [N in BinaryOperation]: (answer: AdminResponse<N>) => ClientResponse<N> } = {
  getDeviceScreen: jpeg,
  getActionScreen: jpeg,
  getDeviceFrame: (frame) => ({
    blob: jpeg(frame.bytes),
    seq: frame.seq,
    screenWidth: frame.screen_width,
    screenHeight: frame.screen_height,
    fresh: frame.fresh,
    lane: frame.lane,
  }),
  getEvidence: (file) => ({
    filename: file.filename,
    blob: new Blob([new Uint8Array(file.bytes)], { type: file.format === 'json' ? 'application/json' : 'text/html' }),
  }),
};

function isBinary(name: AdminOperationName): name is BinaryOperation {
  return Object.hasOwn(BINARY_DECODERS, name);
}

/** The preload's object when running inside the desktop app, else undefined. */
export function findIpcBridge(host: object): DeviceBridgeIpcApi | undefined {
  const candidate = (host as { deviceBridge?: unknown }).deviceBridge;
  if (typeof candidate !== 'object' || candidate === null) return undefined;
  return typeof (candidate as { getState?: unknown }).getState === 'function'
    ? (candidate as DeviceBridgeIpcApi)
    : undefined;
}

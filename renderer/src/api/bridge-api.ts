/**
 * The one client the UI talks to, made from the contract's operations table
 * (main/contract/admin-operations.ts): one method per operation, named as the operation,
 * taking the operation's argument object (path parameters and request fields together, as
 * over IPC) and answering its response. Adding an operation to the contract adds its method
 * here with its types; nothing is written per operation. Two transports carry the calls: HTTP
 * (web console, admin token) and IPC (Electron preload). Errors from either side are rebuilt
 * as ApiError with the bridge's stable code.
 */
import type {
  AdminApproval,
  AdminEvent,
  AdminLiveFrame,
  AdminPhoneActions,
  AdminPolicies,
  AdminPhoneProgram,
  AdminSettings,
  AdminState,
  AuditEntry,
} from '../../../main/contract/admin-api';
import {
  ADMIN_OPERATION_NAMES,
  type AdminArgs,
  type AdminOperationName,
  type AdminRequest,
  type AdminResponse,
} from '../../../main/contract/admin-operations';

export type PairingDecision = AdminRequest<'decidePairing'>;
export type ApprovalDecision = AdminRequest<'decideApproval'>['decision'];
export type ProgramsAction = AdminRequest<'setDevicePrograms'>['action'];
export type { AdminApproval, AdminEvent, AdminPhoneActions, AdminPolicies, AdminSettings, AdminState, AuditEntry };

/** A lease's evidence, ready to save under the bridge's file name. */
export interface EvidenceFile {
  filename: string;
  blob: Blob;
}

/** A live frame: the JPEG, its sequence number (new picture, new number) and the phone's screen size. */
export interface LiveFrameImage {
  blob: Blob;
  seq: number;
  screenWidth: number;
  screenHeight: number;
  /** False when the bridge served the last frame again because the agent's calls were running. */
  fresh: boolean;
  /** Where the picture came from: the fast lane helper's screen stream, or screencap. */
  lane: AdminLiveFrame['lane'];
}

/** Operations whose answer carries bytes (a JPEG, a file): HTTP sends them as they are, not as JSON. */
export type BinaryOperation = {
  [N in AdminOperationName]: AdminResponse<N> extends Uint8Array | { bytes: Uint8Array } ? N : never;
}[AdminOperationName];

/**
 * What the console gets for an operation whose answer carries bytes: something a page can
 * show or save. Each transport has a decoder for each of them, typed from this map, so an
 * operation with bytes added to the contract does not compile until both can read it.
 */
export interface BinaryAnswers extends Record<BinaryOperation, unknown> {
  getDeviceScreen: Blob;
  getActionScreen: Blob;
  getDeviceFrame: LiveFrameImage;
  getEvidence: EvidenceFile;
}

/** What a method of the client answers: the contract's response, or its BinaryAnswers form. */
export type ClientResponse<N extends AdminOperationName> = N extends keyof BinaryAnswers
  ? BinaryAnswers[N]
  : AdminResponse<N>;

export interface CallOptions {
  /** Ends the wait for the answer (a view that closed, a frame no longer wanted). */
  signal?: AbortSignal;
}

/** One method of the client: the argument may be left out when every field is optional. */
export type ClientMethod<N extends AdminOperationName> =
  Record<never, never> extends AdminArgs<N>
    ? (args?: AdminArgs<N>, options?: CallOptions) => Promise<ClientResponse<N>>
    : (args: AdminArgs<N>, options?: CallOptions) => Promise<ClientResponse<N>>;

/** Health of the live-update channel, shown in the header. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'closed';

export type BridgeApi = { readonly [N in AdminOperationName]: ClientMethod<N> } & {
  readonly kind: 'http' | 'ipc';
  /**
   * Live updates: `onEvent` for every change notification, `onStatus` when the channel's
   * health changes. Returns an idempotent unsubscribe.
   */
  subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void;
};

/** How a transport runs any one operation. */
export type OperationRunner = <N extends AdminOperationName>(
  name: N,
  args: AdminArgs<N>,
  options: CallOptions,
) => Promise<ClientResponse<N>>;

/**
 * The client: a method per operation of the table, each handing its name and argument to
 * the transport's `run`. The one cast: a loop over the table's names cannot be typed
 * per name, and each method built is `run` narrowed to that name.
 */
export function createBridgeApi(
  kind: BridgeApi['kind'],
  run: OperationRunner,
  subscribe: BridgeApi['subscribe'],
): BridgeApi {
  const methods = Object.fromEntries(
    ADMIN_OPERATION_NAMES.map((name) => [
      name,
      (args: AdminArgs<typeof name> = {} as AdminArgs<typeof name>, options: CallOptions = {}) =>
        run(name, args, options),
    ]),
  );
  return { ...methods, kind, subscribe } as unknown as BridgeApi;
}

/** Codes the UI adds for failures that never reached the bridge. */
export type ClientErrorCode = 'unreachable' | 'unauthorized' | 'bad_response' | 'input_check';

/** An ApiError for input the UI refused before sending (no bridge code to show). */
export function inputError(message: string): ApiError {
  return new ApiError('input_check', message);
}

/** A failed call, rebuilt from `{error:{code,message}}` or from a transport failure. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly code: string,
    message: string,
    /** HTTP status (0 when the request never got an answer; IPC uses 0 too). */
    readonly status = 0,
  ) {
    super(message);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** Turns anything thrown into an ApiError so views can show `code` and `message`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof Error) return new ApiError('unreachable', error.message);
  return new ApiError('unreachable', String(error));
}

/** Reads the bridge's error body shape; anything else yields undefined. */
export function parseErrorBody(body: unknown): { code: string; message: string } | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const error = (body as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== 'string') return undefined;
  return { code, message: typeof message === 'string' ? message : code };
}

/**
 * The request for one program's action. UIA2's `enable` is sent only from the button beside the
 * words that say what it exposes, so it carries the person's acceptance of its open ports.
 */
export function programRequest(
  deviceId: string,
  program: AdminPhoneProgram['program'],
  action: ProgramsAction,
): AdminArgs<'setDevicePrograms'> {
  if (program === 'uia2_server')
    return action === 'enable'
      ? { device_id: deviceId, action, program, accept_open_ports: true }
      : { device_id: deviceId, action, program };
  return { device_id: deviceId, action, program };
}

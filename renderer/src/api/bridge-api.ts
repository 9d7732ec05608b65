/**
 * The one client interface the UI talks to. Two transports implement it: HTTP (web console,
 * admin token) and IPC (Electron preload). Shapes come from main/contract/ only;
 * errors from either side are rebuilt as ApiError with the bridge's stable code.
 */
import type {
  AdminApproval,
  AdminEvent,
  AdminFastLane,
  AdminScreenStreamSettings,
  AdminHost,
  AdminLanDiscovered,
  AdminPhoneActions,
  AdminPolicies,
  AdminSettings,
  AdminSettingsPatch,
  AdminState,
  AuditEntry,
} from '../../../main/contract/admin-api';
import type { AdminArgs, AdminRequest, AdminResponse } from '../../../main/contract/admin-operations';
import type { EvidenceList } from '../../../main/contract/evidence';
import type { Locale } from '../../../main/contract/i18n';

export type PairingDecision = AdminRequest<'decidePairing'>;
export type ApprovalDecision = AdminRequest<'decideApproval'>['decision'];
export type AccessCodeRequest = AdminRequest<'setAccessCode'>;
export type SecretRequest = AdminRequest<'putSecret'>;
export type PutSecretResponse = AdminResponse<'putSecret'>;
export type StatusResponse = { status: string };
export type StopDeviceResponse = AdminResponse<'stopDevice'>;
/** A take-over's choice (agentMayWatch, default off) or a hand-back's note for the agent. */
export interface TakeoverOptions {
  note?: string;
  agentMayWatch?: boolean;
}
export type PhoneCheckResponse = AdminResponse<'checkDevice'>;
export type HelperAction = AdminRequest<'setDeviceHelper'>['action'];
export type DeviceHelperResponse = AdminResponse<'setDeviceHelper'>;
export type ProgramsAction = AdminRequest<'setDevicePrograms'>['action'];
export type DeviceProgramsResponse = AdminResponse<'setDevicePrograms'>;
export type ScreenStreamAction = AdminRequest<'setDeviceScreenStream'>['action'];
export type AddLanDeviceResponse = AdminResponse<'addLanDevice'>;
export type LanPairResponse = AdminResponse<'pairLanDevice'>;
export type {
  AdminApproval,
  AdminEvent,
  AdminFastLane,
  AdminScreenStreamSettings,
  AdminLanDiscovered,
  AdminPhoneActions,
  AdminPolicies,
  AdminSettings,
  AdminSettingsPatch,
  AdminState,
  AuditEntry,
};

export type { EvidenceList };

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
  lane: 'minicap' | 'helper' | 'adb';
}

/** Health of the live-update channel, shown in the header. */
export type LiveStatus = 'connecting' | 'live' | 'reconnecting' | 'unauthorized' | 'closed';

export interface BridgeApi {
  readonly kind: 'http' | 'ipc';
  getState(): Promise<AdminState>;
  decidePairing(authSessionId: string, decision: PairingDecision): Promise<StatusResponse>;
  decideApproval(approvalId: string, decision: ApprovalDecision): Promise<StatusResponse>;
  revokeChannel(channelId: string): Promise<StatusResponse>;
  extendChannel(channelId: string, extendMs: number): Promise<StatusResponse>;
  stopDevice(deviceId: string): Promise<StopDeviceResponse>;
  setAccessCode(request: AccessCodeRequest): Promise<StatusResponse>;
  /** The lab's secrets: names, phones and times (never a value). */
  listSecrets(): Promise<AdminResponse<'listSecrets'>>;
  /** Stores a secret or replaces its value and phones. */
  putSecret(name: string, request: SecretRequest): Promise<PutSecretResponse>;
  deleteSecret(name: string): Promise<StatusResponse>;
  addLanDevice(address: string): Promise<AddLanDeviceResponse>;
  forgetLanDevice(address: string): Promise<StatusResponse>;
  pairLanDevice(address: string, code: string): Promise<LanPairResponse>;
  /** Phones adb's mDNS browser sees on the network (wireless debugging), per ADB server. */
  getLanDiscovered(): Promise<AdminLanDiscovered>;
  getHosts(): Promise<{ hosts: AdminHost[] }>;
  /** Adds an ADB host (kept across restarts); an SSH host's key comes back to confirm first. */
  addHost(request: AdminRequest<'addHost'>): Promise<AdminResponse<'addHost'>>;
  /** Removes a host added at runtime; its phones go offline. */
  removeHost(address: string): Promise<StatusResponse>;
  getAudit(): Promise<{ entries: AuditEntry[] }>;
  getSettings(): Promise<AdminSettings>;
  /** Changes limits live (saved across restarts); answers the settings after the change. */
  patchSettings(patch: AdminSettingsPatch): Promise<AdminSettings>;
  revealApiKey(): Promise<{ api_key: string }>;
  rotateApiKey(): Promise<{ api_key: string }>;
  getPolicies(): Promise<AdminPolicies>;
  putPolicies(policies: AdminPolicies): Promise<AdminPolicies>;
  /** Runs the phone check now and answers it (docs/REFERENCE.md "Phone check"). */
  checkDevice(deviceId: string): Promise<PhoneCheckResponse>;
  /**
   * appium-uiautomator2-server on one phone: enable (the person's yes to its open ports, given
   * beside the words that say so; installs it), disable, or remove (uninstalls).
   */
  setDeviceHelper(deviceId: string, action: HelperAction): Promise<DeviceHelperResponse>;
  setDevicePrograms(deviceId: string, action: ProgramsAction): Promise<DeviceProgramsResponse>;
  /** Whether this build carries it, and its version. */
  getFastLane(): Promise<AdminFastLane>;
  setDeviceScreenStream(deviceId: string, action: ScreenStreamAction): Promise<AdminResponse<'setDeviceScreenStream'>>;
  getScreenStream(): Promise<AdminScreenStreamSettings>;
  putScreenStream(change: { default: AdminScreenStreamSettings['default'] }): Promise<AdminScreenStreamSettings>;
  /** What a lease's end puts back on its phone (docs/REFERENCE.md "Hand-over"). */
  putTurnover(change: AdminRequest<'putTurnover'>): Promise<AdminResponse<'putTurnover'>>;
  /** A person's answer to a failed turnover: run it again, or the phone was checked by hand. */
  setDeviceTurnover(deviceId: string, action: 'retry' | 'dismiss'): Promise<AdminResponse<'setDeviceTurnover'>>;
  /**
   * A person takes the phone from the agent (`agentMayWatch`: the agent may still see the screen
   * meanwhile; unset, it sees nothing of it), or hands it back (an optional note says what they did).
   */
  setDeviceTakeover(
    deviceId: string,
    action: 'take' | 'hand_back',
    options?: TakeoverOptions,
  ): Promise<AdminResponse<'setDeviceTakeover'>>;
  /** The person declines the agent's ask to take the phone over (an optional reason goes to the agent). */
  declinePersonAsk(deviceId: string, reason?: string): Promise<AdminResponse<'declinePersonAsk'>>;
  /** The person's own tap, swipe or key on a phone they took over (refused while the agent has it). */
  sendDeviceInput(deviceId: string, input: AdminRequest<'sendDeviceInput'>): Promise<AdminResponse<'sendDeviceInput'>>;
  /** A small JPEG of the phone's screen. */
  getDeviceScreen(deviceId: string, signal?: AbortSignal): Promise<Blob>;
  /** The phone view's timeline: the agent's recent calls on this phone, newest first. */
  getDeviceActions(deviceId: string): Promise<AdminPhoneActions>;
  /** The live frame after frame `after` (0: any) of the phone's screen for the phone view (never waits for the agent's calls). */
  getDeviceFrame(deviceId: string, maxSide: number, after: number, signal?: AbortSignal): Promise<LiveFrameImage>;
  /** The picture of the screen one action was made on. */
  getActionScreen(deviceId: string, actionId: string, signal?: AbortSignal): Promise<Blob>;
  /** One phone's leases whose evidence is kept, newest first. */
  listEvidence(deviceId: string): Promise<EvidenceList>;
  /** One lease's evidence as a file to save: the offline page (in `locale`) or its JSON. */
  getEvidence(leaseId: string, format: 'html' | 'json', locale: Locale): Promise<EvidenceFile>;
  /**
   * Live updates: `onEvent` for every change notification, `onStatus` when the channel's
   * health changes. Returns an idempotent unsubscribe.
   */
  subscribe(onEvent: (event: AdminEvent) => void, onStatus: (status: LiveStatus) => void): () => void;
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
 * The request for a helper action: `enable` is sent only from the button beside the words
 * that say what it exposes, so it carries the person's acceptance of its open ports.
 */
export function helperRequest(deviceId: string, action: HelperAction): AdminArgs<'setDeviceHelper'> {
  return action === 'enable'
    ? { device_id: deviceId, action, accept_open_ports: true }
    : { device_id: deviceId, action };
}

/** The operation's request body from the client's options (both transports send the same). */
export function takeoverRequest(
  deviceId: string,
  action: 'take' | 'hand_back',
  options: TakeoverOptions = {},
): AdminArgs<'setDeviceTakeover'> {
  return {
    device_id: deviceId,
    action,
    ...(options.note !== undefined ? { note: options.note } : {}),
    ...(options.agentMayWatch !== undefined ? { agent_may_watch: options.agentMayWatch } : {}),
  };
}

/**
 * Every admin operation, once: its name (the preload function and IPC channel), its HTTP
 * method and path template, and the request it takes and the answer it gives. The core's
 * router registers a handler per route, the web console's HTTP transport builds URLs from
 * it, the desktop app's IPC handlers and preload are named and typed from it; a test checks
 * that each one is registered once and exposed over IPC.
 *
 * How an operation travels: over HTTP the path parameters are in the URL and the request is
 * the JSON body (GET: the query string); over IPC one argument object carries the path
 * parameters and the request's fields together.
 */
import type {
  AdminAddHostRequest,
  AdminAddHostResponse,
  AdminPersonInput,
  AdminFastLane,
  AdminPhoneProgram,
  AdminScreenStreamSettings,
  AdminHost,
  AdminLiveFrame,
  AdminLanDevice,
  AdminLanDiscovered,
  AdminPhoneActions,
  AdminPhoneCheck,
  AdminPolicies,
  AdminSecret,
  AdminSettings,
  AdminSettingsPatch,
  AdminState,
  AdminTakenOver,
  AdminTurnover,
  AdminTurnoverPolicy,
  AuditEntry,
} from './admin-api';
import type { EvidenceList } from './evidence';

export type AdminHttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Carries an operation's request and response types; it holds nothing at run time. */
export interface OperationShape<Req, Res> {
  readonly types?: (request: Req) => Res;
}

function shape<Req, Res>(): OperationShape<Req, Res> {
  return {};
}

type Status = { status: string };

/** The admin API (DESIGN.md §9); docs/REFERENCE.md "Admin API" describes each for people. */
export const ADMIN_OPERATIONS = {
  getState: { route: 'GET /admin/api/state', shape: shape<void, AdminState>() },
  /** `code`: the code the person saw; refused when a refresh replaced it. */
  decidePairing: {
    route: 'POST /admin/api/pairings/:auth_session_id',
    shape: shape<
      { action: 'approve'; device_id?: string; code?: string } | { action: 'deny'; code?: string },
      Status
    >(),
  },
  decideApproval: {
    route: 'POST /admin/api/approvals/:approval_id',
    shape: shape<{ decision: 'approve' | 'approve_for_lease' | 'deny' }, Status>(),
  },
  revokeChannel: { route: 'POST /admin/api/channels/:connector_channel_id/revoke', shape: shape<void, Status>() },
  extendChannel: {
    route: 'POST /admin/api/channels/:connector_channel_id/extend',
    shape: shape<{ extend_ms: number }, Status>(),
  },
  stopDevice: {
    route: 'POST /admin/api/devices/:device_id/stop',
    shape: shape<void, { status: string; canceled: number }>(),
  },
  /** Runs the phone check now (observation work, never ahead of control calls) and answers it. */
  checkDevice: { route: 'GET /admin/api/devices/:device_id/check', shape: shape<void, AdminPhoneCheck>() },
  getFastLane: { route: 'GET /admin/api/fast-lane', shape: shape<void, AdminFastLane>() },
  /**
   * Every program on one phone, the one way to change them (main/core/admin/program-routes.ts):
   * without `program`, the port-less three (scrcpy-server, the UI reader, the snapshot helper: enable is the
   * default, disable stops them, remove takes them off the phone); `uia2_server` (enable must say
   * `accept_open_ports: true` and installs it; disable stops it; remove uninstalls both APKs);
   * `minicap_stream` (enable: runs while leased or watched; disable and remove: stopped, its
   * files removed). Answers every program on the phone.
   */
  setDevicePrograms: {
    route: 'POST /admin/api/devices/:device_id/programs',
    shape: shape<
      | {
          action: 'enable' | 'disable' | 'remove';
          program?: 'scrcpy_input' | 'snapshot_tree' | 'ui_reader' | 'minicap_stream';
        }
      | { action: 'enable'; program: 'uia2_server'; accept_open_ports: true }
      | { action: 'disable' | 'remove'; program: 'uia2_server' },
      { status: string; programs: AdminPhoneProgram[] }
    >(),
  },
  getScreenStream: { route: 'GET /admin/api/screen-stream', shape: shape<void, AdminScreenStreamSettings>() },
  putScreenStream: {
    route: 'PUT /admin/api/screen-stream',
    shape: shape<{ default: 'ask' | 'on' }, AdminScreenStreamSettings>(),
  },
  /** What a lease's end puts back: defaults per how the lease began, apps to clear, each phone's choice. */
  getTurnover: { route: 'GET /admin/api/turnover', shape: shape<void, AdminTurnoverPolicy>() },
  /** `devices`: only the phones named change; `default` removes a phone's own choice. */
  putTurnover: {
    route: 'PUT /admin/api/turnover',
    shape: shape<
      {
        claims?: boolean;
        approvals?: boolean;
        clear_data?: string[];
        devices?: Record<string, 'on' | 'off' | 'default'>;
      },
      AdminTurnoverPolicy
    >(),
  },
  /** retry: run the last turnover's steps again; dismiss: a person checked the phone, it may be bound again. */
  setDeviceTurnover: {
    route: 'POST /admin/api/devices/:device_id/turnover',
    shape: shape<{ action: 'retry' | 'dismiss' }, { status: string; turnover: AdminTurnover | null }>(),
  },
  /**
   * take: a person takes the phone from the agent (`agent_may_watch`: it may still see the
   * screen; unset, it sees nothing of it); hand_back: the agent may act again (with an optional note).
   */
  setDeviceTakeover: {
    route: 'POST /admin/api/devices/:device_id/takeover',
    shape: shape<
      { action: 'take' | 'hand_back'; note?: string | undefined; agent_may_watch?: boolean },
      { status: 'taken' | 'handed_back'; taken_over: AdminTakenOver | null }
    >(),
  },
  /** The person declines the agent's ask to take the phone over, with an optional reason for the agent. */
  declinePersonAsk: {
    route: 'POST /admin/api/devices/:device_id/ask/decline',
    shape: shape<{ reason?: string | undefined }, { status: 'declined' }>(),
  },
  /** The person's own input while they hold the phone (docs/REFERENCE.md "Take over"). */
  sendDeviceInput: {
    route: 'POST /admin/api/devices/:device_id/input',
    shape: shape<AdminPersonInput, { status: 'ok' }>(),
  },
  /** `code: null` removes the scope's code. */
  setAccessCode: {
    route: 'POST /admin/api/access-codes',
    shape: shape<{ scope: string; code: string | null; require_approval: boolean }, Status>(),
  },
  /** The lab's secrets by name, with their phones and times; a value is never answered. */
  listSecrets: { route: 'GET /admin/api/secrets', shape: shape<void, { secrets: AdminSecret[] }>() },
  /** Stores a secret or replaces its value and phones; `devices` null or left out: every phone. */
  putSecret: {
    route: 'PUT /admin/api/secrets/:name',
    shape: shape<
      { value: string; devices?: string[] | null },
      { status: 'created' | 'replaced'; secret: AdminSecret }
    >(),
  },
  /** `secret_not_found` when there is none by that name. */
  deleteSecret: { route: 'DELETE /admin/api/secrets/:name', shape: shape<void, Status>() },
  /** `adb_server`: HOST:PORT of the configured ADB server to use (default: the first). */
  addLanDevice: {
    route: 'POST /admin/api/lan-devices',
    shape: shape<{ address: string; adb_server?: string }, { status: string; lan_device: AdminLanDevice }>(),
  },
  forgetLanDevice: { route: 'DELETE /admin/api/lan-devices/:address', shape: shape<void, Status>() },
  pairLanDevice: {
    route: 'POST /admin/api/lan-pair',
    shape: shape<{ address: string; code: string; adb_server?: string }, { status: string; message: string }>(),
  },
  /**
   * The audit trail, newest first. limit 1–5000 (default 200). Over HTTP `format=jsonl`
   * exports every matching entry as application/x-ndjson, oldest first.
   */
  getAudit: {
    route: 'GET /admin/api/audit',
    shape: shape<
      { device_id?: string; connector_channel_id?: string; limit?: number; format?: 'json' | 'jsonl' },
      { entries: AuditEntry[] }
    >(),
  },
  /** Each ADB host (direct or over SSH): its link's state and reason, phones, round trip, reconnects. */
  getHosts: { route: 'GET /admin/api/hosts', shape: shape<void, { hosts: AdminHost[] }>() },
  /**
   * Adds an ADB host while the bridge runs, kept across restarts. An SSH host's key must be
   * vouched for (known_hosts, an earlier pin) or confirmed: the first answer is then
   * `confirm_host_key` with the key, and nothing is trusted until the request comes again with
   * its fingerprint. Errors: invalid_arguments, host_exists, unreachable, host_key_refused.
   */
  addHost: { route: 'POST /admin/api/hosts', shape: shape<AdminAddHostRequest, AdminAddHostResponse>() },
  /** Removes a host added at runtime (`:address` as GET /hosts names it); its phones go offline. host_not_found, host_not_removable. */
  removeHost: { route: 'DELETE /admin/api/hosts/:address', shape: shape<void, Status>() },
  /** Phones adb's mDNS browser sees (wireless debugging), per ADB server. */
  getLanDiscovered: { route: 'GET /admin/api/lan-discovered', shape: shape<void, AdminLanDiscovered>() },
  getSettings: { route: 'GET /admin/api/settings', shape: shape<void, AdminSettings>() },
  /** Changes limits live and saves them; answers the settings after the change. */
  patchSettings: { route: 'PATCH /admin/api/settings', shape: shape<AdminSettingsPatch, AdminSettings>() },
  revealApiKey: { route: 'POST /admin/api/api-key/reveal', shape: shape<void, { api_key: string }>() },
  rotateApiKey: { route: 'POST /admin/api/api-key/rotate', shape: shape<void, { api_key: string }>() },
  getPolicies: { route: 'GET /admin/api/policies', shape: shape<void, AdminPolicies>() },
  putPolicies: { route: 'PUT /admin/api/policies', shape: shape<AdminPolicies, AdminPolicies>() },
  /** A small JPEG of the phone's screen for the Devices list (max side 360 px); HTTP answers image/jpeg. */
  getDeviceScreen: { route: 'GET /admin/api/devices/:device_id/screen', shape: shape<void, Uint8Array>() },
  /** The agent's recent calls on this phone, newest first (the phone view's timeline). */
  getDeviceActions: { route: 'GET /admin/api/devices/:device_id/actions', shape: shape<void, AdminPhoneActions>() },
  /**
   * A live frame for the phone view (max_side 160–1280, default 720; after = the seq the
   * viewer shows, to get the next one). Never waits for the agent's calls: while control work
   * runs or waits on the phone, the last frame is served again. HTTP answers image/jpeg with
   * the other fields as headers: X-Frame-Seq, X-Frame-At, X-Frame-Fresh, X-Frame-Lane,
   * X-Screen-Width, X-Screen-Height.
   */
  getDeviceFrame: {
    route: 'GET /admin/api/devices/:device_id/frame',
    shape: shape<{ max_side?: number; after?: number }, AdminLiveFrame>(),
  },
  /** The thumbnail of the screen an action was made on (see AdminPhoneAction.screen); HTTP answers image/jpeg. */
  getActionScreen: {
    route: 'GET /admin/api/devices/:device_id/actions/:action_id/screen',
    shape: shape<void, Uint8Array>(),
  },
  /** Leases whose evidence is kept, newest first (one phone's with device_id). */
  listEvidence: { route: 'GET /admin/api/evidence', shape: shape<{ device_id?: string }, EvidenceList>() },
  /**
   * One lease's evidence as a file: the offline HTML page (default, in `locale`) or its JSON.
   * HTTP answers the file itself as an attachment (text/html or application/json).
   */
  getEvidence: {
    route: 'GET /admin/api/evidence/:lease_id',
    shape: shape<
      { format?: 'html' | 'json'; locale?: 'en' | 'zh-CN' },
      { format: 'html' | 'json'; filename: string; bytes: Uint8Array }
    >(),
  },
} as const satisfies Record<
  string,
  { route: `${AdminHttpMethod} /admin/api/${string}`; shape: OperationShape<never, unknown> }
>;

/**
 * Routes only the web console uses, with no IPC twin: the live event stream (the desktop app
 * gets the same events over IPC) and the approvers' kept screenshots (AuditEntry.screenshot_ref).
 */
export const ADMIN_HTTP_ONLY_ROUTES = {
  events: 'GET /admin/api/events',
  auditScreen: 'GET /admin/api/audit/screens/:name',
} as const;
export type AdminHttpOnlyRoute = (typeof ADMIN_HTTP_ONLY_ROUTES)[keyof typeof ADMIN_HTTP_ONLY_ROUTES];

type Operations = typeof ADMIN_OPERATIONS;
export type AdminOperationName = keyof Operations;
export const ADMIN_OPERATION_NAMES: readonly AdminOperationName[] = Object.keys(
  ADMIN_OPERATIONS,
) as AdminOperationName[];

/** `'METHOD /path'` of an operation; every route of the map when not narrowed. */
export type AdminRoute<N extends AdminOperationName = AdminOperationName> = Operations[N]['route'];
/** The operation a route belongs to. */
export type OperationOfRoute<R extends AdminRoute> = {
  [N in AdminOperationName]: Operations[N]['route'] extends R ? N : never;
}[AdminOperationName];

type ShapeOf<N extends AdminOperationName> = NonNullable<Operations[N]['shape']['types']>;
/** What the operation takes: the JSON body, or the query for GET (path parameters apart). */
export type AdminRequest<N extends AdminOperationName> = Parameters<ShapeOf<N>>[0];
export type AdminResponse<N extends AdminOperationName> = ReturnType<ShapeOf<N>>;

/** `:name` segments of a path template. */
export type PathParamName<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | PathParamName<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : never;
export type PathParams<P extends string> = { readonly [K in PathParamName<P>]: string };

/** The one argument object over IPC: path parameters and request fields together. */
export type AdminArgs<N extends AdminOperationName> = PathParams<AdminRoute<N>> &
  ([AdminRequest<N>] extends [void] ? PathParams<''> : AdminRequest<N>);

/** Splits `'METHOD /path'`. */
export function splitRoute(route: string): { method: AdminHttpMethod; path: string } {
  const space = route.indexOf(' ');
  return { method: route.slice(0, space) as AdminHttpMethod, path: route.slice(space + 1) };
}

/** The names of a template's `:name` segments, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([a-z_]+)/g)].map((m) => m[1] ?? '');
}

/** A template with its `:name` segments filled in from `args`, each URI-encoded. */
export function fillPath(path: string, args: object): string {
  const values = new Map<string, unknown>(Object.entries(args));
  return path.replace(/:([a-z_]+)/g, (_m, name: string) => {
    const value = values.get(name);
    return encodeURIComponent(typeof value === 'string' ? value : '');
  });
}

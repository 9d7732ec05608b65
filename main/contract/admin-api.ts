/**
 * The shapes the admin API's operations carry between the UI (renderer) and the bridge; the
 * operations themselves (method, path, request, response, IPC name) are listed once in
 * admin-operations.ts. Shapes only — no runtime imports.
 */
import type { LanguageSetting } from './i18n/locale';
import type { LimitKey, LimitValues } from './limits';

/**
 * How an action reached the phone: appium-uiautomator2-server where the person opened its ports
 * (`helper`), scrcpy-server's input (`scrcpy`), the xagent UI reader's tree (`ui_reader`) or the
 * snapshot helper's (`snapshot`), all three reached through adb only, or stock adb commands (`adb`).
 */
export type ActionLane = 'helper' | 'scrcpy' | 'ui_reader' | 'snapshot' | 'adb';
export const ACTION_LANES: readonly ActionLane[] = ['helper', 'scrcpy', 'ui_reader', 'snapshot', 'adb'];
export function isActionLane(value: unknown): value is ActionLane {
  return typeof value === 'string' && (ACTION_LANES as readonly string[]).includes(value);
}

export type DeviceStateName = 'device' | 'offline' | 'unauthorized' | 'gone';

export interface AdminDevice {
  device_id: string;
  serial: string;
  /** The phone's own serial (ro.serialno) once read; for a TCP phone `serial` is only its address. */
  hardware_serial?: string | null;
  adb_server: string;
  state: DeviceStateName;
  /** Why the phone is not usable (hint for the UI), or null. */
  reason: string | null;
  /** Stable code of `reason` when the bridge knows it (usb_permission, device_unauthorized), else null. */
  reason_code: string | null;
  model: string | null;
  manufacturer: string | null;
  android_version: string | null;
  transport: 'usb' | 'tcp';
  /** A simulated phone (`device-bridge sim`/`demo`, tests): the console says "simulated", not "LAN". */
  simulated?: boolean;
  display_name: string;
  lease: { connector_channel_id: string; since: number } | null;
  /**
   * A leased phone that went away (unplugged, lost): when its lease ends unless it comes back
   * (the disconnect grace). Such a phone stays listed, even once adb forgot it (`gone`).
   */
  away_until?: number | null;
  queue: { running: number; queued: number };
  /** The latest phone check (docs/REFERENCE.md "Phone check"), or null before the first one. */
  check: AdminPhoneCheck | null;
  /**
   * Every program the bridge runs on this phone, in one shape (docs/REFERENCE.md "Fast lane",
   * "Screen stream"): changed through `setDevicePrograms`.
   */
  programs?: AdminPhoneProgram[];
  /** The last turnover after a lease on this phone (docs/REFERENCE.md "Hand-over"), or null. */
  turnover?: AdminTurnover | null;
  /** Lab claims waiting in line for this phone while it is busy. */
  claim_line?: number;
  /** The agent's call running on this phone now (its arguments as the timeline shows them), else null. */
  doing?: { tool_id: string; arguments: Record<string, unknown> } | null;
  /** A person has taken this phone over (docs/REFERENCE.md "Take over"): since when and who, or null. */
  taken_over?: AdminTakenOver | null;
  /** The agent asks the person to take this phone over (docs/REFERENCE.md "Ask the person"), or null. */
  ask?: AdminPersonAsk | null;
}

/** An agent's ask waiting for the person: its own words, and when it ends unanswered. */
export interface AdminPersonAsk {
  ask_id: string;
  device_id: string;
  connector_channel_id: string;
  /** The agent's words (one short sentence), shown as the agent's, never as the bridge's. */
  reason: string;
  asked_at: number;
  /** When the ask ends unanswered (it no longer does once the person holds the phone). */
  expires_at: number;
  /** When the person took the phone over for it, or null while nobody answered. */
  taken_at: number | null;
}

/**
 * The person's own input on a phone they hold (docs/REFERENCE.md "Take over"): a tap, a press
 * and hold, a swipe, a wheel scroll (`down` shows what is below; one notch is 15 % of the
 * screen's side), a key, or typed text. Points are the phone's own pixels in its current
 * orientation. main/core/takeover/person-input.ts validates it (and pins it to this type).
 */
export type AdminPersonInput =
  | { kind: 'tap'; x: number; y: number }
  | { kind: 'long_press'; x: number; y: number; duration_ms?: number | undefined }
  | { kind: 'swipe'; x1: number; y1: number; x2: number; y2: number; duration_ms?: number | undefined }
  | {
      kind: 'scroll';
      x: number;
      y: number;
      direction: 'up' | 'down' | 'left' | 'right';
      notches?: number | undefined;
    }
  | {
      kind: 'key';
      key:
        | 'back'
        | 'home'
        | 'app_switch'
        | 'enter'
        | 'backspace'
        | 'forward_delete'
        | 'tab'
        | 'dpad_up'
        | 'dpad_down'
        | 'dpad_left'
        | 'dpad_right';
    }
  | { kind: 'text'; text: string };

/** A person holding a phone: the agent's control calls answer human_in_control until the hand-back. */
export interface AdminTakenOver {
  since: number;
  by: string;
  /** The person lets the agent see the screen while they hold it (false: screen reads are refused). */
  agent_may_watch: boolean;
}

/** What the phone check looks at, one row each (docs/REFERENCE.md "Phone check"). */
export type PhoneCheckId =
  | 'authorized'
  | 'usb_permission'
  | 'screen_awake'
  | 'unlocked'
  | 'input_accepted'
  | 'ui_tree_readable'
  | 'display'
  | 'unicode_typing'
  | 'free_storage'
  | 'android_version'
  | 'shell_protocol'
  | 'system_dialog'
  | 'battery';

export interface AdminPhoneCheckItem {
  id: PhoneCheckId;
  /** `unknown`: the bridge could not tell (the phone is not reachable, or the output said nothing). */
  status: 'ok' | 'problem' | 'unknown';
  detail: string;
  /** What the person does about a problem, in words; null when there is nothing to do. */
  fix: string | null;
  /**
   * `detail` and `fix` as keys of the UI's catalogue (main/contract/i18n, area phone-check)
   * with their parameters, so the UI writes them in its language; `detail`/`fix` are their
   * English text. Absent when the words come from elsewhere (a phone problem's own fix).
   */
  detail_key?: string;
  detail_params?: Record<string, string | number>;
  fix_key?: string;
}

/** `GET /admin/api/devices/:device_id/check` and `devices[].check` in the admin state. */
export interface AdminPhoneCheck {
  device_id: string;
  checked_at: number;
  /** True while a newer check is running (this result is the previous one). */
  running: boolean;
  checks: AdminPhoneCheckItem[];
}

export interface AdminChannel {
  connector_channel_id: string;
  descriptor_status: string;
  device_id: string | null;
  display_name: string | null;
  bound_at: number | null;
  flow_id: string | null;
  last_activity_at: number | null;
  last_action: { tool_id: string; at: number; outcome: string } | null;
  lease_expires_at: number | null;
  idle_expires_at: number | null;
  /** The bound phone is away: its lease ends then unless it comes back (the idle timer waits meanwhile). */
  away_until?: number | null;
  open: boolean;
  /** What the binding knows of who holds it and how it bound (null: no binding, or one made before the bridge kept this). */
  holder?: AdminBindingHolder | null;
}

/**
 * Who holds a binding, as far as the bridge can tell: how it bound (the person approved a
 * pairing request in the console or over the admin API, or a lab access code let it in, with
 * or without the person's approval), when the request came, the words the agent was shown,
 * the name the claimant gave on the lab form, and where the request came from.
 */
export interface AdminBindingHolder {
  how: 'approved' | 'access_code' | 'access_code_approved';
  /** When the pairing request or claim arrived. */
  requested_at: number | null;
  /** The pairing code both screens showed. */
  code: string | null;
  /** The message the request showed the agent while it waited (the pairing code's words). */
  message: string | null;
  /** The lab form's `requester` field (device_claim): who the claimant said they are. */
  requester: string | null;
  /** The phone as the claimant named it on the lab form. */
  claimed_as: string | null;
  /** The data plane's client address the request came from. */
  client_address: string | null;
}

/** A binding that ended, newest first in AdminState.binding_history (at most BINDING_HISTORY_MAX). */
export interface AdminBindingHistoryEntry {
  connector_channel_id: string;
  device_id: string;
  display_name: string;
  bound_at: number;
  flow_id: string;
  ended_at: number;
  /** logout: the agent signed out; revoked: the person revoked it; expired, idle, offline: the lease ran out; runtime_lease_expired: xAgent was gone too long. */
  end: 'logout' | 'revoked' | 'max_duration' | 'idle' | 'offline' | 'runtime_lease_expired';
  holder: AdminBindingHolder | null;
  last_action: { tool_id: string; at: number; outcome: string } | null;
}

/** Ended bindings kept in state.json's history. */
export const BINDING_HISTORY_MAX = 50;

export interface AdminPairing {
  auth_session_id: string;
  connector_channel_id: string;
  flow_id: string;
  code: string;
  expires_at: number;
  device_id: string | null;
  message: string;
}

/**
 * Why a call was held, as a message of the catalogue (`approvals.reason.<code>`) with its
 * parameters, so the console words it in the person's language
 * (main/contract/approval-wording.ts); a code this console does not know still shows, plainly.
 */
export interface AdminApprovalReason {
  code: string;
  params: Record<string, string | number>;
  /** In an `android_batch`: the tool of the step the reason is about. */
  step_tool?: string;
}

/** The element or point a tap, long press or typing acts on, as the safety gate resolved it. */
export interface AdminApprovalTarget {
  /** What a person reads on the element (its text, else its description, else the words inside it); null when it has none. */
  label: string | null;
  /** Where the element is: [left, top, right, bottom] in screen pixels; null when not found on the screen read. */
  bounds: [number, number, number, number] | null;
  /** The point a call gave by coordinates, [x, y] in screen pixels; null when it named an element. */
  point: [number, number] | null;
}

/** What a held call would do, in the terms the approval sentence and the screenshot's marker need. */
export interface AdminApprovalAction {
  /** The element or point acted on (tap, long press, typing); null for tools that act on none. */
  target: AdminApprovalTarget | null;
  /** A swipe's start and end, [x, y] in screen pixels (a direction scaled to the screen); null otherwise. */
  swipe: { from: [number, number]; to: [number, number] } | null;
  /** The uploaded file an install or a copy names (its file name when uploaded); null otherwise. */
  file_name: string | null;
  /** The phone's screen size the coordinates above are in (the screenshot's full size); null when unknown. */
  screen_size: { width: number; height: number } | null;
}

export interface AdminApproval {
  approval_id: string;
  connector_channel_id: string;
  device_id: string;
  tool_id: string;
  /** The call's arguments, redacted as the audit trail has them (typed secrets are `[redacted]`). */
  arguments: Record<string, unknown>;
  /** What the call would do: target, swipe, file (see AdminApprovalAction). */
  action: AdminApprovalAction;
  /**
   * The app the call acts in or on: the one in front for screen actions, the one opened,
   * closed or changed for app actions. `label` is the app's name when the bridge knows it,
   * else its package. Null when neither is known (the screen was not read).
   */
  app: { package: string; label: string } | null;
  /** Why it needs a person (the agent and the audit trail get the same in English). */
  reasons: AdminApprovalReason[];
  risk: string;
  created_at: number;
  expires_at: number;
  /** Signed URL of the screen at the moment the call was held, when one could be taken. */
  screenshot_url: string | null;
  /** The policy classes that asked (see docs/REFERENCE.md "Safety policy and approvals"). */
  risk_classes?: string[];
}

export interface AdminAdbServer {
  address: string;
  status: 'connecting' | 'connected' | 'down';
  last_error: string | null;
  next_retry_at: number | null;
  device_count: number;
}

/**
 * One ADB host: an ADB server reached straight (HOST:PORT) or over SSH (ssh://user@host:port),
 * as Settings → Hosts and `GET /admin/api/hosts` show it.
 */
export interface AdminHost {
  /** The host's name: its ADB server's HOST:PORT, or its ssh:// address. Phones' `adb_server`. */
  address: string;
  via: 'direct' | 'ssh';
  /**
   * connected; connecting (never up yet); reconnecting (was up or failed, retrying; `reason`
   * says why); host_key_refused (SSH: the host presented a key other than the pinned one);
   * auth_failed (SSH: the host accepted none of the bridge's keys).
   */
  state: 'connected' | 'connecting' | 'reconnecting' | 'host_key_refused' | 'auth_failed';
  /** Why it is not connected, in words (null when connected). */
  reason: string | null;
  /** When the current state began. */
  since: number;
  /** Phones adb lists on this host (not gone), and those ready to use. */
  phones: number;
  phones_online: number;
  /** The last `host:devices` round trip through the link, ms. */
  rtt_ms: number | null;
  /** Times the host's phones came back after its link had been up (the SSH link's or the ADB server's loss alike). */
  reconnects: number;
  last_error: string | null;
  next_retry_at: number | null;
  /** SSH only: the key the host presented and what vouched for it (null when it was refused). */
  host_key: { type: string; fingerprint: string; pinned_by: 'known_hosts' | 'first_use' | 'pinned' | null } | null;
  /** start: given at start (--adb, the desktop settings); added: a person added it while the bridge ran (removable, kept across restarts). */
  origin: 'start' | 'added';
}

/**
 * An ADB host to add while the bridge runs. `url`: HOST:PORT of an ADB server, or
 * ssh://USER@HOST[:PORT][?adb_port=N]. `key_path`: an absolute path to the private key an SSH
 * host signs in with (default: the start options' --ssh-key, else ssh-agent).
 * `host_key_fingerprint`: the person's confirmation of the key the first answer showed.
 */
export interface AdminAddHostRequest {
  url: string;
  key_path?: string;
  host_key_fingerprint?: string;
}

/**
 * added: the host is there (its phones arrive as its link comes up); `warning` when it is
 * reached over the network in clear. confirm_host_key: an SSH host whose key nothing vouches
 * for yet; nothing was added or trusted: show the key, and send the request again with its
 * fingerprint once the person has compared it on the host.
 */
export type AdminAddHostResponse =
  | { status: 'added'; host: AdminHost; warning: string | null }
  | { status: 'confirm_host_key'; address: string; host_key: { type: string; fingerprint: string } };

export interface AdminLanDevice {
  address: string;
  adb_server: string;
  status: 'connected' | 'connecting' | 'reconnecting' | 'unauthorized' | 'failed';
  last_error: string | null;
  next_attempt_at: number | null;
  attempts: number;
  device_id: string | null;
  /** Stable code of last_error (unreachable, device_unauthorized, adb_unavailable, …). */
  last_error_code?: string | null;
}

/** Phones adb's mDNS browser sees (wireless debugging), per ADB server. */
export interface AdminLanDiscovered {
  servers: Array<{
    adb_server: string;
    /** False when this ADB server has no mDNS service (adb before platform-tools 30) or did not answer. */
    supported: boolean;
    note: string | null;
    services: Array<{
      name: string;
      service_type: string;
      address: string;
      kind: 'connect' | 'pairing' | 'tcpip' | 'other';
    }>;
  }>;
  checked_at: number;
}

/** An address whose xAgent was turned away for its API key (Connect xAgent shows it). */
export interface AdminRefusedKey {
  address: string;
  /** The last refusal's: no key given, or a wrong one. */
  reason: 'wrong_key' | 'no_key';
  first_at: number;
  last_at: number;
  count: number;
}

export interface AdminState {
  connector: {
    connector_id: string | null;
    data_planes: number;
    /** When the xAgent connected now said hello (its first data plane open now); null while none is connected. */
    connected_since: number | null;
    /**
     * The last time any xAgent said hello to this bridge, kept across restarts; null when none
     * ever has — the console then opens on its connect guide (docs/REFERENCE.md "Connect xAgent").
     */
    last_hello_at: number | null;
    runtime_lease_expires_at: number | null;
    base_url: string;
    /**
     * xAgents refused for their API key, the latest first (server/refused-keys.ts): one entry per
     * address, at most 8. Absent on older bridges.
     */
    refused_keys?: AdminRefusedKey[];
  };
  devices: AdminDevice[];
  channels: AdminChannel[];
  pairings: AdminPairing[];
  approvals: AdminApproval[];
  /** Bindings that ended (signed out, revoked, expired), newest first. */
  binding_history?: AdminBindingHistoryEntry[];
  adb_servers: AdminAdbServer[];
  /** Each ADB host with its link's state (the same as GET /admin/api/hosts). */
  hosts: AdminHost[];
  lan_devices: AdminLanDevice[];
  /**
   * Where the system API key comes from: `env` (DEVICE_BRIDGE_API_KEY) — a rotation lasts only
   * until the next restart, which sets the variable's key again; `store` — a rotation is kept.
   */
  api_key: { source: 'env' | 'store' };
  /** The live limits (they change when someone saves Settings → Limits or PATCHes settings). */
  limits: {
    approval_timeout_ms: number;
    lease: { max_duration_ms: number | null; idle_timeout_ms: number | null; disconnect_grace_ms: number };
    file_cache: { ttl_ms: number; max_bytes: number; max_files: number; cleanup_interval_ms: number };
    queue: { max_depth: number; observation_concurrency: number };
    fast_lane: { idle_stop_ms: number };
    /** How long xAgent's channels are kept after its last data plane closed (spec §8.2 runtime lease). */
    runtime_grace_ms: number;
  };
  access_codes: Array<{ scope: string; require_approval: boolean }>;
  /** The lab's named secrets: names, phones and times, never a value (docs/REFERENCE.md "Secrets by reference"). */
  secrets: AdminSecret[];
  /** The fast lane's lab-wide default and whether this build carries the helper. */
  fast_lane?: AdminFastLane;
  /** The screen stream's lab-wide default (docs/REFERENCE.md "Screen stream"). */
  screen_stream?: AdminScreenStreamSettings;
  /** What a lease's end puts back on its phone (docs/REFERENCE.md "Hand-over"). */
  turnover_policy?: AdminTurnoverPolicy;
  warnings: string[];
  /** The UI's language (Settings → Language): the console, the desktop app and its tray follow it. */
  language: LanguageSetting;
}

export interface AuditEntry {
  id: string;
  time: number;
  connector_channel_id: string | null;
  device_id: string | null;
  tool_id: string;
  arguments: Record<string, unknown>;
  decision: string;
  decided_by: string;
  outcome: string;
  error_code: string | null;
  duration_ms: number;
  reasons: string[];
  /** Name of the approver's screenshot, served by GET /admin/api/audit/screens/:name. */
  screenshot_ref: string | null;
  /** low | medium | high; null when the call never reached the policy. */
  risk?: string | null;
  risk_classes?: string[];
  approval_id?: string | null;
  /**
   * The words a person knows the call's target by, read at the call: the element it tapped or
   * typed into ("Save"; a password field's text never), or the app it opened ("Notes"). Null
   * or absent when the call named none (older lines have none).
   */
  target_label?: string | null;
}

/** Where a live limit's value came from (see docs/REFERENCE.md "Documented limits"). */
export interface AdminLimitSource {
  /** Built-in default, a saved change (Settings, admin API), or a start option (flag, env, core option). */
  from: 'default' | 'saved' | 'start';
  /** The flag, env variable or core option that sets this limit at every start, else null. */
  start_option: string | null;
}

export interface AdminSettings {
  base_url: string;
  bind_host: string;
  port: number;
  api_key_hint: string;
  adb_servers: string[];
  data_dir: string;
  /** The app's version (package.json). */
  version: string;
  /** The Connector Card's `version`: the connector's tools and declarations, bumped when they change (spec §12). */
  connector_version: string;
  /** The live limits people may change (ranges and units in main/contract/limits.ts). */
  limits: LimitValues;
  limit_sources: Record<LimitKey, AdminLimitSource>;
  /** TLS in the bridge, when on (set at start: flags, env, desktop settings). */
  tls: AdminTls | null;
  /** The base URL xAgent is given behind a reverse proxy (--public-url), else null; base_url then equals it. */
  public_url: string | null;
  /** CIDRs that may reach /ws, /health and the transfer plane (--allow-from); [] = anyone who can connect. */
  allow_from: string[];
  /** Proxies whose X-Forwarded-For names the client (--trust-proxy). */
  trust_proxy: string[];
  /** The UI's language: `system` follows the system's or browser's languages (main/contract/i18n). */
  language: LanguageSetting;
}

/** The certificate the bridge serves over https/wss (docs/REFERENCE.md "For labs"). */
export interface AdminTls {
  source: 'files' | 'self-signed';
  cert_file: string;
  key_file: string;
  /** SHA-256 of the certificate, `AB:CD:…`: what the xAgent host pins or compares. */
  fingerprint_sha256: string;
  /** e.g. `DNS:localhost`, `IP Address:192.168.1.20` */
  subject_alt_names: string[];
  valid_to: number;
}

/** `PATCH /admin/api/settings`: only what changes; each key checked strictly (400 invalid_arguments names the field). */
export interface AdminSettingsPatch {
  limits?: Partial<LimitValues>;
  language?: LanguageSetting;
}

export type PolicyDecision = 'allow' | 'ask' | 'deny';

export interface AdminPolicies {
  /** Decision per risk class, for every phone unless overridden per device. */
  defaults: Record<string, PolicyDecision>;
  per_device: Record<string, Record<string, PolicyDecision>>;
  /** User additions to the built-in sensitive-app list. */
  sensitive_apps: string[];
  /**
   * How text an agent types is kept in the audit trail: `digest` (default; a PUT without the
   * field sets it) keeps only its length and a keyed hash, `full` keeps the text. Secrets are
   * redacted either way; the tool-call journal never keeps typed text.
   */
  audit_typed_text: AuditTypedText;
}

export type AuditTypedText = 'digest' | 'full';

/** Where a tap, long press or swipe landed, in the phone's screen pixels (`to_*` for swipes). */
export interface AdminActionPoint {
  kind: 'tap' | 'long_press' | 'swipe';
  x: number;
  y: number;
  to_x: number | null;
  to_y: number | null;
}

/** One of the agent's recent calls on a phone: the phone view's timeline (docs/REFERENCE.md "The phone view"). */
export interface AdminPhoneAction {
  action_id: string;
  /** Grows by one per call on this bridge; newer calls have larger numbers. */
  seq: number;
  device_id: string;
  connector_channel_id: string;
  /**
   * Who acted: the agent (a tool call), or the person holding the phone (docs/REFERENCE.md
   * "Take over"), whose `tool_id` is `person_<kind>` (person_tap, person_text…) and whose
   * `connector_channel_id` is empty; or the bridge itself: the reset after a lease (`tool_id`
   * `turnover`). A take over and a hand-back are the person's (`take_over`, `hand_back`). The
   * console words these as Activity does (main/contract/audit-wording.ts). Absent on older
   * bridges: the agent.
   */
  by?: 'agent' | 'person' | 'bridge';
  tool_id: string;
  /** Redacted exactly as the audit trail keeps them (what the gate saw once it decided). */
  arguments: Record<string, unknown>;
  /** `held`: waiting for a person's approval (the pending approval of this phone and tool). */
  state: 'queued' | 'running' | 'held' | 'done';
  outcome: 'ok' | 'error' | null;
  error_code: string | null;
  /** The bridge's own words to the agent with the error (English, may name a field or a fix); the console explains the code in the person's language. */
  error_message?: string | null;
  /** A bridge step's reasons as its audit line keeps them (a failed reset's problems); absent for calls. */
  reasons?: string[];
  /** The last progress the agent was sent while the call ran (`tool.progress.push`): status, the bridge's words, share done. */
  progress?: { status: string; message: string; fraction: number | null; at: number } | null;
  /**
   * The text the call types, for the person at this computer only: sent to loopback and the
   * desktop app, never to a remote console, and kept only in memory with the timeline entry.
   * Null for a secret (a password field, an access code, a lab secret by name, or any text
   * before the safety gate judged the call), which the console shows as dots.
   */
  typing?: Array<string | null> | null;
  queued_at: number;
  started_at: number | null;
  duration_ms: number | null;
  /** The lane that ran it, when the result says (ActionLane). */
  lane: ActionLane | null;
  /**
   * What a person reads on the element a tap, long press or typing acted on, as the bridge found
   * it at the call (its text, else its description): the console says "Tap on “Notes”" for a
   * call that named it by a ref (`@yl3`). Null when the element has no words or none was named.
   */
  target_label?: string | null;
  /** Resolved points, also when the agent targeted an element by selector or text. */
  points: AdminActionPoint[];
  /**
   * The screen the action was made on, when a picture was taken (the phone was being watched):
   * the phone's screen size (the points' space) and the thumbnail's pixel size.
   */
  screen: { width: number; height: number; thumb_width: number; thumb_height: number; taken_at: number } | null;
}

/** `GET /admin/api/devices/:device_id/frame`: a live frame of the phone view, JPEG bytes and what HTTP sends as X-Frame-* / X-Screen-* headers. */
export interface AdminLiveFrame {
  bytes: Uint8Array;
  /** A new number per new picture. */
  seq: number;
  /** When the picture was taken (ms since epoch). */
  at: number;
  screen_width: number;
  screen_height: number;
  /** False when the last frame was served again because the agent's calls were running. */
  fresh: boolean;
  /** Where the picture came from: minicap's screen stream, the fast lane helper's, or screencap. */
  lane: 'minicap' | 'helper' | 'adb';
}

/** `GET /admin/api/devices/:device_id/actions`: newest first, at most `capacity` per phone. */
export interface AdminPhoneActions {
  device_id: string;
  capacity: number;
  actions: AdminPhoneAction[];
}

/**
 * `action`: a call on a phone was queued, ran, was held or finished (payload: device_id); the phone view refetches its timeline.
 * `evidence`: a lease's evidence bundle was kept or completed (payload: device_id); the phone view refetches its list.
 */
export const ADMIN_EVENT_TYPES = ['state', 'approval', 'pairing', 'action', 'evidence'] as const;
export type AdminEventType = (typeof ADMIN_EVENT_TYPES)[number];

/** One "something changed" notification from the bridge (`GET /admin/api/events`, or IPC); the UI refetches on it. */
export interface AdminEvent {
  type: AdminEventType;
  [key: string]: unknown;
}

/**
 * A program the bridge runs on a phone, all five with one lifecycle (program-lifecycle/program-lifecycle.ts):
 * - `scrcpy_input` (scrcpy-server, the input lane), `ui_reader` (the xagent UI reader, the tree
 *   lane, resident during a lease; it holds the phone's one UiAutomation connection while it
 *   runs) and `snapshot_tree` (agent-device's snapshot helper, the tree lane where the reader
 *   cannot serve): reached through adb only, nothing on the phone listens where an app or the
 *   network could reach it; on by default under one consent, the person may turn them off per phone.
 * - `uia2_server` (appium-uiautomator2-server): off by default on every phone, a per-phone opt-in
 *   (enable must say `accept_open_ports: true`); while it runs, any app on the phone and any
 *   computer on its network can control the phone through its ports 6790 and 7810 with no
 *   password (`exposure`). The guard watches every socket on its ports from the moment its
 *   instrumentation starts; what it stops the helper for is its `last_error_reason`
 *   (`uia2_foreign_connection`, `uia2_not_verified`, …).
 * - `minicap_stream` (minicap, the screen stream): through adb only; runs while the phone is
 *   leased or watched, on phones the lab's default or the person allows (`stream`).
 * idle: not running now; starting; ready (running; the snapshot helper: checked on the phone for
 * this lease, it runs only for each read); failed (the stock lane serves; tried again at
 * `retry_at`, or once enabled again when null); unavailable (this build or phone cannot run it);
 * off (the person's choice, or the default).
 */
export interface AdminPhoneProgram {
  program: 'scrcpy_input' | 'snapshot_tree' | 'ui_reader' | 'uia2_server' | 'minicap_stream';
  name: string;
  version: string | null;
  state: 'idle' | 'starting' | 'ready' | 'failed' | 'unavailable' | 'off';
  enabled: boolean;
  last_error: string | null;
  last_error_code: string | null;
  /**
   * What failed, as a stable word the console puts in the person's language with its fix:
   * scrcpy-server's (`inject_denied`, `android_too_old`, `clipboard_refused`, `version_mismatch`,
   * `jar_unreadable`, `server_crashed`), the UI reader's (`reader_jar_mismatch`,
   * `reader_connect_failed`, `reader_ended`, `reader_timeout`, …) or the snapshot helper's
   * (`install_refused`, `crashed`, `timeout`, …); null when none is known.
   */
  last_error_reason: string | null;
  retry_at: number | null;
  /** Calls it served, and calls the stock lane served instead because it could not. */
  served: number;
  fell_back: number;
  /**
   * `uia2_server` only: the phone's addresses another host could reach ("wlan0 192.168.1.23"),
   * as last read before a start or while it ran (null before the first read), and when the guard
   * last read who is connected to it (ms since epoch, else null).
   */
  exposure?: { network_addresses: string[] | null; watched_at: number | null };
  /**
   * `minicap_stream` only: native (minicap's binary and library) or apk (its APK through
   * app_process); distinct frames a second lately; what it runs for now.
   */
  stream?: { way: 'native' | 'apk' | null; fps: number; for: Array<'lease' | 'view'> };
}

/** `GET /admin/api/fast-lane` and `fast_lane` in the admin state: whether this build carries the helper. */
export interface AdminFastLane {
  /** False when this build has no helper APKs. */
  available: boolean;
  /** The helper's version (appium-uiautomator2-server). */
  version: string | null;
}

/** The screen stream lab-wide: `ask` streams only phones a person turned it on for; `on` every phone unless turned off. */
export interface AdminScreenStreamSettings {
  default: 'ask' | 'on';
  /** False when this build has no minicap files. */
  available: boolean;
  /** The @u4/minicap-prebuilt package's version. */
  version: string | null;
}

/** A lab access code's length (POST /admin/api/access-codes): long enough that the guess limits make guessing take years. */
export const ACCESS_CODE_MIN_LENGTH = 8;
export const ACCESS_CODE_MAX_LENGTH = 128;

/**
 * A lab secret as the admin API shows it (docs/REFERENCE.md "Secrets by reference"): what an agent types
 * by name (`android_type_text` `secret`). Its value is never answered by any operation.
 */
export interface AdminSecret {
  name: string;
  /** The phones (device ids) it may be typed on; null: every phone. */
  devices: string[] | null;
  created_at: number;
  updated_at: number;
}

/** A secret's name: what the agent passes, and what packets, the audit trail and approvals show instead of the value. */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** A secret's value, in characters (android_type_text types up to this many). */
export const SECRET_VALUE_MAX_LENGTH = 10_000;
/** Phones one secret may be scoped to. */
export const SECRET_MAX_DEVICES = 100;
/** Secrets one bridge keeps (every answer is scrubbed of each, so they stay few). */
export const SECRET_MAX_COUNT = 200;

/**
 * The hand-over after a lease (docs/REFERENCE.md "Hand-over"): what the bridge put back on
 * the phone before anyone else could bind it. `running` while it works; `waiting` while the
 * phone is offline (it runs when the phone is back); `failed` keeps the phone from new
 * bindings until a person retries or dismisses it.
 */
export interface AdminTurnover {
  state: 'running' | 'waiting' | 'done' | 'failed';
  /** When it began, and how long it took (null while running or waiting). */
  started_at: number;
  duration_ms: number | null;
  /** How the lease ended: logout, revoked, expired, runtime_lease_expired. */
  lease_end: string;
  stopped_apps: string[];
  removed_apps: string[];
  deleted_files: string[];
  cleared_apps: string[];
  /** Permissions put back as they were before the lease ("com.x android.permission.CAMERA"). */
  restored_permissions: string[];
  clipboard_cleared: boolean;
  home_pressed: boolean;
  /** One line per step that failed, in English (the phone's own words after a colon). */
  problems: string[];
}

/** `GET|PUT /admin/api/turnover` and `turnover_policy` in the admin state. */
export interface AdminTurnoverPolicy {
  /**
   * Lab phones: an access code of their own names them (a code for every phone does not).
   * Default on. The phone decides, not how the lease began (#36 point 6).
   */
  claims: boolean;
  /** The other phones: the person's own. Default off. */
  approvals: boolean;
  /** Apps whose data is cleared at every turnover (pm clear), e.g. the app under test. */
  clear_data: string[];
  /** A phone's own choice, over the two above: on or off. */
  devices: Record<string, 'on' | 'off'>;
}

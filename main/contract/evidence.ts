/**
 * A lease's evidence bundle (issue #27): what an agent did with a phone from bind to lease
 * end, kept by the bridge after the lease (main/core/evidence/) and downloadable as one HTML
 * page a person opens offline, or as this JSON. Everything in it is redacted as the audit
 * trail is; it never holds more than the audit, the rolling log or the file cache gave it.
 */
import type { AdminTurnover, AuditEntry } from './admin-api';

/** The JSON's format tag; a reader refuses others. */
export const EVIDENCE_FORMAT = 'xagent-evidence/1';

/** A kept lease id: `ev_` + 16 base64url characters. */
export const EVIDENCE_ID_RE = /^ev_[A-Za-z0-9_-]{16}$/;

/** One lease in the list (`GET /admin/api/evidence`). */
export interface EvidenceSummary {
  lease_id: string;
  device_id: string;
  phone_name: string;
  connector_channel_id: string;
  started_at: number;
  ended_at: number;
  /** logout, revoked, expired, runtime_lease_expired. */
  end_reason: string;
  calls: number;
  /** Size of the kept JSON on disk. */
  bytes: number;
}

/** `GET /admin/api/evidence`. */
export interface EvidenceList {
  evidence: EvidenceSummary[];
}

/** A picture kept inside the bundle (JPEG, PNG or WebP, base64). */
export interface EvidenceImage {
  mime_type: string;
  base64: string;
}

/** One of the agent's calls, as its audit line says (arguments redacted as the audit keeps them). */
export type EvidenceCall = Pick<
  AuditEntry,
  'time' | 'tool_id' | 'arguments' | 'decision' | 'decided_by' | 'outcome' | 'error_code' | 'duration_ms' | 'reasons'
> & {
  /** low | medium | high; null when the call never reached the policy. */
  risk: string | null;
  approval_id: string | null;
  /** The words on the element the call acted on, or the app's name, as the audit line keeps them. */
  target_label?: string | null;
};

export interface EvidenceApproval {
  approval_id: string;
  time: number;
  tool_id: string;
  decision: string;
  decided_by: string;
  /** The screenshot the approver saw; null when none was taken or the audit no longer keeps it. */
  screenshot: EvidenceImage | null;
}

/** A screenshot the agent took: kept from the file cache if it was still there at lease end. */
export interface EvidenceScreenshot {
  file_ref: string;
  time: number;
  tool_id: string;
  /** null: the file cache had already let it go (TTL, size or count), or the bundle was full. */
  image: EvidenceImage | null;
  missing: 'evicted' | 'bundle_full' | null;
}

/** A recording (or one chunk of one) the agent made; the video itself is not in the bundle. */
export interface EvidenceRecording {
  file_ref: string;
  time: number;
  filename: string;
  byte_size: number;
  /** Whether the file cache still had it at lease end, and until when. */
  in_cache: boolean;
  expires_at: number | null;
}

export interface EvidenceCrash {
  package: string;
  kind: string;
  /** Phone time (MM-DD HH:MM:SS.mmm). */
  at: string;
  first_lines: string[];
  /** The call whose result reported it. */
  tool_id: string;
  time: number;
}

/** A span a person held the phone during the lease (take over to hand back). */
export interface EvidencePersonHold {
  since: number;
  /** null: they still held it when the lease ended. */
  until: number | null;
  /** Who took it, in words ('person at the computer'). */
  by: string;
  /** Whether they let the agent see the screen meanwhile (false: its screen reads were refused). */
  agent_may_watch: boolean;
}

export interface EvidenceLog {
  lines: string[];
  dropped_lines: number;
  bytes: number;
}

export interface EvidenceBundle {
  format: typeof EVIDENCE_FORMAT;
  lease: {
    lease_id: string;
    device_id: string;
    phone_name: string;
    connector_channel_id: string;
    /** How the lease began (the auth flow: device_claim, desktop_approval …). */
    bound_via: string;
    /** Who asked for the phone, as the binding kept it (absent for bindings made before holders were kept). */
    holder: { requester: string | null; claimed_as: string | null; client_address: string | null } | null;
    started_at: number;
    ended_at: number;
    end_reason: string;
  };
  generated_at: number;
  calls: EvidenceCall[];
  /** True when the lease made more calls than the bundle keeps (the oldest are left out). */
  calls_truncated: boolean;
  approvals: EvidenceApproval[];
  /** Who held the phone when: each take-over during the lease, oldest first (absent in bundles kept before holds were noted). */
  person_holds?: EvidencePersonHold[];
  screenshots: EvidenceScreenshot[];
  recordings: EvidenceRecording[];
  crashes: EvidenceCrash[];
  /** The lease's rolling log, redacted as android_logcat's; null when none was captured. */
  logcat: EvidenceLog | null;
  /** The hand-over after the lease; null while it runs or when the policy skips it (`turnover_expected`). */
  turnover: AdminTurnover | null;
  turnover_expected: boolean;
}

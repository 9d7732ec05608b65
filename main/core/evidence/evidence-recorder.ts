/**
 * Collects a lease's evidence while it runs and turns it into a bundle when it ends
 * (contract/evidence.ts). While the lease runs it notes, from each finished call's result,
 * the files the agent got (screenshots, recordings: refs into the file cache) and the crashes
 * the result reported; everything else is read once, at the end, from where it is already
 * kept and redacted: the calls and approvals from the audit trail (its redaction is the
 * bundle's), with the person's and the bridge's own lines on the phone, in the order they began, the approvers' screenshots the audit keeps, the rolling log (redacted by the
 * tools as android_logcat's answer is) and the files still in the cache. The turnover report
 * is added when the hand-over after the lease finishes.
 *
 * It also notes each take-over of the lease's phone (who held it when, and whether they let the
 * agent watch), from the take-over's own events: they are the person's, not the channel's.
 *
 * Memory stays bounded per lease (MAX_NOTED files, crashes and holds); a lease whose channel the
 * recorder never saw bound gets no bundle.
 */
import { randomBytes } from 'node:crypto';
import type { AdminTurnover, AuditEntry } from '../../contract/admin-api';
import { lineStartedAt } from '../../contract/audit-wording';
import {
  EVIDENCE_FORMAT,
  type EvidenceApproval,
  type EvidenceBundle,
  type EvidenceCrash,
  type EvidenceImage,
  type EvidenceLog,
  type EvidencePersonHold,
  type EvidenceRecording,
  type EvidenceScreenshot,
} from '../../contract/evidence';
import { isFileRef } from '../files/file-cache';
import { redact, type Logger } from '../logging/logger';
import type { CallOutcome, CallRecordSink, ToolCall } from '../tools/tool-call';
import type { EvidenceStore } from './evidence-store';

/** Calls a bundle keeps (the newest, when a lease made more). */
export const MAX_EVIDENCE_CALLS = 2000;
/** Files and crashes noted per lease. */
const MAX_NOTED = 500;

export interface EvidenceFileInfo {
  kind: string;
  mimeType: string;
  filename: string;
  byteSize: number;
  expiresAt: number;
}

export interface EvidenceRecorderDeps {
  store: EvidenceStore;
  clock: () => number;
  /** The lease bound on a channel now (a lease the bridge restored at start is noted at its first call). */
  activeLease(channelId: string): LeaseStart | undefined;
  /** The audit lines of one phone, newest first, at most `limit`. */
  auditLines(deviceId: string, limit: number): Promise<AuditEntry[]>;
  /** An approver's screenshot the audit keeps (AuditEntry.screenshot_ref), if still there. */
  auditScreenshot(name: string): Promise<Buffer | undefined>;
  /** A file in the cache, while it is there. */
  fileInfo(fileRef: string): EvidenceFileInfo | undefined;
  readFile(fileRef: string): Promise<Buffer | undefined>;
  /** The bridge's own secrets (API key, admin token, lab secrets): a last filter over the words, as the audit's. */
  secrets: () => readonly string[];
  /** A phone's bundle was kept or completed (the console refetches its list). */
  saved?: (deviceId: string) => void;
  logger: Pick<Logger, 'warn'>;
}

export interface LeaseStart {
  deviceId: string;
  phoneName: string;
  boundAt: number;
  /** The auth flow the lease came by. */
  flowId: string;
  holder: EvidenceBundle['lease']['holder'];
}

export interface LeaseEnd {
  deviceId: string;
  reason: string;
  /** The lease's rolling log, already redacted; null when none ran. */
  log: EvidenceLog | null;
  /** Whether a turnover runs after this lease (its report is added when it finishes). */
  turnoverExpected: boolean;
}

interface NotedFile {
  fileRef: string;
  time: number;
  toolId: string;
  kind: 'screenshot' | 'recording';
}

interface OpenLease extends LeaseStart {
  leaseId: string;
  channelId: string;
  files: NotedFile[];
  crashes: EvidenceCrash[];
  holds: EvidencePersonHold[];
}

export class EvidenceRecorder implements CallRecordSink {
  private readonly open = new Map<string, OpenLease>();
  /** Bundles being built, by lease id: a turnover that ends meanwhile waits for its bundle. */
  private readonly building = new Map<string, Promise<EvidenceBundle | undefined>>();
  /** Per phone, the lease whose turnover report is still owed. */
  private readonly owedTurnover = new Map<string, string>();
  /** Turnover reports being added to their bundles. */
  private readonly updating = new Set<Promise<void>>();

  constructor(private readonly deps: EvidenceRecorderDeps) {}

  /** A lease is (still) bound on `channelId`; a new bind on the same channel starts a new record. */
  noteLease(channelId: string, start: LeaseStart): void {
    const known = this.open.get(channelId);
    if (known && known.boundAt === start.boundAt && known.deviceId === start.deviceId) return;
    this.open.set(channelId, {
      ...start,
      leaseId: `ev_${randomBytes(12).toString('base64url')}`,
      channelId,
      files: [],
      crashes: [],
      holds: [],
    });
  }

  /** A person took the lease's phone (takeover/takeover.ts): noted on the open lease of that phone. */
  personTook(deviceId: string, hold: { since: number; by: string; agentMayWatch: boolean }): void {
    for (const lease of this.open.values()) {
      if (lease.deviceId !== deviceId || lease.holds.length >= MAX_NOTED) continue;
      lease.holds.push({ since: hold.since, until: null, by: hold.by, agent_may_watch: hold.agentMayWatch });
    }
  }

  /** The person handed the phone back at `until`. */
  personHandedBack(deviceId: string, until: number): void {
    for (const lease of this.open.values()) {
      const held = lease.deviceId === deviceId ? lease.holds.at(-1) : undefined;
      if (held && held.until === null) held.until = until;
    }
  }

  /** The file refs and crashes a finished call's result carried (CallRecordSink). */
  record(call: ToolCall, outcome: CallOutcome): void {
    const active = this.deps.activeLease(call.channelId);
    if (active) this.noteLease(call.channelId, active);
    const lease = this.open.get(call.channelId);
    if (!lease || lease.deviceId !== call.device.deviceId || !outcome.result) return;
    const time = call.receivedAt;
    for (const fileRef of fileRefsIn(outcome.result)) {
      const kind = this.deps.fileInfo(fileRef)?.kind;
      // An unchanged screen answers with the same file again: noted once.
      if (lease.files.length >= MAX_NOTED || lease.files.some((f) => f.fileRef === fileRef)) continue;
      if (kind === 'screenshot' || kind === 'recording')
        lease.files.push({ fileRef, time, toolId: call.tool.id, kind });
    }
    const crashes = outcome.result.crashes;
    if (Array.isArray(crashes)) {
      for (const c of crashes as Record<string, unknown>[]) {
        if (lease.crashes.length >= MAX_NOTED) break;
        lease.crashes.push({
          package: textOf(c.package),
          kind: textOf(c.kind),
          at: textOf(c.at),
          first_lines: Array.isArray(c.first_lines) ? c.first_lines.map(textOf) : [],
          tool_id: call.tool.id,
          time,
        });
      }
    }
  }

  /**
   * The lease on `channelId` ended: its bundle is built and kept. Resolves with it (undefined
   * when the recorder never saw the lease bound, or the bundle could not be written).
   */
  leaseEnded(channelId: string, end: LeaseEnd): Promise<EvidenceBundle | undefined> {
    const lease = this.open.get(channelId);
    if (!lease || lease.deviceId !== end.deviceId) return Promise.resolve(undefined);
    this.open.delete(channelId);
    if (end.turnoverExpected) this.owedTurnover.set(end.deviceId, lease.leaseId);
    const endedAt = this.deps.clock();
    const built = this.build(lease, end, endedAt).catch((error: unknown) => {
      this.deps.logger.warn('evidence bundle could not be kept', {
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    });
    this.building.set(lease.leaseId, built);
    void built.finally(() => this.building.delete(lease.leaseId));
    return built;
  }

  /** The turnover after a phone's lease finished (done or failed): its report joins that lease's bundle. */
  turnoverFinished(deviceId: string, report: AdminTurnover): Promise<void> {
    const leaseId = this.owedTurnover.get(deviceId);
    if (!leaseId) return Promise.resolve();
    this.owedTurnover.delete(deviceId);
    const update = this.addTurnover(leaseId, deviceId, report).catch((error: unknown) => {
      this.deps.logger.warn('turnover report could not join its evidence bundle', {
        error: error instanceof Error ? error.message : String(error),
      });
    });
    this.updating.add(update);
    void update.finally(() => this.updating.delete(update));
    return update;
  }

  private async addTurnover(leaseId: string, deviceId: string, report: AdminTurnover): Promise<void> {
    const bundle = (await this.building.get(leaseId)) ?? (await this.deps.store.read(leaseId));
    if (!bundle) return;
    bundle.turnover = { ...report, problems: [...report.problems] };
    await this.deps.store.save(bundle);
    this.deps.saved?.(deviceId);
  }

  /** Resolves when every bundle being built or updated is on disk (the bridge's stop waits for it). */
  async settled(): Promise<void> {
    await Promise.all([...this.building.values(), ...this.updating]);
    await this.deps.store.settled();
  }

  private async build(lease: OpenLease, end: LeaseEnd, endedAt: number): Promise<EvidenceBundle> {
    // The audit line of a call that finished just before the lease ended is written on the
    // next turn of the event loop (safety-service.ts): let it be written first.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // The whole story on the phone while the lease held it: the agent's calls on this channel, and
    // the lines without a channel (the person's take over, taps, typing and hand-back note, the
    // agent's ask, the bridge's own acts). No other channel acts on a leased phone.
    const lines = (await this.deps.auditLines(lease.deviceId, MAX_EVIDENCE_CALLS + 1)).filter(
      (e) =>
        e.time >= lease.boundAt &&
        e.time <= endedAt &&
        e.device_id === lease.deviceId &&
        (e.connector_channel_id === lease.channelId || e.connector_channel_id === null),
    );
    // In the order things began (the person's input is written when it is over, an agent's call with its start).
    const calls = lines
      .slice(0, MAX_EVIDENCE_CALLS)
      .map((e, newest) => ({ e, newest }))
      .sort((a, b) => lineStartedAt(a.e) - lineStartedAt(b.e) || b.newest - a.newest)
      .map(({ e }) => ({
        time: e.time,
        tool_id: e.tool_id,
        arguments: e.arguments,
        decision: e.decision,
        decided_by: e.decided_by,
        outcome: e.outcome,
        error_code: e.error_code,
        duration_ms: e.duration_ms,
        reasons: e.reasons,
        risk: e.risk ?? null,
        approval_id: e.approval_id ?? null,
        ...(e.target_label ? { target_label: e.target_label } : {}),
      }));
    const words: EvidenceBundle = {
      format: EVIDENCE_FORMAT,
      lease: {
        lease_id: lease.leaseId,
        device_id: lease.deviceId,
        phone_name: lease.phoneName,
        connector_channel_id: lease.channelId,
        bound_via: lease.flowId,
        holder: lease.holder,
        started_at: lease.boundAt,
        ended_at: endedAt,
        end_reason: end.reason,
      },
      generated_at: this.deps.clock(),
      calls,
      calls_truncated: lines.length > MAX_EVIDENCE_CALLS,
      approvals: [],
      person_holds: lease.holds.map((h) => ({ ...h })),
      screenshots: [],
      recordings: [],
      crashes: lease.crashes,
      logcat: end.log,
      turnover: null,
      turnover_expected: end.turnoverExpected,
    };
    const bundle = JSON.parse(redact(JSON.stringify(words), this.deps.secrets())) as EvidenceBundle;
    // Pictures fill what the bundle's size limit leaves after the words: approvals first.
    let room = this.deps.store.limits.maxBundleBytes - Buffer.byteLength(JSON.stringify(bundle)) - 64 * 1024;
    const take = (bytes: Buffer, mimeType: string): EvidenceImage | null => {
      const size = Math.ceil(bytes.length / 3) * 4 + 64;
      if (size > room) return null;
      room -= size;
      return { mime_type: mimeType, base64: bytes.toString('base64') };
    };
    bundle.approvals = await this.approvals(calls, lines, take);
    for (const file of lease.files) {
      const info = this.deps.fileInfo(file.fileRef);
      if (file.kind === 'recording') {
        bundle.recordings.push(recording(file, info));
        continue;
      }
      const bytes = info ? await this.deps.readFile(file.fileRef) : undefined;
      const image = bytes && info ? take(bytes, info.mimeType) : null;
      const shot: EvidenceScreenshot = {
        file_ref: file.fileRef,
        time: file.time,
        tool_id: file.toolId,
        image,
        missing: image ? null : bytes ? 'bundle_full' : 'evicted',
      };
      bundle.screenshots.push(shot);
    }
    await this.deps.store.save(bundle);
    this.deps.saved?.(lease.deviceId);
    return bundle;
  }

  private async approvals(
    calls: EvidenceBundle['calls'],
    lines: AuditEntry[],
    take: (bytes: Buffer, mimeType: string) => EvidenceImage | null,
  ): Promise<EvidenceApproval[]> {
    const out: EvidenceApproval[] = [];
    for (const call of calls) {
      if (!call.approval_id) continue;
      const ref = lines.find((e) => e.approval_id === call.approval_id)?.screenshot_ref ?? null;
      const bytes = ref ? await this.deps.auditScreenshot(ref) : undefined;
      out.push({
        approval_id: call.approval_id,
        time: call.time,
        tool_id: call.tool_id,
        decision: call.decision,
        decided_by: call.decided_by,
        screenshot: bytes ? take(bytes, 'image/jpeg') : null,
      });
    }
    return out;
  }
}

function recording(file: NotedFile, info: EvidenceFileInfo | undefined): EvidenceRecording {
  return {
    file_ref: file.fileRef,
    time: file.time,
    filename: info?.filename ?? '',
    byte_size: info?.byteSize ?? 0,
    in_cache: info !== undefined,
    expires_at: info?.expiresAt ?? null,
  };
}

/** Every `file_ref` in a result (recordings answer with several chunks), three levels deep at most. */
function fileRefsIn(value: unknown, depth = 0): string[] {
  if (depth > 3 || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((v) => fileRefsIn(v, depth + 1));
  const out: string[] = [];
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'file_ref' && isFileRef(v)) out.push(v);
    else out.push(...fileRefsIn(v, depth + 1));
  }
  return [...new Set(out)];
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

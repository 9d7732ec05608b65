/**
 * The safety layer in one place: the policy store, the approval gate the tool runtime asks
 * before every call, and the audit trail it reports every finished call to. createCore
 * builds one and hands its gate and sink to the tool runtime. The approver sees
 * typed text in full; the audit line keeps it as the policies' `audit_typed_text` says.
 */
import { createHash } from 'node:crypto';
import { newId } from '../protocol/envelope';
import { join } from 'node:path';
import type { AuditEntry, AuditTypedText } from '../../contract/admin-api';
import { accessCodeMatches } from '../bindings/access-codes';
import type { EventHub } from '../events/event-hub';
import type { BridgeActionLine } from '../events/bridge-events';
import type { FileCache } from '../files/file-cache';
import type { UrlSigner } from '../files/signed-url';
import type { Logger } from '../logging/logger';
import type { StateStore } from '../store/state-store';
import { replaceTypedText, typedTextDigest } from '../tools/typed-text';
import type { ScreenSources } from '../screen/screen-sources';
import { ApprovalGate, type ScreenStreamVouch } from './approval-gate';
import { AuditLog, type AuditLimits } from './audit-log';
import { PolicyStore } from './policies';
import { REDACTED, redactArguments } from './redact';
import type { AfterAck, CallOutcome, CallRecordSink, ToolCall } from '../tools/tool-call';
import { targetLabelOf } from '../tools/element-words';

export interface SafetyServiceOptions {
  dataDir: string;
  /** The name a phone gives an app, as last told (tools/): the approval card names the app by it. */
  appName?: (deviceId: string, pkg: string) => string | null;
  /** The screen stream's word on whether a read still shows the screen (the gate's reads skip the phone then). */
  screenStream?: ScreenStreamVouch;
  /** Each phone's pictures of its screen (the approval card's picture). */
  screens?: Pick<ScreenSources, 'of'>;
  store: StateStore;
  files: FileCache;
  signer: UrlSigner;
  hub: EventHub;
  logger: Logger;
  clock: () => number;
  approvalTimeoutMs: number;
  downloadUrlTtlMs: number;
  adbCommandTimeoutMs: number;
  /** Live secrets that must never be written (API key, admin token). */
  secrets: () => readonly string[];
  /** Key of the hashes that stand in for typed text in the audit trail (tools/typed-text.ts). */
  hashKey: Buffer;
  leaseId: (channelId: string) => number | undefined;
  auditLimits?: Partial<AuditLimits>;
}

// Screen reads before a call are bounded well below a tool's own deadline.
const MAX_PROBE_MS = 15_000;
const ACCESS_CODE_CACHE = 500;

export class SafetyService {
  readonly policies: PolicyStore;
  readonly audit: AuditLog;
  readonly gate: ApprovalGate;
  /** Before the ack: the gate's history the next call is judged on. */
  readonly sink: CallRecordSink;
  /** After the ack (call-pipeline.ts runs it first): the call's audit line. */
  readonly auditor: NonNullable<AfterAck['audit']>;
  private readonly codeCache = new Map<string, boolean>();
  private codeCacheKey = '';

  constructor(private readonly o: SafetyServiceOptions) {
    this.policies = new PolicyStore(o.store);
    this.audit = new AuditLog({
      dir: join(o.dataDir, 'audit'),
      ...(o.auditLimits ? { limits: o.auditLimits } : {}),
      secrets: o.secrets,
      logger: o.logger,
    });
    this.gate = new ApprovalGate({
      policies: this.policies,
      files: o.files,
      signer: o.signer,
      hub: o.hub,
      audit: this.audit,
      logger: o.logger,
      clock: o.clock,
      approvalTimeoutMs: o.approvalTimeoutMs,
      downloadUrlTtlMs: o.downloadUrlTtlMs,
      probeTimeoutMs: Math.min(o.adbCommandTimeoutMs, MAX_PROBE_MS),
      ...(o.screenStream ? { screenStream: o.screenStream } : {}),
      ...(o.screens ? { screens: o.screens } : {}),
      leaseId: o.leaseId,
      redaction: () => ({ secrets: o.secrets(), isAccessCode: (value) => this.isAccessCode(value) }),
      ...(o.appName ? { appName: o.appName } : {}),
    });
    this.sink = { record: (call, outcome) => this.gate.callFinished(call, outcome.outcome) };
    this.auditor = { recordCall: (call, outcome) => this.appendAudit({ call, ...outcome }) };
  }

  async stop(): Promise<void> {
    this.gate.stop();
    await this.audit.close();
  }

  /**
   * Whether a typed string is one of the lab's access codes (stored only as scrypt hashes).
   * Results are cached by a hash of the candidate, never by the candidate itself.
   */
  private isAccessCode(value: string): boolean {
    if (value.length < 4 || value.length > 128) return false;
    const codes = this.o.store.get().accessCodes;
    if (codes.length === 0) return false;
    const key = codes.map((c) => c.hash).join(',');
    if (key !== this.codeCacheKey) {
      this.codeCache.clear();
      this.codeCacheKey = key;
    }
    const digest = createHash('sha256').update(value).digest('base64url');
    const cached = this.codeCache.get(digest);
    if (cached !== undefined) return cached;
    const hit = codes.some((c) => accessCodeMatches(value, c));
    if (this.codeCache.size >= ACCESS_CODE_CACHE) this.codeCache.clear();
    this.codeCache.set(digest, hit);
    return hit;
  }

  /**
   * Something the bridge did on its own to keep a phone safe (the fast lane's guard stopped
   * its helper): one audit line, no channel, decided by the bridge.
   */
  recordBridgeAction(e: BridgeActionLine): void {
    this.audit.append({
      id: newId('aud', 9),
      time: this.o.clock(),
      connector_channel_id: null,
      device_id: e.deviceId,
      tool_id: e.action,
      arguments: e.details ?? {},
      decision: e.decision ?? 'stopped',
      decided_by: e.decidedBy ?? 'bridge',
      outcome: e.code === null ? 'ok' : 'error',
      error_code: e.code,
      duration_ms: e.durationMs ?? 0,
      reasons: e.reasons,
      screenshot_ref: null,
    });
  }

  /**
   * A call's arguments as its audit line shows them, with the typed-text setting of now: the
   * gate's redaction once it decided, else everything typed counts as secret. The phone view's
   * timeline shows calls with this, so it never shows more than the audit trail keeps.
   */
  auditArguments(call: ToolCall): Record<string, unknown> {
    return this.argumentsAtRest(call, this.policies.auditTypedText());
  }

  private argumentsAtRest(call: ToolCall, typedText: AuditTypedText): Record<string, unknown> {
    const redaction = { secrets: this.o.secrets(), isAccessCode: (v: string) => this.isAccessCode(v) };
    // A call that never reached the gate was not classified: its typed text stays secret.
    const shown =
      call.verdict?.redactedArgs ?? redactArguments(call.tool.id, call.args, { ...redaction, secretText: true });
    if (typedText === 'full') return shown;
    // Each typed text becomes its length and keyed hash (computed from the text as typed);
    // text already redacted as a secret stays `[redacted]`, never hashed.
    return replaceTypedText(call.tool.id, call.args, shown, (text, shownValue) =>
      shownValue === REDACTED ? REDACTED : typedTextDigest(text, this.o.hashKey),
    );
  }

  /**
   * The target's words as the audit keeps them: what the person saw on the element or the app's
   * name, never a live secret (the API key or admin token an app happened to show).
   */
  private targetLabelAtRest(result: CallOutcome['result']): string | null {
    const label = result ? targetLabelOf(result) : null;
    if (label === null) return null;
    return this.o.secrets().some((secret) => secret.length > 0 && label.includes(secret)) ? null : label;
  }

  /**
   * The audit line of a finished call, built once its ack is on its way (the call pipeline's
   * first follow-up), with the typed-text setting of then; it goes to disk asynchronously.
   */
  private appendAudit(e: FinishedCall): void {
    const { call } = e;
    const verdict = call.verdict;
    const entry: AuditEntry = {
      id: newId('aud', 9),
      time: call.receivedAt,
      connector_channel_id: call.channelId,
      device_id: call.device.deviceId,
      tool_id: call.tool.id,
      arguments: this.argumentsAtRest(call, this.policies.auditTypedText()),
      decision: verdict?.decision ?? 'not_reached',
      decided_by: verdict?.decidedBy ?? 'none',
      outcome: e.outcome,
      error_code: e.errorCode,
      duration_ms: e.durationMs,
      reasons: verdict?.reasons ?? [],
      screenshot_ref: verdict?.screenshotRef ?? null,
      risk: verdict ? verdict.risk : null,
      risk_classes: verdict ? [...verdict.riskClasses] : [],
      approval_id: verdict?.approvalId ?? null,
      target_label: this.targetLabelAtRest(e.result),
    };
    this.audit.append(entry);
  }
}

/** A finished call, as its audit line is built from it. */
type FinishedCall = CallOutcome & { call: ToolCall };

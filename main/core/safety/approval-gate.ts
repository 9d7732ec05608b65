/**
 * ApprovalGate: the SafetyGate the tool runtime asks before every call, inside the phone's
 * queue slot (so later control calls wait behind a held one). It reads the screen when the
 * policy could care, classifies the call, and allows, denies, or holds it for a person:
 * `waiting_approval` progress to the agent, an approval with a screenshot, the redacted
 * arguments, the reasons and a deadline for the UI, then approve once / approve for the rest
 * of the lease / deny / timeout / stop. Nothing reaches the phone unless it ends in allow.
 */
import { ScreenHistory } from './screen-history';
import type { UiNode } from '../android/ui-tree';
import { randomBytes } from 'node:crypto';
import type { AdminApproval, AdminApprovalAction, AdminApprovalReason } from '../../contract/admin-api';
import { BridgeError } from '../errors';
import { ScreenSources } from '../screen/screen-sources';
import type { EventHub } from '../events/event-hub';
import type { FileCache } from '../files/file-cache';
import type { UrlSigner } from '../files/signed-url';
import { redact as redactKnown, type Logger } from '../logging/logger';
import type { BatchStep } from '../tools/tool-definition';
import type { AuditLog } from './audit-log';
import { SCREEN_CLASSES, classify, decideFor, screenNeeds, type Classification } from './policy-engine';
import { reasonInEnglish } from './reasons';
import { appLabel } from './sensitive-apps';
import { directionSwipe, type SwipeDirection } from '../android/input';
import type { PolicyStore } from './policies';
import { redactArguments, type RedactionContext } from './redact';
import type { RiskClass } from './risk-classes';
import type { GateDecision, SafetyGate, ToolCall } from '../tools/tool-call';
import { probeScreen, type ScreenFacts } from '../android/screen-probe';
import { toolFacts } from '../tools/catalogue';
import { assertSelectorsShown } from '../tools/targets';
import { assertSecretFieldMasked } from '../tools/secret-text';

export type ApprovalAnswer = 'approve' | 'approve_for_lease' | 'deny';

/** What the screen stream tells the gate: whether it runs, and whether anything changed since a read. */
export interface ScreenStreamVouch {
  running(deviceId: string): boolean;
  unchanged(deviceId: string, read: { startedAt: number; endedAt: number }): boolean;
}

export interface ApprovalGateOptions {
  policies: PolicyStore;
  files: FileCache;
  signer: UrlSigner;
  hub: EventHub;
  audit: AuditLog;
  logger: Logger;
  clock: () => number;
  /** Countdown of a held call; setApprovalTimeout changes it for calls held later. */
  approvalTimeoutMs: number;
  downloadUrlTtlMs: number;
  /** Deadline of the screen read before a call (window facts and UI tree). */
  probeTimeoutMs: number;
  /** The phone's screen stream, which may vouch that a read still shows the screen (screen-history.ts). */
  screenStream?: ScreenStreamVouch;
  /** Each phone's pictures of its screen (screen/): the card's picture; absent, a screencap. */
  screens?: Pick<ScreenSources, 'of'>;
  /** Identity of the channel's current lease (its bound-at time), undefined when unbound. */
  leaseId: (channelId: string) => number | undefined;
  redaction: () => Omit<RedactionContext, 'secretText'>;
  /** The name the phone's launcher gives a package, as the phone last told it (tools/app-labels.ts); absent or null: not known. */
  appName?: (deviceId: string, pkg: string) => string | null;
}

interface Pending {
  approval: AdminApproval;
  settle: (answer: ApprovalAnswer | 'timeout' | 'canceled') => void;
}

interface LeaseGrant {
  leaseId: number | undefined;
  deviceId: string;
  classes: Set<RiskClass>;
}

/** What the gate made of a call before deciding: the audit line and the approval card show it. */
interface Judged {
  classification: Classification;
  redactedArgs: Record<string, unknown>;
  reasons: string[];
  /** The package in front when the screen was read, else null. */
  front: string | null;
  /** The focused window read before a control call (the next call's tree reuse compares it). */
  windowBefore: string | null;
  /** The UI tree read afresh for this call, not a cached one (a ref is checked against it). */
  treeRead: readonly UiNode[] | null;
}

const SCREENSHOT_MAX_SIDE = 720;
const SCREENSHOT_TIMEOUT_MS = 10_000;

function newId(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

export class ApprovalGate implements SafetyGate {
  private readonly pending = new Map<string, Pending>();
  private readonly grants = new Map<string, LeaseGrant>();
  private approvalTimeoutMs: number;

  /** What the last action on each phone left on its screen (tree reuse, the helper's read after it). */
  private readonly history: ScreenHistory;
  /** Each phone's pictures (the card's picture of the screen). */
  private readonly screens: Pick<ScreenSources, 'of'>;

  constructor(private readonly o: ApprovalGateOptions) {
    this.screens = o.screens ?? new ScreenSources();
    this.history = new ScreenHistory({
      clock: o.clock,
      probeTimeoutMs: o.probeTimeoutMs,
      ...(o.screenStream
        ? {
            screenUnchanged: (deviceId, read) => o.screenStream!.unchanged(deviceId, read),
            streamRunning: (deviceId) => o.screenStream!.running(deviceId),
          }
        : {}),
    });
    this.approvalTimeoutMs = o.approvalTimeoutMs;
  }

  /** A new countdown for calls held from now on; a pending approval keeps the one it was shown with. */
  setApprovalTimeout(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms <= 0)
      throw new TypeError(`approval timeout must be a positive integer (got ${String(ms)})`);
    this.approvalTimeoutMs = ms;
  }

  /** Pending approvals for the admin state, oldest first. */
  list(): AdminApproval[] {
    return [...this.pending.values()].map((p) => p.approval);
  }

  /** A person's answer; BridgeError('approval_not_found') when it is no longer pending. */
  answer(approvalId: string, answer: ApprovalAnswer): void {
    const pending = this.pending.get(approvalId);
    if (!pending)
      throw new BridgeError(
        'approval_not_found',
        'no pending approval with that id (it may have been decided, timed out or stopped)',
      );
    pending.settle(answer);
  }

  /** The lease ended: its "approve for lease" grants end with it. */
  leaseEnded(channelId: string): void {
    this.grants.delete(channelId);
  }

  /** Cancels every held call (the bridge is stopping). */
  stop(): void {
    for (const pending of [...this.pending.values()]) pending.settle('canceled');
  }

  async decide(call: ToolCall): Promise<GateDecision> {
    const policy = this.o.policies.forDevice(call.device.deviceId);
    const facts = { toolId: call.tool.id, kind: call.tool.kind, args: call.args };
    const needs = screenNeeds(facts);
    // Reading the screen costs a UI dump; skip it when no screen class could change anything.
    const screenMatters = SCREEN_CLASSES.some((c) => policy.decisions[c] !== 'allow');
    let screen: ScreenFacts | null = null;
    // Typed text needs the screen anyway: whether it goes into a password field decides whether it is kept secret.
    // The whole tree, not only the focused node (which the tool's own focus check asks of the
    // UI reader): the classes read every clickable label for sensitive words and, when the
    // target field is not known, any password field on the screen (policy-engine.ts `type`).
    const types = call.tool.facts.policy === 'type' || call.tool.facts.policy === 'batch';
    if ((needs.window || needs.tree) && (screenMatters || types)) {
      // With the helper's read after the last action at hand, the window read alone decides
      // whether it still shows the screen: no second tree read starts alongside it.
      // A read still running (the call came back to back) is waited for while the window is read.
      const afterRunning = needs.tree ? this.history.awaitScreenAfter(call) : null;
      const afterAtHand = afterRunning !== null || this.history.screenAfterFor(call) !== null;
      const lanes = call.lanesAtSlot;
      // The screen stream vouches that the screen read after the last action is still what the
      // phone shows: judged on it with no read of the phone at all (screen-history.ts).
      // (A read still running is waited for first then: it is what the stream may vouch for.)
      if (afterRunning && this.history.mayVouch(call.device.deviceId)) await afterRunning;
      const still = this.history.stillShowing(call);
      screen = still
        ? { window: still.window, nodes: still.nodes, problems: [], fatal: null, reusedTree: true }
        : await probeScreen(call.shell, {
            withTree: needs.tree,
            timeoutMs: this.o.probeTimeoutMs,
            signal: call.signal,
            reuseTree: (window) => this.history.currentTree(call, window?.token ?? null),
            ...(lanes ? { readTree: lanes.readTree, cheapTree: lanes.cheapTree && !afterAtHand } : {}),
            ...(afterRunning ? { beforeReuse: afterRunning } : {}),
          });
      if (screen.fatal === 'canceled' || call.signal.aborted)
        return this.finish(call, null, { decision: 'deny', by: 'stop', reasons: ['stopped'], errorCode: 'canceled' });
    }
    if (call.tool.kind === 'control') this.history.controlJudged(call.device.deviceId);
    const judged = classify({ call: facts, screen, lastTree: call.lastTree(), userApps: policy.sensitiveApps });
    const redaction = this.o.redaction();
    // Reasons quote what the screen shows (a tapped label), which may be a typed secret.
    const hide = (text: string): string => redactKnown(text, redaction.secrets);
    const reasons = judged.reasons.map(hide);
    const why = judged.why.map((reason) => ({
      ...reason,
      params: Object.fromEntries(
        Object.entries(reason.params).map(([k, v]) => [k, typeof v === 'string' ? hide(v) : v]),
      ),
    }));
    const target = judged.target && {
      ...judged.target,
      label: judged.target.label === null ? null : hide(judged.target.label),
    };
    const classification = { ...judged, why, reasons, target };
    const redactedArgs = redactArguments(call.tool.id, call.args, {
      ...redaction,
      secretText: classification.secretText,
    });
    const { decision, asking, denying } = decideFor(classification.classes, policy);
    const treeRead = screen?.nodes && !screen.reusedTree ? screen.nodes : null;
    const base = {
      classification,
      redactedArgs,
      reasons,
      front: screen?.window?.package ?? null,
      windowBefore: screen?.window?.token ?? null,
      treeRead,
    };

    if (decision === 'deny') {
      const why = reasons.length ? reasons : [`${denying.join(', ')} is denied on this phone`];
      return this.finish(call, base, { decision: 'deny', by: 'policy', reasons: why, errorCode: 'policy_denied' });
    }
    if (decision === 'allow') return this.finish(call, base, { decision: 'allow', by: 'policy', reasons });
    const grant = this.grants.get(call.channelId);
    if (
      grant &&
      grant.deviceId === call.device.deviceId &&
      grant.leaseId === this.o.leaseId(call.channelId) &&
      asking.every((c) => grant.classes.has(c))
    ) {
      return this.finish(call, base, { decision: 'allow', by: 'lease_approval', reasons });
    }
    // A target the screen does not show cannot be acted on whatever the person answers.
    if (screen?.nodes) {
      assertSelectorsShown(call.args, screen.nodes);
      assertSecretFieldMasked(call.tool.id, call.args, screen.nodes, call.lastTree());
    }
    return this.hold(call, base, asking);
  }

  /**
   * Before a later `android_type_text` step of a batch. The batch was judged on the screen
   * before its first step, so a password field that earlier steps brought up (a login page
   * that opened) was not part of that decision. Unless password fields are allowed on this
   * phone, or this call was already approved as typing into one, the screen is read again;
   * if the text would go into a password field, the batch stops there with
   * `approval_required` (or `policy_denied`), and that step can be sent on its own to be
   * approved. Nothing is typed.
   */
  async checkStep(call: ToolCall, step: BatchStep): Promise<void> {
    if (step.index === 0 || toolFacts(step.toolId).policy !== 'type') return;
    const policy = this.o.policies.forDevice(call.device.deviceId);
    const rule = policy.decisions.password_field;
    if (rule === 'allow') return;
    const known = call.verdict;
    if (known?.decision === 'allow' && known.riskClasses.includes('password_field')) return;
    const lanes = call.lanesAtSlot;
    const screen = await probeScreen(call.shell, {
      withTree: true,
      timeoutMs: this.o.probeTimeoutMs,
      signal: call.signal,
      ...(lanes ? { readTree: lanes.readTree } : {}),
    });
    if (screen.fatal === 'canceled' || call.signal.aborted) throw new BridgeError('canceled', 'stopped');
    const facts = { toolId: step.toolId, kind: 'control' as const, args: step.args };
    const classification = classify({ call: facts, screen, lastTree: call.lastTree(), userApps: policy.sensitiveApps });
    if (!classification.classes.includes('password_field')) return;
    const where = `step ${step.index + 1} would type into a password field that appeared after the earlier steps`;
    if (rule === 'deny') throw new BridgeError('policy_denied', `${where}; password fields are denied on this phone`);
    throw new BridgeError(
      'approval_required',
      `${where}; nothing was typed. Send that step as its own android_type_text call so the person at the computer can approve it.`,
    );
  }

  async screenStill(call: ToolCall): Promise<UiNode[] | null> {
    if (!this.history.mayVouch(call.device.deviceId)) return null;
    await this.history.awaitScreenAfter(call);
    return this.history.stillShowing(call)?.nodes ?? null;
  }

  /** A call finished (its ack just sent, no later packet read yet): an allowed control call may have changed the screen (screen-history.ts). */
  callFinished(call: ToolCall, outcome: 'ok' | 'error'): void {
    this.history.callFinished(call, outcome);
  }

  /** After the call's ack (call-pipeline.ts): the fast lane reads the screen the action left. */
  readScreenAfter(call: ToolCall, outcome: 'ok' | 'error'): void {
    this.history.readScreenAfter(call, outcome);
  }

  private finish(
    call: ToolCall,
    base: Judged | null,
    decision: GateDecision,
    extra: { approvalId?: string; screenshotRef?: string | null } = {},
  ): GateDecision {
    const classification = base?.classification ?? {
      classes: [],
      why: [],
      reasons: [],
      risk: 'low' as const,
      secretText: true,
      target: null,
    };
    const redactedArgs =
      base?.redactedArgs ?? redactArguments(call.tool.id, call.args, { ...this.o.redaction(), secretText: true });
    call.verdict = {
      decision: decision.decision,
      decidedBy: decision.by,
      reasons: decision.reasons,
      risk: classification.risk,
      riskClasses: classification.classes,
      redactedArgs,
      approvalId: extra.approvalId ?? null,
      screenshotRef: extra.screenshotRef ?? null,
      windowBefore: base?.windowBefore ?? null,
      treeRead: base?.treeRead ?? null,
    };
    if (decision.decision === 'allow' && call.tool.kind === 'control') {
      return {
        ...decision,
        safety: {
          decision: 'allow',
          decided_by: decision.by,
          risk: classification.risk,
          risk_classes: classification.classes,
          reasons: decision.reasons,
          ...(extra.approvalId ? { approval_id: extra.approvalId } : {}),
        },
      };
    }
    return decision;
  }

  private async hold(call: ToolCall, base: Judged, asking: RiskClass[]): Promise<GateDecision> {
    const approvalId = newId('appr');
    const countdownMs = this.approvalTimeoutMs;
    const why: AdminApprovalReason[] = base.classification.why.length
      ? base.classification.why
      : [{ code: 'needs_approval', params: { classes: asking.join(',') } }];
    const reasons = base.reasons.length ? base.reasons : why.map(reasonInEnglish);
    call.hold(`waiting for approval at the computer: ${reasons.join('; ')}`.slice(0, 500));
    const shot = await this.screenshot(call, countdownMs).catch((error: unknown) => {
      this.o.logger.warn('approval screenshot failed', {
        approval: approvalId,
        error: error instanceof Error ? error.message : String(error),
      });
      return null;
    });
    if (call.signal.aborted)
      return this.finish(call, base, { decision: 'deny', by: 'stop', reasons, errorCode: 'canceled' }, { approvalId });
    const createdAt = this.o.clock();
    const approval: AdminApproval = {
      approval_id: approvalId,
      connector_channel_id: call.channelId,
      device_id: call.device.deviceId,
      tool_id: call.tool.id,
      arguments: base.redactedArgs,
      action: this.action(call, base, shot?.size ?? null),
      app: this.appOf(call, base),
      reasons: why,
      risk: base.classification.risk,
      risk_classes: asking,
      created_at: createdAt,
      expires_at: createdAt + countdownMs,
      screenshot_url: shot?.url ?? null,
    };
    this.o.logger.info('tool call held for approval', {
      approval: approvalId,
      tool: call.tool.id,
      device: call.device.deviceId,
      classes: asking.join(','),
    });

    return new Promise<GateDecision>((resolve) => {
      let done = false;
      const settle = (answer: ApprovalAnswer | 'timeout' | 'canceled'): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        call.signal.removeEventListener('abort', onAbort);
        this.pending.delete(approvalId);
        this.o.hub.publish('approval', { approval_id: approvalId, outcome: answer });
        this.o.hub.publish('state');
        this.o.logger.info('approval settled', { approval: approvalId, outcome: answer });
        if (answer === 'approve' || answer === 'approve_for_lease') {
          if (answer === 'approve_for_lease') {
            const existing = this.grants.get(call.channelId);
            const leaseId = this.o.leaseId(call.channelId);
            const same = existing && existing.leaseId === leaseId && existing.deviceId === call.device.deviceId;
            const classes = new Set<RiskClass>(same ? existing.classes : []);
            for (const c of asking) classes.add(c);
            this.grants.set(call.channelId, { leaseId, deviceId: call.device.deviceId, classes });
          }
          // The approver's view is kept with the audit trail, beyond the cache's TTL.
          const screenshotRef = shot ? `shot_${approvalId}.jpg` : null;
          if (shot && screenshotRef) {
            this.o.audit.keepScreenshot(screenshotRef, shot.jpeg).catch((error: unknown) => {
              this.o.logger.warn('could not keep the approval screenshot', {
                error: error instanceof Error ? error.message : String(error),
              });
            });
          }
          resolve(
            this.finish(
              call,
              base,
              { decision: 'allow', by: answer === 'approve' ? 'admin' : 'admin_for_lease', reasons },
              { approvalId, screenshotRef },
            ),
          );
        } else if (answer === 'deny') {
          resolve(
            this.finish(
              call,
              base,
              { decision: 'deny', by: 'admin', reasons, errorCode: 'approval_denied' },
              { approvalId },
            ),
          );
        } else if (answer === 'timeout') {
          resolve(
            this.finish(
              call,
              base,
              {
                decision: 'deny',
                by: 'timeout',
                reasons: [...reasons, `no answer within ${Math.round(countdownMs / 1000)} s`],
                errorCode: 'approval_timeout',
              },
              { approvalId },
            ),
          );
        } else {
          resolve(
            this.finish(call, base, { decision: 'deny', by: 'stop', reasons, errorCode: 'canceled' }, { approvalId }),
          );
        }
      };
      const onAbort = (): void => settle('canceled');
      const timer = setTimeout(() => settle('timeout'), countdownMs);
      timer.unref();
      call.signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(approvalId, { approval, settle });
      if (call.signal.aborted) return settle('canceled');
      this.o.hub.publish('approval', { approval_id: approvalId, outcome: 'pending' });
      this.o.hub.publish('state');
    });
  }

  /**
   * What the held call would do, from what the gate already resolved (no second read of the
   * phone): the target, a swipe's path (a direction scaled to the screenshot's size), the file.
   */
  private action(call: ToolCall, base: Judged, size: { width: number; height: number } | null): AdminApprovalAction {
    const args = call.args as {
      direction?: SwipeDirection;
      distance?: number;
      from_x?: number;
      from_y?: number;
      to_x?: number;
      to_y?: number;
      file_ref?: string;
    };
    let swipe: AdminApprovalAction['swipe'] = null;
    if (call.tool.facts.timeline === 'swipe') {
      if (args.direction && size) {
        const path = directionSwipe(args.direction, args.distance, size);
        swipe = { from: [path.from.x, path.from.y], to: [path.to.x, path.to.y] };
      } else if (
        args.from_x !== undefined &&
        args.from_y !== undefined &&
        args.to_x !== undefined &&
        args.to_y !== undefined
      ) {
        swipe = { from: [args.from_x, args.from_y], to: [args.to_x, args.to_y] };
      }
    }
    const file = typeof args.file_ref === 'string' ? this.o.files.get(args.file_ref) : undefined;
    return {
      target: base.classification.target,
      swipe,
      file_name: file ? file.filename : null,
      screen_size: size,
    };
  }

  /** The app the call acts in (the one in front) or on (the package an app tool names). */
  private appOf(call: ToolCall, base: Judged): AdminApproval['app'] {
    const named = (call.args as { package?: unknown }).package;
    const pkg = typeof named === 'string' && call.tool.facts.policy !== 'batch' ? named : base.front;
    // The phone's own name for it first (in its language), then the sensitive list's, then the package.
    return pkg ? { package: pkg, label: this.o.appName?.(call.device.deviceId, pkg) ?? appLabel(pkg) ?? pkg } : null;
  }

  /**
   * The phone's screen at the moment the call is held, as a small JPEG in the file cache: from
   * the stream when it has a frame since the last action, else a screencap in the call's slot.
   */
  private async screenshot(
    call: ToolCall,
    countdownMs: number,
  ): Promise<{ url: string; jpeg: Buffer; size: { width: number; height: number } }> {
    const picture = await this.screens
      .of(call.device.deviceId)
      .picture('approval', { maxSide: SCREENSHOT_MAX_SIDE, quality: 70 }, (capture) => capture(call.signal), {
        shell: call.shell,
        timeoutMs: SCREENSHOT_TIMEOUT_MS,
        signal: call.signal,
      });
    const { jpeg } = picture;
    const file = await this.o.files.put({
      data: jpeg,
      mimeType: 'image/jpeg',
      filename: 'approval.jpg',
      channelId: call.channelId,
      kind: 'screenshot',
    });
    // The URL must outlive the countdown so the picture stays visible while the person decides.
    const url = this.o.signer.sign(
      file.fileRef,
      Math.max(this.o.downloadUrlTtlMs, countdownMs + 60_000),
      file.expiresAt,
    );
    return { url: url.path, jpeg, size: { width: picture.screenWidth, height: picture.screenHeight } };
  }
}

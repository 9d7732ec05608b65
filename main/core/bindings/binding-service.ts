/**
 * Bindings = authentication for this connector: a channel bound to one phone, with the
 * consent of the person at the computer (`desktop_approval`) or a lab access code
 * (`device_claim`). Decides what the auth flows' sessions (auth-sessions.ts) lead to, owns
 * the exclusive device lease of each binding (max duration, idle timeout, disconnect grace,
 * admin extend/revoke) and the Descriptor of every channel, pushing it whenever what it says
 * changes. A new lease policy (`setLeasePolicy`) gives new leases the new maximum; the idle
 * timeout and disconnect grace apply to running leases too.
 */
import { LEASE_CHECK_MS, leaseEndsNow, type LeaseEnd } from './lease-timer';
import { EventEmitter } from 'node:events';
import type { BridgeEventSink, LeaseEndReason } from '../events/bridge-events';
import type { LeasePolicy } from '../config/core-options';
import { BridgeError } from '../errors';
import type { DeviceRecord, DeviceRegistry } from '../devices/device-registry';
import { deviceHint, displayName } from '../devices/device-registry';
import type { ConnectorRuntime } from '../runtime/connector-runtime';
import { BINDING_HISTORY_MAX } from '../../contract/admin-api';
import type {
  PersistedBinding,
  PersistedChannel,
  PersistedEndedBinding,
  PersistedHolder,
  StateStore,
} from '../store/state-store';
import { ClaimGuard, storeAccessCode } from './access-codes';
import { approvalMessage, checkDeviceClaim } from './device-claim';
import { awayReason } from '../tools/away-lease';
import { AuthSessions, type AuthSession } from './auth-sessions';
import { buildDescriptor, type DescriptorStatus } from './descriptor';
import type { ToolMark } from './tool-marks';
import { ClaimLine, type LinePlace } from './claim-line';

export const DESKTOP_APPROVAL_FLOW = 'desktop_approval';
export const DEVICE_CLAIM_FLOW = 'device_claim';

export type { AuthSession, AuthStatus } from './auth-sessions';

export type BindingEndReason = LeaseEndReason;

/** The lab form's field where a claimant says who they are (optional; shown with the binding). */
export const REQUESTER_FIELD = 'requester';
const REQUESTER_MAX = 80;

export interface BindingServiceOptions {
  store: StateStore;
  runtime: ConnectorRuntime;
  registry: DeviceRegistry;
  toolIds: () => readonly string[];
  lease: LeasePolicy;
  pairingTtlMs: number;
  push: (channelId: string, descriptor: Record<string, unknown>) => void;
  /**
   * Why a phone that nobody holds still cannot be bound now (its turnover runs, or failed:
   * handover/handover.ts), else null.
   */
  deviceBlocked?: (deviceId: string) => string | null;
  /** A person has taken the phone over (takeover/takeover.ts): its lease's timers stand still meanwhile. */
  heldByPerson?: (deviceId: string) => boolean;
  /** Tools that cannot work on a phone (tool-marks.ts), shown in its channels' Descriptors. */
  toolMarks?: (deviceId: string) => ReadonlyMap<string, ToolMark>;
  /** A channel's last tool call, kept with the binding in the history when it ends. */
  lastAction?: (channelId: string) => { toolId: string; at: number; outcome: string } | undefined;
  clock?: (() => number) | undefined;
  /** Hears `leaseStarted` and `leaseEnded` after this service's own listeners (events/bridge-events.ts). */
  events?: BridgeEventSink;
}

export interface BindingServiceEvents {
  changed: [];
  /** A lease began: `channelId` holds `deviceId` now. */
  bound: [channelId: string, deviceId: string];
  /** A binding ended: queued work for that channel must be canceled; `flowId`: how it began. */
  ended: [channelId: string, deviceId: string, reason: BindingEndReason, flowId: string];
}

const ACTIVITY_FLUSH_MS = 5000;
/** Wrong access codes: per (channel, phone), and per phone across channels (opening channels is free). */
/** The same answer for a wrong code and a phone another channel holds: neither tells the other apart. */

export class BindingService extends EventEmitter<BindingServiceEvents> {
  private readonly sessions: AuthSessions;
  private readonly lastPushed = new Map<string, string>();
  private readonly offlineSince = new Map<string, number>();
  private readonly claims: ClaimGuard;
  /** device_claims with the right code for a busy phone (claim-line.ts), and whether each still needs a person. */
  private readonly line: ClaimLine;
  private readonly lineNeedsApproval = new Map<string, boolean>();
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly clock: () => number;
  private activityDirty = false;
  private lastActivityFlush = 0;
  private lease: LeasePolicy;

  constructor(private readonly options: BindingServiceOptions) {
    super();
    this.clock = options.clock ?? Date.now;
    this.lease = { ...options.lease };
    this.claims = new ClaimGuard(this.clock);
    this.line = new ClaimLine(this.clock);
    this.sessions = new AuthSessions({
      ttlMs: options.pairingTtlMs,
      clock: this.clock,
      onChange: (session) => {
        if (session.status !== 'pending') this.leaveLine(session);
        this.emit('changed');
        this.pushIfChanged(session.channelId);
      },
    });
    options.registry.on('changed', (device) => this.onDeviceChanged(device));
  }

  start(): void {
    this.sweepTimer = setInterval(() => this.sweep(), LEASE_CHECK_MS);
    this.sweepTimer.unref();
  }

  stop(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    this.flushActivity('now');
  }

  // ---- auth flows -------------------------------------------------------------------------

  startDesktopApproval(channel: PersistedChannel, caller: string | null = null): AuthSession {
    const session = this.sessions.create(channel.id, DESKTOP_APPROVAL_FLOW);
    session.message = approvalMessage(session.code);
    session.clientAddress = caller;
    this.emit('changed');
    return session;
  }

  /**
   * device_claim: resolve the phone, check the lab access code, bind at once or wait for a
   * local approval. `caller`: who asks, for the guess limits (the data plane's client address;
   * every channel it opens is the same caller).
   */
  startDeviceClaim(channel: PersistedChannel, input: Record<string, unknown>, caller: string): AuthSession {
    const session = this.sessions.create(channel.id, DEVICE_CLAIM_FLOW);
    session.clientAddress = caller;
    session.requester = requesterOf(input);
    session.claimedAs = typeof input.device === 'string' ? input.device.slice(0, REQUESTER_MAX) : null;
    this.emit('changed');
    const fail = (message: string): AuthSession => {
      session.status = 'failed';
      session.message = message;
      return session;
    };
    const checked = checkDeviceClaim(input, caller, {
      registry: this.options.registry,
      codes: this.options.store.get().accessCodes,
      claims: this.claims,
    });
    if ('refused' in checked) {
      if (checked.candidates) session.candidates = checked.candidates;
      return fail(checked.refused);
    }
    const { device, matched } = checked;
    const holder = this.leaseHolder(device.deviceId);
    // The right code for a busy phone (held, being reset, or others already waiting): wait in line.
    const busy =
      (holder !== undefined && holder !== channel.id) ||
      this.options.deviceBlocked?.(device.deviceId) != null ||
      this.line.waiting(device.deviceId).length > 0;
    if (busy) return this.waitInLine(session, device, matched.requireApproval, fail);
    if (matched.requireApproval) {
      session.deviceId = device.deviceId;
      session.message = `Waiting for the person at the computer to approve code ${session.code} for ${displayName(device)}.`;
      return session;
    }
    this.bind(channel.id, device, DEVICE_CLAIM_FLOW, holderOf(session, 'access_code'));
    session.status = 'authenticated';
    session.message = `Bound to ${displayName(device)}.`;
    return session;
  }

  private waitInLine(
    session: AuthSession,
    device: DeviceRecord,
    requireApproval: boolean,
    fail: (message: string) => AuthSession,
  ): AuthSession {
    if (
      !this.line.join({ authSessionId: session.authSessionId, channelId: session.channelId, deviceId: device.deviceId })
    )
      return fail(
        `${displayName(device)} is busy and its line is full (${this.line.maxPerPhone} claims waiting); try again later.`,
      );
    this.lineNeedsApproval.set(session.authSessionId, requireApproval);
    session.deviceId = device.deviceId;
    session.expiresAt = this.clock() + this.line.timeoutMs;
    session.message = `${displayName(device)} is busy: waiting in line; it binds to this channel when the phone is free and reset (at most ${Math.round(this.line.timeoutMs / 60_000)} min).`;
    this.emit('changed');
    return session;
  }

  private leaveLine(session: AuthSession): void {
    if (!this.lineNeedsApproval.has(session.authSessionId)) return;
    this.lineNeedsApproval.delete(session.authSessionId);
    if (session.status === 'expired')
      session.message = `Waited ${Math.round(this.line.timeoutMs / 60_000)} min in line; the phone stayed busy. Try again later.`;
    const waiting = this.line.waiting(session.deviceId ?? '');
    if (waiting.some((e) => e.authSessionId === session.authSessionId)) this.line.leave(session.channelId);
  }

  /** Where a pending claim stands in its phone's line, for auth.status; null when it is not waiting. */
  linePlace(session: AuthSession): LinePlace | null {
    if (session.status !== 'pending' || !this.lineNeedsApproval.has(session.authSessionId)) return null;
    const deviceId = session.deviceId ?? '';
    const holder = this.leaseHolder(deviceId);
    const lease = holder ? this.activeBinding(holder)?.lease : undefined;
    const now = this.clock();
    const ends = lease
      ? [lease.maxUntil, lease.idleTimeoutMs !== null ? lease.lastActivityAt + lease.idleTimeoutMs : null].filter(
          (t): t is number => t !== null,
        )
      : [];
    return this.line.place(session.channelId, ends.length > 0 ? Math.max(0, Math.min(...ends) - now) : null);
  }

  /** How many claims wait for a phone (the lab sees the line on the card). */
  lineLength(deviceId: string): number {
    return this.line.waiting(deviceId).length;
  }

  /**
   * The phone is free and reset: the first claim still waiting binds (or, when its code asks
   * for it, waits for the person's approval as any claim does).
   */
  phoneFree(deviceId: string): void {
    for (let entry = this.line.next(deviceId); entry; entry = this.line.next(deviceId)) {
      const session = this.sessions.get(entry.authSessionId);
      const needsApproval = this.lineNeedsApproval.get(entry.authSessionId);
      this.lineNeedsApproval.delete(entry.authSessionId);
      const device = this.options.registry.get(deviceId);
      if (!session || session.status !== 'pending' || needsApproval === undefined) continue;
      if (!this.options.runtime.channel(session.channelId) || !device || device.state !== 'device') continue;
      if (needsApproval) {
        session.message = `Waiting for the person at the computer to approve code ${session.code} for ${displayName(device)}.`;
      } else {
        this.bind(session.channelId, device, DEVICE_CLAIM_FLOW, holderOf(session, 'access_code'));
        session.status = 'authenticated';
        session.message = `Bound to ${displayName(device)}.`;
      }
      this.emit('changed');
      this.pushIfChanged(session.channelId);
      return;
    }
  }

  session(authSessionId: string): AuthSession | undefined {
    return this.sessions.get(authSessionId);
  }

  refreshSession(session: AuthSession): void {
    this.sessions.refresh(session, (code) =>
      session.deviceId === null
        ? approvalMessage(code)
        : `Waiting for the person at the computer to approve code ${code}.`,
    );
  }

  cancelSession(session: AuthSession): 'canceled' | 'ignored' {
    return this.sessions.cancel(session);
  }

  /** Pairing requests waiting for the person (claims still waiting in a phone's line are not theirs to decide yet). */
  pendingSessions(): AuthSession[] {
    return this.sessions.pending().filter((s) => !this.lineNeedsApproval.has(s.authSessionId));
  }

  /** Admin decision on a pending pairing. */
  decidePairing(
    authSessionId: string,
    decision: { action: 'approve'; deviceId?: string; code?: string } | { action: 'deny'; code?: string },
  ): AuthSession {
    const session = this.session(authSessionId);
    if (!session) throw new BridgeError('auth_session_not_found', 'no such pairing request');
    if (session.status !== 'pending')
      throw new BridgeError('invalid_arguments', `the pairing request is ${session.status}`);
    // The person decides on the code they see; a refresh in between replaced it.
    if (decision.code !== undefined && decision.code !== session.code) {
      throw new BridgeError(
        'invalid_arguments',
        'that pairing code was replaced by a new one; check the code xAgent shows now',
      );
    }
    if (decision.action === 'deny') {
      session.status = 'failed';
      session.message = 'The person at the computer denied the pairing request.';
      this.emit('changed');
      this.pushIfChanged(session.channelId);
      return session;
    }
    const deviceId = decision.deviceId ?? session.deviceId;
    if (!deviceId) throw new BridgeError('invalid_arguments', 'pick the phone to bind (device_id)');
    const device = this.options.registry.get(deviceId);
    if (!device || device.state === 'gone') throw new BridgeError('device_not_found', 'that phone is not connected');
    // The binding records the verified phone's name; binding an unverified one would misname it.
    if (device.state !== 'device' || device.verifiedAt === null)
      throw new BridgeError('device_offline', 'that phone is not ready yet; wait until it shows as connected');
    const holder = this.leaseHolder(deviceId);
    if (holder && holder !== session.channelId)
      throw new BridgeError('lease_conflict', 'that phone is leased to another channel');
    const blocked = holder === session.channelId ? null : this.options.deviceBlocked?.(deviceId);
    if (blocked) throw new BridgeError('lease_conflict', blocked);
    if (!this.options.runtime.channel(session.channelId))
      throw new BridgeError('connection_not_found', 'the channel no longer exists');
    const current = this.activeBinding(session.channelId);
    if (current && current.deviceId !== deviceId)
      throw new BridgeError(
        'lease_conflict',
        `that channel is already bound to ${current.displayName}; it must sign out first`,
      );
    const how = session.flowId === DEVICE_CLAIM_FLOW ? 'access_code_approved' : 'approved';
    this.bind(session.channelId, device, session.flowId, holderOf(session, how));
    session.status = 'authenticated';
    session.deviceId = deviceId;
    session.message = `Bound to ${displayName(device)}.`;
    this.emit('changed');
    return session;
  }

  // ---- bindings and leases ----------------------------------------------------------------

  binding(channelId: string): PersistedBinding | null {
    return this.options.runtime.channel(channelId)?.binding ?? null;
  }

  /** The live (not ended) binding of a channel, or undefined. */
  activeBinding(channelId: string): PersistedBinding | undefined {
    const binding = this.binding(channelId);
    return binding && binding.ended === null ? binding : undefined;
  }

  /** The channel holding a phone's lease, if any. */
  leaseHolder(deviceId: string): string | undefined {
    return this.options.runtime
      .channels()
      .find((c) => c.binding && c.binding.ended === null && c.binding.deviceId === deviceId)?.id;
  }

  /**
   * While a leased phone is away (unplugged, offline, unauthorized): when its lease ends unless
   * it comes back (the disconnect grace, or the lease's maximum if sooner). Null while it is
   * here or not leased.
   */
  awayLeaseEnd(deviceId: string): number | null {
    const since = this.offlineSince.get(deviceId);
    const holder = this.leaseHolder(deviceId);
    const lease = holder ? this.activeBinding(holder)?.lease : undefined;
    if (since === undefined || !lease) return null;
    const grace = since + this.lease.disconnectGraceMs;
    return lease.maxUntil !== null ? Math.min(grace, lease.maxUntil) : grace;
  }

  /** Records a tool call for the idle timeout (persisted lazily, not on every call). */
  touch(channelId: string): void {
    const binding = this.activeBinding(channelId);
    if (!binding) return;
    binding.lease.lastActivityAt = this.clock();
    this.activityDirty = true;
  }

  /** Signs the channel out: its binding and lease end, and no authentication stays in flight. */
  logout(channelId: string): void {
    this.sessions.endForChannel(channelId, 'The channel signed out.');
    this.endBinding(channelId, 'logout');
  }

  revoke(channelId: string): void {
    if (!this.activeBinding(channelId))
      throw new BridgeError('connection_not_found', 'that channel has no active lease');
    this.endBinding(channelId, 'revoked');
  }

  /**
   * A person handed the phone back after holding it `heldMs`: its lease's idle and maximum
   * timers move on by that time, as if they had stood still (they were not checked meanwhile).
   */
  resumeAfterTakeover(deviceId: string, heldMs: number): void {
    const channelId = this.leaseHolder(deviceId);
    const binding = channelId ? this.activeBinding(channelId) : undefined;
    if (!binding || heldMs <= 0) return;
    this.options.store.update(() => {
      if (binding.lease.maxUntil !== null) binding.lease.maxUntil += heldMs;
      // Never past now: a call refused while the phone was held still counted as activity.
      binding.lease.lastActivityAt = Math.min(binding.lease.lastActivityAt + heldMs, this.clock());
    });
    this.emit('changed');
  }

  /** Admin: extends the lease cap by `extraMs` and counts as activity for the idle timeout. */
  extendLease(channelId: string, extraMs: number): PersistedBinding {
    const binding = this.activeBinding(channelId);
    if (!binding) throw new BridgeError('connection_not_found', 'that channel has no active lease');
    if (!Number.isInteger(extraMs) || extraMs <= 0 || extraMs > 7 * 24 * 3600 * 1000) {
      throw new BridgeError('invalid_arguments', 'extend_ms must be a positive number of milliseconds up to 7 days');
    }
    this.options.store.update(() => {
      if (binding.lease.maxUntil !== null)
        binding.lease.maxUntil = Math.max(binding.lease.maxUntil, this.clock()) + extraMs;
      binding.lease.lastActivityAt = this.clock();
    });
    this.emit('changed');
    return binding;
  }

  /**
   * Changes the lease policy while running. New leases get all of it; running leases keep
   * their end (maxUntil: what the person agreed to, extend or revoke them by hand) but take
   * the new idle timeout (still counted from their last tool call, so a shorter one may end
   * an idle lease at the next check) and the new disconnect grace.
   */
  setLeasePolicy(policy: LeasePolicy): void {
    const idleChanged = policy.idleTimeoutMs !== this.lease.idleTimeoutMs;
    this.lease = { ...policy };
    if (!idleChanged) return;
    const active = this.options.runtime
      .channels()
      .flatMap((c) => (c.binding && c.binding.ended === null ? [c.binding] : []));
    if (active.length === 0) return;
    this.options.store.update(() => {
      for (const binding of active) binding.lease.idleTimeoutMs = policy.idleTimeoutMs;
    });
    this.emit('changed');
  }

  setAccessCode(scope: string, code: string | null, requireApproval: boolean): void {
    if (scope !== '*' && !this.options.registry.get(scope)) throw new BridgeError('device_not_found', 'no such phone');
    storeAccessCode(this.options.store, scope, code, requireApproval);
    this.emit('changed');
  }

  /** The same path as logout, for the runtime lease cascade (spec §8.2). */
  unregisterChannel(channel: PersistedChannel): void {
    this.sessions.endForChannel(channel.id, 'The connector runtime expired; authenticate again.');
    this.endBinding(channel.id, 'runtime_lease_expired');
    this.lastPushed.delete(channel.id);
    this.emit('changed');
  }

  // ---- descriptors --------------------------------------------------------------------------

  describe(channel: PersistedChannel): Record<string, unknown> {
    const connectorId = this.options.runtime.connectorId() ?? channel.connectorId;
    const base = { connectorId, channelId: channel.id, toolIds: this.options.toolIds() };
    const binding = channel.binding;
    if (!binding) {
      return buildDescriptor({
        ...base,
        status: this.sessions.hasPending(channel.id) ? 'authenticating' : 'created',
        displayName: 'Android device (not bound)',
      });
    }
    const { status, reason, deniedByTarget } = this.bindingStatus(binding);
    return buildDescriptor({
      ...base,
      status,
      displayName: binding.displayName,
      accountHint: binding.accountHint,
      ...(reason ? { unavailableReason: reason } : {}),
      ...(deniedByTarget ? { deniedByTarget } : {}),
      ...(status === 'connected' && this.options.toolMarks
        ? { toolMarks: this.options.toolMarks(binding.deviceId) }
        : {}),
    });
  }

  /** What can work on a phone changed (a phone check, a refusal, a success): push its channels' Descriptors if they changed. */
  toolMarksChanged(deviceId: string): void {
    for (const channel of this.options.runtime.channels()) {
      if (channel.binding?.deviceId === deviceId && channel.binding.ended === null) this.pushIfChanged(channel.id);
    }
  }

  bindingStatus(binding: PersistedBinding): { status: DescriptorStatus; reason?: string; deniedByTarget?: boolean } {
    if (binding.ended === 'revoked') return { status: 'revoked', reason: 'the lease was revoked at the computer' };
    if (binding.ended === 'expired') return { status: 'expired', reason: 'the lease ended; authenticate again' };
    const device = this.options.registry.get(binding.deviceId);
    const keptUntil = binding.ended === null ? this.awayLeaseEnd(binding.deviceId) : null;
    if (!device || device.state === 'gone')
      return { status: 'offline', reason: keptUntil !== null ? awayReason(keptUntil) : 'the phone is not connected' };
    if (device.state === 'unauthorized')
      return {
        status: 'offline',
        reason: 'the phone has not accepted this computer’s USB debugging key',
        deniedByTarget: true,
      };
    if (device.state !== 'device')
      return {
        status: 'offline',
        reason: keptUntil !== null ? awayReason(keptUntil) : (device.reason ?? 'the phone is offline'),
      };
    // Verified = facts read by a real command since the phone last became `device` in this
    // process (after a restart, an unplug or an adb reconnect), and they name the bound phone.
    if (device.verifiedAt === null) return { status: 'offline', reason: 'verifying the phone' };
    if (displayName(device) !== binding.displayName) {
      return { status: 'error', reason: 'a different phone now answers where the bound phone was; authenticate again' };
    }
    return { status: 'connected' };
  }

  /** Pushes the channel's Descriptor when what it says changed since the last push. */
  pushIfChanged(channelId: string): void {
    const channel = this.options.runtime.channel(channelId);
    if (!channel) return;
    const descriptor = this.describe(channel);
    const text = JSON.stringify(descriptor);
    if (this.lastPushed.get(channelId) === text) return;
    this.lastPushed.set(channelId, text);
    this.options.push(channelId, descriptor);
  }

  /** The Descriptor a channel gets as its data plane opens, noted as the one it was last told. */
  describeOnConnect(channel: PersistedChannel): Record<string, unknown> {
    const descriptor = this.describe(channel);
    this.noteDescribed(channel.id, descriptor);
    return descriptor;
  }

  /** Marks what the client already saw (open/get acks) so only real changes are pushed. */
  noteDescribed(channelId: string, descriptor: Record<string, unknown>): void {
    this.lastPushed.set(channelId, JSON.stringify(descriptor));
  }

  // ---- internals ----------------------------------------------------------------------------

  /** Bindings that ended, newest first. */
  history(): readonly PersistedEndedBinding[] {
    return this.options.store.get().bindingHistory;
  }

  private bind(channelId: string, device: DeviceRecord, flowId: string, holder: PersistedHolder): void {
    const now = this.clock();
    const policy = this.lease;
    const binding: PersistedBinding = {
      deviceId: device.deviceId,
      displayName: displayName(device),
      accountHint: deviceHint(device),
      boundAt: now,
      flowId,
      lease: {
        startedAt: now,
        maxUntil: policy.maxDurationMs === null ? null : now + policy.maxDurationMs,
        idleTimeoutMs: policy.idleTimeoutMs,
        lastActivityAt: now,
      },
      ended: null,
      holder,
    };
    this.options.store.update((s) => {
      const channel = s.channels[channelId];
      if (channel) channel.binding = binding;
    });
    this.emit('changed');
    this.emit('bound', channelId, device.deviceId);
    this.options.events?.emit('leaseStarted', { channelId, deviceId: device.deviceId });
    this.pushIfChanged(channelId);
  }

  private endBinding(channelId: string, reason: BindingEndReason, leaseEnd?: LeaseEnd): void {
    const channel = this.options.runtime.channel(channelId);
    const binding = channel?.binding;
    if (!channel || !binding) return;
    const wasActive = binding.ended === null;
    const last = this.options.lastAction?.(channelId);
    // Logout and the runtime cascade sign out (back to `created`); revoke and lease expiry keep
    // a terminal record so the Descriptor says why until the channel authenticates again.
    // The history gets the binding once, when it stops being active.
    this.options.store.update((s) => {
      if (wasActive) {
        const ended: PersistedEndedBinding = {
          channelId,
          deviceId: binding.deviceId,
          displayName: binding.displayName,
          boundAt: binding.boundAt,
          flowId: binding.flowId,
          endedAt: this.clock(),
          end: reason === 'expired' ? (leaseEnd ?? 'max_duration') : reason,
          holder: binding.holder,
          lastAction: last ? { toolId: last.toolId, at: last.at, outcome: last.outcome } : null,
        };
        s.bindingHistory = [ended, ...s.bindingHistory].slice(0, BINDING_HISTORY_MAX);
      }
      if (reason === 'logout' || reason === 'runtime_lease_expired') channel.binding = null;
      else binding.ended = reason === 'revoked' ? 'revoked' : 'expired';
    });
    if (wasActive) {
      this.line.noteLeaseDuration(binding.deviceId, this.clock() - binding.boundAt);
      this.emit('ended', channelId, binding.deviceId, reason, binding.flowId);
      this.options.events?.emit('leaseEnded', {
        channelId,
        deviceId: binding.deviceId,
        reason,
        flowId: binding.flowId,
      });
    }
    this.emit('changed');
    this.pushIfChanged(channelId);
  }

  private onDeviceChanged(device: DeviceRecord): void {
    if (device.state === 'device') {
      // Back from an unplug: the idle clock starts again now (it did not run while the phone was away).
      if (this.offlineSince.delete(device.deviceId)) {
        const holder = this.leaseHolder(device.deviceId);
        if (holder) this.touch(holder);
      }
    } else if (!this.offlineSince.has(device.deviceId)) this.offlineSince.set(device.deviceId, this.clock());
    for (const channel of this.options.runtime.channels()) {
      if (channel.binding?.deviceId === device.deviceId) this.pushIfChanged(channel.id);
    }
  }

  /** The lease timer (lease-timer.ts): ends every lease whose time is up. */
  private sweep(): void {
    const now = this.clock();
    for (const channel of this.options.runtime.channels()) {
      const binding = channel.binding;
      if (!binding || binding.ended !== null) continue;
      const online = this.options.registry.get(binding.deviceId)?.state === 'device';
      if (!online && !this.offlineSince.has(binding.deviceId)) this.offlineSince.set(binding.deviceId, now);
      const offlineSince = online ? undefined : this.offlineSince.get(binding.deviceId);
      // The agent cannot act while a person holds the phone: its idle and maximum time do not run.
      if (this.options.heldByPerson?.(binding.deviceId)) continue;
      const end = leaseEndsNow(binding.lease, now, offlineSince, this.lease.disconnectGraceMs);
      if (end !== null) this.endBinding(channel.id, 'expired', end);
    }
    this.sessions.sweep();
    // A claim that waited its whole time expires with its session (the sweep above says so to xAgent).
    for (const gone of this.line.expired()) this.lineNeedsApproval.delete(gone.authSessionId);
    // Tool calls only move the idle clock; writing it at most every 5 s keeps state.json off the hot path.
    if (this.activityDirty && now - this.lastActivityFlush >= ACTIVITY_FLUSH_MS) this.flushActivity('in background');
  }

  /**
   * Writes the leases' last activity: at stop before returning; while serving off the event
   * loop (calls keep flowing), and a failed write is tried again at the next sweep.
   */
  private flushActivity(when: 'now' | 'in background'): void {
    if (!this.activityDirty) return;
    this.activityDirty = false;
    this.lastActivityFlush = this.clock();
    if (when === 'now') {
      this.options.store.flush();
      return;
    }
    this.options.store.flushInBackground().catch(() => {
      this.activityDirty = true;
    });
  }
}

/** The claimant's own words for who they are, trimmed and bounded; null when not given. */
function requesterOf(input: Record<string, unknown>): string | null {
  const raw = input[REQUESTER_FIELD];
  if (typeof raw !== 'string') return null;
  // Control characters would let a claimant lay out the console's text; one line is enough.
  const clean = [...raw]
    .map((ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return clean ? [...clean].slice(0, REQUESTER_MAX).join('') : null;
}

/** What the binding keeps of the request that made it. */
function holderOf(session: AuthSession, how: PersistedHolder['how']): PersistedHolder {
  return {
    how,
    requestedAt: session.createdAt,
    code: session.code,
    message: session.message || null,
    requester: session.requester,
    claimedAs: session.claimedAs,
    clientAddress: session.clientAddress,
  };
}

/**
 * The runtime instance (`connector_id`) and its channels (spec §8.2, Architecture §3.4–3.5).
 *
 * Owns the runtime lease: when the last data plane that completed hello for the current
 * `connector_id` drops — or the bridge starts with persisted channels and nobody says hello —
 * a timer of `runtimeLeaseMs` starts; when it fires, every channel is unregistered through
 * `onChannelUnregistered` (the same path as a logout) and the `connector_id` is forgotten.
 *
 * Also bounds the channels themselves: at most `maxChannels` per `connector_id`
 * (`channel_limit_reached` beyond), and a channel that never completed authentication and
 * that no data plane holds open is abandoned: unregistered after `abandonedChannelTtlMs`.
 * xAgent persists a channel only once authentication succeeds (spec §8.3), so such a channel
 * is never asked for again.
 */
import { EventEmitter } from 'node:events';
import { CONNECTOR_CARD_ID } from '../protocol/identity';
import { newId } from '../protocol/envelope';
import { BridgeError } from '../errors';
import type { PersistedChannel, StateStore } from '../store/state-store';

export interface ConnectorRuntimeOptions {
  store: StateStore;
  runtimeLeaseMs: number;
  clock?: () => number;
  /** Called for each channel the runtime lease cascade or the abandoned-channel sweep removes, before it is deleted. */
  onChannelUnregistered: (channel: PersistedChannel, reason: ChannelUnregisterReason) => void;
  /** Channels per `connector_id` at once. Default DEFAULT_MAX_CHANNELS. */
  maxChannels?: number;
  /** A never-bound channel nobody holds open is unregistered after this long. Default DEFAULT_ABANDONED_CHANNEL_TTL_MS. */
  abandonedChannelTtlMs?: number;
  /** True while a data plane holds the channel open or an authentication for it is pending. */
  channelInUse?: (channelId: string) => boolean;
}

export type ChannelUnregisterReason = 'runtime_lease_expired' | 'channel_abandoned';

/** One user channel per phone (DESIGN "Channel mode"), with room for a large lab. */
export const DEFAULT_MAX_CHANNELS = 256;
/** Longer than a pairing (5 min) and any reconnect; an auth dialog left open keeps its channel held. */
export const DEFAULT_ABANDONED_CHANNEL_TTL_MS = 10 * 60_000;
/** The abandoned-channel sweep runs at least this often (and at half the TTL when that is shorter). */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export interface ConnectorRuntimeEvents {
  changed: [];
}

export class ConnectorRuntime extends EventEmitter<ConnectorRuntimeEvents> {
  private readonly liveDataPlanes = new Set<object>();
  private leaseTimer: NodeJS.Timeout | undefined;
  private leaseDeadline: number | undefined;
  private readonly clock: () => number;
  private runtimeLeaseMs: number;
  private leaseFrom: number | undefined;
  readonly maxChannels: number;
  readonly abandonedChannelTtlMs: number;
  /** channel id → when the sweep first saw it unbound and not in use. */
  private readonly idleSince = new Map<string, number>();
  private sweepTimer: NodeJS.Timeout | undefined;
  /** When the first of the data planes open now said hello; undefined while none is. */
  private connectedAt: number | undefined;

  constructor(private readonly options: ConnectorRuntimeOptions) {
    super();
    this.clock = options.clock ?? Date.now;
    this.runtimeLeaseMs = options.runtimeLeaseMs;
    this.maxChannels = options.maxChannels ?? DEFAULT_MAX_CHANNELS;
    this.abandonedChannelTtlMs = options.abandonedChannelTtlMs ?? DEFAULT_ABANDONED_CHANNEL_TTL_MS;
  }

  /** On start: a persisted runtime with nobody connected gets the same one-hour grace. */
  start(): void {
    if (this.connectorId() && this.liveDataPlanes.size === 0) this.armLease();
    const every = Math.max(1, Math.min(MAX_SWEEP_INTERVAL_MS, Math.floor(this.abandonedChannelTtlMs / 2)));
    this.sweepTimer = setInterval(() => this.sweepAbandoned(), every);
    this.sweepTimer.unref();
  }

  stop(): void {
    this.disarmLease();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /**
   * A new grace (Settings → Limits) applies at once: a runtime already waiting for xAgent gets
   * the new one counted from when its wait began, as if it had been the grace then.
   */
  setRuntimeLeaseMs(ms: number): void {
    this.runtimeLeaseMs = ms;
    if (this.leaseTimer) this.armLease(this.leaseFrom);
  }

  connectorId(): string | null {
    return this.options.store.get().connector.connectorId;
  }

  /** Resolves a hello to the runtime instance id: resume when it matches, else the current or a new one. */
  acceptHello(requested: string | undefined): { connectorId: string; resumed: boolean } {
    const current = this.connectorId();
    const now = this.clock();
    if (current) {
      this.options.store.update((s) => {
        s.connector.lastHelloAt = now;
      });
      return { connectorId: current, resumed: requested === current };
    }
    const connectorId = newId(`conn_${CONNECTOR_CARD_ID.replace(/\./g, '_')}`);
    this.options.store.update((s) => {
      s.connector.connectorId = connectorId;
      s.connector.lastSeenAt = now;
      s.connector.lastHelloAt = now;
    });
    this.emit('changed');
    return { connectorId, resumed: false };
  }

  attachDataPlane(token: object): void {
    if (this.liveDataPlanes.size === 0) this.connectedAt = this.clock();
    this.liveDataPlanes.add(token);
    this.disarmLease();
    this.emit('changed');
  }

  detachDataPlane(token: object): void {
    if (!this.liveDataPlanes.delete(token)) return;
    this.options.store.update((s) => {
      s.connector.lastSeenAt = this.clock();
    });
    if (this.liveDataPlanes.size === 0) {
      this.connectedAt = undefined;
      if (this.connectorId()) this.armLease();
    }
    this.emit('changed');
  }

  dataPlaneCount(): number {
    return this.liveDataPlanes.size;
  }

  /** When xAgent's current connection said hello (the first of its data planes open now), else null. */
  connectedSince(): number | null {
    return this.connectedAt ?? null;
  }

  /**
   * The last time any xAgent said hello to this bridge, kept across restarts and lease
   * expiries; null when none ever has. A state file from before this was recorded still
   * counts a known runtime as having said hello (when it was first seen).
   */
  lastHelloAt(): number | null {
    const { lastHelloAt, connectorId, lastSeenAt } = this.options.store.get().connector;
    return lastHelloAt ?? (connectorId !== null ? lastSeenAt : null);
  }

  leaseExpiresAt(): number | undefined {
    return this.leaseDeadline;
  }

  channel(id: string): PersistedChannel | undefined {
    const channel = this.options.store.get().channels[id];
    return channel && channel.connectorId === this.connectorId() ? channel : undefined;
  }

  channels(): PersistedChannel[] {
    const current = this.connectorId();
    return Object.values(this.options.store.get().channels).filter((c) => c.connectorId === current);
  }

  /** channel.open: reuse a known id of this runtime, otherwise allocate a new one. */
  openChannel(requested: string | undefined): { channel: PersistedChannel; reused: boolean } {
    if (requested) {
      const known = this.channel(requested);
      if (known) return { channel: known, reused: true };
    }
    const connectorId = this.connectorId();
    if (!connectorId) throw new Error('openChannel before hello');
    if (this.channels().length >= this.maxChannels) {
      throw new BridgeError(
        'channel_limit_reached',
        `this connector already has ${this.maxChannels} channels; close or log out of one first`,
      );
    }
    const channel: PersistedChannel = { id: newId('cch'), connectorId, createdAt: this.clock(), binding: null };
    this.options.store.update((s) => {
      s.channels[channel.id] = channel;
    });
    this.emit('changed');
    return { channel, reused: false };
  }

  /**
   * Unregisters channels that never completed authentication and that nobody has used for
   * `abandonedChannelTtlMs` (neither open on a data plane nor in a pending authentication).
   */
  sweepAbandoned(): void {
    const now = this.clock();
    const seen = new Set<string>();
    for (const channel of this.channels()) {
      seen.add(channel.id);
      if (channel.binding !== null || this.options.channelInUse?.(channel.id) === true) {
        this.idleSince.delete(channel.id);
        continue;
      }
      const since = this.idleSince.get(channel.id);
      if (since === undefined) {
        this.idleSince.set(channel.id, now);
        continue;
      }
      if (now - since < this.abandonedChannelTtlMs) continue;
      this.idleSince.delete(channel.id);
      try {
        this.options.onChannelUnregistered(channel, 'channel_abandoned');
      } finally {
        this.options.store.update((s) => {
          delete s.channels[channel.id];
        });
      }
      this.emit('changed');
    }
    for (const id of this.idleSince.keys()) if (!seen.has(id)) this.idleSince.delete(id);
  }

  /** `from`: when the grace began (kept when a new grace re-arms it); else now, or the last data plane's close if later. */
  private armLease(from?: number): void {
    this.disarmLease();
    const lastSeen = this.options.store.get().connector.lastSeenAt ?? this.clock();
    this.leaseFrom = from ?? Math.max(this.clock(), lastSeen);
    this.leaseDeadline = this.leaseFrom + this.runtimeLeaseMs;
    const delay = Math.max(0, this.leaseDeadline - this.clock());
    this.leaseTimer = setTimeout(() => this.expire(), delay);
    this.leaseTimer.unref();
  }

  private disarmLease(): void {
    if (this.leaseTimer) clearTimeout(this.leaseTimer);
    this.leaseTimer = undefined;
    this.leaseDeadline = undefined;
  }

  /** The cascade: every channel of the expired runtime is unregistered, then the id is dropped. */
  private expire(): void {
    this.leaseTimer = undefined;
    this.leaseDeadline = undefined;
    if (this.liveDataPlanes.size > 0) return;
    const expired = this.connectorId();
    if (!expired) return;
    for (const channel of this.channels()) {
      try {
        this.options.onChannelUnregistered(channel, 'runtime_lease_expired');
      } finally {
        this.options.store.update((s) => {
          delete s.channels[channel.id];
        });
      }
    }
    this.options.store.update((s) => {
      s.connector.connectorId = null;
    });
    this.emit('changed');
  }
}

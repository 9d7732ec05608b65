/**
 * The runtime instance (`connector_id`) and its channels (spec §8.2, Architecture §3.4–3.5).
 *
 * Owns the runtime lease: when the last data plane that completed hello for the current
 * `connector_id` drops — or the bridge starts with persisted channels and nobody says hello —
 * a timer of `runtimeLeaseMs` starts; when it fires, every channel is unregistered through
 * `onChannelUnregistered` (the same path as a logout) and the `connector_id` is forgotten.
 */
import { EventEmitter } from 'node:events';
import { CONNECTOR_CARD_ID } from '../protocol/identity';
import { newId } from '../protocol/envelope';
import type { PersistedChannel, StateStore } from '../store/state-store';

export interface ConnectorRuntimeOptions {
  store: StateStore;
  runtimeLeaseMs: number;
  clock?: () => number;
  /** Called for each channel the runtime lease cascade removes, before it is deleted. */
  onChannelUnregistered: (channel: PersistedChannel, reason: 'runtime_lease_expired') => void;
}

export interface ConnectorRuntimeEvents {
  changed: [];
}

export class ConnectorRuntime extends EventEmitter<ConnectorRuntimeEvents> {
  private readonly liveDataPlanes = new Set<object>();
  private leaseTimer: NodeJS.Timeout | undefined;
  private leaseDeadline: number | undefined;
  private readonly clock: () => number;

  constructor(private readonly options: ConnectorRuntimeOptions) {
    super();
    this.clock = options.clock ?? Date.now;
  }

  /** On start: a persisted runtime with nobody connected gets the same one-hour grace. */
  start(): void {
    if (this.connectorId() && this.liveDataPlanes.size === 0) this.armLease();
  }

  stop(): void {
    this.disarmLease();
  }

  connectorId(): string | null {
    return this.options.store.get().connector.connectorId;
  }

  /** Resolves a hello to the runtime instance id: resume when it matches, else the current or a new one. */
  acceptHello(requested: string | undefined): { connectorId: string; resumed: boolean } {
    const current = this.connectorId();
    if (current) return { connectorId: current, resumed: requested === current };
    const connectorId = newId(`conn_${CONNECTOR_CARD_ID.replace(/\./g, '_')}`);
    this.options.store.update((s) => {
      s.connector.connectorId = connectorId;
      s.connector.lastSeenAt = this.clock();
    });
    this.emit('changed');
    return { connectorId, resumed: false };
  }

  attachDataPlane(token: object): void {
    this.liveDataPlanes.add(token);
    this.disarmLease();
    this.emit('changed');
  }

  detachDataPlane(token: object): void {
    if (!this.liveDataPlanes.delete(token)) return;
    this.options.store.update((s) => {
      s.connector.lastSeenAt = this.clock();
    });
    if (this.liveDataPlanes.size === 0 && this.connectorId()) this.armLease();
    this.emit('changed');
  }

  dataPlaneCount(): number {
    return this.liveDataPlanes.size;
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
    const channel: PersistedChannel = { id: newId('cch'), connectorId, createdAt: this.clock(), binding: null };
    this.options.store.update((s) => {
      s.channels[channel.id] = channel;
    });
    this.emit('changed');
    return { channel, reused: false };
  }

  private armLease(): void {
    this.disarmLease();
    const lastSeen = this.options.store.get().connector.lastSeenAt ?? this.clock();
    this.leaseDeadline = Math.max(this.clock(), lastSeen) + this.options.runtimeLeaseMs;
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

/**
 * The connector runtime's wiring: the channels xAgent registers and the runtime lease. A
 * channel is in use while a data plane holds it open or an authentication for it is pending;
 * a channel the runtime removes is unbound first. The bindings and the data plane are made
 * after the runtime (both read it): they are read through `get()` once the bridge runs.
 */
import type { StateStore, PersistedChannel } from '../store/state-store';
import { ConnectorRuntime } from './connector-runtime';

export interface RuntimePorts {
  store: StateStore;
  clock: () => number;
  /** The start options: channel caps (core-options' `channels`). */
  options: { channels?: { maxPerConnector?: number; abandonedTtlMs?: number } };
  /** Settings → Limits at start: xAgent's reconnect grace (a start option has already won over the saved value). */
  limits: { runtime_grace_ms: number };
  bindings: {
    get(): { unregisterChannel(channel: PersistedChannel): void; pendingSessions(): readonly { channelId: string }[] };
  };
  plane: { get(): { isChannelHeld(channelId: string): boolean } };
}

export function wireRuntime(ports: RuntimePorts): ConnectorRuntime {
  const { bindings, plane } = ports;
  const channels = ports.options.channels;
  return new ConnectorRuntime({
    store: ports.store,
    runtimeLeaseMs: ports.limits.runtime_grace_ms,
    clock: ports.clock,
    onChannelUnregistered: (channel) => bindings.get().unregisterChannel(channel),
    ...(channels?.maxPerConnector !== undefined ? { maxChannels: channels.maxPerConnector } : {}),
    ...(channels?.abandonedTtlMs !== undefined ? { abandonedChannelTtlMs: channels.abandonedTtlMs } : {}),
    channelInUse: (id) =>
      plane.get().isChannelHeld(id) ||
      bindings
        .get()
        .pendingSessions()
        .some((s) => s.channelId === id),
  });
}

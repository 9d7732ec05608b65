/**
 * The safety room's wiring: policy, approvals and the audit trail. It writes the audit line of
 * every `bridgeAction` another room tells (a take-over, a hand-over, a guard's alert) and ends
 * a lease's pending approvals when the lease ends, by subscribing to those facts here.
 */
import type { BridgeEventSource } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import { SafetyService, type SafetyServiceOptions } from './safety-service';

type Given = 'store' | 'files' | 'signer' | 'hub' | 'logger' | 'clock' | 'secrets' | 'hashKey';

export interface SafetyPorts extends Pick<SafetyServiceOptions, Given> {
  events: BridgeEventSource;
  /** The start options the safety room reads (core-options). */
  options: {
    dataDir: string;
    downloadUrlTtlMs: number;
    adbCommandTimeoutMs: number;
    audit?: SafetyServiceOptions['auditLimits'];
  };
  /** Settings → Limits at start: the approval countdown (a change reaches the gate through config/apply-limits.ts). */
  limits: { approval_timeout_ms: number };
  /** The lease on a channel now (bindings/): its start is the identity of the approvals' lease. */
  leases: { activeBinding(channelId: string): { boundAt: number } | undefined };
  /** The screen stream (stream/): whether a read still shows the screen (the gate's reads skip the phone then). */
  streams: {
    live(deviceId: string): unknown;
    screenUnchangedSince(deviceId: string, read: { startedAt: number; endedAt: number }): boolean;
  };
  /** Each phone's pictures of its screen (screen/): the approval card's picture. */
  screens: NonNullable<SafetyServiceOptions['screens']>;
  /** The tools (made later: cycles.ts), which keep the names the phones gave their apps. */
  tools: { get(): { knownAppLabel(deviceId: string, pkg: string): string | null } };
  onError: (error: unknown) => void;
}

export function wireSafety(ports: SafetyPorts): { safety: SafetyService; stop: () => Promise<void> } {
  const { events, leases, streams, options, store, files, signer, hub, logger, clock, secrets, hashKey } = ports;
  const owned = new DisposableStore(ports.onError);
  const safety = new SafetyService({
    dataDir: options.dataDir,
    downloadUrlTtlMs: options.downloadUrlTtlMs,
    adbCommandTimeoutMs: options.adbCommandTimeoutMs,
    ...(options.audit ? { auditLimits: options.audit } : {}),
    approvalTimeoutMs: ports.limits.approval_timeout_ms,
    ...{ store, files, signer, hub, logger, clock, secrets, hashKey },
    leaseId: (channelId) => leases.activeBinding(channelId)?.boundAt,
    screenStream: {
      running: (deviceId) => streams.live(deviceId) !== null,
      unchanged: (deviceId, read) => streams.screenUnchangedSince(deviceId, read),
    },
    screens: ports.screens,
    appName: (deviceId, pkg) => ports.tools.get().knownAppLabel(deviceId, pkg),
  });
  owned.add(events.on('bridgeAction', (line) => safety.recordBridgeAction(line)));
  owned.add(events.on('leaseEnded', ({ channelId }) => safety.gate.leaseEnded(channelId)));
  return { safety, stop: () => owned.dispose() };
}

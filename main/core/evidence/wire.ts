/**
 * The evidence room's wiring: each lease's bundle, noted while it runs, built when it ends and
 * kept in the data dir. What a lease is for the bundle (its phone, holder and flow) is read
 * from the binding here, and the recorder follows the leases, the takeovers and the hand-over
 * by subscribing to their facts. At a lease's end it reads first (stage `first`): the lease's
 * log and typed texts are still there, the tools forget them next.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AuditEntry } from '../../contract/admin-api';
import type { BridgeEventSource } from '../events/bridge-events';
import { DisposableStore, listen } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { PersistedBinding } from '../store/state-store';
import { EvidenceRecorder, type EvidenceRecorderDeps, type LeaseEnd, type LeaseStart } from './evidence-recorder';
import { EvidenceStore, type EvidenceLimits } from './evidence-store';

export interface EvidencePorts {
  /** The start options: the data dir and the limits of the kept bundles (core-options' `evidence`). */
  options: { dataDir: string; evidence?: Partial<EvidenceLimits> };
  events: BridgeEventSource;
  /** The lease bound on a channel now, and its 'changed' (a binding may change without a call): bindings/. */
  leases: {
    activeBinding(channelId: string): PersistedBinding | undefined;
    on(event: 'changed', listener: () => void): unknown;
    off(event: 'changed', listener: () => void): unknown;
  };
  /** Every channel the runtime knows. */
  runtime: { channels(): readonly { id: string }[] };
  /** The tools, made after the evidence: the lease's rolling log, already redacted, read before they forget it. */
  tools: { get(): { leaseLog(channelId: string, deviceId: string): LeaseEnd['log'] } };
  /** Whether a hand-over runs after this phone's lease (its report is added when it finishes). */
  handover: { appliesTo(deviceId: string): boolean };
  safety: {
    audit: {
      read(filter: { deviceId: string }, limit: number): Promise<AuditEntry[]>;
      screenshotPath(name: string): string | undefined;
    };
  };
  files: { get: EvidenceRecorderDeps['fileInfo']; path(fileRef: string): string | undefined };
  secrets: () => readonly string[];
  /** The admin event hub: a phone's bundle was kept or completed ('evidence'). */
  hub: { publish(type: 'evidence', extra: { device_id: string }): void };
  clock: () => number;
  logger: Logger;
  onError: (error: unknown) => void;
}

export interface EvidenceRoom {
  store: EvidenceStore;
  recorder: EvidenceRecorder;
  stop: () => Promise<void>;
}

/** What the bundle keeps of a live binding. */
export function leaseStartOf(binding: PersistedBinding | undefined): LeaseStart | undefined {
  return binding
    ? {
        deviceId: binding.deviceId,
        phoneName: binding.displayName,
        boundAt: binding.boundAt,
        flowId: binding.flowId,
        holder: binding.holder
          ? {
              requester: binding.holder.requester,
              claimed_as: binding.holder.claimedAs,
              client_address: binding.holder.clientAddress,
            }
          : null,
      }
    : undefined;
}

/** A file's bytes, or undefined when it is gone (the bundle says so instead of failing). */
async function readIfThere(path: string | undefined): Promise<Buffer | undefined> {
  return path ? readFile(path).catch(() => undefined) : undefined;
}

export function wireEvidence(ports: EvidencePorts): EvidenceRoom {
  const { events, clock } = ports;
  const owned = new DisposableStore(ports.onError);
  const store = new EvidenceStore({
    dir: join(ports.options.dataDir, 'evidence'),
    clock,
    ...(ports.options.evidence ? { limits: ports.options.evidence } : {}),
  });
  const { audit } = ports.safety;
  const leaseStart = (channelId: string): LeaseStart | undefined => leaseStartOf(ports.leases.activeBinding(channelId));
  const recorder = new EvidenceRecorder({
    store,
    clock,
    activeLease: leaseStart,
    auditLines: (deviceId, limit) => audit.read({ deviceId }, limit),
    auditScreenshot: (name) => readIfThere(audit.screenshotPath(name)),
    fileInfo: (fileRef) => ports.files.get(fileRef),
    readFile: (fileRef) => readIfThere(ports.files.path(fileRef)),
    secrets: ports.secrets,
    saved: (deviceId) => ports.hub.publish('evidence', { device_id: deviceId }),
    logger: ports.logger,
  });
  owned.add(
    events.on(
      'leaseEnded',
      ({ channelId, deviceId, reason }) =>
        void recorder.leaseEnded(channelId, {
          deviceId,
          reason,
          log: ports.tools.get().leaseLog(channelId, deviceId),
          turnoverExpected: ports.handover.appliesTo(deviceId),
        }),
      'first',
    ),
  );
  owned.add(events.on('takenOver', ({ deviceId, state }) => recorder.personTook(deviceId, state)));
  owned.add(events.on('handedBack', ({ deviceId }) => recorder.personHandedBack(deviceId, clock())));
  owned.add(
    events.on(
      'handoverChanged',
      ({ deviceId, finished }) => finished && void recorder.turnoverFinished(deviceId, finished),
    ),
  );
  // A new lease starts its evidence record (a channel's binding may change without a call).
  owned.add(
    listen(ports.leases, 'changed', () => {
      for (const { id } of ports.runtime.channels()) {
        const start = leaseStart(id);
        if (start) recorder.noteLease(id, start);
      }
    }),
  );
  return { store, recorder, stop: () => owned.dispose() };
}

/**
 * The phone view's room wiring: live frames that never wait for the agent, and the timeline
 * of its calls. What counts as "the agent is busy on this phone" is decided here: control work
 * runs or waits in its queue and no call of it is held for the person's approval (a held call
 * waits on the person, who should see the phone meanwhile).
 */
import type { DeviceRecord } from '../devices/device-registry';
import type { BridgeEventSource } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import type { Logger } from '../logging/logger';
import type { DeviceQueue } from '../queue/device-queue';
import type { PhoneShells } from '../tools/phone-shells';
import { ActionTimeline, type ActionTimelineDeps } from './action-timeline';
import { LiveFrames, type LiveFramesDeps } from './live-frames';

/** Longest a live view's capture may take, whatever the adb command deadline. */
const CAPTURE_TIMEOUT_MS = 15_000;

export interface PhoneViewPorts {
  registry: { get(deviceId: string): DeviceRecord | undefined };
  /** The phone's shell. */
  shells: Pick<PhoneShells, 'shellFor'>;
  queue: Pick<DeviceQueue, 'submit' | 'controlLoad'>;
  /** The calls waiting for the person's approval (safety/approval-gate.ts). */
  gate: { list(): readonly { device_id: string }[] };
  /** Each phone's pictures (screen/): the live view's sources, the timeline's picture, the one encoder. */
  screens: NonNullable<LiveFramesDeps['screens']> & { encoder: NonNullable<ActionTimelineDeps['encoder']> };
  /** The call's arguments as the audit trail would keep them now (safety/safety-service.ts). */
  safety: { auditArguments: ActionTimelineDeps['redact'] };
  typing: NonNullable<ActionTimelineDeps['typing']>;
  /** The admin event hub: a phone's timeline changed ('action'). */
  hub: { publish(type: 'action', extra: { device_id: string }): void };
  commandTimeoutMs: number;
  clock: () => number;
  logger: Logger;
  events: BridgeEventSource;
  onError: (error: unknown) => void;
}

export function wirePhoneView(ports: PhoneViewPorts): {
  frames: LiveFrames;
  timeline: ActionTimeline;
  stop: () => Promise<void>;
} {
  const { queue, shells, clock } = ports;
  const owned = new DisposableStore(ports.onError);
  const frames = new LiveFrames({
    device: (deviceId) => ports.registry.get(deviceId),
    shellFor: (device) => shells.shellFor(device),
    observe: (deviceId, run) => queue.submit(deviceId, 'observation', 'phone-view', run),
    agentBusy: (deviceId) =>
      queue.controlLoad(deviceId) > 0 && !ports.gate.list().some((a) => a.device_id === deviceId),
    clock,
    captureTimeoutMs: Math.min(ports.commandTimeoutMs, CAPTURE_TIMEOUT_MS),
    screens: ports.screens,
  });
  const timeline = new ActionTimeline({
    clock,
    redact: (call) => ports.safety.auditArguments(call),
    typing: ports.typing,
    changed: (deviceId) => ports.hub.publish('action', { device_id: deviceId }),
    frames,
    logger: ports.logger,
    encoder: ports.screens.encoder,
  });
  // The take over, the hand-back and the reset after a lease join the phone's timeline as Activity words them.
  owned.add(ports.events.on('bridgeAction', (line) => timeline.recordStep(line)));
  return { frames, timeline, stop: () => owned.dispose() };
}

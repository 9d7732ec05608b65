/**
 * The phone check's room wiring: observation only, its commands wait behind no control call
 * and never hold one up. Whether a phone can type any text (its Unicode row) is decided here
 * from the fast lane's helper and scrcpy-server, and the row follows them by subscribing to
 * `programsChanged`.
 */
import type { AdminPhoneCheck } from '../../contract/admin-api';
import type { BridgeEventSource } from '../events/bridge-events';
import type { PhoneShells } from '../tools/phone-shells';
import { DisposableStore } from '../lifecycle/disposables';
import type { DeviceQueue } from '../queue/device-queue';
import { PhoneCheck, type PhoneCheckDeps } from './phone-check';

export interface PhoneCheckPorts {
  events: BridgeEventSource;
  registry: PhoneCheckDeps['registry'];
  /** The phone's shell, and where the display `dumpsys display` names is noted for the tools. */
  shells: Pick<PhoneShells, 'shellFor' | 'noteDisplays'>;
  queue: Pick<DeviceQueue, 'submit'>;
  /** The fast lane's helper on a phone: its one stock dump needs UiAutomation, so a running helper stops first. */
  helpers: {
    stopPhone(deviceId: string): Promise<void>;
    programView(deviceId: string): { enabled: boolean; state: string };
  };
  programs: {
    view(deviceId: string): readonly { program: string; state: string }[];
    /** The UI reader lets go of the phone's one UiAutomation connection (the check's stock dump needs it). */
    yieldUiAutomation(deviceId: string): Promise<void>;
  };
  tools: {
    lastRefusal(deviceId: string, code: 'input_blocked'): { at: number; message: string } | null;
    forgetScreenState(deviceId: string): void;
  };
  /** A check finished: the tool marks of its phone are recomputed (bindings/), the console redraws. */
  leases: { toolMarksChanged(deviceId: string): void };
  changed: () => void;
  clock: () => number;
  commandTimeoutMs: number;
  onError: (error: unknown) => void;
}

/** The helper's lifecycle states in which it types at the next call (not failed, unavailable or off). */
const HELPER_TYPES_IN = new Set(['idle', 'starting', 'ready']);
const SCRCPY_CANNOT = new Set(['off', 'unavailable']);

export function wirePhoneCheck(ports: PhoneCheckPorts): { phoneCheck: PhoneCheck; stop: () => Promise<void> } {
  const { helpers: helper, programs, tools, shells } = ports;
  const owned = new DisposableStore(ports.onError);
  const phoneCheck = new PhoneCheck({
    registry: ports.registry,
    shellFor: (device) => shells.shellFor(device),
    // The check's one stock dump needs UiAutomation: a running fast lane helper stops first (the next call starts it).
    observe: async (deviceId, run) => {
      await helper.stopPhone(deviceId);
      return ports.queue.submit(deviceId, 'observation', 'phone-check', run);
    },
    // The UI reader lets go only for the dump itself (a later call of the lease starts it again).
    beforeDump: (deviceId) => programs.yieldUiAutomation(deviceId),
    inputRefusal: (deviceId) => tools.lastRefusal(deviceId, 'input_blocked'),
    // The open-ports helper where it is on, else scrcpy-server (pastes any text) where this build and phone can run it.
    helperTypes: (deviceId) => {
      const view = helper.programView(deviceId);
      const scrcpy = programs.view(deviceId).find((p) => p.program === 'scrcpy_input');
      return (
        (view.enabled && HELPER_TYPES_IN.has(view.state)) || (scrcpy !== undefined && !SCRCPY_CANNOT.has(scrcpy.state))
      );
    },
    onDisplays: (deviceId, target) => shells.noteDisplays(deviceId, target),
    onResult: (check: AdminPhoneCheck) => {
      tools.forgetScreenState(check.device_id);
      ports.leases.toolMarksChanged(check.device_id);
      ports.changed();
    },
    clock: ports.clock,
    commandTimeoutMs: ports.commandTimeoutMs,
  });
  owned.add(ports.events.on('programsChanged', () => phoneCheck.helperChanged()));
  return { phoneCheck, stop: () => owned.dispose() };
}

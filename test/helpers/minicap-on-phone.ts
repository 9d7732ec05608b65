/**
 * What the bridge left of minicap on a simulated phone: its process (the native binary, or the
 * APK under app_process) and its folder's files. Tests check both after a stream stops.
 */
import { MINICAP_DIR } from '../../main/core/stream/minicap-process';
import type { SimulatedPhone } from '../../main/sim/phone';

export { MINICAP_DIR };

export function minicapRunning(phone: SimulatedPhone): boolean {
  return phone.processes.list().some((p) => p.name === 'minicap' || p.name === 'app_process');
}

export function minicapFiles(phone: SimulatedPhone): string[] {
  return (phone.fs.list(MINICAP_DIR) ?? []).map((e) => e.name);
}

export function minicapOnPhone(phone: SimulatedPhone): { running: boolean; files: string[] } {
  return { running: minicapRunning(phone), files: minicapFiles(phone) };
}

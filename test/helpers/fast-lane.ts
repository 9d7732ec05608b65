/**
 * What the fast lane's integration tests share: the phone's appium-uiautomator2-server as the
 * admin state shows it (its `uia2_server` program, with its exposure's fields at the top),
 * waiting for a lifecycle state, its actions through `POST …/programs`, and a bridge of its
 * own whose phone has it enabled and installed.
 */
import assert from 'node:assert/strict';
import { startBoundRig, type BoundRig, type DeviceRig } from './device-rig';
import type { Json } from './acks';
import type { SimulatedPhone } from '../../main/sim/phone';

export async function helperOf(rig: DeviceRig, index = 0): Promise<Json> {
  const state = await rig.bridge.admin('GET', '/admin/api/state');
  const device = (state.body.devices as Json[]).find((d) => d.device_id === rig.device(index).deviceId);
  const program = ((device?.programs ?? []) as Json[]).find((p) => p.program === 'uia2_server');
  return program ? { ...program, ...(program.exposure as Json) } : (program as unknown as Json);
}

/** Polls the admin state until the helper is in `wanted` (and matches `also`, when given). */
export async function waitForHelper(
  rig: DeviceRig,
  wanted: string,
  timeoutMs = 20_000,
  also: (helper: Json) => boolean = () => true,
): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const helper = await helperOf(rig);
    if (helper?.state === wanted && also(helper)) return helper;
    if (Date.now() > deadline) throw new Error(`helper never ${wanted}: ${JSON.stringify(helper)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A helper action on the rig's first phone; `enable` says yes to its open ports, as the card's button does. */
export async function setHelper(rig: DeviceRig, action: 'enable' | 'disable' | 'remove'): Promise<Json> {
  const program = 'uia2_server';
  const body = action === 'enable' ? { action, program, accept_open_ports: true } : { action, program };
  const res = await rig.bridge.admin('POST', `/admin/api/devices/${rig.device(0).deviceId}/programs`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** A bridge of its own with one phone whose helper is enabled and installed (not yet started); stopped after `body`. */
export async function withInstalledHelper(
  coreOptions: Parameters<typeof startBoundRig>[0],
  body: (bound: BoundRig, phone: SimulatedPhone) => Promise<void>,
  phoneOptions: Parameters<typeof startBoundRig>[1] = {},
): Promise<void> {
  const bound = await startBoundRig(coreOptions, phoneOptions);
  try {
    await setHelper(bound.rig, 'enable');
    await waitForHelper(bound.rig, 'idle');
    const phone = bound.rig.phones[0];
    assert.ok(phone);
    await body(bound, phone);
  } finally {
    await bound.stop();
  }
}

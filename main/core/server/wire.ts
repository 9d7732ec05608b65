/**
 * The data plane's wiring: xAgent's WebSockets, let in by the system API key of the moment
 * (a rotation closes the connections an older key let in), with a wrong key counted for the
 * person (refused-keys.ts). A channel's Descriptor at connect comes from the bindings.
 */
import type { Logger } from '../logging/logger';
import type { PersistedChannel } from '../store/state-store';
import type { ConnectorRuntime } from '../runtime/connector-runtime';
import { DataPlane, type DataPlaneLimits } from './data-plane';
import { RefusedKeys } from './refused-keys';

export interface DataPlanePorts {
  runtime: ConnectorRuntime;
  apiKey: { matches(token: string | undefined): boolean; generation(): number };
  bindings: { describeOnConnect(channel: PersistedChannel): Record<string, unknown> };
  options: { dataPlane?: Partial<DataPlaneLimits> };
  /** Something the console shows changed (a refused key): the admin event hub's 'state'. */
  changed: () => void;
  logger: Logger;
  clock: () => number;
}

export function wireDataPlane(ports: DataPlanePorts): { plane: DataPlane; refusedKeys: RefusedKeys } {
  const { apiKey, logger, clock } = ports;
  // A wrong key gets a clean 401; the person learns of it on Connect xAgent and in the terminal.
  const refusedKeys = new RefusedKeys({ clock, logger, changed: ports.changed });
  const plane = new DataPlane({
    runtime: ports.runtime,
    authorize: (token) => apiKey.matches(token),
    refusedKey: (address, given) => refusedKeys.note(address, given),
    keyGeneration: () => apiKey.generation(),
    logger,
    limits: ports.options.dataPlane ?? {},
    describe: (channel) => ports.bindings.describeOnConnect(channel),
  });
  return { plane, refusedKeys };
}

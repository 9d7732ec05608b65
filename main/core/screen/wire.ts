/**
 * The screen room's wiring: one ScreenSources for the bridge, from the narrow ports it needs
 * (the minicap streams' public API, the helper's MJPEG stream, the take-over's refusal).
 */
import type { BridgeError } from '../errors';
import { ScreenEncoder } from './screen-encoder';
import type { HelperStreamPort, StreamPort } from './screen-source';
import { ScreenSources } from './screen-sources';

export interface ScreenPorts {
  stream?: StreamPort;
  helper?: HelperStreamPort;
  /** A person holds or held the phone unwatched: the refusal of the agent's picture now, else null. */
  hiddenFromAgent?: (deviceId: string) => BridgeError | null;
}

export function wireScreen(ports: ScreenPorts): { service: ScreenSources; stop: () => void } {
  const service = new ScreenSources({ ...ports, encoder: new ScreenEncoder() });
  return { service, stop: () => service.stop() };
}

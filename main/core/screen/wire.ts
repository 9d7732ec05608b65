/**
 * The screen room's wiring: one ScreenSources for the bridge (a ScreenSource per phone and the
 * one encoder), from the narrow ports it needs — the minicap streams' public API, the fast lane
 * helper's MJPEG stream (display 0 only, as its other lanes), and the take over's refusal of the
 * agent's picture. A phone that goes away takes its source with it (`deviceChanged`).
 */
import type { BridgeError } from '../errors';
import type { BridgeEventSource } from '../events/bridge-events';
import { DisposableStore } from '../lifecycle/disposables';
import { ScreenEncoder } from './screen-encoder';
import type { HelperStreamPort, StreamPort } from './screen-source';
import { ScreenSources } from './screen-sources';

export interface ScreenPorts {
  /** The minicap streams (stream/screen-streams.ts). */
  streams: StreamPort;
  /** The fast lane helper's MJPEG stream (helper/helper-manager.ts). */
  helpers: { screenStream: HelperStreamPort['open'] };
  /** The display the tools act on: the helper's stream shows display 0 only. */
  shells: { displayInUse(deviceId: string): number };
  /** A person's hold (takeover/takeover.ts): while they hold the phone unwatched the stream serves their view only. */
  takeover: { hidesScreenSince(deviceId: string, from: number): boolean; screenRefusal(deviceId: string): BridgeError };
  clock: () => number;
  events: BridgeEventSource;
  onError: (error: unknown) => void;
}

export function wireScreen(ports: ScreenPorts): { service: ScreenSources; stop: () => Promise<void> } {
  const { shells, takeover, clock } = ports;
  const owned = new DisposableStore(ports.onError);
  const service = new ScreenSources({
    encoder: new ScreenEncoder(),
    stream: ports.streams,
    helper: {
      open: (deviceId, read) =>
        shells.displayInUse(deviceId) === 0 ? ports.helpers.screenStream(deviceId, read) : Promise.resolve(null),
    },
    hiddenFromAgent: (deviceId) =>
      takeover.hidesScreenSince(deviceId, clock()) ? takeover.screenRefusal(deviceId) : null,
  });
  owned.add(
    ports.events.on('deviceChanged', ({ deviceId, ready }) => {
      if (!ready) service.forget(deviceId);
    }),
  );
  owned.add(() => service.stop());
  return { service, stop: () => owned.dispose() };
}

/**
 * The phone view's live screen: asks the bridge for the frame after the one shown as soon as
 * it is shown (the bridge paces it: it captures back to back while asked, viewers share the
 * captures, and while the agent works the last frame comes back), so the rate is as high as
 * the phone allows without a fixed timer. Paused while the page is hidden and stopped when the view
 * closes; at most two object URLs live at a time (use-frame-loop.ts). Counts the distinct
 * frames shown.
 */
import { useRef, useState } from 'react';
import { useApi } from '../../api/api-context';
import { useFrameLoop } from '../../components/use-frame-loop';

/** Pause between asks when the bridge served the same frame again (the agent is working). */
const SAME_FRAME_PAUSE_MS = 250;
/** Pause between asks after a failure (the phone went away, the bridge is busy). */
const FAILURE_PAUSE_MS = 1_000;
/**
 * The shortest time from one ask to the next (at most ~33 a second). Counted from when the
 * last ask began, not from its answer, so the round trip does not lower a fast stream's rate.
 */
const MIN_GAP_MS = 30;

export interface LiveScreenState {
  url: string | null;
  seq: number;
  screenWidth: number;
  screenHeight: number;
  /** Distinct frames shown since the view opened. */
  shown: number;
  failed: boolean;
  /** The agent is working: the picture is the last one taken before. */
  waiting: boolean;
  paused: boolean;
  /** Where the picture shown came from: the fast lane helper's screen stream, or screencap. */
  lane: 'minicap' | 'helper' | 'adb';
}

const INITIAL: LiveScreenState = {
  url: null,
  seq: 0,
  screenWidth: 0,
  screenHeight: 0,
  shown: 0,
  failed: false,
  waiting: false,
  paused: false,
  lane: 'adb',
};

export function useLiveFrames(deviceId: string, enabled: boolean, maxSide: number): LiveScreenState {
  const api = useApi();
  const [state, setState] = useState<LiveScreenState>(INITIAL);
  // The frame shown last: the next ask is for the one after it.
  const lastSeq = useRef(0);

  useFrameLoop(enabled, [deviceId, maxSide], {
    begin() {
      lastSeq.current = 0;
    },
    fetch: (signal) =>
      api.getDeviceFrame(
        { device_id: deviceId, max_side: Math.round(maxSide), after: Math.max(0, Math.round(lastSeq.current)) },
        { signal },
      ),
    present(frame, urls, askedAt) {
      if (frame.seq === lastSeq.current) {
        setState((s) =>
          s.waiting === !frame.fresh && !s.failed && !s.paused
            ? s
            : { ...s, waiting: !frame.fresh, failed: false, paused: false },
        );
        return SAME_FRAME_PAUSE_MS;
      }
      lastSeq.current = frame.seq;
      const url = urls.show(frame.blob);
      setState((s) => ({
        url,
        seq: frame.seq,
        screenWidth: frame.screenWidth,
        screenHeight: frame.screenHeight,
        shown: s.shown + 1,
        failed: false,
        waiting: !frame.fresh,
        paused: false,
        lane: frame.lane,
      }));
      return Math.max(0, MIN_GAP_MS - (performance.now() - askedAt));
    },
    failed() {
      setState((s) => ({ ...s, failed: true }));
      return FAILURE_PAUSE_MS;
    },
    hidden: () => setState((s) => ({ ...s, paused: true })),
    ended: () => setState(INITIAL),
  });

  return state;
}

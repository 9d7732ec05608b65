/**
 * The freshness rule, in one place: for each use of a picture of the screen, which source
 * may answer, in which order, and how fresh its picture must be.
 *
 * - `stream`: minicap (stream/screen-streams.ts). It sends a frame for every change of the
 *   screen, so its newest frame is the screen now — except just after an action, whose change
 *   may still be on its way. Where the picture must show the screen after the phone's last
 *   action (the agent's screenshot, the approval card, the timeline's picture before an
 *   action), the stream's own wait decides (`agentFrame`: its latency bound since the action,
 *   a confirmed orientation); where any current picture does (the Devices thumbnail, the live
 *   view), its newest frame answers at once.
 * - `helper`: the fast lane's MJPEG stream. Only the live view reads it: it is small and runs
 *   only while someone watches.
 * - `screencap`: the stock way, on the phone's queue; always able to answer. Raw or PNG,
 *   whichever has lately been faster on this phone (chooseStrategy).
 *
 * A stream's picture is smaller than the screen: it answers a screenshot only when large
 * enough for the side asked for (never scaled up).
 */

/** What a picture of the screen is for. */
export type ScreenUse = 'screenshot' | 'approval' | 'timeline' | 'thumbnail' | 'live';

export type SourceKind = 'stream' | 'helper' | 'screencap';

/** How fresh a stream's picture must be: after the phone's last control action, or just its newest. */
export type StreamFreshness = 'after_last_action' | 'newest';

export interface UseRule {
  /** The sources that may answer, in order; the first that can, does. */
  sources: readonly SourceKind[];
  stream: StreamFreshness;
}

export const FRESHNESS: Readonly<Record<ScreenUse, UseRule>> = {
  screenshot: { sources: ['stream', 'screencap'], stream: 'after_last_action' },
  approval: { sources: ['stream', 'screencap'], stream: 'after_last_action' },
  timeline: { sources: ['stream', 'screencap'], stream: 'after_last_action' },
  thumbnail: { sources: ['stream', 'screencap'], stream: 'newest' },
  live: { sources: ['stream', 'helper', 'screencap'], stream: 'newest' },
};

/** What the phone offers right now. */
export interface SourceFacts {
  /** minicap runs and has a picture of the screen's orientation. */
  streamRunning: boolean;
  /** The helper's MJPEG stream is open. */
  helperStreaming: boolean;
}

/** The source that answers `use` now: the first of its rule the phone offers (screencap always can). */
export function pickSource(use: ScreenUse, facts: SourceFacts): SourceKind {
  for (const source of FRESHNESS[use].sources) {
    if (source === 'stream' && facts.streamRunning) return source;
    if (source === 'helper' && facts.helperStreaming) return source;
    if (source === 'screencap') return source;
  }
  return 'screencap';
}

/**
 * A picture already taken stands for the screen before the next action when it was taken
 * since the last action ended and is at most REUSE_FRAME_MS old (the timeline reuses the live
 * view's frame then, and takes no new one).
 */
export const REUSE_FRAME_MS = 3_000;

export function mayReuse(takenAt: number, lastActionEndedAt: number, now: number): boolean {
  return takenAt >= lastActionEndedAt && now - takenAt <= REUSE_FRAME_MS;
}

/** A stream's `image`-sized picture of a `screen`-sized screen serves `maxSide` (never scaled up). */
export function servesMaxSide(
  image: { width: number; height: number },
  screen: { width: number; height: number },
  maxSide: number,
): boolean {
  const wanted = Math.min(maxSide, Math.max(screen.width, screen.height));
  return Math.max(image.width, image.height) + 1 >= wanted;
}

// ---- screencap: raw or PNG, whichever this phone has lately done faster -----------------------

/** Per phone: how long each screencap strategy took lately (ms, smoothed). */
export interface CaptureTimings {
  raw?: number;
  png?: number;
  captures: number;
}

export type Strategy = 'raw' | 'png';

// Every so often the slower strategy is tried again: a phone's load, or the link, changes.
const REPROBE_EVERY = 25;
const SMOOTHING = 0.3;

/** raw first, then png once, then whichever has been faster (with an occasional re-probe). */
export function chooseStrategy(timings: CaptureTimings | undefined): Strategy {
  if (timings?.raw === undefined) return 'raw';
  if (timings.png === undefined) return 'png';
  const faster: Strategy = timings.png < timings.raw ? 'png' : 'raw';
  if (timings.captures % REPROBE_EVERY === 0) return faster === 'png' ? 'raw' : 'png';
  return faster;
}

export function recordTiming(timings: CaptureTimings | undefined, strategy: Strategy, ms: number): CaptureTimings {
  const next: CaptureTimings = { ...(timings ?? {}), captures: (timings?.captures ?? 0) + 1 };
  const previous = next[strategy];
  next[strategy] = previous === undefined ? ms : previous + SMOOTHING * (ms - previous);
  return next;
}

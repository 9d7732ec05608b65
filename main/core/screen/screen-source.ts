/**
 * One phone's pictures of its screen: every picture the bridge takes of a phone (the agent's
 * screenshot, the approval card, the timeline's picture, the Devices thumbnail, the live
 * view's frames) comes from its ScreenSource, which asks the freshness rule (freshness.ts)
 * which source answers — minicap's stream, the fast lane's MJPEG stream, or `screencap` — and
 * hands the result to the one encoder (screen-encoder.ts).
 *
 * What it keeps is this phone's only: how long each screencap strategy took lately, and the
 * decoded pixels (and encodings) of stream frames while a screenshot is being answered —
 * dropped as soon as no screenshot is in flight, so a still phone holds no picture here.
 */
import { isBridgeError, type BridgeError } from '../errors';
import { captureRaw, capturePng, type RawFrame } from '../android/screencap';
import type { DeviceShell } from '../devices/device-shell';
import {
  FRESHNESS,
  chooseStrategy,
  pickSource,
  recordTiming,
  servesMaxSide,
  type CaptureTimings,
  type ScreenUse,
} from './freshness';
import type {
  ImageFormat,
  JpegOptions,
  PictureOrigin,
  ScreenEncoder,
  ScreenJpeg,
  ScreenPixels,
} from './screen-encoder';

/** A frame of the minicap stream (stream/minicap-wire.ts `StreamFrame`): its JPEG and its number in the stream. */
export interface StreamFrame {
  jpeg: Buffer;
  index: number;
}

/** The phone's minicap stream as a ScreenSource reads it (ScreenStreams' public API). */
export interface StreamPort {
  /** A frame that shows the screen after the phone's last control action, or null (ScreenStreams.agentFrame). */
  agentFrame(
    deviceId: string,
    signal?: AbortSignal,
    onCandidate?: (frame: StreamFrame, screen: { width: number; height: number }) => void,
  ): Promise<{ frame: StreamFrame; screen: { width: number; height: number } } | null>;
  /** The running stream (pictures `scale` times the screen), or null (ScreenStreams.live). */
  live(deviceId: string): {
    reader: {
      readonly latest: StreamFrame | undefined;
      next(after: number, timeoutMs: number, signal?: AbortSignal): Promise<StreamFrame>;
      readonly closed: boolean;
    };
    scale: number;
  } | null;
  /** Someone needs the stream now: start it when allowed (ScreenStreams.want). */
  want(deviceId: string): void;
}

/** The fast lane helper's MJPEG stream (HelperManager.screenStream), while the helper runs on the display in use. */
export interface HelperStreamPort {
  open(
    deviceId: string,
    options: { timeoutMs: number },
  ): Promise<{
    stream: { next(timeoutMs: number, signal?: AbortSignal): Promise<Buffer>; close(): void; readonly closed: boolean };
    scale: number;
  } | null>;
}

export interface ScreenSourceDeps {
  encoder: ScreenEncoder;
  stream?: StreamPort;
  helper?: HelperStreamPort;
  /**
   * A person holds or held the phone without letting the agent watch: the refusal for the
   * agent's picture from the stream now (takeover/takeover.ts), else null.
   */
  hiddenFromAgent?: (deviceId: string) => BridgeError | null;
}

/** A call's way to read the phone: its shell, cancel and deadline. */
export interface ScreenRead {
  shell: DeviceShell;
  signal: AbortSignal;
  timeoutMs: number;
}

/** A small JPEG of the screen and where it came from. */
export interface ScreenPicture extends ScreenJpeg {
  /** The screen in its own pixels (the space of tap coordinates). */
  screenWidth: number;
  screenHeight: number;
  source: PictureOrigin;
}

/** The agent's screenshot as its pixels, and `done` to call once it is encoded (timings of the stock strategies). */
export interface AgentPixels {
  pixels: ScreenPixels;
  done: () => void;
}

/** A stream frame's decoded pixels and its encodings by output settings, while a screenshot is answered. */
interface Decoded {
  jpeg: Buffer;
  pixels: Promise<ScreenPixels>;
  /** The pixels once decoded (how an answer finds its encodings). */
  resolved?: ScreenPixels;
  encodings: Map<string, Promise<Buffer>>;
}

/** Stream frames decoded at once while a screenshot waits (the newest and the one being answered). */
const DECODED_KEPT = 2;

export class ScreenSource {
  private timings: CaptureTimings | undefined;
  private decoded: Decoded[] = [];
  private screenshotsInFlight = 0;

  constructor(
    readonly deviceId: string,
    private readonly deps: ScreenSourceDeps,
  ) {}

  get encoder(): ScreenEncoder {
    return this.deps.encoder;
  }

  /**
   * The agent's screenshot (`android_screenshot`): from the stream when it has a frame newer
   * than the last control action, large enough for `maxSide`; else screencap, the faster way
   * on this phone. `prepare` is given each stream frame that may become the answer while the
   * freshness wait runs (decoded), so its encoding starts early.
   */
  async screenshot(
    read: ScreenRead,
    maxSide: number,
    prepare?: (pixels: ScreenPixels) => Promise<unknown>,
  ): Promise<AgentPixels> {
    this.screenshotsInFlight += 1;
    try {
      const streamed = await this.fromStream(read.signal, maxSide, prepare);
      if (streamed) return { pixels: streamed, done: () => undefined };
      const strategy = chooseStrategy(this.timings);
      const started = performance.now();
      const deadline = { timeoutMs: Math.max(read.timeoutMs, 20_000), signal: read.signal };
      const pixels =
        strategy === 'png'
          ? await this.encoder.fromPng(await capturePng(read.shell, deadline))
          : this.encoder.fromRaw(await captureRaw(read.shell, deadline));
      // Timed to the encoded image, so a PNG's decode here counts against the png strategy.
      return {
        pixels,
        done: () => (this.timings = recordTiming(this.timings, strategy, performance.now() - started)),
      };
    } finally {
      this.screenshotsInFlight -= 1;
    }
  }

  /** The screenshot's pixels encoded as asked; a stream frame's encoding is shared with work started early. */
  encode(pixels: ScreenPixels, width: number, height: number, format: ImageFormat, quality: number): Promise<Buffer> {
    const settings = `${format}:${quality}:${width}x${height}`;
    const kept = this.decoded.find((d) => d.resolved === pixels);
    const cached = kept?.encodings.get(settings);
    if (cached) return cached;
    const encoded = this.encoder.encode(pixels, width, height, format, quality);
    if (kept) {
      const { encodings } = kept;
      encodings.set(settings, encoded);
      encoded.catch(() => {
        if (encodings.get(settings) === encoded) encodings.delete(settings);
      });
    }
    return encoded;
  }

  /** Stream frames decoded and kept now (tests of the memory bound). */
  get keptPictures(): number {
    return this.decoded.length;
  }

  /** The screenshot is answered: with none in flight, the decoded frames are let go. */
  screenshotDone(): void {
    if (this.screenshotsInFlight === 0) this.decoded = [];
  }

  /**
   * A small JPEG of the screen for `use` (the approval card, the timeline's picture, the
   * Devices thumbnail), from the source the freshness rule names; `screencap` runs the stock
   * capture where the caller says (the agent's slot, or observation work on the queue).
   */
  async picture(
    use: Exclude<ScreenUse, 'screenshot' | 'live'>,
    jpeg: JpegOptions,
    screencap: (capture: (signal: AbortSignal) => Promise<RawFrame>) => Promise<RawFrame>,
    read: { shell: DeviceShell; timeoutMs: number; signal?: AbortSignal },
  ): Promise<ScreenPicture> {
    const frame = await this.streamPicture(use, jpeg.maxSide, read.signal);
    if (frame) {
      try {
        const out = await this.encoder.jpeg({ jpeg: frame.jpeg }, jpeg);
        return { ...out, screenWidth: frame.screen.width, screenHeight: frame.screen.height, source: 'stream' };
      } catch {
        // A frame that does not decode is no answer: screencap, as without the stream.
      }
    }
    const raw = await screencap((signal) => captureRaw(read.shell, { timeoutMs: read.timeoutMs, signal }));
    const out = await this.encoder.jpeg({ raw }, jpeg);
    return { ...out, screenWidth: raw.width, screenHeight: raw.height, source: 'screencap' };
  }

  // ---- the live view (phone-view/live-frames.ts) reads the sources one by one ------------------

  /** Someone watches the phone: its minicap stream starts when allowed. */
  wantStream(): void {
    this.deps.stream?.want(this.deviceId);
  }

  /** The minicap stream while it runs (the live view's first source), else null. */
  liveStream(): ReturnType<StreamPort['live']> {
    return this.deps.stream?.live(this.deviceId) ?? null;
  }

  /** Which source the live view reads now (freshness.ts). */
  liveSource(helperStreaming: boolean): 'stream' | 'helper' | 'screencap' {
    return pickSource('live', { streamRunning: this.deps.stream?.live(this.deviceId) != null, helperStreaming });
  }

  /** The helper's MJPEG stream, or null (not running on the display in use, or it failed to open). */
  async openHelperStream(timeoutMs: number): ReturnType<HelperStreamPort['open']> {
    try {
      return (await this.deps.helper?.open(this.deviceId, { timeoutMs })) ?? null;
    } catch {
      return null;
    }
  }

  /** One stock capture with the caller's shell and signal. */
  screencap(read: ScreenRead): Promise<RawFrame> {
    return captureRaw(read.shell, { timeoutMs: read.timeoutMs, signal: read.signal });
  }

  // ---- the stream, by the freshness rule ------------------------------------------------------

  /** A stream frame for `use` by its rule (after the last action, or the newest), large enough for `maxSide`; else null. */
  private async streamPicture(
    use: ScreenUse,
    maxSide: number,
    signal: AbortSignal | undefined,
  ): Promise<{ jpeg: Buffer; screen: { width: number; height: number } } | null> {
    const stream = this.deps.stream;
    if (!stream || !FRESHNESS[use].sources.includes('stream')) return null;
    let got: { jpeg: Buffer; screen: { width: number; height: number } };
    if (FRESHNESS[use].stream === 'newest') {
      // minicap sends every change: its newest frame is the screen now.
      const live = stream.live(this.deviceId);
      const latest = live && !live.reader.closed ? live.reader.latest : undefined;
      if (!live || !latest) return null;
      const size = await this.encoder.size(latest.jpeg).catch(() => null);
      if (!size) return null;
      got = {
        jpeg: latest.jpeg,
        screen: { width: Math.round(size.width / live.scale), height: Math.round(size.height / live.scale) },
      };
    } else {
      try {
        const fresh = await stream.agentFrame(this.deviceId, signal);
        if (!fresh) return null;
        got = { jpeg: fresh.frame.jpeg, screen: fresh.screen };
      } catch (error) {
        // A stop of the call is its answer; any other trouble of the stream leaves it to screencap.
        if (isBridgeError(error) && error.code === 'canceled') throw error;
        return null;
      }
    }
    const size = await this.encoder.size(got.jpeg).catch(() => null);
    return size && servesMaxSide(size, got.screen, maxSide) ? got : null;
  }

  /**
   * The screenshot's frame from the stream (newer than the last control action, large enough
   * for `maxSide`), or undefined: the screenshot is then taken the stock way in the same call.
   */
  private async fromStream(
    signal: AbortSignal,
    maxSide: number,
    prepare?: (pixels: ScreenPixels) => Promise<unknown>,
  ): Promise<ScreenPixels | undefined> {
    const stream = this.deps.stream;
    if (!stream) return undefined;
    // While a person holds the phone unwatched the stream serves their live view only.
    const hidden = this.deps.hiddenFromAgent?.(this.deviceId) ?? null;
    if (hidden) throw hidden;
    const usable = (pixels: ScreenPixels): boolean =>
      servesMaxSide({ width: pixels.imageWidth, height: pixels.imageHeight }, pixels, maxSide);
    const onCandidate = prepare
      ? preparer(async (candidate: { frame: StreamFrame; screen: { width: number; height: number } }) => {
          const pixels = await this.decode(candidate.frame.jpeg, candidate.screen);
          if (usable(pixels)) await prepare(pixels);
        })
      : undefined;
    const got = await stream.agentFrame(
      this.deviceId,
      signal,
      onCandidate ? (frame, screen) => onCandidate({ frame, screen }) : undefined,
    );
    if (!got) return undefined;
    const pixels = await this.decode(got.frame.jpeg, got.screen);
    return usable(pixels) ? pixels : undefined;
  }

  /** A stream frame's pixels, decoded once while a screenshot is answered (keyed by the frame's own bytes). */
  private decode(jpeg: Buffer, screen: { width: number; height: number }): Promise<ScreenPixels> {
    const kept = this.decoded.find((d) => d.jpeg === jpeg);
    if (kept) return kept.pixels;
    const pixels = this.encoder.fromJpeg(jpeg, screen, 'stream');
    const entry: Decoded = { jpeg, pixels, encodings: new Map() };
    this.decoded = [entry, ...this.decoded].slice(0, DECODED_KEPT);
    pixels.then(
      (done) => (entry.resolved = done),
      // A failed decode is not kept: the answer tries again (and says why).
      () => (this.decoded = this.decoded.filter((d) => d !== entry)),
    );
    return pixels;
  }
}

/**
 * Starts the work on the pictures that may become the answer while the stream's freshness
 * wait runs (the newest frame, then each that arrives): decoded and encoded as asked, so the
 * answer, when it is one of them, is ready. One at a time; a picture superseded while
 * another is worked on is skipped for the newest.
 */
export function preparer<T>(work: (picture: T) => Promise<unknown>): (picture: T) => void {
  let busy = false;
  let next: T | undefined;
  const run = (picture: T): void => {
    busy = true;
    void work(picture)
      .catch(() => undefined)
      .finally(() => {
        busy = false;
        const queued = next;
        next = undefined;
        if (queued !== undefined) run(queued);
      });
  };
  return (picture) => {
    if (busy) next = picture;
    else run(picture);
  };
}

/**
 * minicap's socket side, written anew from DeviceFarmer/minicap's public behaviour
 * (jni/minicap/minicap.cpp for the native binary, experimental/app/…/SimpleServer.kt and
 * BaseProvider.kt for the APK): a client that connects to the abstract socket gets the 24-byte
 * global banner, then frames (uint32 LE length + JPEG of the screen at the projection's
 * virtual size) only when the screen changes, the first one for the frame pending since the
 * capture started. Clients are served one at a time, in the order they connected:
 *
 * - native: one accept loop. A client that leaves is noticed only when the next frame's
 *   send fails (that frame is lost), then the next waiting client is accepted; it gets the
 *   banner and waits for the next screen change.
 * - apk: the server accepts exactly one connection in its lifetime; later ones stay
 *   connected and get nothing. When that client leaves, the next frame's write throws and
 *   the process ends.
 *
 * Frames are encoded only when the screen changed and a client is waiting (one JPEG per
 * screen version, shared by repeated sends).
 */
import sharp from 'sharp';
import { SCREENCAP_HEADER_BYTES } from '../screen/frame-renderer';
import type { PhoneByteChannel } from '../phone-device';
import { sleepUnlessAborted } from '../timing-profiles';

export const MINICAP_BANNER_VERSION = 1;
export const MINICAP_BANNER_SIZE = 24;
export const QUIRK_DUMB = 1;
export const QUIRK_ALWAYS_UPRIGHT = 2;
export const QUIRK_TEAR = 4;

/** What the stream needs of the phone. */
export interface MinicapScreen {
  /**
   * The screen's current raw capture (screencap layout: 16-byte header, RGBA), at its own size
   * or composed straight at `drawnAt` (a virtual display of that size).
   */
  capture(drawnAt?: { width: number; height: number }): Promise<Buffer>;
  /** The screen's size now (it turns with the phone). */
  size(): { width: number; height: number };
  /** A key that changes whenever the captured pixels may have changed. */
  version(): number;
  /** Calls back on every screen change until unsubscribed. */
  onChange(listener: () => void): () => void;
}

export interface MinicapStreamOptions {
  flavour: 'native' | 'apk';
  pid: number;
  /** Banner fields: real and virtual size as the banner states them, orientation 0–3, quirk flags. */
  banner: { realWidth: number; realHeight: number; virtualWidth: number; virtualHeight: number; orientation: number };
  quirks: number;
  /**
   * The layer stack the virtual display shows (the -P real size, turned with the -P
   * orientation); undefined: the whole current screen, whatever its size (the APK).
   */
  source?: { width: number; height: number };
  /** The JPEG's size. */
  frame: { width: number; height: number };
  quality: number;
  /** -S: frames that piled up while one was sent are dropped (the APK always takes the latest). */
  skipFrames: boolean;
  /** Simulated cost of capturing and encoding one frame (timing profile). */
  frameCostMs: number;
  screen: MinicapScreen;
  /** Aborted when the process ends. */
  ended: AbortSignal;
  /** Informational lines minicap prints on stderr as it serves (`INFO: … New client connection`). */
  log(line: string): void;
  /** Called after each frame sent; a crash quirk may end the process there. */
  afterFrame?(sent: number): void;
  /** The process ends on its own (the APK after its only client left). */
  exit(): void;
}

function putUInt32LE(target: Buffer, offset: number, value: number): void {
  target.writeUInt32LE(value >>> 0, offset);
}

/** The 24-byte global header (README "Global header binary format"). */
export function minicapBanner(o: Pick<MinicapStreamOptions, 'pid' | 'banner' | 'quirks'>): Buffer {
  const b = Buffer.alloc(MINICAP_BANNER_SIZE);
  b.writeUInt8(MINICAP_BANNER_VERSION, 0);
  b.writeUInt8(MINICAP_BANNER_SIZE, 1);
  putUInt32LE(b, 2, o.pid);
  putUInt32LE(b, 6, o.banner.realWidth);
  putUInt32LE(b, 10, o.banner.realHeight);
  putUInt32LE(b, 14, o.banner.virtualWidth);
  putUInt32LE(b, 18, o.banner.virtualHeight);
  b.writeUInt8(o.banner.orientation & 0xff, 22);
  b.writeUInt8(o.quirks & 0xff, 23);
  return b;
}

/**
 * Renders one frame: the phone's screen laid on the display's layer stack as the virtual
 * display sees it (a screen turned away from the -P orientation is cropped at the top left,
 * the rest black), at the frame size, JPEG at `quality`. A screen that fills the layer stack
 * is composed straight at the frame size, as SurfaceFlinger does; only a cropped one is drawn
 * whole first.
 */
async function encodeFrame(
  screen: MinicapScreen,
  wanted: { width: number; height: number } | undefined,
  frame: { width: number; height: number },
  quality: number,
): Promise<Buffer> {
  const now = screen.size();
  const fills = !wanted || (wanted.width === now.width && wanted.height === now.height);
  const raw = await screen.capture(fills ? frame : undefined);
  const width = raw.readUInt32LE(0);
  const height = raw.readUInt32LE(4);
  const source = fills ? { width, height } : wanted;
  let pixels = raw.subarray(SCREENCAP_HEADER_BYTES);
  if (width !== source.width || height !== source.height) {
    // The top-left part of the screen that fits the layer stack; the rest of it stays black.
    const canvas = Buffer.alloc(source.width * source.height * 4);
    for (let i = 3; i < canvas.length; i += 4) canvas[i] = 255;
    const rowBytes = Math.min(width, source.width) * 4;
    for (let y = 0; y < Math.min(height, source.height); y++)
      pixels.copy(canvas, y * source.width * 4, y * width * 4, y * width * 4 + rowBytes);
    pixels = canvas;
  }
  let image = sharp(pixels, { raw: { width: source.width, height: source.height, channels: 4 } });
  if (source.width !== frame.width || source.height !== frame.height)
    image = image.resize(frame.width, frame.height, { fit: 'fill' });
  return image
    .removeAlpha()
    .jpeg({ quality: Math.min(100, Math.max(1, Math.round(quality))) })
    .toBuffer();
}

/** The server behind one minicap process's abstract socket. */
export class MinicapStream {
  private readonly waiting: Array<{ channel: PhoneByteChannel; admitted: () => void }> = [];
  private serving = false;
  private acceptedOnce = false;
  /** Frames the virtual display produced that the loop has not consumed (FrameWaiter's count). */
  private pendingFrames = 1;
  private frameWaiter: (() => void) | undefined;
  private changeQueued = false;
  private encoded: { version: number; jpeg: Promise<Buffer> } | undefined;
  private framesSent = 0;
  private readonly unsubscribe: () => void;

  constructor(private readonly o: MinicapStreamOptions) {
    // SurfaceFlinger composes once per vsync: changes in one turn are one new frame.
    this.unsubscribe = o.screen.onChange(() => {
      if (this.changeQueued) return;
      this.changeQueued = true;
      setImmediate(() => {
        this.changeQueued = false;
        this.pendingFrames++;
        this.wakeFrameWaiter();
      });
    });
    o.ended.addEventListener(
      'abort',
      () => {
        this.unsubscribe();
        this.wakeFrameWaiter();
        for (const w of this.waiting.splice(0)) w.channel.close();
      },
      { once: true },
    );
  }

  /** Serves a connection; resolves when minicap is done with it (the channel is then closed). */
  async accept(channel: PhoneByteChannel): Promise<void> {
    if (this.o.ended.aborted) return channel.close();
    if (this.o.flavour === 'apk' && this.acceptedOnce) {
      // In the listen backlog forever: connected, never accepted, nothing sent.
      await new Promise<void>((resolve) => {
        const done = (): void => resolve();
        this.o.ended.addEventListener('abort', done, { once: true });
        channel.signal.addEventListener('abort', done, { once: true });
      });
      return channel.close();
    }
    this.acceptedOnce = true;
    if (this.serving) {
      await new Promise<void>((admitted) => this.waiting.push({ channel, admitted }));
      if (this.o.ended.aborted) return channel.close();
    }
    this.serving = true;
    try {
      await this.serve(channel);
    } finally {
      channel.close();
      const next = this.waiting.shift();
      if (next) next.admitted();
      else this.serving = false;
    }
  }

  private async serve(channel: PhoneByteChannel): Promise<void> {
    if (this.o.flavour === 'native') this.o.log('INFO: (jni/minicap/minicap.cpp:464) New client connection');
    try {
      await channel.write(minicapBanner(this.o));
    } catch {
      return;
    }
    for (;;) {
      const pending = await this.waitForFrame();
      if (pending === 0) return; // the process is stopping
      this.pendingFrames -= this.o.skipFrames || this.o.flavour === 'apk' ? pending : 1;
      const began = performance.now();
      const version = this.o.screen.version();
      if (this.encoded?.version !== version) {
        const jpeg = encodeFrame(this.o.screen, this.o.source, this.o.frame, this.o.quality);
        this.encoded = { version, jpeg };
        // A failed render is not kept: the next frame tries again.
        jpeg.catch(() => {
          if (this.encoded?.jpeg === jpeg) this.encoded = undefined;
        });
      }
      let jpeg: Buffer;
      try {
        jpeg = await this.encoded.jpeg;
      } catch {
        continue;
      }
      // The simulated capture and encode time covers the real encoding time already spent.
      if (!(await sleepUnlessAborted(this.o.frameCostMs - (performance.now() - began), this.o.ended))) return;
      const header = Buffer.alloc(4);
      header.writeUInt32LE(jpeg.length, 0);
      if (channel.signal.aborted) {
        // send() fails with EPIPE now: the client went away while minicap waited for a frame.
        if (this.o.flavour === 'apk') this.o.exit();
        else this.o.log('INFO: (jni/minicap/minicap.cpp:531) Closing client connection');
        return;
      }
      try {
        await channel.write(Buffer.concat([header, jpeg]));
      } catch {
        if (this.o.flavour === 'apk') this.o.exit();
        return;
      }
      this.framesSent++;
      this.o.afterFrame?.(this.framesSent);
    }
  }

  /** FrameWaiter::waitForFrame: the pending count once it is above zero; 0 when stopping. */
  private async waitForFrame(): Promise<number> {
    while (this.pendingFrames <= 0) {
      if (this.o.ended.aborted) return 0;
      await new Promise<void>((resolve) => {
        this.frameWaiter = resolve;
      });
    }
    return this.o.ended.aborted ? 0 : this.pendingFrames;
  }

  private wakeFrameWaiter(): void {
    const waiter = this.frameWaiter;
    this.frameWaiter = undefined;
    waiter?.();
  }
}

/**
 * Real pixels for `screencap`: rasterises the front window's SVG with sharp and caches the
 * result per screen version (and status-bar clock/battery), so repeated captures of an
 * unchanged screen cost nothing. FLAG_SECURE windows and a sleeping display capture as
 * opaque black, from one buffer shared by every phone of that size.
 */
import sharp from 'sharp';
import type { Layout } from './layout';
import type { ScreenWindow } from './screen-machine';
import { windowSvg } from './svg-paint';

/** Header of a raw `screencap` on Android 14: width, height, format, colour space (u32 LE). */
export const SCREENCAP_HEADER_BYTES = 16;
export const PIXEL_FORMAT_RGBA_8888 = 1;
export const COLOR_SPACE_SRGB = 1;

export interface FrameSource {
  readonly layout: Layout;
  /** Changes whenever the screen content changes. */
  version(): number;
  awake(): boolean;
  window(): ScreenWindow;
  /** Status bar clock text ("14:05") and battery percent. */
  statusBar(): { clock: string; battery: number };
}

interface CachedFrame {
  key: string;
  raw?: Promise<Buffer>;
  png?: Promise<Buffer>;
}

const blackFrames = new Map<string, CachedFrame>();

function header(width: number, height: number): Buffer {
  const h = Buffer.alloc(SCREENCAP_HEADER_BYTES);
  h.writeUInt32LE(width, 0);
  h.writeUInt32LE(height, 4);
  h.writeUInt32LE(PIXEL_FORMAT_RGBA_8888, 8);
  h.writeUInt32LE(COLOR_SPACE_SRGB, 12);
  return h;
}

function pngFromScreencap(screencap: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(screencap.subarray(SCREENCAP_HEADER_BYTES), { raw: { width, height, channels: 4 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** An opaque black capture of a display that is off (a foldable's unused panel), raw or PNG. */
export function blackCapture(width: number, height: number, png: boolean): Promise<Buffer> {
  const raw = Buffer.concat([header(width, height), Buffer.alloc(width * height * 4, Buffer.from([0, 0, 0, 255]))]);
  return png ? pngFromScreencap(raw, width, height) : Promise.resolve(raw);
}

export class FrameRenderer {
  private cache: CachedFrame | undefined;
  private renders = 0;

  constructor(private readonly source: FrameSource) {}

  /** How many times a frame was rasterised (tests use it to prove caching). */
  renderCount(): number {
    return this.renders;
  }

  /**
   * Raw screencap bytes: 16-byte header then width*height RGBA pixels. `showSecure`: a capture
   * through a secure virtual display (minicap before Android 12) sees FLAG_SECURE windows.
   */
  rawScreencap(options: { showSecure?: boolean } = {}): Promise<Buffer> {
    const frame = this.frame(options.showSecure === true);
    if (!frame.raw) {
      const raw = this.rasterise();
      frame.raw = raw;
      // A failed render must not stay cached: the next capture tries again.
      void raw.catch(() => {
        if (frame.raw === raw) frame.raw = undefined;
      });
    }
    return frame.raw;
  }

  png(): Promise<Buffer> {
    const frame = this.frame();
    if (!frame.png) {
      const { width, height } = this.source.layout;
      // Encoded from the cached pixels: one rasterisation serves raw and PNG captures alike.
      const png = this.rawScreencap().then((raw) => pngFromScreencap(raw, width, height));
      frame.png = png;
      void png.catch(() => {
        if (frame.png === png) frame.png = undefined;
      });
    }
    return frame.png;
  }

  /** Whether the current capture is blacked out (secure window or display off). */
  isBlack(): boolean {
    return !this.source.awake() || this.source.window().secure;
  }

  private frame(showSecure = false): CachedFrame {
    const { width, height } = this.source.layout;
    if (!this.source.awake() || (this.source.window().secure && !showSecure)) {
      const key = `${width}x${height}`;
      let black = blackFrames.get(key);
      if (!black) {
        const pixels = Buffer.alloc(width * height * 4, Buffer.from([0, 0, 0, 255]));
        black = { key, raw: Promise.resolve(Buffer.concat([header(width, height), pixels])) };
        blackFrames.set(key, black);
      }
      return black;
    }
    const { clock, battery } = this.source.statusBar();
    const key = `${this.source.version()}|${clock}|${battery}`;
    if (this.cache?.key !== key) this.cache = { key };
    return this.cache;
  }

  private svg(): Buffer {
    const { clock, battery } = this.source.statusBar();
    this.renders++;
    return Buffer.from(windowSvg(this.source.window(), this.source.layout, clock, battery));
  }

  private async rasterise(): Promise<Buffer> {
    const { layout } = this.source;
    const svg = this.svg();
    const pixels = await sharp(svg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    if (pixels.info.width !== layout.width || pixels.info.height !== layout.height || pixels.info.channels !== 4) {
      throw new Error(`renderer produced ${pixels.info.width}x${pixels.info.height}x${pixels.info.channels}`);
    }
    return Buffer.concat([header(layout.width, layout.height), pixels.data]);
  }
}

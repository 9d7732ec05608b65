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
  raw?: Promise<Buffer> | undefined;
  png?: Promise<Buffer> | undefined;
  /** Drawn straight at a smaller size ("WxH" → raw capture of that size). */
  scaled?: Map<string, Promise<Buffer>>;
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

  /**
   * The screen composed straight at `width`×`height` (raw screencap layout), as SurfaceFlinger
   * composes a virtual display of that size (minicap's projection): no full-size picture is
   * drawn and scaled first, so a stream costs what its pictures' size costs.
   */
  rawScreencapAt(size: { width: number; height: number }, options: { showSecure?: boolean } = {}): Promise<Buffer> {
    const { layout } = this.source;
    if (size.width === layout.width && size.height === layout.height) return this.rawScreencap(options);
    const frame = this.frame(options.showSecure === true);
    frame.scaled ??= new Map();
    const key = `${size.width}x${size.height}`;
    let raw = frame.scaled.get(key);
    if (!raw) {
      raw = this.isBlackFor(options.showSecure === true)
        ? blackCapture(size.width, size.height, false)
        : this.rasterise(size);
      const made = raw;
      frame.scaled.set(key, made);
      void made.catch(() => {
        if (frame.scaled?.get(key) === made) frame.scaled.delete(key);
      });
    }
    return raw;
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
    return this.isBlackFor(false);
  }

  private isBlackFor(showSecure: boolean): boolean {
    return !this.source.awake() || (this.source.window().secure && !showSecure);
  }

  private frame(showSecure = false): CachedFrame {
    const { width, height } = this.source.layout;
    if (this.isBlackFor(showSecure)) {
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

  /** The front window's pixels at the screen's size, or drawn at `size` (the SVG scaled as it is rasterised). */
  private async rasterise(size?: { width: number; height: number }): Promise<Buffer> {
    const { layout } = this.source;
    const svg = this.svg();
    const target = size ?? { width: layout.width, height: layout.height };
    // librsvg draws the SVG's user units at density/72 pixels each.
    let image = sharp(svg, size ? { density: (72 * size.width) / layout.width } : {});
    // A projection whose shape differs from the screen's (or rounding) is stretched to fit, as SurfaceFlinger does.
    if (size) image = image.resize(size.width, size.height, { fit: 'fill' });
    const pixels = await image.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    if (pixels.info.width !== target.width || pixels.info.height !== target.height || pixels.info.channels !== 4) {
      throw new Error(`renderer produced ${pixels.info.width}x${pixels.info.height}x${pixels.info.channels}`);
    }
    return Buffer.concat([header(target.width, target.height), pixels.data]);
  }
}

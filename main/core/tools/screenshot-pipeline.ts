/**
 * The screenshot pipeline: capture the fastest way the phone allows (raw `screencap`
 * encoded here with sharp, or `screencap -p` — decided by measuring each phone as it goes),
 * scale to `max_side`, encode PNG/JPEG/WebP, optionally draw boxes labelled with their element
 * refs over the interactive elements, detect FLAG_SECURE black frames, and answer `unchanged` when the
 * pixels are the same as the channel's previous capture.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { captureRaw, capturePng, isSecureBlackFrame } from '../android/screencap';
import { isInteractive, type UiNode } from '../android/ui-tree';
import type { CaptureTimings, StreamPicture, ToolContext, ToolServices } from './tool-definition';
import { formatRef } from './element-refs';
import { freshTree } from './targets';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

export interface ScreenshotArgs {
  format?: ImageFormat | undefined;
  quality?: number | undefined;
  max_side?: number | undefined;
  annotate?: boolean | undefined;
}

export const SCREENSHOT_DEFAULTS = { format: 'webp' as ImageFormat, quality: 80, max_side: 1280 };

interface Pixels {
  /** A sharp pipeline over the picture (the full screen, or the stream's smaller frame of it). */
  image: () => sharp.Sharp;
  /** The picture's own size. */
  imageWidth: number;
  imageHeight: number;
  /** The screen's size in the phone's pixels (what element bounds and taps use). */
  width: number;
  height: number;
  source: 'stream' | 'screencap';
  /** Hash of the frame's pixels (what `unchanged` compares). */
  pixelHash: string;
  secure: boolean;
  /** A streamed picture's encodings by output settings, shared with work started while the freshness wait ran. */
  encodings?: Map<string, Promise<Buffer>>;
}

type Strategy = 'raw' | 'png';

async function fromRaw(ctx: ToolContext): Promise<Pixels> {
  const frame = await captureRaw(ctx.shell, { timeoutMs: Math.max(ctx.timeoutMs, 20_000), signal: ctx.signal });
  const { width, height, rgba } = frame;
  return {
    image: () => sharp(rgba, { raw: { width, height, channels: 4 } }),
    imageWidth: width,
    imageHeight: height,
    width,
    height,
    source: 'screencap',
    pixelHash: `raw:${createHash('sha256').update(rgba).digest('hex')}`,
    secure: isSecureBlackFrame(rgba),
  };
}

// A black frame deflates about 1000:1; a PNG bigger than 1/200 of its pixels cannot be one,
// so only small PNGs are decoded to check (most frames skip the decode entirely).
const SECURE_CHECK_RATIO = 200;

async function fromPng(ctx: ToolContext): Promise<Pixels> {
  const png = await capturePng(ctx.shell, { timeoutMs: Math.max(ctx.timeoutMs, 20_000), signal: ctx.signal });
  // IHDR is always first: width and height are big-endian at bytes 16 and 20.
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  let secure = false;
  if (png.length * SECURE_CHECK_RATIO < width * height * 4) {
    const { data } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    secure = isSecureBlackFrame(data);
  }
  return {
    image: () => sharp(png),
    imageWidth: width,
    imageHeight: height,
    width,
    height,
    source: 'screencap',
    // The phone's encoder is deterministic: the same pixels give the same PNG bytes.
    pixelHash: `png:${createHash('sha256').update(png).digest('hex')}`,
    secure,
  };
}

/**
 * A streamed picture's decoded pixels, once per frame (keyed by the frame's own bytes, which
 * the stream keeps while the frame is its newest): the answer reuses what was started while
 * it waited for freshness.
 */
const streamedPixels = new WeakMap<Buffer, Promise<Pixels>>();

function pixelsOfPicture(picture: StreamPicture): Promise<Pixels> {
  let pixels = streamedPixels.get(picture.jpeg);
  if (!pixels) {
    pixels = sharp(picture.jpeg)
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
      .then(({ data, info }) => ({
        image: () => sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }),
        imageWidth: info.width,
        imageHeight: info.height,
        width: picture.screenWidth,
        height: picture.screenHeight,
        source: 'stream' as const,
        // minicap's encoder gives the same bytes for the same screen: a still screen is `unchanged`.
        pixelHash: `stream:${createHash('sha256').update(picture.jpeg).digest('hex')}`,
        // A JPEG's black is not exactly 0: the same threshold as a raw frame, on the decoded pixels.
        secure: isSecureBlackFrame(data),
        encodings: new Map<string, Promise<Buffer>>(),
      }));
    const made = pixels;
    streamedPixels.set(picture.jpeg, made);
    // A failed decode is not kept: the answer tries again (and says why).
    made.catch(() => {
      if (streamedPixels.get(picture.jpeg) === made) streamedPixels.delete(picture.jpeg);
    });
  }
  return pixels;
}

/**
 * Starts the work on the pictures that may become the answer while the stream's freshness
 * wait runs (the newest frame, then each that arrives): decoded and encoded as asked, so the
 * answer, when it is one of them, is ready. One at a time; a picture superseded while
 * another is worked on is skipped for the newest.
 */
export function preparer(work: (picture: StreamPicture) => Promise<unknown>): (picture: StreamPicture) => void {
  let busy = false;
  let next: StreamPicture | undefined;
  const run = (picture: StreamPicture): void => {
    busy = true;
    void work(picture)
      .catch(() => undefined)
      .finally(() => {
        busy = false;
        const queued = next;
        next = undefined;
        if (queued) run(queued);
      });
  };
  return (picture) => {
    if (busy) next = picture;
    else run(picture);
  };
}

/**
 * From the phone's screen stream (stream/screen-streams.ts): a frame newer than the last
 * control action, when the stream has one in time and it is large enough for `maxSide`;
 * otherwise undefined, and the screenshot is taken the stock way in the same call.
 */
async function fromStream(
  ctx: ToolContext,
  maxSide: number,
  prepare?: (pixels: Pixels) => Promise<unknown>,
): Promise<Pixels | undefined> {
  const usable = (pixels: Pixels): boolean => {
    const wanted = Math.min(maxSide, Math.max(pixels.width, pixels.height));
    // Never scaled up: a max_side beyond the stream's pictures is taken the stock way.
    return Math.max(pixels.imageWidth, pixels.imageHeight) + 1 >= wanted;
  };
  const onCandidate = prepare
    ? preparer(async (candidate) => {
        const pixels = await pixelsOfPicture(candidate);
        if (usable(pixels)) await prepare(pixels);
      })
    : undefined;
  const picture = await ctx.services.streamFrame?.(onCandidate);
  if (!picture) return undefined;
  const pixels = await pixelsOfPicture(picture);
  return usable(pixels) ? pixels : undefined;
}

/** The picture encoded as asked, at `width`×`height`; a streamed picture's encoding is shared with work started early. */
function encodePixels(
  pixels: Pixels,
  width: number,
  height: number,
  format: ImageFormat,
  quality: number,
): Promise<Buffer> {
  const settings = `${format}:${quality}:${width}x${height}`;
  const cached = pixels.encodings?.get(settings);
  if (cached) return cached;
  const encoded = encodeImage(imageAt(pixels, width, height), format, quality);
  if (pixels.encodings) {
    const { encodings } = pixels;
    encodings.set(settings, encoded);
    encoded.catch(() => {
      if (encodings.get(settings) === encoded) encodings.delete(settings);
    });
  }
  return encoded;
}

/** The picture as a sharp pipeline at `width`×`height` (scaled when its own size differs). */
function imageAt(pixels: Pixels, width: number, height: number): sharp.Sharp {
  const image = pixels.image();
  return pixels.imageWidth === width && pixels.imageHeight === height
    ? image
    : image.resize(width, height, { kernel: 'lanczos3' });
}

function encodeImage(pipeline: sharp.Sharp, format: ImageFormat, quality: number): Promise<Buffer> {
  return format === 'png'
    ? pipeline.png({ compressionLevel: 6, palette: false }).toBuffer()
    : format === 'webp'
      ? // effort 2 of 6: about 40 % less CPU than the default 4 for ~1–2 % more bytes (measured on text screens).
        pipeline.webp({ quality, effort: 2 }).toBuffer()
      : pipeline.flatten({ background: '#000000' }).jpeg({ quality, mozjpeg: true }).toBuffer();
}

/** The size a picture of a `width`×`height` screen is given for `maxSide` (never scaled up). */
function outputSize(pixels: Pick<Pixels, 'width' | 'height'>, maxSide: number) {
  const scale = Math.min(1, maxSide / Math.max(pixels.width, pixels.height));
  return {
    scale,
    width: Math.max(1, Math.round(pixels.width * scale)),
    height: Math.max(1, Math.round(pixels.height * scale)),
  };
}

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

function annotationSvg(nodes: readonly UiNode[], refTag: string, width: number, height: number, scale: number): Buffer {
  const boxes = nodes
    .filter(isInteractive)
    .slice(0, 300)
    .map((n) => {
      const [x1, y1, x2, y2] = n.bounds.map((v) => Math.round(v * scale)) as [number, number, number, number];
      const label = formatRef(refTag, n.index);
      const w = 10 + label.length * 9;
      return (
        `<rect x="${x1}" y="${y1}" width="${Math.max(1, x2 - x1)}" height="${Math.max(1, y2 - y1)}" fill="none" stroke="#ff1744" stroke-width="2"/>` +
        `<rect x="${x1}" y="${y1}" width="${w}" height="18" fill="#ff1744"/>` +
        `<text x="${x1 + 4}" y="${y1 + 14}" font-family="DejaVu Sans, sans-serif" font-size="14" font-weight="bold" fill="#ffffff">${label}</text>`
      );
    })
    .join('');
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${boxes}</svg>`);
}

export interface ScreenshotResult {
  [key: string]: unknown;
}

/** Per-channel memory of the last capture, for `unchanged`. */
/** Per channel: the last capture's pixel key, its output key (settings + encoded bytes) and file. */
export type LastCaptureStore = ToolServices['lastCaptures'];

export async function takeScreenshot(
  ctx: ToolContext,
  args: ScreenshotArgs,
  last: LastCaptureStore,
): Promise<ScreenshotResult> {
  const format = args.format ?? SCREENSHOT_DEFAULTS.format;
  const quality = args.quality ?? SCREENSHOT_DEFAULTS.quality;
  const maxSide = args.max_side ?? SCREENSHOT_DEFAULTS.max_side;
  const store = ctx.services.screenshotStrategy;
  const strategy = chooseStrategy(store.get(ctx.device.deviceId));
  const started = performance.now();
  // Timed to the encoded image, so a PNG's decode here counts against the png strategy.
  const timed = <T>(value: T): T => {
    store.set(ctx.device.deviceId, recordTiming(store.get(ctx.device.deviceId), strategy, performance.now() - started));
    return value;
  };
  // While the stream waits for a fresh frame, the likely answer is already encoded (not when
  // annotated: its boxes need the tree read after the picture).
  const streamed = await fromStream(
    ctx,
    maxSide,
    args.annotate
      ? undefined
      : (candidate) => {
          const size = outputSize(candidate, maxSide);
          return encodePixels(candidate, size.width, size.height, format, quality);
        },
  );
  const pixels = streamed ?? (strategy === 'png' ? await fromPng(ctx) : await fromRaw(ctx));
  const { scale, width, height } = outputSize(pixels, maxSide);

  let tree: { nodes: UiNode[]; refTag: string } | undefined;
  if (args.annotate && !pixels.secure) tree = await freshTree(ctx);
  // An annotated capture is the same only with the same refs drawn on it.
  const read = ctx.lastTree();
  const key = `${pixels.pixelHash}:${format}:${quality}:${maxSide}:${args.annotate ? `${read?.signature ?? ''}:${read?.refs.tag ?? ''}` : ''}`;

  const previous = last.get(ctx.channelId);
  // The stock strategies' timings are theirs only: a streamed picture does not count.
  const done = <T>(value: T): T => (streamed ? value : timed(value));
  if (previous && previous.key === key) {
    const same = ctx.services.findUnchangedRef(previous.fileRef);
    if (same) return done(withElements(resultFrom(same, width, height, pixels, true), tree));
  }

  let encoded: Buffer;
  if (tree) {
    const resized = await imageAt(pixels, width, height).raw().toBuffer();
    const annotated = sharp(resized, { raw: { width, height, channels: 4 } }).composite([
      { input: annotationSvg(tree.nodes, tree.refTag, width, height, scale), top: 0, left: 0 },
    ]);
    encoded = await encodeImage(annotated, format, quality);
  } else {
    encoded = await encodePixels(pixels, width, height, format, quality);
  }
  done(undefined);
  // Same image through the other strategy (different pixel key, same encoded bytes): still unchanged.
  const outputKey = `${format}:${quality}:${maxSide}:${createHash('sha256').update(encoded).digest('hex')}`;
  if (previous && previous.outputKey === outputKey) {
    const same = ctx.services.findUnchangedRef(previous.fileRef);
    if (same) {
      last.set(ctx.channelId, { key, outputKey, fileRef: previous.fileRef });
      return withElements(resultFrom(same, width, height, pixels, true), tree);
    }
  }
  const stored = await ctx.services.storeFile({
    data: encoded,
    mimeType: `image/${format}`,
    filename: `screen-${Date.now()}.${format === 'jpeg' ? 'jpg' : format}`,
    kind: 'screenshot',
  });
  last.set(ctx.channelId, { key, outputKey, fileRef: stored.file_ref });
  return withElements(resultFrom(stored, width, height, pixels, false), tree);
}

/** An annotated capture lists the boxed elements with their refs (password text blanked). */
function withElements(
  result: ScreenshotResult,
  tree: { nodes: UiNode[]; refTag: string } | undefined,
): ScreenshotResult {
  if (tree) {
    result.elements = tree.nodes.filter(isInteractive).map((n) => ({
      ref: formatRef(tree.refTag, n.index),
      index: n.index,
      text: n.password ? '' : n.text,
      resource_id: n.resourceId,
      content_desc: n.contentDesc,
      center: n.center,
    }));
  }
  return result;
}

function resultFrom(
  file: {
    file_ref: string;
    download_url: string;
    mime_type: string;
    byte_size: number;
    expires_at: number;
    sha256: string;
  },
  width: number,
  height: number,
  pixels: Pick<Pixels, 'secure' | 'source'>,
  unchanged: boolean,
): ScreenshotResult {
  const secure = pixels.secure;
  return {
    file_ref: file.file_ref,
    download_url: file.download_url,
    mime_type: file.mime_type,
    width,
    height,
    byte_size: file.byte_size,
    expires_at: file.expires_at,
    sha256: file.sha256,
    unchanged,
    secure_screen: secure,
    source: pixels.source,
    ...(secure ? { note: 'The app on screen blocks screenshots (FLAG_SECURE); the frame is black.' } : {}),
  };
}

/**
 * The one encoder of pictures of the screen (sharp): decodes what a source gave (screencap's
 * raw pixels or PNG, a stream's JPEG), scales, draws the element boxes, and encodes PNG, JPEG
 * or WebP. It keeps nothing between calls: what is worth keeping (a frame's decoded pixels,
 * its encodings) belongs to the phone's ScreenSource, so two phones never share a picture.
 */
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { BridgeError } from '../errors';
import { isSecureBlackFrame, type RawFrame } from '../android/screencap';

export type ImageFormat = 'png' | 'jpeg' | 'webp';

/** Where a picture came from (what `android_screenshot` says as `source`, and the live view as its lane). */
export type PictureOrigin = 'stream' | 'helper' | 'screencap';

/** A picture of the screen, decoded once, ready to scale and encode. */
export interface ScreenPixels {
  /** A sharp pipeline over the picture (the full screen, or a stream's smaller frame of it). */
  image: () => sharp.Sharp;
  /** The picture's own size. */
  imageWidth: number;
  imageHeight: number;
  /** The screen's size in the phone's pixels (what element bounds and taps use). */
  width: number;
  height: number;
  source: PictureOrigin;
  /** Hash of the frame's pixels (what `unchanged` compares). */
  pixelHash: string;
  /** The frame is black because the app on screen keeps it out of screenshots (FLAG_SECURE). */
  secure: boolean;
}

/** A small JPEG of the screen (thumbnail, approval card, live view, timeline) and its size. */
export interface ScreenJpeg {
  jpeg: Buffer;
  width: number;
  height: number;
}

/** A box drawn over the picture: an element's bounds in the screen's pixels and its ref. */
export interface LabelledBox {
  bounds: readonly [number, number, number, number];
  label: string;
}

/** How a picture is shrunk into a small JPEG. */
export interface JpegOptions {
  maxSide: number;
  quality: number;
  /** Bilinear is a fifth of lanczos's time on a 1080×2400 screen with no visible loss at 720 px. */
  kernel?: 'linear' | 'lanczos3';
  /** The picture as it came when it already fits (a stream's JPEG is not encoded again). */
  keepWhenFits?: boolean;
}

// A black frame deflates about 1000:1; a PNG bigger than 1/200 of its pixels cannot be one,
// so only small PNGs are decoded to check (most frames skip the decode entirely).
const SECURE_CHECK_RATIO = 200;

export class ScreenEncoder {
  /** screencap's raw RGBA frame. */
  fromRaw(frame: RawFrame): ScreenPixels {
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

  /** `screencap -p`'s PNG. */
  async fromPng(png: Buffer): Promise<ScreenPixels> {
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

  /** A stream's JPEG of a `screen`-sized screen, decoded to pixels. */
  async fromJpeg(
    jpeg: Buffer,
    screen: { width: number; height: number },
    source: PictureOrigin,
  ): Promise<ScreenPixels> {
    const { data, info } = await sharp(jpeg).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    return {
      image: () => sharp(data, { raw: { width: info.width, height: info.height, channels: 4 } }),
      imageWidth: info.width,
      imageHeight: info.height,
      width: screen.width,
      height: screen.height,
      source,
      // minicap's encoder gives the same bytes for the same screen: a still screen is `unchanged`.
      pixelHash: `${source}:${createHash('sha256').update(jpeg).digest('hex')}`,
      // A JPEG's black is not exactly 0: the same threshold as a raw frame, on the decoded pixels.
      secure: isSecureBlackFrame(data),
    };
  }

  /** The picture encoded as asked, at `width`×`height` (scaled with lanczos when its own size differs). */
  encode(pixels: ScreenPixels, width: number, height: number, format: ImageFormat, quality: number): Promise<Buffer> {
    return encodeAs(this.at(pixels, width, height), format, quality);
  }

  /**
   * The picture at `width`×`height` with each box (in the screen's pixels, `scale` to the
   * picture) drawn and labelled over it, encoded as asked.
   */
  async annotated(
    pixels: ScreenPixels,
    size: { width: number; height: number; scale: number },
    boxes: readonly LabelledBox[],
    format: ImageFormat,
    quality: number,
  ): Promise<Buffer> {
    const { width, height, scale } = size;
    const resized = await this.at(pixels, width, height).raw().toBuffer();
    const drawn = sharp(resized, { raw: { width, height, channels: 4 } }).composite([
      { input: annotationSvg(boxes, width, height, scale), top: 0, left: 0 },
    ]);
    return encodeAs(drawn, format, quality);
  }

  /** A JPEG's own size (from its header; nothing decoded). */
  async size(jpeg: Buffer): Promise<{ width: number; height: number }> {
    const meta = await sharp(jpeg).metadata();
    const width = meta.width ?? 0;
    const height = meta.height ?? 0;
    if (width <= 0 || height <= 0)
      throw new BridgeError('command_failed', 'the screen stream sent a picture without a size');
    return { width, height };
  }

  /** A small JPEG of raw pixels or of a JPEG (never scaled up; transparent parts black). */
  async jpeg(input: { raw: RawFrame } | { jpeg: Buffer }, o: JpegOptions): Promise<ScreenJpeg> {
    if ('jpeg' in input && o.keepWhenFits) {
      const { width, height } = await this.size(input.jpeg);
      if (Math.max(width, height) <= o.maxSide) return { jpeg: input.jpeg, width, height };
    }
    const image =
      'raw' in input
        ? sharp(input.raw.rgba, { raw: { width: input.raw.width, height: input.raw.height, channels: 4 } })
        : sharp(input.jpeg);
    const out = await image
      .resize({
        width: o.maxSide,
        height: o.maxSide,
        fit: 'inside',
        withoutEnlargement: true,
        ...(o.kernel ? { kernel: o.kernel } : {}),
      })
      .flatten({ background: '#000000' })
      .jpeg({ quality: o.quality })
      .toBuffer({ resolveWithObject: true });
    return { jpeg: out.data, width: out.info.width, height: out.info.height };
  }

  private at(pixels: ScreenPixels, width: number, height: number): sharp.Sharp {
    const image = pixels.image();
    return pixels.imageWidth === width && pixels.imageHeight === height
      ? image
      : image.resize(width, height, { kernel: 'lanczos3' });
  }
}

/** The size a picture of a `width`×`height` screen is given for `maxSide` (never scaled up). */
export function outputSize(screen: { width: number; height: number }, maxSide: number) {
  const scale = Math.min(1, maxSide / Math.max(screen.width, screen.height));
  return {
    scale,
    width: Math.max(1, Math.round(screen.width * scale)),
    height: Math.max(1, Math.round(screen.height * scale)),
  };
}

function encodeAs(pipeline: sharp.Sharp, format: ImageFormat, quality: number): Promise<Buffer> {
  return format === 'png'
    ? pipeline.png({ compressionLevel: 6, palette: false }).toBuffer()
    : format === 'webp'
      ? // effort 2 of 6: about 40 % less CPU than the default 4 for ~1–2 % more bytes (measured on text screens).
        pipeline.webp({ quality, effort: 2 }).toBuffer()
      : pipeline.flatten({ background: '#000000' }).jpeg({ quality, mozjpeg: true }).toBuffer();
}

function annotationSvg(boxes: readonly LabelledBox[], width: number, height: number, scale: number): Buffer {
  const drawn = boxes
    .slice(0, 300)
    .map(({ bounds, label }) => {
      const [x1, y1, x2, y2] = bounds.map((v) => Math.round(v * scale)) as [number, number, number, number];
      const w = 10 + label.length * 9;
      return (
        `<rect x="${x1}" y="${y1}" width="${Math.max(1, x2 - x1)}" height="${Math.max(1, y2 - y1)}" fill="none" stroke="#ff1744" stroke-width="2"/>` +
        `<rect x="${x1}" y="${y1}" width="${w}" height="18" fill="#ff1744"/>` +
        `<text x="${x1 + 4}" y="${y1 + 14}" font-family="DejaVu Sans, sans-serif" font-size="14" font-weight="bold" fill="#ffffff">${label}</text>`
      );
    })
    .join('');
  return Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${drawn}</svg>`);
}

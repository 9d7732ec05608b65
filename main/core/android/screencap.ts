/**
 * Screenshots through `screencap`: the raw form (header + pixels over `exec:`, decoded here,
 * which spares the phone the slow PNG compression) and the PNG form, plus detection of the
 * all-black frames Android returns while a FLAG_SECURE window is showing.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { OperationDeadline } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

export interface RawFrame {
  width: number;
  height: number;
  /** width*height*4 bytes, R G B A per pixel, rows top to bottom. Shares memory with the shell's buffer. */
  rgba: Buffer;
}

/** android.graphics.PixelFormat values screencap emits with 4 bytes per pixel. */
export const PIXEL_FORMAT = { RGBA_8888: 1, RGBX_8888: 2, BGRA_8888: 5 } as const;

const BYTES_PER_PIXEL = 4;
const MAX_DIMENSION = 16_384;
const DEFAULT_TIMEOUT_MS = 15_000;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function failed(why: string): BridgeError {
  return new BridgeError('command_failed', `screencap returned an unusable image: ${why}`);
}

/**
 * Decodes `screencap` raw output: u32 LE width, height, format, then (Android 9+) a u32
 * colour space, then pixels. The header length (12 or 16) is told apart by the total length.
 * RGBX gets opaque alpha and BGRA is swapped to RGBA, both in place.
 */
export function decodeRawScreencap(buffer: Buffer): RawFrame {
  if (buffer.length < 12) throw failed(`only ${buffer.length} bytes`);
  const width = buffer.readUInt32LE(0);
  const height = buffer.readUInt32LE(4);
  const format = buffer.readUInt32LE(8);
  if (width === 0 || height === 0 || width > MAX_DIMENSION || height > MAX_DIMENSION) {
    throw failed(`implausible size ${width}x${height}`);
  }
  if (format !== PIXEL_FORMAT.RGBA_8888 && format !== PIXEL_FORMAT.RGBX_8888 && format !== PIXEL_FORMAT.BGRA_8888) {
    throw failed(`unsupported pixel format ${format}`);
  }
  const pixelBytes = width * height * BYTES_PER_PIXEL;
  let headerBytes: number;
  if (buffer.length === pixelBytes + 16) headerBytes = 16;
  else if (buffer.length === pixelBytes + 12) headerBytes = 12;
  else throw failed(`${buffer.length} bytes do not fit ${width}x${height} pixels with a 12- or 16-byte header`);

  const rgba = buffer.subarray(headerBytes, headerBytes + pixelBytes);
  if (format === PIXEL_FORMAT.RGBX_8888) {
    for (let i = 3; i < rgba.length; i += 4) rgba[i] = 0xff;
  } else if (format === PIXEL_FORMAT.BGRA_8888) {
    for (let i = 0; i < rgba.length; i += 4) {
      const blue = rgba[i] ?? 0;
      rgba[i] = rgba[i + 2] ?? 0;
      rgba[i + 2] = blue;
    }
  }
  return { width, height, rgba };
}

/**
 * Lines Android 14+ `screencap` prints on stderr before the image when it was not told which
 * of several displays to capture (AOSP cmds/screencap/screencap.cpp). `exec:` carries stderr
 * in the same stream as the image, so they arrive in front of its bytes.
 */
const SCREENCAP_NOTICE_LINES = [
  '[Warning] Multiple displays were found',
  'A display ID can be specified with the [-d display-id] option.',
  'See "dumpsys SurfaceFlinger --display-id" for valid display IDs.',
];

/** The image bytes without screencap's multiple-display warning lines in front (never a failure). */
export function stripScreencapNotices(buffer: Buffer): Buffer {
  let rest = buffer;
  for (;;) {
    const line = SCREENCAP_NOTICE_LINES.find(
      (prefix) => rest.length > prefix.length && rest.subarray(0, prefix.length).toString('latin1') === prefix,
    );
    if (!line) return rest;
    const end = rest.indexOf(0x0a);
    if (end < 0) return rest;
    rest = rest.subarray(end + 1);
  }
}

/** Captures the screen as raw pixels (`screencap` over exec:). */
export async function captureRaw(shell: DeviceShell, options?: OperationOptions): Promise<RawFrame> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'taking a screenshot');
  return decodeRawScreencap(stripScreencapNotices(await shell.execOut(['screencap'], deadline.next())));
}

/** Captures the screen as a PNG encoded on the phone (`screencap -p`); checks the PNG signature. */
export async function capturePng(shell: DeviceShell, options?: OperationOptions): Promise<Buffer> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'taking a screenshot');
  const png = stripScreencapNotices(await shell.execOut(['screencap', '-p'], deadline.next()));
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw failed(
      `expected a PNG, got ${png.length} bytes starting ${JSON.stringify(png.subarray(0, 16).toString('latin1'))}`,
    );
  }
  return png;
}

export interface SecureFrameOptions {
  /** Fraction of pixels that may be non-black (status-bar icons over a secure window). Default 0.002. */
  maxNonBlackFraction?: number;
}

const SAMPLE_TARGET = 4_096;

/**
 * True when (almost) every pixel is pure black (R=G=B=0), as screencap delivers for a
 * FLAG_SECURE window. A strided sample rejects ordinary frames after a few thousand reads;
 * only frames that pass it are counted exactly, so an all-black frame is always detected.
 */
export function isSecureBlackFrame(rgba: Uint8Array, options?: SecureFrameOptions): boolean {
  const pixels = Math.floor(rgba.length / BYTES_PER_PIXEL);
  if (pixels === 0) return false;
  const maxFraction = options?.maxNonBlackFraction ?? 0.002;
  if (!(maxFraction >= 0 && maxFraction < 1)) {
    throw new BridgeError('invalid_arguments', `maxNonBlackFraction must be in [0, 1), got ${String(maxFraction)}`);
  }
  const allowed = Math.floor(pixels * maxFraction);

  // Odd stride, so the samples do not line up with one column of an even-width image.
  const stride = Math.max(1, Math.floor(pixels / SAMPLE_TARGET)) | 1;
  let samples = 0;
  let sampledNonBlack = 0;
  for (let p = 0; p < pixels; p += stride) {
    const o = p * BYTES_PER_PIXEL;
    samples++;
    if (rgba[o] !== 0 || rgba[o + 1] !== 0 || rgba[o + 2] !== 0) sampledNonBlack++;
  }
  // Sampled share far above the allowance: a normal frame. The margin avoids rejecting a
  // secure frame whose few lit pixels happened to be hit by the sample.
  if (sampledNonBlack > samples * maxFraction * 4 + 2) return false;

  let nonBlack = 0;
  const end = pixels * BYTES_PER_PIXEL;
  for (let o = 0; o < end; o += BYTES_PER_PIXEL) {
    if (rgba[o] !== 0 || rgba[o + 1] !== 0 || rgba[o + 2] !== 0) {
      nonBlack++;
      if (nonBlack > allowed) return false;
    }
  }
  return true;
}

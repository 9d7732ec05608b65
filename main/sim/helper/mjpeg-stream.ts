/**
 * The helper's MJPEG screenshot stream (appium-uiautomator2-server's MjpegScreenshotServer,
 * device port 7810), written anew from the server's public behaviour: once the client has
 * sent the first bytes of its request, one HTTP/1.0 header announcing
 * `multipart/x-mixed-replace; boundary=--BoundaryString`, then the current screen as one
 * JPEG part after another, until the client goes away or the helper process dies. Each
 * frame reads `mjpegScalingFactor`, `mjpegServerScreenshotQuality`, `mjpegServerFramerate`
 * and `mjpegBilinearFiltering` from the server's settings, so POST /appium/settings takes
 * effect on the next frame. A loop iteration lasts max(frame cost, 1000 / framerate) ms.
 */
import sharp from 'sharp';
import { SCREENCAP_HEADER_BYTES } from '../screen/frame-renderer';
import { eitherAborted, sleepUnlessAborted } from '../timing-profiles';
import type { ByteChannel } from './http-wire';
import type { Uia2Phone } from './uia2-server';

export const MJPEG_BOUNDARY = '--BoundaryString';

export const MJPEG_HEADER =
  'HTTP/1.0 200 OK\r\n' +
  'Server: Android Screenshot Socket Server\r\n' +
  'Connection: close\r\n' +
  'Max-Age: 0\r\n' +
  'Expires: 0\r\n' +
  'Cache-Control: no-cache, private\r\n' +
  'Pragma: no-cache\r\n' +
  `Content-Type: multipart/x-mixed-replace; boundary=${MJPEG_BOUNDARY}\r\n\r\n`;

const FRAME_TAIL = Buffer.from('\r\n\r\n', 'latin1');

export interface MjpegStreamDeps {
  phone: Pick<Uia2Phone, 'frames'>;
  /** The server's current setting value (read at every frame). */
  setting(name: string): unknown;
  /** Simulated cost of taking and encoding one frame, in ms (timing profile). */
  frameCostMs(): number;
  /** Aborts when the helper process dies. */
  died: AbortSignal;
  /** Called once per connection when the stream starts (argv log). */
  started(): void;
}

/** A whole number setting within [min, max], or its default when unset or not a number. */
function intSetting(value: unknown, fallback: number, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}

interface FrameSpec {
  scale: number;
  quality: number;
  bilinear: boolean;
}

/** Encodes frames, re-using the last JPEG while the screen and the settings are unchanged. */
class FrameEncoder {
  private last: { raw: Buffer; spec: string; jpeg: Buffer } | undefined;

  async encode(raw: Buffer, spec: FrameSpec): Promise<Buffer> {
    const key = `${spec.scale}|${spec.quality}|${spec.bilinear}`;
    if (this.last && this.last.raw === raw && this.last.spec === key) return this.last.jpeg;
    const width = raw.readUInt32LE(0);
    const height = raw.readUInt32LE(4);
    const jpeg = await sharp(raw.subarray(SCREENCAP_HEADER_BYTES), { raw: { width, height, channels: 4 } })
      .resize(
        Math.max(1, Math.round((width * spec.scale) / 100)),
        Math.max(1, Math.round((height * spec.scale) / 100)),
        {
          fit: 'fill',
          kernel: spec.bilinear ? 'linear' : 'nearest',
        },
      )
      .removeAlpha()
      .jpeg({ quality: spec.quality })
      .toBuffer();
    this.last = { raw, spec: key, jpeg };
    return jpeg;
  }
}

/** One MJPEG part: boundary, part headers, the JPEG and the blank line after it. */
export function mjpegPart(jpeg: Buffer): Buffer {
  const head = `${MJPEG_BOUNDARY}\r\nContent-type: image/jpg\r\nContent-Length: ${jpeg.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), jpeg, FRAME_TAIL]);
}

/**
 * Serves one MJPEG connection until the client leaves or the process dies; closes the
 * channel at the end. Never throws.
 */
export async function serveMjpegConnection(channel: ByteChannel, deps: MjpegStreamDeps): Promise<void> {
  const stop = eitherAborted(deps.died, channel.signal);
  const { signal } = stop;
  const encoder = new FrameEncoder();
  try {
    // The server waits for the client's request (any bytes) before it answers.
    const request = await Promise.race([
      channel.readSome(),
      new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true })),
    ]);
    if (!request || signal.aborted) return;
    // Whatever else the client sends is read and ignored.
    void (async () => {
      try {
        while (!signal.aborted && (await channel.readSome()));
      } catch {
        // The stream closed: the frame loop notices on its next write.
      }
    })();
    await channel.write(Buffer.from(MJPEG_HEADER, 'latin1'));
    deps.started();
    while (!signal.aborted) {
      const began = performance.now();
      const spec: FrameSpec = {
        scale: intSetting(deps.setting('mjpegScalingFactor'), 50, 1, 100),
        quality: intSetting(deps.setting('mjpegServerScreenshotQuality'), 50, 1, 100),
        bilinear: deps.setting('mjpegBilinearFiltering') === true,
      };
      const framerate = intSetting(deps.setting('mjpegServerFramerate'), 10, 1, 60);
      const cost = deps.frameCostMs();
      const jpeg = await encoder.encode(await deps.phone.frames.rawScreencap(), spec);
      // The simulated capture time covers the real encoding time already spent.
      if (!(await sleepUnlessAborted(cost - (performance.now() - began), signal))) return;
      await channel.write(mjpegPart(jpeg));
      // The framerate cap: the iteration lasts at least one frame interval.
      if (!(await sleepUnlessAborted(1000 / framerate - (performance.now() - began), signal))) return;
    }
  } catch {
    // The client closed the stream under us, or a frame failed to render: the stream ends.
  } finally {
    stop.release();
    channel.close();
  }
}

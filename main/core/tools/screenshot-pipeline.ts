/**
 * `android_screenshot`: the picture comes from the phone's ScreenSource (screen/: the stream
 * when it has a frame newer than the last action, else screencap the faster way), is scaled
 * to `max_side` and encoded as asked by the one encoder, optionally with boxes labelled with
 * their element refs over the interactive elements; FLAG_SECURE black frames are said, and
 * `unchanged` answers when the pixels are the same as the channel's previous capture.
 */
import { createHash } from 'node:crypto';
import { isInteractive, type UiNode } from '../android/ui-tree';
import { outputSize, type ImageFormat, type ScreenPixels } from '../screen/screen-encoder';
import type { ToolContext, ToolServices } from './tool-definition';
import { formatRef } from './element-refs';
import { freshTree } from './targets';

export type { ImageFormat } from '../screen/screen-encoder';

export interface ScreenshotArgs {
  format?: ImageFormat | undefined;
  quality?: number | undefined;
  max_side?: number | undefined;
  annotate?: boolean | undefined;
}

export const SCREENSHOT_DEFAULTS = { format: 'webp' as ImageFormat, quality: 80, max_side: 1280 };

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
  const source = ctx.services.screen;
  try {
    return await screenshotFrom(ctx, args, last);
  } finally {
    source.screenshotDone();
  }
}

async function screenshotFrom(
  ctx: ToolContext,
  args: ScreenshotArgs,
  last: LastCaptureStore,
): Promise<ScreenshotResult> {
  const format = args.format ?? SCREENSHOT_DEFAULTS.format;
  const quality = args.quality ?? SCREENSHOT_DEFAULTS.quality;
  const maxSide = args.max_side ?? SCREENSHOT_DEFAULTS.max_side;
  const source = ctx.services.screen;
  // While the stream waits for a fresh frame, the likely answer is already encoded (not when
  // annotated: its boxes need the tree read after the picture).
  const { pixels, done } = await source.screenshot(
    { shell: ctx.shell, signal: ctx.signal, timeoutMs: ctx.timeoutMs },
    maxSide,
    args.annotate
      ? undefined
      : (candidate) => {
          const size = outputSize(candidate, maxSide);
          return source.encode(candidate, size.width, size.height, format, quality);
        },
  );
  const { scale, width, height } = outputSize(pixels, maxSide);

  let tree: { nodes: UiNode[]; refTag: string } | undefined;
  if (args.annotate && !pixels.secure) tree = await freshTree(ctx);
  // An annotated capture is the same only with the same refs drawn on it.
  const read = ctx.lastTree();
  const key = `${pixels.pixelHash}:${format}:${quality}:${maxSide}:${args.annotate ? `${read?.signature ?? ''}:${read?.refs.tag ?? ''}` : ''}`;

  const previous = last.get(ctx.channelId);
  if (previous && previous.key === key) {
    const same = ctx.services.findUnchangedRef(previous.fileRef);
    if (same) {
      done();
      return withElements(resultFrom(same, width, height, pixels, true), tree);
    }
  }

  const encoded = tree
    ? await source.encoder.annotated(
        pixels,
        { width, height, scale },
        tree.nodes.filter(isInteractive).map((n) => ({ bounds: n.bounds, label: formatRef(tree.refTag, n.index) })),
        format,
        quality,
      )
    : await source.encode(pixels, width, height, format, quality);
  done();
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
  pixels: Pick<ScreenPixels, 'secure' | 'source'>,
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

/**
 * Where on the phone a point of the live picture is. The picture is drawn with `object-fit:
 * contain` inside its element, so it may have bars (letterboxing) on two sides when the element
 * is not of the picture's shape, and the element itself is scaled by CSS. Each frame carries
 * the phone's screen size in its current orientation (X-Screen-Width/Height), which is the
 * coordinate space of `input tap`: a turned phone's picture is wide, and its points are its
 * turned pixels, with nothing to swap here.
 *
 * The picture's shape is taken from the screen size, never from the image's natural size: the
 * live view swaps the image's source several times a second, and while a new one decodes its
 * natural size is 0 × 0 (a click then would be read as if the picture filled the element).
 * Frames are scaled proportionally, so the two shapes are the same.
 */

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface Size {
  width: number;
  height: number;
}

/** The part of the element's box the picture fills (object-fit: contain, centred). */
export function containedRect(box: Rect, picture: Size): Rect {
  if (picture.width <= 0 || picture.height <= 0) return box;
  const scale = Math.min(box.width / picture.width, box.height / picture.height);
  const width = picture.width * scale;
  const height = picture.height * scale;
  return { left: box.left + (box.width - width) / 2, top: box.top + (box.height - height) / 2, width, height };
}

/**
 * The phone pixel under a client point, or null when the point is on a bar or outside the
 * picture. `clamp`: a point just outside (a drag that ended beyond the edge) is moved to the
 * nearest pixel instead.
 */
export function phonePointAt(
  box: Rect,
  screen: Size,
  clientX: number,
  clientY: number,
  clamp = false,
): { x: number; y: number } | null {
  const content = containedRect(box, screen);
  if (content.width <= 0 || content.height <= 0 || screen.width <= 0 || screen.height <= 0) return null;
  const fx = (clientX - content.left) / content.width;
  const fy = (clientY - content.top) / content.height;
  if (!clamp && (fx < 0 || fy < 0 || fx >= 1 || fy >= 1)) return null;
  const pixel = (share: number, side: number): number => Math.min(side - 1, Math.max(0, Math.floor(share * side)));
  return { x: pixel(fx, screen.width), y: pixel(fy, screen.height) };
}

/** Where a phone point is on the page (the hold indicator sits there), relative to the element's box. */
export function boxPointOf(box: Rect, screen: Size, point: { x: number; y: number }): { x: number; y: number } {
  const content = containedRect(box, screen);
  return {
    x: content.left - box.left + ((point.x + 0.5) / screen.width) * content.width,
    y: content.top - box.top + ((point.y + 0.5) / screen.height) * content.height,
  };
}

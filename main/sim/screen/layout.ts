/**
 * Screen geometry shared by every app: density-independent pixels, the status bar at the
 * top, the gesture navigation bar at the bottom and the app toolbar. All sizes are whole
 * pixels so drawn rectangles and dumped bounds are identical.
 */
import { rect, type Rect } from './ui-node';

export interface ScreenSize {
  width: number;
  height: number;
  density: number;
}

export interface Layout extends ScreenSize {
  /** Density-independent pixels to whole screen pixels. */
  dp(value: number): number;
  statusBarHeight: number;
  navBarHeight: number;
  /** Where app content goes: between the status bar and the navigation bar. */
  content: Rect;
  toolbarHeight: number;
  /** Body below an app toolbar. */
  body: Rect;
  /** Standard side margin (16dp). */
  margin: number;
}

export function createLayout(size: ScreenSize): Layout {
  const scale = size.density / 160;
  const dp = (value: number): number => Math.round(value * scale);
  const statusBarHeight = dp(24);
  const navBarHeight = dp(18);
  const toolbarHeight = dp(64);
  const content = rect(0, statusBarHeight, size.width, size.height - navBarHeight);
  return {
    ...size,
    dp,
    statusBarHeight,
    navBarHeight,
    content,
    toolbarHeight,
    body: rect(0, content.top + toolbarHeight, size.width, content.bottom),
    margin: dp(16),
  };
}

/**
 * The known colours of the simulated apps, exported so tests can check screenshots by
 * pixel. Each app paints its toolbar (the band just below the status bar) in its header
 * colour; `headerProbePoint` is a spot inside that band that no text ever covers.
 */
import type { ScreenSize } from './layout';
import { createLayout } from './layout';

export type Rgb = readonly [number, number, number];

export const NOTES_HEADER_RGB: Rgb = [0xf9, 0xa8, 0x25];
export const LOGIN_HEADER_RGB: Rgb = [0x15, 0x65, 0xc0];
export const WALLET_HEADER_RGB: Rgb = [0x1b, 0x5e, 0x20];
export const SETTINGS_HEADER_RGB: Rgb = [0x37, 0x47, 0x4f];
export const LIST_HEADER_RGB: Rgb = [0x6a, 0x1b, 0x9a];
export const BROWSER_HEADER_RGB: Rgb = [0xde, 0xe1, 0xe6];
export const GENERIC_HEADER_RGB: Rgb = [0x00, 0x69, 0x5c];
/** Launcher wallpaper (fills the whole home screen behind the icons). */
export const LAUNCHER_WALLPAPER_RGB: Rgb = [0x0d, 0x47, 0xa1];
export const RECENTS_BACKGROUND_RGB: Rgb = [0x26, 0x26, 0x26];
/** A FLAG_SECURE window, or the display when asleep, captures as opaque black. */
export const SECURE_RGBA = [0, 0, 0, 255] as const;

export const APP_BACKGROUND_RGB: Rgb = [0xfa, 0xfa, 0xfa];
export const TEXT_RGB: Rgb = [0x20, 0x21, 0x24];
export const HINT_RGB: Rgb = [0x80, 0x86, 0x8b];
export const ERROR_RGB: Rgb = [0xc6, 0x28, 0x28];
export const BUTTON_TEXT_RGB: Rgb = [0xff, 0xff, 0xff];

/** Header colour by package (apps installed with `pm install` use GENERIC_HEADER_RGB). */
export const APP_HEADER_COLORS: Readonly<Record<string, Rgb>> = {
  'com.example.notes': NOTES_HEADER_RGB,
  'com.example.login': LOGIN_HEADER_RGB,
  'com.example.wallet': WALLET_HEADER_RGB,
  'com.android.settings': SETTINGS_HEADER_RGB,
  'com.example.list': LIST_HEADER_RGB,
  'com.android.chrome': BROWSER_HEADER_RGB,
};

/** A pixel inside the toolbar band (right part, vertically centred) that shows the header colour. */
export function headerProbePoint(size: ScreenSize): { x: number; y: number } {
  const layout = createLayout(size);
  return { x: Math.round(size.width * 0.85), y: layout.statusBarHeight + Math.round(layout.toolbarHeight / 2) };
}

export function hex(rgb: Rgb): string {
  return `#${rgb.map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}

/** A darker shade for status bars and pressed states. */
export function darker(rgb: Rgb, factor = 0.8): Rgb {
  return [Math.round(rgb[0] * factor), Math.round(rgb[1] * factor), Math.round(rgb[2] * factor)];
}

/** Whether dark text reads better than white on `rgb`. */
export function isLight(rgb: Rgb): boolean {
  return rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114 > 160;
}

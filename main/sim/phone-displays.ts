/**
 * What displays a simulated phone has and how they are turned: its built-in panel (or a
 * foldable's inner and outer panels, one of them behind logical display 0 at a time), the
 * rotation, `wm size` / `wm density` overrides, and a cast (virtual) second display. The
 * quirks landscape, reverse-landscape, landscape-tablet, wm-size-override,
 * wm-density-override, foldable and cast-second-display set it (main/sim/QUIRKS.md).
 *
 * Android's rule, which every command of the sim follows: apps, `uiautomator dump` bounds,
 * `input` coordinates and `screencap` pixels are all in the logical display's current
 * orientation at its override size when there is one (`logicalSize()`); `wm size` prints the
 * natural (rotation 0) size, physical and override.
 */
import type { QuirkName } from './phone-quirks';

export type SimRotation = 0 | 1 | 2 | 3;

export interface SimPanel {
  /** SurfaceFlinger's physical display id (`screencap -d`, `uniqueId "local:ID"`). */
  physicalId: string;
  /** HWC display number in `dumpsys SurfaceFlinger --display-id`. */
  hwc: number;
  port: number;
  /** Natural (rotation 0) size. */
  width: number;
  height: number;
  density: number;
}

export interface SimVirtualDisplay {
  id: number;
  name: string;
  width: number;
  height: number;
  density: number;
  ownerPackage: string;
}

/** The built-in panel's id as a Pixel reports it (the `screencap -h` default of a Pixel 7). */
export const BUILT_IN_PHYSICAL_ID = '4619827259835644672';

/**
 * Pixel Fold panels (mobile-next/mobile-mcp#158 lists both ids): the inner 2208x1840 screen
 * is HWC display 0, the first display screencap finds; the outer 1080x2092 is HWC display 1.
 */
export const FOLD_INNER: SimPanel = {
  physicalId: '4619827677550801152',
  hwc: 0,
  port: 0,
  width: 2208,
  height: 1840,
  density: 420,
};
export const FOLD_OUTER: SimPanel = {
  physicalId: '4619827677550801153',
  hwc: 1,
  port: 1,
  width: 1080,
  height: 2092,
  density: 420,
};

/** A Samsung Galaxy Tab S7-class tablet: natural orientation landscape, 2560x1600 at 320 dpi. */
export const LANDSCAPE_TABLET = { width: 2560, height: 1600, density: 320 } as const;

/** The second screen a phone casts to (a Chromecast-style virtual display of its own content). */
export const CAST_DISPLAY: SimVirtualDisplay = {
  id: 2,
  name: 'Living Room TV',
  width: 1920,
  height: 1080,
  density: 320,
  ownerPackage: 'com.google.android.gms',
};

/** `wm density` override of the wm-density-override quirk (a phone set to "Display size: small"). */
export const DENSITY_OVERRIDE_DPI = 360;

export class SimDisplays {
  private folded = true;
  private quirks: ReadonlySet<QuirkName> = new Set();

  constructor(private readonly builtIn: { width: number; height: number; density: number }) {}

  setQuirks(quirks: ReadonlySet<QuirkName>): void {
    this.quirks = new Set(quirks);
  }

  /** A foldable folded shows its outer panel behind display 0; unfolded, the inner one. */
  setFolded(folded: boolean): void {
    this.folded = folded;
  }

  isFoldable(): boolean {
    return this.quirks.has('foldable');
  }

  isFolded(): boolean {
    return this.isFoldable() && this.folded;
  }

  /** Physical panels in SurfaceFlinger's order (the first is what `screencap` picks without -d). */
  panels(): SimPanel[] {
    if (this.isFoldable()) return [FOLD_INNER, FOLD_OUTER];
    const size = this.quirks.has('landscape-tablet') ? LANDSCAPE_TABLET : this.builtIn;
    return [
      {
        physicalId: BUILT_IN_PHYSICAL_ID,
        hwc: 0,
        port: 0,
        width: size.width,
        height: size.height,
        density: size.density,
      },
    ];
  }

  /** The panel behind logical display 0. */
  activePanel(): SimPanel {
    const panels = this.panels();
    return (this.isFolded() ? panels[1] : panels[0]) ?? panels[0]!;
  }

  /** Quarter turns clockwise from the natural orientation. */
  rotation(): SimRotation {
    if (this.quirks.has('landscape')) return 1;
    if (this.quirks.has('reverse-landscape')) return 3;
    return 0;
  }

  physicalSize(): { width: number; height: number } {
    const p = this.activePanel();
    return { width: p.width, height: p.height };
  }

  /** `wm size WxH` in force: three quarters of the panel (1080x2400 → 810x1800). */
  overrideSize(): { width: number; height: number } | undefined {
    if (!this.quirks.has('wm-size-override')) return undefined;
    const p = this.physicalSize();
    return { width: Math.round((p.width * 3) / 4), height: Math.round((p.height * 3) / 4) };
  }

  physicalDensity(): number {
    return this.activePanel().density;
  }

  overrideDensity(): number | undefined {
    return this.quirks.has('wm-density-override') ? DENSITY_OVERRIDE_DPI : undefined;
  }

  density(): number {
    return this.overrideDensity() ?? this.physicalDensity();
  }

  /** The natural size apps get (override first), before rotation. */
  naturalLogicalSize(): { width: number; height: number } {
    return this.overrideSize() ?? this.physicalSize();
  }

  /** Width and height in the current orientation: apps, dumps, taps and screenshots. */
  logicalSize(): { width: number; height: number } {
    const n = this.naturalLogicalSize();
    return this.rotation() % 2 === 1 ? { width: n.height, height: n.width } : n;
  }

  /** The panel's own pixels in the current orientation (dumpsys input physicalFrame). */
  orientedPhysicalSize(): { width: number; height: number } {
    const n = this.physicalSize();
    return this.rotation() % 2 === 1 ? { width: n.height, height: n.width } : n;
  }

  castDisplay(): SimVirtualDisplay | undefined {
    return this.quirks.has('cast-second-display') ? CAST_DISPLAY : undefined;
  }

  /** Logical display ids that exist: 0, plus the cast display. */
  logicalIds(): number[] {
    const cast = this.castDisplay();
    return cast ? [0, cast.id] : [0];
  }

  /** A stable key that changes whenever the layout must change. */
  key(): string {
    const s = this.logicalSize();
    return `${s.width}x${s.height}@${this.density()}`;
  }
}

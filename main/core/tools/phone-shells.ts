/**
 * The one way to get a phone's shell. Each phone's commands go to the adb server it is
 * attached to; `screencap` and `input` are sent to the display in use (display-tracker.ts),
 * and what those commands show of the screen (a frame's size, a rotation) keeps the screen
 * size cache fresh. Made once in create-core and handed to everything that talks to a phone:
 * the tools, the phone view, the phone check, the fast lane and the admin thumbnail.
 */
import { BridgeError } from '../errors';
import type { AdbServerLink } from '../devices/adb-server-link';
import type { DeviceRecord, DeviceRegistry } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import type { OperationOptions } from '../devices/shell-quote';
import type { ScreenSize } from '../android/input';
import { readOrientedScreenSize } from '../android/device-info';
import { displayRef, type DisplayTarget } from '../android/displays';
import { DisplayTracker } from './display-tracker';
import { ScreenSizeCache } from './screen-size-cache';

/**
 * The oriented size changes when the phone rotates: younger than 3 s it is used as is, up to
 * 60 s it is used while a background read refreshes it (a point outside it is checked against
 * a size read now), older it is read first. See screen-size-cache.ts.
 */
const SCREEN_SIZE_FRESH_MS = 3_000;
const SCREEN_SIZE_USABLE_MS = 60_000;
/** A phone with one display is read again after this long (the phone check reads it on attach). */
const SINGLE_DISPLAY_FRESH_MS = 10 * 60_000;
/** A phone with several displays is read at each call's first screen command, and otherwise after this long. */
const MULTI_DISPLAY_FRESH_MS = 2_000;

export interface PhoneShellsOptions {
  links: readonly AdbServerLink[];
  registry: DeviceRegistry;
  clock: () => number;
  /** Deadline of the background screen-size refresh. */
  commandTimeoutMs: number;
}

export class PhoneShells {
  private readonly sizes: ScreenSizeCache;
  private readonly displays: DisplayTracker;

  constructor(private readonly o: PhoneShellsOptions) {
    this.sizes = new ScreenSizeCache({
      read: (shell, options) => readOrientedScreenSize(shell, options),
      clock: o.clock,
      freshMs: SCREEN_SIZE_FRESH_MS,
      usableMs: SCREEN_SIZE_USABLE_MS,
      refreshTimeoutMs: o.commandTimeoutMs,
    });
    this.displays = new DisplayTracker({
      clock: o.clock,
      singleDisplayFreshMs: SINGLE_DISPLAY_FRESH_MS,
      multiDisplayFreshMs: MULTI_DISPLAY_FRESH_MS,
      onFrame: (deviceId, size) => this.sizes.observe(deviceId, size),
      onRotation: (deviceId, rotation) => this.sizes.observeRotation(deviceId, rotation),
    });
  }

  /** The phone's shell, with screen commands sent to the display in use. */
  shellFor(device: DeviceRecord): DeviceShell {
    return this.displays.shellFor(device.deviceId, device.sdk, this.plain(device));
  }

  /**
   * The shell of a connected phone by id, on its default display: the fast lane's helper
   * works on display 0 only, and is never started on another (tool-runtime.ts).
   */
  defaultDisplayShell(deviceId: string): DeviceShell | undefined {
    const device = this.o.registry.get(deviceId);
    if (!device || device.state !== 'device') return undefined;
    return this.o.links.find((l) => l.address === device.adbServer)?.shell(device.serial);
  }

  /** The display calls act on (0 unless a phone with several displays is driven on another). */
  displayInUse(deviceId: string): number {
    return this.displays.current(deviceId)?.display.id ?? 0;
  }

  /** The display in use as a result names it, on a phone with several displays; else null. */
  displayShown(deviceId: string): ReturnType<typeof displayRef> | null {
    const current = this.displays.current(deviceId);
    return current ? displayRef(current) : null;
  }

  /** A phone check read the phone's displays (`dumpsys display`): calls act on that display. */
  noteDisplays(deviceId: string, target: DisplayTarget | null): void {
    this.displays.set(deviceId, target);
  }

  /** A call begins: a phone with several displays reads them again at its first screen command. */
  beginCall(deviceId: string): void {
    this.displays.beginCall(deviceId);
  }

  /** The oriented screen size, cached per phone (see SCREEN_SIZE_FRESH_MS); null when unreadable. */
  screenSize(
    deviceId: string,
    shell: DeviceShell,
    options: OperationOptions,
    accepts?: (size: ScreenSize) => boolean,
  ): Promise<ScreenSize | null> {
    return this.sizes.get(deviceId, shell, options, accepts);
  }

  private plain(device: DeviceRecord): DeviceShell {
    const link = this.o.links.find((l) => l.address === device.adbServer);
    if (!link) throw new BridgeError('device_not_found', 'the phone’s ADB server is not configured');
    return link.shell(device.serial);
  }
}

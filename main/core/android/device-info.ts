/**
 * What a phone is and what state it is in: model and Android version (getprop), screen size,
 * density and rotation (wm, dumpsys input), battery, screen on/off and the foreground app
 * (dumpsys). Each parser is exported and tolerant: a missing or unexpected line yields a
 * null field, never an exception, because dumpsys formats drift between Android versions.
 */
import type { DeviceShell } from '../devices/device-shell';
import { parseGetprop } from '../devices/getprop';
export { parseGetprop };
import { parseSystemDialog, type SystemDialog } from './system-dialogs';
import { OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

export type Rotation = 0 | 1 | 2 | 3;

export interface ScreenInfo {
  /** Width in the current orientation: the coordinate space of taps and screenshots. */
  width: number | null;
  height: number | null;
  /** Size in the display's natural orientation, as `wm size` reports it. */
  naturalWidth: number | null;
  naturalHeight: number | null;
  density: number | null;
  /** Quarter turns clockwise from the natural orientation. */
  rotation: Rotation | null;
}

export type BatteryStatus = 'unknown' | 'charging' | 'discharging' | 'not_charging' | 'full';

export interface BatteryInfo {
  /** Percent 0..100. */
  level: number | null;
  /** True while charging (status charging, or full while plugged in). */
  charging: boolean | null;
  status: BatteryStatus | null;
  temperatureC: number | null;
}

export interface ForegroundApp {
  package: string;
  /** Fully qualified activity class name. */
  activity: string;
}

export interface DeviceStatus {
  model: string | null;
  manufacturer: string | null;
  androidVersion: string | null;
  sdk: number | null;
  screen: ScreenInfo;
  battery: BatteryInfo;
  screenOn: boolean | null;
  foreground: ForegroundApp | null;
  /** A permission prompt or "App isn't responding" over the app (system-dialogs.ts), or null. */
  systemDialog: SystemDialog | null;
}

const DEFAULT_TIMEOUT_MS = 15_000;

function parseSize(text: string | undefined): { width: number; height: number } | null {
  const match = text === undefined ? null : /(\d+)\s*x\s*(\d+)/.exec(text);
  if (!match?.[1] || !match[2]) return null;
  const width = Number(match[1]);
  const height = Number(match[2]);
  return width > 0 && height > 0 ? { width, height } : null;
}

/** Parses `wm size`; an `Override size:` (set by `wm size WxH`) wins over `Physical size:`. */
export function parseWmSize(output: string): { width: number; height: number } | null {
  return (
    parseSize(/^\s*Override size:(.*)$/m.exec(output)?.[1]) ?? parseSize(/^\s*Physical size:(.*)$/m.exec(output)?.[1])
  );
}

/** Parses `wm density`; an override wins over the physical density. */
export function parseWmDensity(output: string): number | null {
  const value =
    /^\s*Override density:\s*(\d+)/m.exec(output)?.[1] ?? /^\s*Physical density:\s*(\d+)/m.exec(output)?.[1];
  return value === undefined ? null : Number(value);
}

function toRotation(raw: string | undefined): Rotation | null {
  if (raw === undefined) return null;
  const n = Number(raw);
  if (n === 0 || n === 1 || n === 2 || n === 3) return n;
  if (n === 90 || n === 180 || n === 270) return (n / 90) as Rotation;
  return null;
}

/**
 * Display rotation from `dumpsys input`. The internal viewport's `orientation=` is the
 * display's; touch mappers print `SurfaceOrientation: N` (≤ 12) or
 * `InputDeviceOrientation: N` / `Rotation90` (13+), used when no viewport line is present.
 */
export function parseInputRotation(output: string): Rotation | null {
  const viewport = /Viewport INTERNAL:[^\n]*?orientation=(?:ROTATION_|Rotation)?(\d+)/.exec(output)?.[1];
  const surface = /SurfaceOrientation:\s*(?:ROTATION_|Rotation)?(\d+)/.exec(output)?.[1];
  const device = /InputDeviceOrientation:\s*(?:ROTATION_|Rotation)?(\d+)/.exec(output)?.[1];
  return toRotation(viewport) ?? toRotation(surface) ?? toRotation(device);
}

const BATTERY_STATUS: Record<string, BatteryStatus> = {
  '1': 'unknown',
  '2': 'charging',
  '3': 'discharging',
  '4': 'not_charging',
  '5': 'full',
};

/** Parses `dumpsys battery` (`  level: 85`, `  status: 2`, `  temperature: 283` in 0.1 °C). */
export function parseBattery(output: string): BatteryInfo {
  const field = (name: string): string | undefined => new RegExp(`^\\s*${name}:\\s*(.+?)\\s*$`, 'm').exec(output)?.[1];
  const level = field('level');
  const scale = field('scale');
  const statusCode = field('status');
  const temperature = field('temperature');
  const plugged = ['AC powered', 'USB powered', 'Wireless powered', 'Dock powered'].map(field);

  let levelPercent: number | null = null;
  if (level !== undefined && /^\d+$/.test(level)) {
    const scaleValue = scale !== undefined && /^\d+$/.test(scale) && Number(scale) > 0 ? Number(scale) : 100;
    levelPercent = Math.round((Number(level) * 100) / scaleValue);
  }
  const status =
    statusCode === undefined
      ? null
      : Object.hasOwn(BATTERY_STATUS, statusCode)
        ? (BATTERY_STATUS[statusCode] ?? 'unknown')
        : 'unknown';
  const anyPluggedKnown = plugged.some((v) => v !== undefined);
  const isPlugged = plugged.some((v) => v === 'true');
  let charging: boolean | null = null;
  if (status === 'charging') charging = true;
  else if (status === 'full') charging = anyPluggedKnown ? isPlugged : null;
  else if (status !== null && status !== 'unknown') charging = false;
  else if (anyPluggedKnown) charging = isPlugged;

  const temperatureC = temperature !== undefined && /^-?\d+$/.test(temperature) ? Number(temperature) / 10 : null;
  return { level: levelPercent, charging, status, temperatureC };
}

/** Parses `dumpsys power`: `mWakefulness=Awake` means the screen is on. */
export function parseScreenOn(output: string): boolean | null {
  const wakefulness = /mWakefulness=(\w+)/.exec(output)?.[1];
  if (wakefulness !== undefined) return wakefulness === 'Awake';
  const displayState = /Display Power: state=(\w+)/.exec(output)?.[1];
  return displayState === undefined ? null : displayState === 'ON';
}

function componentFrom(pkg: string, activity: string): ForegroundApp {
  return { package: pkg, activity: activity.startsWith('.') ? `${pkg}${activity}` : activity };
}

/**
 * Parses `dumpsys window`: `mCurrentFocus=Window{… u0 PKG/ACTIVITY}`; when the focused window
 * is not an activity (status bar, a dialog, `null`), falls back to
 * `mFocusedApp=ActivityRecord{… u0 PKG/ACTIVITY t12}`.
 */
export function parseForegroundApp(output: string): ForegroundApp | null {
  const component = /([A-Za-z][\w.]*)\/([.\w$]+)/;
  // Every line of each key, in order: a phone with several displays prints one per display,
  // `null` for those without focus (appium-adb#797); a focused window that is no activity
  // (`Window{… u0 Application Not Responding: pkg}`) has no component either.
  for (const key of ['mCurrentFocus', 'mFocusedApp']) {
    for (const found of output.matchAll(new RegExp(`${key}=(.*)$`, 'gm'))) {
      const match = component.exec(found[1] ?? '');
      if (match?.[1] && match[2]) return componentFrom(match[1], match[2]);
    }
  }
  return null;
}

export interface DeviceProps {
  model: string | null;
  manufacturer: string | null;
  androidVersion: string | null;
  sdk: number | null;
}

export function devicePropsFrom(props: Map<string, string>): DeviceProps {
  const get = (key: string): string | null => {
    const value = props.get(key)?.trim();
    return value ? value : null;
  };
  const sdk = get('ro.build.version.sdk');
  return {
    model: get('ro.product.model'),
    manufacturer: get('ro.product.manufacturer'),
    androidVersion: get('ro.build.version.release'),
    sdk: sdk !== null && /^\d+$/.test(sdk) ? Number(sdk) : null,
  };
}

/** The screen size in the current orientation, given the natural size and the rotation. */
export function orientedSize(
  natural: { width: number; height: number },
  rotation: Rotation | null,
): { width: number; height: number } {
  return rotation === 1 || rotation === 3 ? { width: natural.height, height: natural.width } : { ...natural };
}

/**
 * The display size in its natural orientation (`wm size`, override first). It changes only
 * when someone runs `wm size`, so callers cache it; combine with a rotation via orientedSize().
 * Null when `wm size` answers nothing usable.
 */
export async function readScreenSize(
  shell: DeviceShell,
  options?: OperationOptions,
): Promise<{ width: number; height: number } | null> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading the screen size');
  return parseWmSize((await runText(shell, ['wm', 'size'], deadline.next())).text);
}

/** The current display rotation (`dumpsys input`); null when the phone does not say. */
export async function readRotation(shell: DeviceShell, options?: OperationOptions): Promise<Rotation | null> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading the screen rotation');
  return parseInputRotation((await runText(shell, ['dumpsys', 'input'], deadline.next())).text);
}

/**
 * The screen size in the current orientation, i.e. the bounds for taps and swipes
 * (`wm size` and `dumpsys input`, concurrently). Unlike readScreenSize, this changes when
 * the phone rotates, so cache it only briefly.
 */
export async function readOrientedScreenSize(
  shell: DeviceShell,
  options?: OperationOptions,
): Promise<{ width: number; height: number; rotation: Rotation | null } | null> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading the screen size');
  const [size, input] = await Promise.all([
    runText(shell, ['wm', 'size'], deadline.next()),
    runText(shell, ['dumpsys', 'input'], deadline.next()),
  ]);
  const natural = parseWmSize(size.text);
  if (!natural) return null;
  const rotation = parseInputRotation(input.text);
  return { ...orientedSize(natural, rotation), rotation };
}

/**
 * Everything in DeviceStatus, from independent calls run concurrently. `buildProps` are the
 * phone's `ro.*` build properties when the caller already read them on this connection: they
 * cannot change without a reboot (which drops the connection), so `getprop` — the largest
 * answer, hundreds of lines on a real phone — is then skipped.
 */
export async function readDeviceStatus(
  shell: DeviceShell,
  options?: OperationOptions,
  buildProps?: DeviceProps,
): Promise<DeviceStatus> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading the device status');
  const read = async (argv: string[]): Promise<string> => (await runText(shell, argv, deadline.next())).text;
  const [props, wmSize, wmDensity, battery, power, window, input] = await Promise.all([
    buildProps ?? read(['getprop']).then((text) => devicePropsFrom(parseGetprop(text))),
    read(['wm', 'size']),
    read(['wm', 'density']),
    read(['dumpsys', 'battery']),
    read(['dumpsys', 'power']),
    read(['dumpsys', 'window']),
    read(['dumpsys', 'input']),
  ]);
  const natural = parseWmSize(wmSize);
  const rotation = parseInputRotation(input);
  const oriented = natural ? orientedSize(natural, rotation) : null;
  return {
    ...props,
    screen: {
      width: oriented?.width ?? null,
      height: oriented?.height ?? null,
      naturalWidth: natural?.width ?? null,
      naturalHeight: natural?.height ?? null,
      density: parseWmDensity(wmDensity),
      rotation,
    },
    battery: parseBattery(battery),
    screenOn: parseScreenOn(power),
    foreground: parseForegroundApp(window),
    systemDialog: parseSystemDialog(window),
  };
}

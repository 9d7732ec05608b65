/**
 * Which display of a phone is in use, and keeping screenshots and input on it.
 *
 * A foldable has two physical panels (inner and outer); a phone casting to a TV has a second,
 * virtual, logical display. `screencap` without `-d` on such a phone captures "the first
 * display found" — on a folded Pixel Fold that is the inner panel, which is off — and on
 * Android 14+ prints a three-line warning on stderr, which `exec:` delivers inside the image
 * bytes. `input` without `-d` sends touches to display 0. So the bridge reads
 * `dumpsys display` (logical displays with their DisplayInfo: id, size in the current
 * orientation, rotation, state, type, `uniqueId "local:<physical id>"`), picks the display in
 * use, and adds `screencap -d <physical id>` and `input -d <display id>` on phones with more
 * than one display. Phones with one display get no flag: their commands stay as they were
 * (and Android 9 and older, whose `-d` meant something else, are never given one).
 */
import type { DeviceShell, ShellOutput, ShellRunOptions } from '../devices/device-shell';
import { OperationDeadline, runText } from './shell-quote';
import type { OperationOptions } from './shell-quote';

export interface LogicalDisplay {
  /** Logical display id (`input -d`, `dumpsys window` mDisplayId). */
  id: number;
  name: string;
  /** INTERNAL, EXTERNAL, VIRTUAL, WIFI, OVERLAY … */
  type: string;
  /** ON, OFF, DOZE, DOZE_SUSPEND, VR, ON_SUSPEND, UNKNOWN. */
  state: string;
  /** Size in the current orientation (`real W x H`). */
  width: number;
  height: number;
  rotation: number;
  /** SurfaceFlinger's physical display id behind it (`uniqueId "local:ID"`), for `screencap -d`. */
  physicalId: string | null;
}

export interface DisplayLayout {
  displays: LogicalDisplay[];
  /** Every physical display id the dump names (a foldable has two, one of them unused). */
  physicalIds: string[];
}

/** The display the bridge acts on, and how many there are. */
export interface DisplayTarget {
  display: LogicalDisplay;
  /** Logical displays. */
  logicalCount: number;
  /** Physical panels. */
  physicalCount: number;
}

const DISPLAY_INFO_RE = /DisplayInfo\{"([^"]*)", displayId (\d+)([^\n]*)/g;

/**
 * Parses `dumpsys display` (Android 10+). Each logical display's DisplayInfo appears as
 * mBaseDisplayInfo then mOverrideDisplayInfo (what apps see now); the last one of an id wins.
 */
export function parseDumpsysDisplay(output: string): DisplayLayout {
  const byId = new Map<number, LogicalDisplay>();
  for (const m of output.matchAll(DISPLAY_INFO_RE)) {
    const rest = m[3] ?? '';
    const real = /\breal (\d+) x (\d+)/.exec(rest);
    if (!real) continue;
    const unique = /uniqueId "([^"]*)"/.exec(rest)?.[1] ?? '';
    byId.set(Number(m[2]), {
      id: Number(m[2]),
      name: m[1] ?? '',
      type: /\btype (\w+)/.exec(rest)?.[1] ?? 'UNKNOWN',
      state: /\bstate (\w+)/.exec(rest)?.[1] ?? 'UNKNOWN',
      width: Number(real[1]),
      height: Number(real[2]),
      rotation: Number(/\brotation (\d)/.exec(rest)?.[1] ?? 0),
      physicalId: /^local:(\d+)$/.exec(unique)?.[1] ?? null,
    });
  }
  const physicalIds = [...new Set([...output.matchAll(/uniqueId[=:]?\s?["']?local:(\d+)/g)].map((m) => m[1] ?? ''))].filter((id) => id !== '');
  return { displays: [...byId.values()].sort((a, b) => a.id - b.id), physicalIds };
}

/**
 * The display in use: a built-in (INTERNAL) display that is on, the lowest id first (on a
 * folded foldable, display 0 is backed by the outer panel and is the one that is on); when
 * none is on (the screen is asleep), display 0. A cast or virtual display is never chosen:
 * the phone's own screen is where the person and the agent look.
 */
export function pickDisplay(layout: DisplayLayout): DisplayTarget | null {
  const own = layout.displays.filter((d) => d.type === 'INTERNAL');
  const chosen = own.find((d) => d.state === 'ON') ?? layout.displays.find((d) => d.id === 0) ?? own[0];
  if (!chosen) return null;
  return { display: chosen, logicalCount: layout.displays.length, physicalCount: Math.max(layout.physicalIds.length, chosen.physicalId ? 1 : 0) };
}

/** Whether a phone needs display flags at all (more than one display of either kind). */
export function isMultiDisplay(target: DisplayTarget | null): boolean {
  return target !== null && (target.logicalCount > 1 || target.physicalCount > 1);
}

/** Reads and picks (`dumpsys display`, one command). Null when the phone does not say. */
export async function readDisplayTarget(shell: DeviceShell, options?: OperationOptions): Promise<DisplayTarget | null> {
  const deadline = new OperationDeadline(options, 10_000, 'reading the displays');
  return pickDisplay(parseDumpsysDisplay((await runText(shell, ['dumpsys', 'display'], deadline.next())).text));
}

/**
 * `argv` aimed at the target: `screencap -d <physical id>` and `screenrecord --display-id
 * <physical id>` when the phone has several physical displays, `input -d <display id>` when it
 * has several displays of any kind (Android 10+,
 * where `input` takes -d). Anything else, or a command that already names a display, is
 * returned unchanged.
 */
export function aimAtDisplay(argv: readonly string[], target: DisplayTarget | null, sdk: number | null): readonly string[] {
  if (!target || !isMultiDisplay(target)) return argv;
  if (argv.includes('-d')) return argv;
  if (argv[0] === 'screencap' && target.physicalCount > 1 && target.display.physicalId) return ['screencap', '-d', target.display.physicalId, ...argv.slice(1)];
  // screenrecord (Android 10+) records "the primary display" unless told: on a folded foldable, the inner panel.
  if (argv[0] === 'screenrecord' && !argv.includes('--display-id') && target.physicalCount > 1 && target.display.physicalId) return ['screenrecord', '--display-id', target.display.physicalId, ...argv.slice(1)];
  if (argv[0] === 'input' && (sdk === null || sdk >= 29)) return ['input', '-d', String(target.display.id), ...argv.slice(1)];
  return argv;
}

/** The part of a result that says which display a call used. */
export function displayRef(target: DisplayTarget): { id: number; name: string; physical_id?: string; of: number } {
  return {
    id: target.display.id,
    name: target.display.name,
    ...(target.display.physicalId ? { physical_id: target.display.physicalId } : {}),
    of: Math.max(target.logicalCount, target.physicalCount),
  };
}

/**
 * A DeviceShell whose `screencap` and `input` commands go to the target display. `target`
 * is asked on the first such command (it may read the phone); `seen` hears every target used.
 */
export function shellOnDisplay(base: DeviceShell, target: (options: ShellRunOptions) => Promise<DisplayTarget | null>, sdk: number | null, seen?: (target: DisplayTarget) => void): DeviceShell {
  const aim = async (argv: readonly string[], options: ShellRunOptions): Promise<readonly string[]> => {
    if (argv[0] !== 'screencap' && argv[0] !== 'input' && argv[0] !== 'screenrecord') return argv;
    const t = await target(options);
    if (t) seen?.(t);
    return aimAtDisplay(argv, t, sdk);
  };
  return {
    run: async (argv, options): Promise<ShellOutput> => base.run(await aim(argv, options), options),
    execOut: async (argv, options) => base.execOut(await aim(argv, options), options),
    push: (data, remotePath, options) => base.push(data, remotePath, options),
    pull: (remotePath, options) => base.pull(remotePath, options),
  };
}

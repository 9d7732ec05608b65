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
import type { DeviceShell } from '../devices/device-shell';
import { OperationDeadline, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

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

/** DisplayInfo's name and id: `{"NAME", displayId N` (Android 12+) or `{"NAME, displayId N"` (10–11). */
const INFO_NEW_RE = /DisplayInfo\{"([^"]*)", displayId (\d+)/;
const INFO_OLD_RE = /DisplayInfo\{"(.*?), displayId (\d+)"/;
/** Android 9 and older print no id in DisplayInfo; the logical display block's `mDisplayId=N` says it. */
const INFO_BARE_RE = /DisplayInfo\{"([^"]*)"/;

/**
 * Parses `dumpsys display`. Each logical display's DisplayInfo appears as mBaseDisplayInfo
 * then mOverrideDisplayInfo (what apps see now); the last one of an id wins. The three
 * DisplayInfo formats of Android 9, 10–11 and 12+ are read; a field a version does not print
 * (state, type) is UNKNOWN.
 */
export function parseDumpsysDisplay(output: string): DisplayLayout {
  const byId = new Map<number, LogicalDisplay>();
  let blockId: number | null = null;
  for (const line of output.split('\n')) {
    const block = /^\s*mDisplayId=(\d+)/.exec(line);
    if (block) blockId = Number(block[1]);
    if (!line.includes('DisplayInfo{')) continue;
    const named = INFO_NEW_RE.exec(line) ?? INFO_OLD_RE.exec(line);
    const bare = named ? null : INFO_BARE_RE.exec(line);
    const id = named ? Number(named[2]) : blockId;
    const name = named?.[1] ?? bare?.[1];
    const real = /\breal (\d+) x (\d+)/.exec(line);
    if (id === null || name === undefined || !real) continue;
    const unique = /uniqueId "([^"]*)"/.exec(line)?.[1] ?? '';
    byId.set(id, {
      id,
      name,
      type: /\btype (\w+)/.exec(line)?.[1] ?? 'UNKNOWN',
      state: /\bstate (\w+)/.exec(line)?.[1] ?? 'UNKNOWN',
      width: Number(real[1]),
      height: Number(real[2]),
      rotation: Number(/\brotation (\d)/.exec(line)?.[1] ?? 0),
      physicalId: /^local:(\d+)$/.exec(unique)?.[1] ?? null,
    });
  }
  const physicalIds = [
    ...new Set([...output.matchAll(/uniqueId[=:]?\s?["']?local:(\d+)/g)].map((m) => m[1] ?? '')),
  ].filter((id) => id !== '');
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
  return {
    display: chosen,
    logicalCount: layout.displays.length,
    physicalCount: Math.max(layout.physicalIds.length, chosen.physicalId ? 1 : 0),
  };
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
 * has several displays of any kind — Android 10+ only (before, `input` had no -d and
 * screencap's -d meant something else). Anything else, or a command that already names a
 * display, is returned unchanged.
 */
export function aimAtDisplay(
  argv: readonly string[],
  target: DisplayTarget | null,
  sdk: number | null,
): readonly string[] {
  if (!target || !isMultiDisplay(target)) return argv;
  // Android 9 and older: `input` has no -d, screencap's -d is a small display number, screenrecord has no --display-id.
  if (sdk !== null && sdk < 29) return argv;
  if (argv.includes('-d')) return argv;
  if (argv[0] === 'screencap' && target.physicalCount > 1 && target.display.physicalId)
    return ['screencap', '-d', target.display.physicalId, ...argv.slice(1)];
  // screenrecord (Android 10+) records "the primary display" unless told: on a folded foldable, the inner panel.
  if (
    argv[0] === 'screenrecord' &&
    !argv.includes('--display-id') &&
    target.physicalCount > 1 &&
    target.display.physicalId
  )
    return ['screenrecord', '--display-id', target.display.physicalId, ...argv.slice(1)];
  if (argv[0] === 'input') return ['input', '-d', String(target.display.id), ...argv.slice(1)];
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

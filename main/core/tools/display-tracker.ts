/**
 * Per phone: which display the bridge acts on (android/displays.ts), and what the phone's
 * screen commands reveal about its orientation.
 *
 * Each phone's shell is wrapped once (the android/ library keys per-shell memories on the
 * shell object): its `screencap` and `input` commands are aimed at the display in use, the
 * size of every captured frame and the rotation of every UI dump are reported (the screen-size
 * cache learns a rotation from them at once).
 *
 * Cost: a phone with one display is read by the phone check when it attaches (or at its first
 * screen command) and again every `singleDisplayFreshMs` (`dumpsys display`, one command); one
 * with several displays (a foldable, a phone casting) is read again at the first screen
 * command of every call (and, for the phone view's live frames, when older than
 * `multiDisplayFreshMs`), so a fold or unfold between two calls is never missed. A phone that
 * starts casting while it is believed single keeps acting on display 0, which is right.
 */
import { aimAtDisplay, isMultiDisplay, readDisplayTarget, type DisplayTarget } from '../android/displays';
import { stripScreencapNotices } from '../android/screencap';
import type { DeviceShell, ShellRunOptions } from '../devices/device-shell';

export interface DisplayTrackerOptions {
  clock: () => number;
  /** How long a one-display phone's reading is used. */
  singleDisplayFreshMs: number;
  /** How long a several-display phone's reading is used outside tool calls (live frames of the phone view). */
  multiDisplayFreshMs: number;
  onFrame: (deviceId: string, size: { width: number; height: number }) => void;
  onRotation: (deviceId: string, rotation: number) => void;
}

interface Entry {
  target: DisplayTarget | null;
  at: number;
  stale: boolean;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height of a screencap answer (raw header or PNG IHDR); null when it is neither. */
export function frameSize(output: Buffer): { width: number; height: number } | null {
  const bytes = stripScreencapNotices(output);
  if (bytes.length >= 24 && bytes.subarray(0, 8).equals(PNG_SIGNATURE))
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 12) {
    const width = bytes.readUInt32LE(0);
    const height = bytes.readUInt32LE(4);
    if (width > 0 && height > 0 && bytes.length >= width * height * 4) return { width, height };
  }
  return null;
}

/** The commands that act on one display, and so are sent to the display in use. */
const AIMED_COMMANDS: ReadonlySet<string> = new Set(['screencap', 'screenrecord', 'input']);

export class DisplayTracker {
  private readonly shells = new WeakMap<DeviceShell, DeviceShell>();
  private readonly entries = new Map<string, Entry>();
  private readonly reading = new Map<string, Promise<DisplayTarget | null>>();

  constructor(private readonly o: DisplayTrackerOptions) {}

  /**
   * The phone's shell aimed at its display in use (the same object for the same phone shell):
   * the one decorator of a phone's shell. `screencap`, `screenrecord` and `input` go to the
   * display in use (android/displays.ts aimAtDisplay); what a frame or a UI dump shows of the
   * screen (its size, its rotation) is reported to the screen size cache.
   */
  shellFor(deviceId: string, sdk: number | null, base: DeviceShell): DeviceShell {
    const known = this.shells.get(base);
    if (known) return known;
    const aim = async (argv: readonly string[], options: ShellRunOptions): Promise<readonly string[]> => {
      if (!AIMED_COMMANDS.has(argv[0] ?? '')) return argv;
      return aimAtDisplay(argv, await this.target(deviceId, base, options), sdk);
    };
    // Raw service streams (the fast lane's helper) pass through untouched.
    const openStream = base.openStream?.bind(base);
    const shell: DeviceShell = {
      run: async (argv, options) => {
        const out = await base.run(await aim(argv, options), options);
        if (argv[0] === 'uiautomator') {
          const rotation = /<hierarchy rotation="(\d)"/.exec(out.stdout.subarray(0, 400).toString('latin1'))?.[1];
          if (rotation !== undefined) this.o.onRotation(deviceId, Number(rotation));
        }
        return out;
      },
      execOut: async (argv, options) => {
        const out = await base.execOut(await aim(argv, options), options);
        if (argv[0] === 'screencap') {
          const size = frameSize(out);
          if (size) this.o.onFrame(deviceId, size);
        }
        return out;
      },
      push: (data, remotePath, options) => base.push(data, remotePath, options),
      pull: (remotePath, options) => base.pull(remotePath, options),
      shellProtocol: () => base.shellProtocol?.() ?? null,
      aim,
      ...(openStream ? { openStream } : {}),
    };
    this.shells.set(base, shell);
    return shell;
  }

  /** A call starts: a phone with several displays is read again at its first screen command. */
  beginCall(deviceId: string): void {
    const entry = this.entries.get(deviceId);
    if (entry && isMultiDisplay(entry.target)) entry.stale = true;
  }

  /** What a phone check just read (`dumpsys display`): used from now on. */
  set(deviceId: string, target: DisplayTarget | null): void {
    this.entries.set(deviceId, { target, at: this.o.clock(), stale: false });
  }

  /** The display last used on this phone, when it has more than one. */
  current(deviceId: string): DisplayTarget | null {
    const target = this.entries.get(deviceId)?.target ?? null;
    return isMultiDisplay(target) ? target : null;
  }

  private target(deviceId: string, base: DeviceShell, options: ShellRunOptions): Promise<DisplayTarget | null> {
    const entry = this.entries.get(deviceId);
    const freshMs = isMultiDisplay(entry?.target ?? null) ? this.o.multiDisplayFreshMs : this.o.singleDisplayFreshMs;
    if (entry && !entry.stale && this.o.clock() - entry.at < freshMs) return Promise.resolve(entry.target);
    const running = this.reading.get(deviceId);
    if (running) return running;
    const started = this.o.clock();
    const reading = readDisplayTarget(base, options)
      // A phone that cannot say keeps what was known (or no flags at all).
      .catch(() => entry?.target ?? null)
      .then((target) => {
        this.entries.set(deviceId, { target, at: started, stale: false });
        return target;
      })
      .finally(() => this.reading.delete(deviceId));
    this.reading.set(deviceId, reading);
    return reading;
  }
}

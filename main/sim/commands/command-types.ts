/**
 * The contract between the shell and each command family: what a command gets (argv,
 * stdin, an abort signal, output sinks) and the phone it runs on.
 */
import type { SimSnapshotHelper } from '../helper/snapshot-instrumentation';
import type { SimUiReader } from '../ui-reader/ui-reader-state';
import type { PhoneNetwork } from '../phone-network';
import type { PhoneClipboard } from '../phone-clipboard';
import type { PhoneProcesses } from '../phone-processes';
import type { FrameRenderer } from '../screen/frame-renderer';
import type { InputDispatcher } from '../screen/input-dispatcher';
import type { ScreenMachine } from '../screen/screen-machine';
import type { PhoneFs } from '../phone-fs';
import type { SimDisplays } from '../phone-displays';
import type { PackageDb } from '../phone-packages';
import type { PhoneSettings } from '../phone-settings';
import type { SimLogcat } from '../phone-logcat';
import type { QuirkName } from '../phone-quirks';
import type { SimHelper } from '../helper/helper-runtime';
import type { TimingProfile } from '../timing-profiles';
import type { CommandIo } from './command-io';

export type { CommandIo } from './command-io';

/** Returns the exit status. */
export type CommandHandler = (io: CommandIo, phone: PhoneContext) => number | Promise<number>;

export interface PhoneInfo {
  serial: string;
  model: string;
  manufacturer: string;
  brand: string;
  /** ro.product.name / ro.product.device (e.g. panther for a Pixel 7). */
  product: string;
  device: string;
  androidVersion: string;
  sdk: number;
  buildId: string;
  fingerprint: string;
  width: number;
  height: number;
  density: number;
}

export interface BatteryState {
  level: number;
  usbPowered: boolean;
  temperature: number;
}

export interface PhoneContext {
  readonly info: PhoneInfo;
  readonly props: ReadonlyMap<string, string>;
  readonly fs: PhoneFs;
  readonly screen: ScreenMachine;
  /** Panels, rotation, size/density overrides and a cast display (phone-displays.ts). */
  readonly displays: SimDisplays;
  readonly input: InputDispatcher;
  readonly frames: FrameRenderer;
  readonly packages: PackageDb;
  readonly settings: PhoneSettings;
  readonly battery: BatteryState;
  readonly profile: TimingProfile;
  /** The quirks this phone carries now (phone-quirks.ts); tests may change them while it runs. */
  readonly quirks: ReadonlySet<QuirkName>;
  /** The resident helper (appium-uiautomator2-server) when installed and started (helper/helper-runtime.ts). */
  readonly helper: SimHelper;
  /** agent-device's port-less snapshot helper while an `am instrument` read runs (helper/snapshot-instrumentation.ts). */
  readonly snapshotHelper: SimSnapshotHelper;
  /** The bridge's UI reader while it runs (holds UiAutomation; ui-reader/ui-reader.ts). */
  readonly uiReader: SimUiReader;
  /** Interfaces and TCP sockets (`ip addr`, /proc/net/tcp{,6}): phone-network.ts. */
  readonly network: PhoneNetwork;
  /** The clipboard, for programs that run as the shell user (scrcpy-server: main/sim/scrcpy/). */
  readonly clipboard: PhoneClipboard;
  /** Native processes started from the shell (minicap) and their abstract sockets (phone-processes.ts). */
  readonly processes: PhoneProcesses;
  /** The phone's log buffers and its running app processes (phone-logcat.ts). */
  readonly logcat: SimLogcat;
  /** Waits `ms` of the phone's time (no wall time with virtual time: phone-clock.ts); false when aborted. */
  sleep(ms: number, signal: AbortSignal): Promise<boolean>;
  /** True once after failNextUiDump(): the dump must fail as real phones sometimes do. */
  takeUiDumpFailure(): boolean;
  now(): number;
  /** Milliseconds since the simulated boot. */
  uptimeMs(): number;
}

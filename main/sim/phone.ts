/**
 * A simulated Android 14 phone behind the PhoneDevice seam: it answers adb shell command
 * lines (through the mksh-like parser and the command registry) in the formats of a real
 * phone, keeps an in-memory file system, and runs a small UI (launcher, example apps,
 * Settings, Chrome) that `input` drives, `uiautomator dump` describes and `screencap`
 * renders. Tests steer it with faults (latency, hangs, a failing UI dump) and named quirks
 * of real phones (phone-quirks.ts, QUIRKS.md), and read its argv log and screen state.
 * `close()` ends every command still running.
 */
import { EventEmitter, setMaxListeners } from 'node:events';
import type { PhoneContext, PhoneInfo } from './commands/command-types';
import { buildProps } from './commands/getprop';
import { BINARY_NAMES } from './commands/registry';
import type { LiveExecOptions, PhoneDevice, PhoneIdentity, ShellResult } from './phone-device';
import { PhoneFs } from './phone-fs';
import { PhoneProcesses } from './phone-processes';
import { SimDisplays } from './phone-displays';
import { checkQuirks, ZH_CN_LOCALE, zhCnText, type QuirkName } from './phone-quirks';
import { PackageDb } from './phone-packages';
import { SimHelper, type HelperControl } from './helper/helper-runtime';
import { SimSnapshotHelper } from './helper/snapshot-instrumentation';
import { SimUiReader } from './ui-reader/ui-reader-state';
import { UIAUTOMATOR_JAR } from './commands/uiautomator';
import { PhoneNetwork, type NetworkControl } from './phone-network';
import { PhoneSettings } from './phone-settings';
import { PhoneClipboard, type ClipboardControl } from './phone-clipboard';
import { ShellRun, SHELL_NAME, type ShellHooks } from './phone-shell';
import { SimLogcat, type AppFault } from './phone-logcat';
import { PhoneClock } from './phone-clock';
import { FrameRenderer } from './screen/frame-renderer';
import { InputDispatcher, type GestureRecord } from './screen/input-dispatcher';
import { createLayout } from './screen/layout';
import { ScreenMachine } from './screen/screen-machine';
import { ShellSyntaxError, parseShell } from './shell-parser';
import {
  eitherAborted,
  sleepUnlessAborted,
  timingProfile,
  untilAborted,
  type TimingProfileName,
} from './timing-profiles';

export interface SimulatedPhoneOptions {
  serial: string;
  /** ro.product.model; default 'Pixel 7'. */
  model?: string;
  /** ro.product.manufacturer; default the model's own maker (Galaxy: samsung), else 'Google'. */
  manufacturer?: string;
  /** ro.build.version.release; default '14'. */
  androidVersion?: string;
  /** ro.build.version.sdk; default 34. */
  sdk?: number;
  /** Default 1080x2400 at 420 dpi. */
  screen?: { width: number; height: number; density: number };
  /** 'instant' (default) adds no delays; 'usb-phone' takes as long as a real USB phone. */
  profile?: TimingProfileName;
  /** ADB Keyboard (com.android.adbkeyboard/.AdbIME) installed, enabled and selected. */
  withAdbKeyboard?: boolean;
  /** Wall clock in ms (status bar time, file times); default Date.now. */
  clock?: () => number;
  /** Named ways real phones fail (phone-quirks.ts, QUIRKS.md); unknown names throw. */
  quirks?: readonly string[];
  /** Wi-Fi on with this IPv4 address on wlan0 (a LAN phone, a USB phone with Wi-Fi on); default off. */
  wifi?: string;
  /**
   * Waits on the phone (command delays, `sleep`, `screenrecord --time-limit`) take no wall
   * time: its clock jumps over them in order (phone-clock.ts), so a test records 400 s of
   * phone time at once. Default false.
   */
  virtualTime?: boolean;
  /**
   * The file on this computer whose bytes are the bridge's UI reader (what `app_process` runs as
   * `com.xagent.bridge.UiReader`); default the repository's resources/device/xagent-ui-reader.jar.
   */
  uiReaderJar?: string;
}

/** A readable snapshot of what the phone shows. */
export interface ScreenStateSnapshot {
  package: string;
  activity: string;
  /** The app's name for the screen (e.g. 'confirm' for the wallet's payment confirmation). */
  screen: string;
  awake: boolean;
  /** FLAG_SECURE: screenshots are black. */
  secure: boolean;
  /** Text of each field of the front task, by short resource id. */
  fields: Record<string, string>;
  focusedField: string | undefined;
  /** The focused field's text is fully selected (after a long press). */
  allSelected: boolean;
  lastGesture: GestureRecord | undefined;
  volume: number;
  /** Bumps on every screen change. */
  version: number;
}

export interface SimulatedPhone extends PhoneDevice {
  readonly serial: string;
  /** Every simple command run, as its exact argv after quote removal (oldest first). */
  readonly argvLog: string[][];
  /** Emits 'exec' (command line) and 'command' (argv) as they start. */
  readonly events: EventEmitter;
  clearArgvLog(): void;
  /** Extra delay before every command line (on top of the timing profile). */
  setLatency(ms: number): void;
  /** The next command line containing `match` (any, if omitted) hangs until aborted. */
  hangNextCommand(match?: string): void;
  /** Every command line containing `match` hangs while on. */
  setHang(match: string, on: boolean): void;
  /** The next `uiautomator dump` fails with "ERROR: could not get idle state.". */
  failNextUiDump(): void;
  /** The quirks the phone carries now. */
  quirks(): QuirkName[];
  /** Replaces the phone's quirks (checked like the option); takes effect with the next command. */
  setQuirks(names: readonly string[]): void;
  /** The resident helper (appium-uiautomator2-server): its state and test controls for faults. */
  readonly helper: HelperControl;
  /** agent-device's snapshot helper: whether a read runs, and test controls (hold a read, kill it). */
  readonly snapshotHelper: SimSnapshotHelper;
  /** The bridge's UI reader: whether it runs (and holds UiAutomation), its pid. */
  readonly uiReader: SimUiReader;
  /** Its Wi-Fi address and foreign peers of the helper's ports (phone-network.ts). */
  readonly network: NetworkControl;
  /** The clipboard: what is on it, and copying text as an app would (phone-clipboard.ts). */
  readonly clipboard: ClipboardControl;
  /** A `foldable` phone is folded (outer panel in use, the default) or unfolded (inner panel). */
  setFolded(folded: boolean): void;
  foregroundPackage(): string;
  /**
   * The app in front shows a toast (sim/screen/toasts.ts): LENGTH_SHORT unless `durationMs`
   * says otherwise, `delayMs` after now (its work done), after any toast still showing.
   */
  showToast(text: string, options?: { durationMs?: number; delayMs?: number }): void;
  screenState(): ScreenStateSnapshot;
  /** Current text of a field (short id like 'note_text' or full resource id), front task first. */
  typedText(fieldId: string): string | undefined;
  setBatteryLevel(level: number): void;
  /**
   * The phone restarts (QUIRKS.md "reboot"): the screen goes back to the home screen, uptime
   * starts again, and `sys.boot_completed` / `dev.bootcomplete` are absent and
   * `init.svc.bootanim` is `running` until `bootMs` later. The adbd side (the connection
   * dropping, adb listing the phone again before boot completes) is SimFarm.reboot's.
   */
  reboot(bootMs: number): void;
  /** The phone's log and app processes (phone-logcat.ts): write entries, crash an app, raise an ANR. */
  readonly logcat: SimLogcat;
  /** The next `input` command ends with the app in front crashing (`crash`) or not responding (`anr`). */
  faultOnNextInput(fault: AppFault): void;
  /** Native processes started from the shell (minicap), their abstract sockets and events (phone-processes.ts). */
  readonly processes: PhoneProcesses;
  /** Its apps (phone-packages.ts): a work profile with its own apps (`addUser`), what each user has. */
  readonly packages: Pick<PackageDb, 'addUser' | 'packagesOfUser' | 'has' | 'installFromStore'>;
  /** How many frames were rasterised so far (unchanged screens are served from cache). */
  renderCount(): number;
  /** Aborts every running command; idempotent. */
  close(): void;
}

const PRODUCTS: Record<string, string> = {
  'Pixel 6': 'oriole',
  'Pixel 7': 'panther',
  'Pixel 7 Pro': 'cheetah',
  'Pixel 8': 'shiba',
  'Pixel 8 Pro': 'husky',
};
/** Who makes a model, by the start of its name, so a simulated Galaxy is not a "Google Galaxy". */
const MAKERS: ReadonlyArray<readonly [string, string]> = [
  ['Pixel', 'Google'],
  ['Galaxy', 'samsung'],
  ['Redmi', 'Xiaomi'],
  ['Xiaomi', 'Xiaomi'],
  ['OnePlus', 'OnePlus'],
  ['Xperia', 'Sony'],
  ['Moto', 'motorola'],
];
const BUILD_IDS: Record<string, string> = {
  '12': 'SQ3A.220705.003',
  '13': 'TQ3A.230901.001',
  '14': 'UQ1A.240205.004',
  '15': 'AP4A.250105.002',
};

function fail(message: string): never {
  throw new TypeError(`createSimulatedPhone: ${message}`);
}

function checkInt(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(value)})`);
  }
  return value;
}

function resolveInfo(options: SimulatedPhoneOptions): PhoneInfo {
  if (typeof options.serial !== 'string' || !/^[\x21-\x7e]+$/.test(options.serial))
    fail(`serial must be a non-empty printable string without spaces (got ${JSON.stringify(options.serial)})`);
  if (options.profile !== undefined && options.profile !== 'instant' && options.profile !== 'usb-phone')
    fail(`profile must be 'instant' or 'usb-phone' (got ${JSON.stringify(options.profile)})`);
  if (options.clock !== undefined && typeof options.clock !== 'function')
    fail('clock must be a function returning milliseconds');
  if (
    options.quirks !== undefined &&
    (!Array.isArray(options.quirks) || options.quirks.some((q) => typeof q !== 'string'))
  )
    fail('quirks must be an array of quirk names');
  const screen = options.screen ?? { width: 1080, height: 2400, density: 420 };
  const model = options.model ?? 'Pixel 7';
  const manufacturer = options.manufacturer ?? MAKERS.find(([prefix]) => model.startsWith(prefix))?.[1] ?? 'Google';
  const androidVersion = options.androidVersion ?? '14';
  const product =
    PRODUCTS[model] ??
    (model
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '') ||
      'generic');
  const buildId = BUILD_IDS[androidVersion] ?? 'UQ1A.240205.004';
  const brand = manufacturer.toLowerCase();
  return {
    serial: options.serial,
    model,
    manufacturer,
    brand,
    product,
    device: product,
    androidVersion,
    sdk: checkInt(options.sdk ?? 34, 'sdk', 1, 100),
    buildId,
    fingerprint: `${brand}/${product}/${product}:${androidVersion}/${buildId}/11269751:user/release-keys`,
    width: checkInt(screen.width, 'screen.width', 64, 8192),
    height: checkInt(screen.height, 'screen.height', 64, 8192),
    density: checkInt(screen.density, 'screen.density', 80, 800),
  };
}

function clockText(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** Creates a phone. Options are checked up front; a bad one throws a TypeError naming it. */
export function createSimulatedPhone(options: SimulatedPhoneOptions): SimulatedPhone {
  const info = resolveInfo(options);
  if (options.virtualTime !== undefined && typeof options.virtualTime !== 'boolean')
    fail(`virtualTime must be true or false (got ${JSON.stringify(options.virtualTime)})`);
  const clock = new PhoneClock(options.clock ?? Date.now, options.virtualTime === true);
  const now = (): number => clock.now();
  let bootedAt = now() - 3_600_000;
  let bootTimer: NodeJS.Timeout | undefined;
  const profile = timingProfile(options.profile ?? 'instant');
  const fs = new PhoneFs(now);
  fs.installBinaries([...BINARY_NAMES, 'sh']);
  const packages = new PackageDb({ withAdbKeyboard: options.withAdbKeyboard === true, sdk: info.sdk });
  const settings = new PhoneSettings((name) => packages.has(name), {
    withAdbKeyboard: options.withAdbKeyboard === true,
    model: info.model,
  });
  const battery = { level: 87, usbPowered: true, temperature: 290 };
  let batteryBeforeLow: { level: number; usbPowered: boolean } | undefined;
  const displays = new SimDisplays({ width: info.width, height: info.height, density: info.density });
  const layout = createLayout({ width: info.width, height: info.height, density: info.density });
  const screen = new ScreenMachine(layout, packages, {
    model: info.model,
    androidVersion: info.androidVersion,
    buildId: info.buildId,
    batteryLevel: () => battery.level,
    getGlobalSetting: (key) => settings.get('global', key),
    putGlobalSetting: (key, value) => settings.put('global', key, value),
  });
  const clipboard = new PhoneClipboard({
    sdk: info.sdk,
    foregroundPackage: () => screen.window().pkg,
    keyboardPackage: () => settings.currentIme()?.split('/')[0],
  });
  // A field that refuses paste (quirk field-refuses-paste) gets nothing from the PASTE key.
  const input = new InputDispatcher(screen, {
    readAs: (pkg) => (quirks.has('field-refuses-paste') ? undefined : clipboard.readAs(pkg)),
  });
  const frames = new FrameRenderer({
    layout,
    version: () => screen.version,
    awake: () => screen.awake,
    window: () => screen.window(),
    statusBar: () => ({ clock: clockText(now()), battery: battery.level }),
  });
  let uiDumpFailures = 0;
  const quirks = new Set<QuirkName>();
  if (options.uiReaderJar !== undefined && typeof options.uiReaderJar !== 'string')
    fail(`uiReaderJar must be a file path (got ${JSON.stringify(options.uiReaderJar)})`);
  const uiReader = new SimUiReader(options.uiReaderJar);
  // The resident helper logs its actions in the argv log, like the commands it stands in for.
  const helper = new SimHelper({
    packages,
    quirks,
    profile,
    phone: {
      screen,
      input,
      frames,
      clipboard,
      display: () => ({ ...displays.logicalSize(), rotation: displays.rotation() }),
      slopPx: () => layout.dp(8),
    },
    log: (argv) => {
      argvLog.push(argv);
      events.emit('command', argv);
    },
    uiAutomationTaken: () => uiReader.holdsUiAutomation(),
  });
  const snapshotHelper = new SimSnapshotHelper();
  const network = new PhoneNetwork(packages, helper, { wifi: options.wifi ?? null });
  const props = buildProps(info);
  const defaultLocale = props.get('persist.sys.locale') ?? 'en-US';
  const setQuirks = (names: readonly string[]): void => {
    let checked: QuirkName[];
    try {
      checked = checkQuirks(names);
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
    const wasDark = quirks.has('screen-off') || quirks.has('dozing');
    const before = new Set(quirks);
    quirks.clear();
    for (const name of checked) quirks.add(name);
    helper.quirksChanged(before);
    // A phone that gains screen-off or dozing goes dark now; a wake key or the power button wakes it.
    if (!wasDark && (quirks.has('screen-off') || quirks.has('dozing'))) screen.setAwake(false);
    // A Chinese-language phone: its locale properties and every screen's strings in zh-CN.
    const zh = quirks.has('zh-cn');
    for (const key of ['persist.sys.locale', 'ro.product.locale']) props.set(key, zh ? ZH_CN_LOCALE : defaultLocale);
    screen.setTranslate(zh ? zhCnText : undefined);
    // A system dialog over the app (permission prompt, App isn't responding) until a tap or
    // BACK answers it; answered, the quirk is gone.
    const dialogQuirk = quirks.has('permission-dialog')
      ? 'permission-dialog'
      : quirks.has('anr-dialog')
        ? 'anr-dialog'
        : undefined;
    screen.setSystemDialog(
      dialogQuirk === undefined ? undefined : dialogQuirk === 'permission-dialog' ? 'permission' : 'anr',
      () => {
        if (dialogQuirk) quirks.delete(dialogQuirk);
      },
    );
    // low-battery: 5 % and unplugged while the quirk is on; what the battery was comes back after.
    if (quirks.has('low-battery') && batteryBeforeLow === undefined) {
      batteryBeforeLow = { level: battery.level, usbPowered: battery.usbPowered };
      Object.assign(battery, { level: 5, usbPowered: false });
    } else if (!quirks.has('low-battery') && batteryBeforeLow !== undefined) {
      Object.assign(battery, batteryBeforeLow);
      batteryBeforeLow = undefined;
    }
    displays.setQuirks(quirks);
    applyDisplays();
    fs.setSystemFile(UIAUTOMATOR_JAR, !quirks.has('no-uiautomator-jar'));
  };
  // Rotation, overrides and fold state: every app lays itself out again at the new logical size.
  let displayKey = displays.key();
  const applyDisplays = (): void => {
    settings.put('system', 'user_rotation', String(displays.rotation()));
    if (displays.key() === displayKey) return;
    displayKey = displays.key();
    Object.assign(layout, createLayout({ ...displays.logicalSize(), density: displays.density() }));
    screen.touch();
  };
  setQuirks(options.quirks ?? []);
  const logcat = new SimLogcat({
    now,
    screen,
    packages,
    showAnrDialog: () => setQuirks([...quirks, 'anr-dialog']),
  });
  const processes = new PhoneProcesses();
  const context: PhoneContext = {
    processes,
    logcat,
    sleep: (ms, signal) => clock.sleep(ms, signal),
    info,
    props,
    fs,
    screen,
    displays,
    input,
    frames,
    packages,
    settings,
    battery,
    profile,
    quirks,
    helper,
    snapshotHelper,
    uiReader,
    network,
    clipboard,
    takeUiDumpFailure: () => {
      if (uiDumpFailures === 0) return false;
      uiDumpFailures--;
      return true;
    },
    now,
    uptimeMs: () => now() - bootedAt,
  };

  const argvLog: string[][] = [];
  const events = new EventEmitter();
  const lifetime = new AbortController();
  lifetime.signal.addEventListener(
    'abort',
    () => {
      helper.close();
      snapshotHelper.kill();
      processes.killAll();
    },
    { once: true },
  );
  // Every running command listens on it (a busy phone runs more than 10 at once); each
  // listener is removed when its command ends.
  setMaxListeners(0, lifetime.signal);
  let latencyMs = 0;
  let nextHang: { match: string | undefined } | undefined;
  const hangs = new Set<string>();
  let pid = 4000;
  const vars = new Map<string, string>([
    ['HOME', '/'],
    [
      'PATH',
      '/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin',
    ],
    ['SHELL', SHELL_NAME],
    ['USER', 'shell'],
    ['LOGNAME', 'shell'],
    ['HOSTNAME', info.device],
    ['TMPDIR', '/data/local/tmp'],
    ['ANDROID_DATA', '/data'],
    ['ANDROID_ROOT', '/system'],
    ['ANDROID_STORAGE', '/storage'],
    ['EXTERNAL_STORAGE', '/sdcard'],
    ['PWD', '/'],
  ]);

  const shouldHang = (line: string): boolean => {
    if (nextHang && (nextHang.match === undefined || line.includes(nextHang.match))) {
      nextHang = undefined;
      return true;
    }
    return [...hangs].some((m) => line.includes(m));
  };

  const aborted = (stdout: Buffer = Buffer.alloc(0), stderr: Buffer = Buffer.alloc(0)): ShellResult => ({
    stdout,
    stderr,
    exitCode: 130,
  });

  const exec = async (
    commandLine: string,
    execOptions: { signal: AbortSignal; mergeStderr?: boolean },
  ): Promise<ShellResult> => {
    // Unhooked when done: the phone's lifetime signal outlives every command.
    const combined = eitherAborted(execOptions.signal, lifetime.signal);
    try {
      return await runLine(commandLine, combined.signal, { mergeStderr: execOptions.mergeStderr === true });
    } finally {
      combined.release();
    }
  };

  /**
   * exec with stdin and live stdout, for the adbd services that stream (adbd-live-services.ts):
   * the same shell, argv log, latency and hang faults as exec.
   */
  const execLive = async (commandLine: string, o: LiveExecOptions): Promise<ShellResult> => {
    const combined = eitherAborted(o.signal, lifetime.signal);
    try {
      return await runLine(commandLine, combined.signal, {
        onLiveStdout: o.onStdout,
        stdin: o.stdin,
        stdinSource: o.stdinSource,
      });
    } finally {
      combined.release();
    }
  };

  /** One command line on the phone's shell; `signal` already ends with the phone. */
  const runLine = async (
    commandLine: string,
    signal: AbortSignal,
    io: Pick<ShellHooks, 'mergeStderr' | 'onLiveStdout' | 'stdin' | 'stdinSource'>,
  ): Promise<ShellResult> => {
    events.emit('exec', commandLine);
    if (!(await sleepUnlessAborted(latencyMs, signal))) return aborted();
    if (shouldHang(commandLine)) {
      await untilAborted(signal);
      return aborted();
    }
    let script;
    try {
      script = parseShell(commandLine);
    } catch (error) {
      if (!(error instanceof ShellSyntaxError)) throw error;
      return { stdout: Buffer.alloc(0), stderr: Buffer.from(`${SHELL_NAME}: ${error.message}\n`), exitCode: 2 };
    }
    const run = new ShellRun(
      {
        phone: context,
        signal,
        pid: pid++,
        onCommand: (argv) => {
          const copy = [...argv];
          argvLog.push(copy);
          events.emit('command', copy);
        },
        afterCommand: (argv) => logcat.afterCommand(argv),
        delayFor: (argv) => profile.delayFor(argv, info.width * info.height),
        detachedSignal: lifetime.signal,
        ...io,
      },
      new Map(vars),
    );
    const outcome = await run.run(script);
    return outcome.aborted
      ? aborted(outcome.stdout, outcome.stderr)
      : { stdout: outcome.stdout, stderr: outcome.stderr, exitCode: outcome.exitCode };
  };

  const fieldKey = (fieldId: string): string =>
    fieldId.slice(fieldId.indexOf(':id/') >= 0 ? fieldId.indexOf(':id/') + 4 : 0);

  return {
    serial: info.serial,
    fs,
    packages,
    argvLog,
    events,
    identity: (): PhoneIdentity => ({
      serial: info.serial,
      product: info.product,
      model: info.model,
      device: info.device,
    }),
    exec,
    execLive,
    // `am instrument -w` prints as the instrumentation runs; `logcat` without -d/-t follows the log.
    streamsOutput: (commandLine) => {
      const line = commandLine.replace(/['"]/g, '');
      return (
        /(^|[\s;&|(])am\s+instrument\b/.test(line) ||
        (/^\s*logcat\b/.test(line) && !/\s-(d|t)\b/.test(line)) ||
        // scrcpy-server logs each thing it does; the bridge reads those lines as they come.
        /\bapp_process\b.*\bcom\.genymobile\.scrcpy\.Server\b/.test(line) ||
        // The UI reader answers each request written to its stdin while it runs.
        /\bapp_process\b.*\bcom\.xagent\.bridge\.UiReader\b/.test(line)
      );
    },
    openTcp: (port) => helper.openTcp(port),
    openLocalAbstract: (name) => processes.connect(name),
    processes,
    helper,
    snapshotHelper,
    uiReader,
    network,
    clipboard,
    clearArgvLog: () => {
      argvLog.length = 0;
    },
    setLatency: (ms) => {
      latencyMs = Math.max(0, ms);
    },
    hangNextCommand: (match) => {
      nextHang = { match };
    },
    setHang: (match, on) => {
      if (on) hangs.add(match);
      else hangs.delete(match);
    },
    failNextUiDump: () => {
      uiDumpFailures++;
    },
    quirks: () => [...quirks],
    setQuirks,
    setFolded: (folded) => {
      displays.setFolded(folded);
      applyDisplays();
    },
    foregroundPackage: () => screen.window().pkg,
    showToast: (text, options = {}) => {
      screen.toasts.enqueue({ pkg: screen.window().pkg, text, ...options });
    },
    screenState: (): ScreenStateSnapshot => {
      const window = screen.window();
      const task = screen.frontTask();
      const fields: Record<string, string> = {};
      for (const [id, field] of task.fields) fields[id] = field.text;
      const focused = screen.isRecents() ? undefined : task.focused;
      return {
        package: window.pkg,
        activity: window.activity,
        screen: window.screen,
        awake: screen.awake,
        secure: window.secure,
        fields,
        focusedField: focused,
        allSelected: focused !== undefined && (task.fields.get(focused)?.allSelected ?? false),
        lastGesture: input.lastGesture,
        volume: input.volume,
        version: screen.version,
      };
    },
    typedText: (fieldId) => {
      const key = fieldKey(fieldId);
      const front = screen.frontTask();
      const tasks = [front, ...screen.allTasks().filter((t) => t !== front)];
      for (const task of tasks) {
        const field = task.fields.get(key);
        if (field) return field.text;
      }
      return undefined;
    },
    setBatteryLevel: (level) => {
      battery.level = checkInt(level, 'battery level', 0, 100);
    },
    logcat,
    faultOnNextInput: (fault) => logcat.faultOnNextInput(fault),
    renderCount: () => frames.renderCount(),
    reboot: (bootMs) => {
      checkInt(bootMs, 'bootMs', 0, 600_000);
      if (bootTimer) clearTimeout(bootTimer);
      bootedAt = now();
      screen.goHome();
      screen.setAwake(true);
      props.delete('sys.boot_completed');
      props.delete('dev.bootcomplete');
      props.set('init.svc.bootanim', 'running');
      bootTimer = setTimeout(() => {
        bootTimer = undefined;
        props.set('sys.boot_completed', '1');
        props.set('dev.bootcomplete', '1');
        props.set('init.svc.bootanim', 'stopped');
      }, bootMs);
      bootTimer.unref();
    },
    close: () => {
      if (bootTimer) clearTimeout(bootTimer);
      lifetime.abort();
    },
  };
}

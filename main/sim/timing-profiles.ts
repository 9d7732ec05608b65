/**
 * How long each command takes on the simulated phone. `instant` adds nothing; `usb-phone`
 * imitates a real phone on USB (figures and their sources: TIMING-SOURCES.md). Also owns
 * the abortable sleep every simulated delay goes through, so a closed stream never leaves
 * a timer behind.
 */

export type TimingProfileName = 'instant' | 'usb-phone';

/**
 * usb-phone figures in milliseconds. One row per command family; `perMegapixel` rows scale
 * with the screen size. See TIMING-SOURCES.md for where each number comes from.
 */
export const USB_PHONE_TIMINGS = {
  /** `input …`: app_process starts a JVM for every call. */
  input: 300,
  /** `input text`: each character is a synchronously injected key event (DOWN, UP). */
  inputTextPerChar: 10,
  /** `input keyevent --longpress`: ViewConfiguration long-press timeout. */
  longPressTimeout: 400,
  /**
   * `uiautomator dump`: JVM start (as `input`, 300) + waitForIdle on a fresh UiAutomation
   * connection (always the full 1000 ms) + the tree walk (as the resident helper's page
   * source, 900). TIMING-SOURCES.md.
   */
  uiautomatorDump: 2200,
  /** `screencap` raw: SurfaceFlinger capture only (transfer time is the transport's). */
  screencapRaw: 150,
  /** `screencap -p`: fixed part + PNG compression per megapixel on the phone's CPU. */
  screencapPngBase: 400,
  screencapPngPerMegapixel: 310,
  /** `am start` / `monkey`: binder call + activity launch; monkey adds its own JVM start. */
  amStart: 400,
  monkey: 700,
  /** `am broadcast`, `am force-stop`: binder round trips, no JVM. */
  amOther: 150,
  /** `pm list packages` walks every package; `pm path` one. */
  pmList: 400,
  pmPath: 150,
  pmInstall: 2500,
  pmOther: 600,
  getprop: 30,
  wm: 60,
  dumpsys: 80,
  settings: 120,
  ime: 150,
  /** toybox utilities and shell builtins. */
  toybox: 5,
  /** Resident helper (appium-uiautomator2-server): `am instrument` until GET /status answers. */
  helperStart: 3000,
  /** helper-slow-start: a slow or busy phone; still inside the driver's 30 s launch timeout. */
  helperSlowStart: 20000,
  /** W3C actions tap through the resident server's UiAutomation: no JVM start per call. */
  helperTap: 6,
  /** GET /source: accessibility snapshot and serialisation of a whole screen. */
  helperSource: 900,
  /** POST /keys: find the focused node, ACTION_SET_TEXT. */
  helperKeys: 30,
  /** press_keycode, settings, sessions, status: in-process, a binder call at most. */
  helperCall: 3,
  /** GET /screenshot: UiAutomation.takeScreenshot + PNG per megapixel (no process start). */
  helperScreenshotBase: 100,
  /** One MJPEG stream frame (port 7810): takeScreenshot + scale + JPEG; the stream also caps at mjpegServerFramerate. */
  helperMjpegFrame: 150,
  /** helper-killed: the system kills the idle background instrumentation after minutes. */
  helperKilledAfter: 180000,
  /** `am instrument`: the `am` script runs Am.java with app_process for `instrument` (a JVM start, as `input`). */
  amInstrument: 300,
  /** Snapshot helper: zygote forks its process, binds the instrumentation and connects UiAutomation (estimate: TIMING-SOURCES.md). */
  snapshotProcessStart: 300,
  /** minicap: one frame captured, JPEG-encoded and sent; "30-40 FPS fairly easily" on newer devices (README). */
  minicapFrame: 33,
  /** minicap's APK through app_process: a JVM start before it listens, as every app_process program. */
  minicapApkStart: 300,
  /** Native minicap: virtual display and encoder set up before it listens (not measured publicly; kept small). */
  minicapNativeStart: 20,
  /** scrcpy-server: app_process starts a JVM before it listens, as `input` does (TIMING-SOURCES.md "scrcpy-server"). */
  scrcpyStart: 300,
  /** One control message read and injected (InputManager.injectInputEvent, async): a binder call, no JVM. */
  scrcpyMessage: 1,
  /** START_APP's package lookup (PackageManager.getInstalledApplications walks every package): the barrier's cost. */
  scrcpyAppLookup: 15,
  /** UI reader (ui_reader): app_process starts a JVM before anything else, as `input` does. */
  uiReaderJvmStart: 300,
  /** UI reader: UiAutomation connect after the JVM start; an estimate, the snapshot helper's row (TIMING-SOURCES.md). */
  uiReaderConnect: 300,
  /** UI reader `tree`: waitForIdle's quiet period (the bridge's 100 ms)… */
  uiReaderIdleQuiet: 100,
  /** …and its global timeout (500 ms), all of which passes on a screen that never settles (a timeout is ignored). */
  uiReaderIdleTimeout: 500,
  /** UI reader `focus`: findFocus(FOCUS_INPUT) and a dump of one node's subtree in the resident process. */
  uiReaderFocus: 20,
} as const;

/** What the UI reader spends on each kind of work (TIMING-SOURCES.md "The UI reader"). */
export type UiReaderTiming = 'jvmStart' | 'connect' | 'idle' | 'idleTimeout' | 'walk' | 'focus';

/** Milliseconds the UI reader takes for `what` on a phone with this profile; the instant profile waits for nothing. */
export function uiReaderTimingMs(profile: TimingProfile, what: UiReaderTiming): number {
  if (!profile.realDurations) return 0;
  const t = USB_PHONE_TIMINGS;
  const usb: Record<UiReaderTiming, number> = {
    jvmStart: t.uiReaderJvmStart,
    connect: t.uiReaderConnect,
    idle: t.uiReaderIdleQuiet,
    idleTimeout: t.uiReaderIdleTimeout,
    // The resident page-source walk (mobilecli#286): the same nodes through the same API.
    walk: t.helperSource,
    focus: t.uiReaderFocus,
  };
  return usb[what];
}

/** What scrcpy-server spends on each kind of work. */
export type ScrcpyTiming = 'start' | 'message' | 'appLookup';

/** Milliseconds scrcpy-server takes for `what` on a phone with this profile; the instant profile waits for nothing. */
export function scrcpyTimingMs(profile: TimingProfile, what: ScrcpyTiming): number {
  if (!profile.realDurations) return 0;
  const t = USB_PHONE_TIMINGS;
  return what === 'start' ? t.scrcpyStart : what === 'message' ? t.scrcpyMessage : t.scrcpyAppLookup;
}

/** What minicap spends on each kind of work (TIMING-SOURCES.md "minicap"). */
export type MinicapTiming = 'frame' | 'apkStart' | 'nativeStart';

/** Milliseconds minicap takes for `what` on a phone with this profile; the instant profile waits for nothing. */
export function minicapTimingMs(profile: TimingProfile, what: MinicapTiming): number {
  if (!profile.realDurations) return 0;
  const t = USB_PHONE_TIMINGS;
  return what === 'frame' ? t.minicapFrame : what === 'apkStart' ? t.minicapApkStart : t.minicapNativeStart;
}

/**
 * What agent-device's snapshot helper spends on one read, besides `am`'s own start: its process
 * start and the walk over the window (as the resident helper's page source). Its idle wait is
 * the `waitForIdleQuietMs` it was given (a fresh connection waits the whole quiet period).
 */
export function snapshotTimingMs(profile: TimingProfile, what: 'processStart' | 'walk'): number {
  if (!profile.realDurations) return 0;
  return what === 'processStart' ? USB_PHONE_TIMINGS.snapshotProcessStart : USB_PHONE_TIMINGS.helperSource;
}

/** What the resident helper spends on each kind of work (see TIMING-SOURCES.md). */
export type HelperTiming =
  'start' | 'slowStart' | 'tap' | 'source' | 'keys' | 'call' | 'screenshotBase' | 'mjpegFrame' | 'killedAfter';

const INSTANT_HELPER: Record<HelperTiming, number> = {
  start: 0,
  // Long enough that a test sees "starting" (connections refused), short enough for CI.
  slowStart: 300,
  tap: 0,
  source: 0,
  keys: 0,
  call: 0,
  screenshotBase: 0,
  // The stream's framerate cap still paces it (the server's own behaviour).
  mjpegFrame: 0,
  killedAfter: 50,
};

/** Milliseconds the helper takes for `what` on a phone with this profile. */
export function helperTimingMs(profile: TimingProfile, what: HelperTiming): number {
  if (!profile.realDurations) return INSTANT_HELPER[what];
  const t = USB_PHONE_TIMINGS;
  const usb: Record<HelperTiming, number> = {
    start: t.helperStart,
    slowStart: t.helperSlowStart,
    tap: t.helperTap,
    source: t.helperSource,
    keys: t.helperKeys,
    call: t.helperCall,
    screenshotBase: t.helperScreenshotBase,
    mjpegFrame: t.helperMjpegFrame,
    killedAfter: t.helperKilledAfter,
  };
  return usb[what];
}

/** Delay before a command takes effect. */
export interface TimingProfile {
  readonly name: TimingProfileName;
  /** Milliseconds spent before `argv` takes effect on a screen of `pixels` pixels. */
  delayFor(argv: readonly string[], pixels: number): number;
  /** Whether gestures take as long as their duration argument (swipe ms, screenrecord limit). */
  readonly realDurations: boolean;
}

const INSTANT: TimingProfile = { name: 'instant', delayFor: () => 0, realDurations: false };

const USB_PHONE: TimingProfile = {
  name: 'usb-phone',
  realDurations: true,
  delayFor(argv, pixels) {
    const t = USB_PHONE_TIMINGS;
    const [name = '', sub = ''] = argv;
    switch (name) {
      case 'input':
        return t.input + inputGestureMs(argv);
      case 'uiautomator':
        return sub === 'dump' ? t.uiautomatorDump : t.input;
      case 'screencap':
        return argv.includes('-p') || /\.png$/i.test(argv[argv.length - 1] ?? '')
          ? Math.round(t.screencapPngBase + (t.screencapPngPerMegapixel * pixels) / 1e6)
          : t.screencapRaw;
      case 'am':
        if (sub === 'instrument') return t.amInstrument;
        return sub === 'start' || sub === 'start-activity' ? t.amStart : t.amOther;
      case 'monkey':
        return t.monkey;
      case 'pm':
        if (sub === 'list') return t.pmList;
        if (sub === 'path') return t.pmPath;
        if (sub === 'install') return t.pmInstall;
        return t.pmOther;
      case 'getprop':
        return t.getprop;
      case 'wm':
        return t.wm;
      case 'dumpsys':
        return t.dumpsys;
      case 'settings':
        return t.settings;
      case 'ime':
        return t.ime;
      default:
        return t.toybox;
    }
  },
};

/** Extra time an `input` gesture takes on a real phone: it injects moves for its duration. */
function inputGestureMs(argv: readonly string[]): number {
  const args = argv.slice(1).filter((a) => !['touchscreen', 'keyboard', 'mouse', 'dpad', 'stylus'].includes(a));
  const verb = args[0];
  if (verb === 'swipe' || verb === 'draganddrop') {
    const duration = Number(args[5] ?? 300);
    const base = Number.isFinite(duration) && duration >= 0 ? duration : 300;
    return verb === 'draganddrop' ? base + USB_PHONE_TIMINGS.longPressTimeout : base;
  }
  if (verb === 'keyevent' && args.includes('--longpress')) return USB_PHONE_TIMINGS.longPressTimeout;
  if (verb === 'text') return [...(args[1] ?? '')].length * USB_PHONE_TIMINGS.inputTextPerChar;
  return 0;
}

export function timingProfile(name: TimingProfileName): TimingProfile {
  return name === 'usb-phone' ? USB_PHONE : INSTANT;
}

/**
 * Waits `ms` unless `signal` aborts first; resolves true when the time passed, false when
 * aborted. The timer and the listener are released either way.
 */
export function sleepUnlessAborted(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Resolves when `signal` aborts (for commands that hang). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * A signal that aborts when either does; `release()` unhooks it once its work is done. Not
 * AbortSignal.any: on Node 20 every combined signal stays referenced from a long-lived source
 * signal (a phone's or a helper's lifetime), ~60 B each for that whole life (seen in the
 * hardening load test).
 */
export function eitherAborted(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  if (a.aborted || b.aborted) controller.abort();
  else {
    a.addEventListener('abort', abort, { once: true });
    b.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    release: () => {
      a.removeEventListener('abort', abort);
      b.removeEventListener('abort', abort);
    },
  };
}

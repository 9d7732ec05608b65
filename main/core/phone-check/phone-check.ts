/**
 * The phone check (README "Phone check"): per phone, whether it can be used and, for each
 * thing that stops it, what the person does about it. It only observes: a few read-only
 * shell commands run as observation work on the phone's queue (never ahead of control calls,
 * never input injected to test), each under a deadline; the latest result per phone is kept
 * for the admin state. It runs when a phone becomes ready (in the background) and on demand.
 */
import type { AdminPhoneCheck, AdminPhoneCheckItem, PhoneCheckId } from '../../contract/admin-api';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import { reasonForAdbState, UNAUTHORIZED_FIX, USB_PERMISSION_FIX } from '../devices/adb-state-reason';
import { parseDfAvailableKib, parseKeyguard, parseWakefulness } from '../android/screen-state';
import { parseWmSize } from '../android/device-info';
import { isMultiDisplay, parseDumpsysDisplay, pickDisplay, type DisplayTarget } from '../android/displays';
import { dumpUiXml } from '../android/ui-tree';
import { ADB_KEYBOARD_IME } from '../android/text-input';
import { isBridgeError } from '../errors';
import { parseSystemDialog } from '../android/system-dialogs';

/** Android versions the bridge is tested against (API 26–35). */
export const SUPPORTED_SDK = { min: 26, max: 35 } as const;
/** Below this, installs and screenshots start to fail. */
export const LOW_STORAGE_KIB = 500 * 1024;

export const SCREEN_OFF_FIX = 'Wake the screen: press the power button, or let the agent press the wakeup key (android_press_key wakeup)';
export const LOCKED_FIX = 'Unlock the phone; the bridge never types a PIN, pattern or password';
export const ADB_KEYBOARD_FIX =
  'Install ADB Keyboard (https://github.com/senzhk/ADBKeyBoard) and enable it (adb shell ime enable com.android.adbkeyboard/.AdbIME) to type text beyond plain ASCII';

/** What the check needs; createCore passes the pieces in. */
export interface PhoneCheckDeps {
  registry: {
    get(deviceId: string): DeviceRecord | undefined;
    on(event: 'changed', listener: (device: DeviceRecord) => void): unknown;
    off(event: 'changed', listener: (device: DeviceRecord) => void): unknown;
  };
  shellFor(device: DeviceRecord): DeviceShell;
  /** Runs `run` as observation work on the phone's queue. */
  observe<T>(deviceId: string, run: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** The last time a control call on this phone was refused for input (input_blocked), if any. */
  inputRefusal?(deviceId: string): { at: number; message: string } | null;
  /** Told what `dumpsys display` said (the display calls act on), or null when it did not say. */
  onDisplays?(deviceId: string, target: DisplayTarget | null): void;
  /** Told after every finished check (the admin state changed). */
  onResult?(check: AdminPhoneCheck): void;
  clock?: () => number;
  /** Per command; the whole check is bounded by the sum. */
  commandTimeoutMs?: number;
}

type Item = AdminPhoneCheckItem;
const item = (id: PhoneCheckId, status: Item['status'], detail: string, fix: string | null = null): Item => ({ id, status, detail, fix });

export class PhoneCheck {
  private readonly results = new Map<string, AdminPhoneCheck>();
  private readonly running = new Map<string, Promise<AdminPhoneCheck>>();
  /** The verification each phone was last checked for (run once per return to `device`). */
  private readonly checkedFor = new Map<string, number | string>();
  private readonly onChanged = (device: DeviceRecord): void => this.onDeviceChanged(device);
  private stopped = false;

  constructor(private readonly deps: PhoneCheckDeps) {}

  start(): void {
    this.stopped = false;
    this.deps.registry.on('changed', this.onChanged);
  }

  stop(): void {
    this.stopped = true;
    this.deps.registry.off('changed', this.onChanged);
  }

  /** The latest result for a phone, marked `running` while a newer one is under way. */
  latest(deviceId: string): AdminPhoneCheck | null {
    const last = this.results.get(deviceId);
    if (!last) return null;
    return { ...last, running: this.running.has(deviceId) };
  }

  /** Runs the check now (joins one already running) and keeps its result. */
  run(deviceId: string): Promise<AdminPhoneCheck> {
    const inFlight = this.running.get(deviceId);
    if (inFlight) return inFlight;
    const job = this.check(deviceId).finally(() => this.running.delete(deviceId));
    this.running.set(deviceId, job);
    return job;
  }

  private onDeviceChanged(device: DeviceRecord): void {
    if (this.stopped || device.state === 'gone') return;
    // A phone adb cannot use is checked without touching it; a ready one once facts are read.
    const key = device.state === 'device' ? device.verifiedAt : `${device.state}:${device.rawState}`;
    if (key === null || this.checkedFor.get(device.deviceId) === key) return;
    this.checkedFor.set(device.deviceId, key);
    this.run(device.deviceId).catch(() => undefined);
  }

  private async check(deviceId: string): Promise<AdminPhoneCheck> {
    const device = this.deps.registry.get(deviceId);
    if (!device) throw new Error(`no phone ${deviceId}`);
    const clock = this.deps.clock ?? Date.now;
    const checks = device.state === 'device' ? await this.checkOnline(device) : checkUnreachable(device);
    const result: AdminPhoneCheck = { device_id: deviceId, checked_at: clock(), running: false, checks };
    this.results.set(deviceId, result);
    this.deps.onResult?.(result);
    return result;
  }

  private async checkOnline(device: DeviceRecord): Promise<Item[]> {
    const shell = this.deps.shellFor(device);
    const timeoutMs = this.deps.commandTimeoutMs ?? 10_000;
    const text = (argv: string[]): Promise<string | null> =>
      this.deps
        .observe(device.deviceId, (signal) => shell.run(argv, { timeoutMs, signal }))
        .then((out) => out.stdout.toString('utf8'))
        .catch(() => null);

    const power = await text(['dumpsys', 'power']);
    const window = await text(['dumpsys', 'window']);
    const size = await text(['wm', 'size']);
    const displaysText = await text(['dumpsys', 'display']);
    const displays = displaysText === null ? null : pickDisplay(parseDumpsysDisplay(displaysText));
    if (displaysText !== null) this.deps.onDisplays?.(device.deviceId, displays);
    const imes = await text(['ime', 'list', '-s']);
    const df = await text(['df', '/data']);
    const ui = await this.deps
      .observe(device.deviceId, (signal) => dumpUiXml(shell, { timeoutMs: timeoutMs * 2, signal }))
      .then(() => null)
      .catch((error: unknown) => error);

    return [
      item('authorized', 'ok', 'adb lists the phone as ready'),
      item('usb_permission', 'ok', device.transport === 'usb' ? 'adb can open the phone over USB' : 'connected over the network (no USB permission needed)'),
      screenAwake(power),
      unlocked(window),
      this.inputAccepted(device.deviceId),
      uiTreeReadable(ui),
      display(size, displays),
      unicodeTyping(imes),
      freeStorage(df),
      androidVersion(device),
      shellProtocol(shell.shellProtocol?.() ?? null),
      systemDialog(window),
    ];
  }

  private inputAccepted(deviceId: string): Item {
    const refusal = this.deps.inputRefusal?.(deviceId) ?? null;
    if (refusal) return item('input_accepted', 'problem', `a tap or key was refused: ${refusal.message.slice(0, 160)}`, 'Turn on "USB debugging (Security settings)" in Developer options (Xiaomi, Redmi, POCO), then check again');
    return item('input_accepted', 'unknown', 'no control call has been refused; the check never injects input to find out');
  }
}

function checkUnreachable(device: DeviceRecord): Item[] {
  const why = reasonForAdbState(device.rawState);
  const rest = (['screen_awake', 'unlocked', 'input_accepted', 'ui_tree_readable', 'display', 'unicode_typing', 'free_storage'] as const).map((id) =>
    item(id, 'unknown', 'not checked: adb cannot reach the phone'),
  );
  return [
    why?.code === 'device_unauthorized' ? item('authorized', 'problem', 'adb lists the phone as unauthorized', UNAUTHORIZED_FIX) : item('authorized', 'unknown', `adb lists the phone as ${device.rawState.slice(0, 80)}`),
    why?.code === 'usb_permission'
      ? item('usb_permission', 'problem', `adb lists the phone as "${device.rawState.slice(0, 160)}"`, USB_PERMISSION_FIX)
      : item('usb_permission', device.transport === 'usb' ? 'unknown' : 'ok', device.transport === 'usb' ? 'adb has not said' : 'connected over the network (no USB permission needed)'),
    ...rest,
    androidVersion(device),
    item('shell_protocol', 'unknown', 'not checked: adb cannot reach the phone'),
    item('system_dialog', 'unknown', 'not checked: adb cannot reach the phone'),
  ];
}

/** The dump's failure (null: it worked); a phone problem (android/phone-fixes.ts) brings its own fix. */
function uiTreeReadable(failure: unknown): Item {
  if (failure === null) return item('ui_tree_readable', 'ok', 'uiautomator dumped the screen');
  // The phone or the ADB server went away during the check: that says nothing about the screen.
  if (isBridgeError(failure) && ['adb_unavailable', 'device_offline', 'device_unauthorized', 'canceled'].includes(failure.code)) {
    return item('ui_tree_readable', 'unknown', 'the phone went away during the check');
  }
  const fix = isBridgeError(failure) && typeof failure.details?.fix === 'string' ? failure.details.fix : 'close animations or videos on the screen and check again; if it persists, restart the phone';
  const message = failure instanceof Error ? failure.message.split('. Fix:')[0] ?? failure.message : 'the dump failed';
  return item('ui_tree_readable', 'problem', `uiautomator could not dump the screen: ${message.slice(0, 160)}`, fix);
}

/** How the phone's adbd runs commands; both work (README "Phone check"). */
function shellProtocol(protocol: 'v2' | 'legacy' | null): Item {
  if (protocol === null) return item('shell_protocol', 'unknown', 'no command has run yet');
  if (protocol === 'v2') return item('shell_protocol', 'ok', 'adb shell protocol v2: exit status and errors come back with each command');
  return item('shell_protocol', 'ok', 'this phone’s adbd has no shell protocol v2 (Android before 7, or a vendor adbd): the bridge reads each command’s exit status from a marker it appends; everything works, each command prints a few bytes more');
}

/** A permission prompt or "App isn't responding" over the app (QUIRKS.md): the person answers it. */
function systemDialog(window: string | null): Item {
  if (window === null) return item('system_dialog', 'unknown', 'dumpsys window did not answer');
  const dialog = parseSystemDialog(window);
  if (dialog === null) return item('system_dialog', 'ok', 'no system dialog over the app');
  const fix =
    dialog.kind === 'permission_prompt'
      ? 'Answer the permission prompt on the phone (While using the app, Only this time or Don’t allow), or let the agent answer it with your approval'
      : 'On the phone, tap Close app or Wait; if the app keeps not responding, close it and start it again';
  return item('system_dialog', 'problem', `a system dialog is over the app: ${dialog.description}`, fix);
}

function screenAwake(power: string | null): Item {
  const wake = power === null ? null : parseWakefulness(power);
  if (wake === null) return item('screen_awake', 'unknown', 'dumpsys power did not say');
  if (wake === 'Awake') return item('screen_awake', 'ok', 'the screen is on (mWakefulness=Awake)');
  return item('screen_awake', 'problem', `the screen is off (mWakefulness=${wake})`, SCREEN_OFF_FIX);
}

function unlocked(window: string | null): Item {
  const keyguard = window === null ? null : parseKeyguard(window);
  if (keyguard === null) return item('unlocked', 'unknown', 'dumpsys window did not say');
  if (!keyguard.showing) return item('unlocked', 'ok', 'no lock screen');
  const kind = keyguard.secure === true ? 'a lock screen that asks for a PIN, pattern or password' : keyguard.secure === false ? 'a lock screen without a secret (swipe)' : 'a lock screen';
  return item('unlocked', 'problem', `the phone shows ${kind}`, LOCKED_FIX);
}

function display(size: string | null, displays: DisplayTarget | null): Item {
  if (displays && isMultiDisplay(displays)) {
    // A foldable's two panels, or a second (cast) display: which one the bridge acts on.
    const d = displays.display;
    const count = Math.max(displays.logicalCount, displays.physicalCount);
    const panel = d.physicalId ? `, panel ${d.physicalId}` : '';
    return item('display', 'ok', `display ${d.id} "${d.name}" (${d.width}×${d.height}${panel}) is in use, of ${count} displays; screenshots and taps go to it`);
  }
  const parsed = size === null ? null : parseWmSize(size);
  if (parsed === null) return item('display', 'unknown', 'wm size did not say');
  return item('display', 'ok', `display 0 (default), ${parsed.width}×${parsed.height}${displays ? ', the only display' : ''}`);
}

function unicodeTyping(imes: string | null): Item {
  if (imes === null) return item('unicode_typing', 'unknown', 'ime list did not answer');
  if (imes.split('\n').some((l) => l.trim() === ADB_KEYBOARD_IME)) return item('unicode_typing', 'ok', 'ADB Keyboard is enabled: any text can be typed');
  return item('unicode_typing', 'problem', 'ADB Keyboard is not enabled: only plain ASCII text can be typed', ADB_KEYBOARD_FIX);
}

function freeStorage(df: string | null): Item {
  const kib = df === null ? null : parseDfAvailableKib(df);
  if (kib === null) return item('free_storage', 'unknown', 'df /data did not say');
  const text = kib >= 1024 * 1024 ? `${(kib / 1024 / 1024).toFixed(1)} GiB` : `${Math.round(kib / 1024)} MiB`;
  if (kib < LOW_STORAGE_KIB) return item('free_storage', 'problem', `${text} free on /data`, 'Free space on the phone (delete apps, photos or downloads): installs and screenshots need room');
  return item('free_storage', 'ok', `${text} free on /data`);
}

function androidVersion(device: DeviceRecord): Item {
  if (device.sdk === null) return item('android_version', 'unknown', 'not read yet');
  const name = `Android ${device.androidVersion ?? '?'} (API ${device.sdk})`;
  if (device.sdk < SUPPORTED_SDK.min) return item('android_version', 'problem', `${name} is older than Android 8`, 'Use a phone with Android 8 or newer');
  if (device.sdk > SUPPORTED_SDK.max) return item('android_version', 'unknown', `${name} is newer than the bridge was tested with (up to Android 15)`);
  return item('android_version', 'ok', `${name} is supported`);
}

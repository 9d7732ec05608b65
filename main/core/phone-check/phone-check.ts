/**
 * The phone check (docs/REFERENCE.md "Phone check"): per phone, whether it can be used and, for each
 * thing that stops it, what the person does about it. It only observes: a few read-only
 * shell commands run as observation work on the phone's queue (never ahead of control calls,
 * never input injected to test), each under a deadline; the latest result per phone is kept
 * for the admin state. It runs when a phone becomes ready (in the background) and on demand.
 */
import type { AdminPhoneCheck, AdminPhoneCheckItem, PhoneCheckId } from '../../contract/admin-api';
import type { DeviceRecord } from '../devices/device-registry';
import type { DeviceShell } from '../devices/device-shell';
import { reasonForAdbState } from '../devices/adb-state-reason';
import { parseDfAvailableKib, parseKeyguard, parseWakefulness } from '../android/screen-state';
import { parseBattery, parseWmSize } from '../android/device-info';
import { isMultiDisplay, parseDumpsysDisplay, pickDisplay, type DisplayTarget } from '../android/displays';
import { dumpUiXml } from '../android/ui-tree';
import { ADB_KEYBOARD_IME } from '../android/text-input';
import { isBridgeError } from '../errors';
import { parseSystemDialog } from '../android/system-dialogs';
import { translate, type MessageKey, type MessageParams } from '../../contract/i18n';

/** Android versions the bridge is tested against (API 26–35). */
export const SUPPORTED_SDK = { min: 26, max: 35 } as const;
/** Below this, installs and screenshots start to fail. */
export const LOW_STORAGE_KIB = 500 * 1024;

// The fixes in English (errors and notes to the agent); the UI shows them in its language.
export const SCREEN_OFF_FIX = translate('en', 'phone-check.fix.screenOff');
export const LOCKED_FIX = translate('en', 'phone-check.fix.locked');
export const ADB_KEYBOARD_FIX = translate('en', 'phone-check.fix.adbKeyboard');

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
  /** Whether the fast lane's helper is installed and allowed on this phone (it types any text, no ADB Keyboard needed). */
  helperTypes?(deviceId: string): boolean;
  /** Before the check's stock dump, which needs the phone's one UiAutomation connection (the UI reader lets go). */
  beforeDump?(deviceId: string): Promise<void>;
  /** Told what `dumpsys display` said (the display calls act on), or null when it did not say. */
  onDisplays?(deviceId: string, target: DisplayTarget | null): void;
  /** Told after every finished check (the admin state changed). */
  onResult?(check: AdminPhoneCheck): void;
  clock?: () => number;
  /** Per command; the whole check is bounded by the sum. */
  commandTimeoutMs?: number;
}

type Item = AdminPhoneCheckItem;

/** Words from the catalogue (area phone-check): English here, the UI's language on screen. */
interface Words {
  key: MessageKey;
  params: Record<string, string | number>;
}
const w = (key: MessageKey, params: MessageParams = {}): Words => ({ key, params: { ...params } });

const item = (id: PhoneCheckId, status: Item['status'], detail: Words, fix: Words | string | null = null): Item => ({
  id,
  status,
  detail: translate('en', detail.key, detail.params),
  fix: fix === null || typeof fix === 'string' ? fix : translate('en', fix.key, fix.params),
  detail_key: detail.key,
  ...(Object.keys(detail.params).length > 0 ? { detail_params: detail.params } : {}),
  ...(fix !== null && typeof fix !== 'string' ? { fix_key: fix.key } : {}),
});

export class PhoneCheck {
  private readonly results = new Map<string, AdminPhoneCheck>();
  /** What `ime list -s` said at each phone's last check (the Unicode row is worked out again when the helper changes). */
  private readonly imes = new Map<string, string | null>();
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

  /**
   * The fast lane's helper was allowed, installed, turned off or removed: the Unicode row follows
   * without a new check (which would stop a running helper for its dump).
   */
  helperChanged(): void {
    for (const [deviceId, result] of this.results) {
      if (!this.imes.has(deviceId)) continue;
      const row = unicodeTyping(this.imes.get(deviceId) ?? null, this.deps.helperTypes?.(deviceId) === true);
      const at = result.checks.findIndex((c) => c.id === 'unicode_typing');
      if (at < 0 || JSON.stringify(result.checks[at]) === JSON.stringify(row)) continue;
      const next = { ...result, checks: result.checks.map((c, i) => (i === at ? row : c)) };
      this.results.set(deviceId, next);
      this.deps.onResult?.(next);
    }
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
    this.imes.set(device.deviceId, imes);
    const df = await text(['df', '/data']);
    const battery = await text(['dumpsys', 'battery']);
    await this.deps.beforeDump?.(device.deviceId).catch(() => undefined);
    const ui = await this.deps
      .observe(device.deviceId, (signal) => dumpUiXml(shell, { timeoutMs: timeoutMs * 2, signal }))
      .then(() => null)
      .catch((error: unknown) => error);

    return [
      item('authorized', 'ok', w('phone-check.detail.authorizedReady')),
      item(
        'usb_permission',
        'ok',
        w(device.transport === 'usb' ? 'phone-check.detail.usbOk' : 'phone-check.detail.overNetwork'),
      ),
      screenAwake(power),
      unlocked(window),
      this.inputAccepted(device.deviceId),
      uiTreeReadable(ui),
      display(size, displays),
      unicodeTyping(imes, this.deps.helperTypes?.(device.deviceId) === true),
      freeStorage(df),
      androidVersion(device),
      shellProtocol(shell.shellProtocol?.() ?? null),
      systemDialog(window),
      batteryRow(battery),
    ];
  }

  private inputAccepted(deviceId: string): Item {
    const refusal = this.deps.inputRefusal?.(deviceId) ?? null;
    if (refusal)
      return item(
        'input_accepted',
        'problem',
        w('phone-check.detail.inputRefused', { message: refusal.message.slice(0, 160) }),
        w('phone-check.fix.inputBlocked'),
      );
    return item('input_accepted', 'unknown', w('phone-check.detail.inputNone'));
  }
}

function checkUnreachable(device: DeviceRecord): Item[] {
  const why = reasonForAdbState(device.rawState);
  const rest = (
    [
      'screen_awake',
      'unlocked',
      'input_accepted',
      'ui_tree_readable',
      'display',
      'unicode_typing',
      'free_storage',
    ] as const
  ).map((id) => item(id, 'unknown', w('phone-check.detail.unreachable')));
  return [
    why?.code === 'device_unauthorized'
      ? item('authorized', 'problem', w('phone-check.detail.adbUnauthorized'), w('phone-check.fix.unauthorized'))
      : item('authorized', 'unknown', w('phone-check.detail.adbState', { state: device.rawState.slice(0, 80) })),
    why?.code === 'usb_permission'
      ? item(
          'usb_permission',
          'problem',
          w('phone-check.detail.adbStateQuoted', { state: device.rawState.slice(0, 160) }),
          w('phone-check.fix.usbPermission'),
        )
      : item(
          'usb_permission',
          device.transport === 'usb' ? 'unknown' : 'ok',
          w(device.transport === 'usb' ? 'phone-check.detail.adbNotSaid' : 'phone-check.detail.overNetwork'),
        ),
    ...rest,
    androidVersion(device),
    item('shell_protocol', 'unknown', w('phone-check.detail.unreachable')),
    item('system_dialog', 'unknown', w('phone-check.detail.unreachable')),
    item('battery', 'unknown', w('phone-check.detail.unreachable')),
  ];
}

/** The dump's failure (null: it worked); a phone problem (android/phone-fixes.ts) brings its own fix. */
function uiTreeReadable(failure: unknown): Item {
  if (failure === null) return item('ui_tree_readable', 'ok', w('phone-check.detail.dumpOk'));
  // The phone or the ADB server went away during the check: that says nothing about the screen.
  if (
    isBridgeError(failure) &&
    ['adb_unavailable', 'device_offline', 'device_unauthorized', 'canceled'].includes(failure.code)
  ) {
    return item('ui_tree_readable', 'unknown', w('phone-check.detail.wentAway'));
  }
  // No answer in time, or a failure that is not the phone saying it cannot read its screen
  // (screen_unreadable): the check cannot tell, so it marks nothing (bindings/tool-marks.ts).
  if (!isBridgeError(failure) || failure.code !== 'screen_unreadable') {
    const said = failure instanceof Error ? failure.message : 'the dump failed';
    return item('ui_tree_readable', 'unknown', w('phone-check.detail.dumpFailed', { message: said.slice(0, 160) }));
  }
  const fix =
    isBridgeError(failure) && typeof failure.details?.fix === 'string'
      ? failure.details.fix
      : w('phone-check.fix.dumpDefault');
  const message =
    failure instanceof Error ? (failure.message.split('. Fix:')[0] ?? failure.message) : 'the dump failed';
  return item(
    'ui_tree_readable',
    'problem',
    w('phone-check.detail.dumpFailed', { message: message.slice(0, 160) }),
    fix,
  );
}

/** How the phone's adbd runs commands; both work (docs/REFERENCE.md "Phone check"). */
function shellProtocol(protocol: 'v2' | 'legacy' | null): Item {
  if (protocol === null) return item('shell_protocol', 'unknown', w('phone-check.detail.shellNone'));
  if (protocol === 'v2') return item('shell_protocol', 'ok', w('phone-check.detail.shellV2'));
  return item('shell_protocol', 'ok', w('phone-check.detail.shellLegacy'));
}

/** A permission prompt or "App isn't responding" over the app (QUIRKS.md): the person answers it. */
function systemDialog(window: string | null): Item {
  if (window === null) return item('system_dialog', 'unknown', w('phone-check.detail.windowNoAnswer'));
  const dialog = parseSystemDialog(window);
  if (dialog === null) return item('system_dialog', 'ok', w('phone-check.detail.noDialog'));
  const fix = w(dialog.kind === 'permission_prompt' ? 'phone-check.fix.permissionPrompt' : 'phone-check.fix.anr');
  return item('system_dialog', 'problem', w('phone-check.detail.dialog', { description: dialog.description }), fix);
}

/**
 * Android's low-battery warning level (config_lowBatteryWarningLevel, 15 % in AOSP): below it,
 * SystemUI posts its warning over the top of the screen, which `uiautomator dump` does not see
 * (it reads the app's window only) but a tap there hits; and an empty phone ends the task.
 */
const LOW_BATTERY_PERCENT = 15;

/** The battery's level and whether it charges (QUIRKS.md "low-battery"). */
function batteryRow(output: string | null): Item {
  const battery = output === null ? null : parseBattery(output);
  if (battery === null || battery.level === null)
    return item('battery', 'unknown', w('phone-check.detail.batteryNotSaid'));
  const level = battery.level;
  if (battery.status === 'full') return item('battery', 'ok', w('phone-check.detail.batteryFull', { level }));
  if (battery.charging === true) return item('battery', 'ok', w('phone-check.detail.batteryCharging', { level }));
  if (level <= LOW_BATTERY_PERCENT)
    return item('battery', 'problem', w('phone-check.detail.batteryLow', { level }), w('phone-check.fix.batteryLow'));
  return item('battery', 'ok', w('phone-check.detail.batteryDischarging', { level }));
}

function screenAwake(power: string | null): Item {
  const wake = power === null ? null : parseWakefulness(power);
  if (wake === null) return item('screen_awake', 'unknown', w('phone-check.detail.powerNotSaid'));
  if (wake === 'Awake') return item('screen_awake', 'ok', w('phone-check.detail.screenOn'));
  return item('screen_awake', 'problem', w('phone-check.detail.screenOff', { wake }), w('phone-check.fix.screenOff'));
}

function unlocked(window: string | null): Item {
  const keyguard = window === null ? null : parseKeyguard(window);
  if (keyguard === null) return item('unlocked', 'unknown', w('phone-check.detail.windowNotSaid'));
  if (!keyguard.showing) return item('unlocked', 'ok', w('phone-check.detail.noLock'));
  const kind =
    keyguard.secure === true
      ? 'phone-check.detail.lockSecure'
      : keyguard.secure === false
        ? 'phone-check.detail.lockSwipe'
        : 'phone-check.detail.lockAny';
  return item('unlocked', 'problem', w(kind), w('phone-check.fix.locked'));
}

function display(size: string | null, displays: DisplayTarget | null): Item {
  if (displays && isMultiDisplay(displays)) {
    // A foldable's two panels, or a second (cast) display: which one the bridge acts on.
    const d = displays.display;
    const count = Math.max(displays.logicalCount, displays.physicalCount);
    const shown = { id: d.id, name: d.name, width: d.width, height: d.height, count };
    return item(
      'display',
      'ok',
      d.physicalId
        ? w('phone-check.detail.displayMultiPanel', { ...shown, panel: d.physicalId })
        : w('phone-check.detail.displayMulti', shown),
    );
  }
  const parsed = size === null ? null : parseWmSize(size);
  if (parsed === null) return item('display', 'unknown', w('phone-check.detail.sizeNotSaid'));
  return item(
    'display',
    'ok',
    w(displays ? 'phone-check.detail.displayOnly' : 'phone-check.detail.displayDefault', {
      width: parsed.width,
      height: parsed.height,
    }),
  );
}

function unicodeTyping(imes: string | null, helperTypes: boolean): Item {
  if (imes !== null && imes.split('\n').some((l) => l.trim() === ADB_KEYBOARD_IME))
    return item('unicode_typing', 'ok', w('phone-check.detail.adbKeyboardOn'));
  // The fast lane's helper sets a field's text directly, in any script (docs/REFERENCE.md "Fast lane").
  if (helperTypes) return item('unicode_typing', 'ok', w('phone-check.detail.helperTypes'));
  if (imes === null) return item('unicode_typing', 'unknown', w('phone-check.detail.imeNoAnswer'));
  return item('unicode_typing', 'problem', w('phone-check.detail.adbKeyboardOff'), w('phone-check.fix.adbKeyboard'));
}

function freeStorage(df: string | null): Item {
  const kib = df === null ? null : parseDfAvailableKib(df);
  if (kib === null) return item('free_storage', 'unknown', w('phone-check.detail.dfNotSaid'));
  const text = kib >= 1024 * 1024 ? `${(kib / 1024 / 1024).toFixed(1)} GiB` : `${Math.round(kib / 1024)} MiB`;
  if (kib < LOW_STORAGE_KIB)
    return item(
      'free_storage',
      'problem',
      w('phone-check.detail.freeSpace', { size: text }),
      w('phone-check.fix.freeSpace'),
    );
  return item('free_storage', 'ok', w('phone-check.detail.freeSpace', { size: text }));
}

function androidVersion(device: DeviceRecord): Item {
  if (device.sdk === null) return item('android_version', 'unknown', w('phone-check.detail.notRead'));
  const name = `Android ${device.androidVersion ?? '?'} (API ${device.sdk})`;
  if (device.sdk < SUPPORTED_SDK.min)
    return item(
      'android_version',
      'problem',
      w('phone-check.detail.androidOld', { name }),
      w('phone-check.fix.androidOld'),
    );
  if (device.sdk > SUPPORTED_SDK.max)
    return item('android_version', 'unknown', w('phone-check.detail.androidNew', { name }));
  return item('android_version', 'ok', w('phone-check.detail.androidOk', { name }));
}

/**
 * Settings.System/Secure/Global as `settings` sees them, and the input-method state kept
 * in them (enabled_input_methods, default_input_method) that `ime` reads and changes.
 * ADB Keyboard, when installed, starts enabled and selected, as on a phone set up for it.
 */
import { ADB_KEYBOARD_PKG } from './phone-packages';

export type SettingsNamespace = 'system' | 'secure' | 'global';

export const LATIN_IME_ID = 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME';
export const ADB_IME_ID = 'com.android.adbkeyboard/.AdbIME';

export class PhoneSettings {
  private readonly tables: Record<SettingsNamespace, Map<string, string>> = {
    system: new Map([
      ['screen_brightness', '128'],
      ['screen_off_timeout', '60000'],
      ['accelerometer_rotation', '0'],
      ['font_scale', '1.0'],
    ]),
    secure: new Map([
      ['android_id', '8f2c1d0b7a6e5f43'],
      ['enabled_input_methods', LATIN_IME_ID],
      ['default_input_method', LATIN_IME_ID],
      ['location_mode', '3'],
    ]),
    global: new Map([
      ['adb_enabled', '1'],
      ['airplane_mode_on', '0'],
      ['development_settings_enabled', '1'],
      ['stay_on_while_plugged_in', '0'],
      ['window_animation_scale', '1.0'],
      ['transition_animation_scale', '1.0'],
      ['animator_duration_scale', '1.0'],
      ['device_name', 'Pixel 7'],
    ]),
  };

  constructor(
    private readonly hasPackage: (name: string) => boolean,
    options: { withAdbKeyboard: boolean; model: string },
  ) {
    this.tables.global.set('device_name', options.model);
    if (options.withAdbKeyboard) {
      this.tables.secure.set('enabled_input_methods', `${LATIN_IME_ID}:${ADB_IME_ID}`);
      this.tables.secure.set('default_input_method', ADB_IME_ID);
    }
  }

  get(ns: SettingsNamespace, key: string): string | undefined {
    return this.tables[ns].get(key);
  }

  put(ns: SettingsNamespace, key: string, value: string): void {
    this.tables[ns].set(key, value);
  }

  delete(ns: SettingsNamespace, key: string): boolean {
    return this.tables[ns].delete(key);
  }

  list(ns: SettingsNamespace): Array<[string, string]> {
    return [...this.tables[ns].entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** Input methods whose package is installed. */
  availableImes(): string[] {
    return [LATIN_IME_ID, ...(this.hasPackage(ADB_KEYBOARD_PKG) ? [ADB_IME_ID] : [])];
  }

  enabledImes(): string[] {
    const available = this.availableImes();
    return (this.get('secure', 'enabled_input_methods') ?? '').split(':').filter((id) => available.includes(id));
  }

  currentIme(): string | undefined {
    const id = this.get('secure', 'default_input_method');
    return id && this.availableImes().includes(id) ? id : undefined;
  }

  /** Returns false when the id is not an installed input method. */
  enableIme(id: string, enable: boolean): boolean {
    if (!this.availableImes().includes(id)) return false;
    const enabled = this.enabledImes().filter((x) => x !== id);
    if (enable) enabled.push(id);
    this.put('secure', 'enabled_input_methods', enabled.join(':'));
    if (!enable && this.get('secure', 'default_input_method') === id)
      this.put('secure', 'default_input_method', enabled[0] ?? '');
    return true;
  }

  setIme(id: string): boolean {
    if (!this.availableImes().includes(id)) return false;
    if (!this.enabledImes().includes(id)) this.enableIme(id, true);
    this.put('secure', 'default_input_method', id);
    return true;
  }
}

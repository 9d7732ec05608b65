/**
 * Apps' permissions on a simulated phone: which permissions Android knows at this API level
 * and how each is granted (a runtime "dangerous" permission the person grants, or an
 * install-time "normal" one granted at install), what each example app requests in its
 * manifest, and the runtime grants of user 0. `pm grant|revoke` change the grants
 * (commands/pm-permissions.ts), `pm clear` resets them, `dumpsys package` prints them.
 */
import { LIST_PKG } from './screen/app-list';
import { LOGIN_PKG } from './screen/app-login';
import { NOTES_PKG } from './screen/app-notes';
import { WALLET_PKG } from './screen/app-wallet';

export type Protection = 'runtime' | 'install';

const P = 'android.permission.';

/** A subset of the platform's permissions: protection, and the API level that added it. */
const PLATFORM_PERMISSIONS: ReadonlyArray<readonly [string, Protection, number?]> = [
  ['CAMERA', 'runtime'],
  ['RECORD_AUDIO', 'runtime'],
  ['ACCESS_FINE_LOCATION', 'runtime'],
  ['ACCESS_COARSE_LOCATION', 'runtime'],
  ['ACCESS_BACKGROUND_LOCATION', 'runtime', 29],
  ['READ_CONTACTS', 'runtime'],
  ['WRITE_CONTACTS', 'runtime'],
  ['READ_CALENDAR', 'runtime'],
  ['READ_PHONE_STATE', 'runtime'],
  ['CALL_PHONE', 'runtime'],
  ['SEND_SMS', 'runtime'],
  ['READ_SMS', 'runtime'],
  ['READ_EXTERNAL_STORAGE', 'runtime'],
  ['WRITE_EXTERNAL_STORAGE', 'runtime'],
  ['ACTIVITY_RECOGNITION', 'runtime', 29],
  ['BLUETOOTH_CONNECT', 'runtime', 31],
  ['POST_NOTIFICATIONS', 'runtime', 33],
  ['READ_MEDIA_IMAGES', 'runtime', 33],
  ['INTERNET', 'install'],
  ['ACCESS_NETWORK_STATE', 'install'],
  ['VIBRATE', 'install'],
  ['WAKE_LOCK', 'install'],
  ['USE_BIOMETRIC', 'install', 28],
];

/** The example apps' `<uses-permission>`; an app installed with `pm install` asks for INTERNET. */
const REQUESTED: Readonly<Record<string, readonly string[]>> = {
  [NOTES_PKG]: [`${P}INTERNET`, `${P}CAMERA`, `${P}RECORD_AUDIO`, `${P}POST_NOTIFICATIONS`],
  [LOGIN_PKG]: [`${P}INTERNET`, `${P}ACCESS_FINE_LOCATION`, `${P}ACCESS_COARSE_LOCATION`],
  [WALLET_PKG]: [`${P}INTERNET`, `${P}CAMERA`, `${P}USE_BIOMETRIC`],
  [LIST_PKG]: [`${P}INTERNET`, `${P}READ_CONTACTS`],
};

export class AppPermissions {
  private readonly granted = new Map<string, Set<string>>();
  private readonly known: ReadonlyMap<string, Protection>;

  constructor(sdk: number) {
    this.known = new Map(
      PLATFORM_PERMISSIONS.filter(([, , since]) => since === undefined || sdk >= since).map(([name, protection]) => [
        `${P}${name}`,
        protection,
      ]),
    );
  }

  /** How Android at this API level grants the permission; undefined for one it does not know. */
  protection(permission: string): Protection | undefined {
    return this.known.get(permission);
  }

  /** What the package's manifest asks for, in manifest order. */
  requested(pkg: string, thirdParty: boolean): readonly string[] {
    return REQUESTED[pkg] ?? (thirdParty ? [`${P}INTERNET`] : []);
  }

  isGranted(pkg: string, permission: string): boolean {
    return this.protection(permission) === 'install' || (this.granted.get(pkg)?.has(permission) ?? false);
  }

  setGranted(pkg: string, permission: string, granted: boolean): void {
    let set = this.granted.get(pkg);
    if (!set) {
      set = new Set();
      this.granted.set(pkg, set);
    }
    if (granted) set.add(permission);
    else set.delete(permission);
  }

  /** `pm clear` and uninstall: the runtime grants go. */
  reset(pkg: string): void {
    this.granted.delete(pkg);
  }
}

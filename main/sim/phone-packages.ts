/**
 * The phone's package database: system packages (some backed by simulated apps, most just
 * names and APK paths, as `pm list packages` shows them), the example apps, ADB Keyboard
 * when "installed", and packages installed with `pm install`. Also answers the screen
 * machine's questions: which app a package is, and which apps have launcher icons. Apps'
 * permissions and their runtime grants: phone-permissions.ts.
 *
 * Users: the phone's own user is 0, whose apps the rest of the sim knows. A phone may also have
 * other users (a work profile, `addUser`), each with the third-party apps installed for it:
 * `pm list packages --user N` lists them, and `pm uninstall` without `--user` removes a package
 * for every user, as a real phone does, while `--user N` removes it for that user only.
 */
import { createHash } from 'node:crypto';
import { readApkManifest, type ApkInstrumentation } from './helper/apk-manifest';
import { HEADLESS_PACKAGES } from './helper/uia2-ids';
import type { AppDef } from './screen/app-types';
import { browserApp } from './screen/app-browser';
import { createGenericApp } from './screen/app-generic';
import { LAUNCHER_PKG, launcherApp } from './screen/app-launcher';
import { listApp } from './screen/app-list';
import { loginApp } from './screen/app-login';
import { notesApp } from './screen/app-notes';
import { settingsApp } from './screen/app-settings';
import { STORE_PKG, storeApp } from './screen/app-store';
import { walletApp } from './screen/app-wallet';
import type { AppResolver } from './screen/screen-machine';
import { AppPermissions } from './phone-permissions';

export const ADB_KEYBOARD_PKG = 'com.android.adbkeyboard';

export interface PackageInfo {
  name: string;
  system: boolean;
  apkPath: string;
  app?: AppDef | undefined;
  /** From the APK's own manifest when it had one (the resident helper's APKs do). */
  versionCode?: number;
  versionName?: string;
  instrumentation?: ApkInstrumentation[];
  /** SHA-256 (hex) of the installed base.apk: the bytes `pm install` was given. */
  sha256?: string;
}

/** The package's Linux uid (`userId=` in dumpsys, the uid column of /proc/net/tcp). */
export function packageUid(info: Pick<PackageInfo, 'name' | 'system'>): number {
  return info.system ? 1000 : 10_200 + ([...info.name].reduce((a, c) => a + c.charCodeAt(0), 0) % 300);
}

/** The installed APK's SHA-256 as `sha256sum` prints it; packages the sim made up hash their path. */
export function apkSha256(info: PackageInfo): string {
  return info.sha256 ?? createHash('sha256').update(info.apkPath).digest('hex');
}

const SYSTEM_PACKAGES: Array<[string, string]> = [
  ['android', '/system/framework/framework-res.apk'],
  ['com.android.systemui', '/system_ext/priv-app/SystemUIGoogle/SystemUIGoogle.apk'],
  ['com.android.shell', '/system/priv-app/Shell/Shell.apk'],
  ['com.android.phone', '/system/priv-app/TeleService/TeleService.apk'],
  ['com.android.providers.settings', '/system/priv-app/SettingsProvider/SettingsProvider.apk'],
  [
    'com.android.providers.media.module',
    '/apex/com.android.mediaprovider/priv-app/MediaProviderGoogle@340818022/MediaProviderGoogle.apk',
  ],
  ['com.android.bluetooth', '/apex/com.android.btservices/app/Bluetooth@340920000/Bluetooth.apk'],
  ['com.google.android.gms', '/product/priv-app/PrebuiltGmsCore/PrebuiltGmsCoreSc.apk'],
  ['com.android.vending', '/product/priv-app/Phonesky/Phonesky.apk'],
  ['com.google.android.inputmethod.latin', '/product/app/LatinIMEGooglePrebuilt/LatinIMEGooglePrebuilt.apk'],
  ['com.google.android.webview', '/product/app/WebViewGoogle/WebViewGoogle.apk'],
  [
    'com.google.android.permissioncontroller',
    '/apex/com.android.permission/priv-app/GooglePermissionController@340818022/GooglePermissionController.apk',
  ],
  ['com.google.android.packageinstaller', '/system/priv-app/GooglePackageInstaller/GooglePackageInstaller.apk'],
  ['com.google.android.apps.messaging', '/product/app/PrebuiltBugle/PrebuiltBugle.apk'],
  ['com.google.android.dialer', '/product/priv-app/GoogleDialer/GoogleDialer.apk'],
  ['com.google.android.contacts', '/product/app/GoogleContacts/GoogleContacts.apk'],
  ['com.google.android.deskclock', '/product/app/PrebuiltDeskClockGoogle/PrebuiltDeskClockGoogle.apk'],
  ['com.google.android.apps.photos', '/product/app/Photos/Photos.apk'],
  ['com.google.android.GoogleCamera', '/product/app/GoogleCamera/GoogleCamera.apk'],
];

const SYSTEM_APPS: Record<string, [AppDef, string]> = {
  [LAUNCHER_PKG]: [launcherApp, '/system_ext/priv-app/NexusLauncherRelease/NexusLauncherRelease.apk'],
  'com.android.settings': [settingsApp, '/system_ext/priv-app/SettingsGoogle/SettingsGoogle.apk'],
  'com.android.chrome': [browserApp, '/product/app/Chrome/Chrome.apk'],
  [STORE_PKG]: [storeApp, '/product/priv-app/Phonesky/Phonesky.apk'],
};

/** Launcher order of the example apps (installed apps follow). */
const EXAMPLE_APPS = [notesApp, loginApp, walletApp, listApp];

function token(seed: string): string {
  return createHash('sha256').update(seed).digest('base64').replace(/\+/g, '-').replace(/\//g, '_').slice(0, 22);
}

export type InstallOutcome = { ok: true; name: string } | { ok: false; code: string; message: string };

export class PackageDb implements AppResolver {
  private readonly packages = new Map<string, PackageInfo>();
  /** Third-party packages installed for each user other than 0 (a work profile). */
  private readonly otherUsers = new Map<number, Set<string>>();
  private installs = 0;
  private readonly sdk: number;
  /** What each package requests and its runtime grants (user 0). */
  readonly permissions: AppPermissions;

  constructor(options: { withAdbKeyboard: boolean; sdk: number }) {
    this.permissions = new AppPermissions(options.sdk);
    this.sdk = options.sdk;
    for (const [name, apkPath] of SYSTEM_PACKAGES) this.packages.set(name, { name, system: true, apkPath });
    for (const [name, [app, apkPath]] of Object.entries(SYSTEM_APPS))
      this.packages.set(name, { name, system: true, apkPath, app });
    for (const app of EXAMPLE_APPS) this.addThirdParty(app.pkg, app);
    if (options.withAdbKeyboard) this.addThirdParty(ADB_KEYBOARD_PKG, undefined);
  }

  list(): PackageInfo[] {
    return [...this.packages.values()];
  }

  info(name: string): PackageInfo | undefined {
    return this.packages.get(name);
  }

  has(name: string): boolean {
    return this.packages.has(name);
  }

  /** AppResolver: the simulated app behind an installed package. */
  get(pkg: string): AppDef | undefined {
    return this.packages.get(pkg)?.app;
  }

  launchable(): AppDef[] {
    const apps = [...this.packages.values()].flatMap((p) => (p.app?.launchable ? [p.app] : []));
    const order = (app: AppDef): number => {
      const i = EXAMPLE_APPS.findIndex((a) => a.pkg === app.pkg);
      if (i >= 0) return i;
      if (app.pkg === 'com.android.chrome') return 100;
      if (app.pkg === 'com.android.settings') return 101;
      return 200;
    };
    return apps.sort((a, b) => order(a) - order(b));
  }

  /**
   * `pm install`: the bytes must be a zip (PK\x03\x04). The package name (and version and
   * instrumentation) come from the APK's binary AndroidManifest.xml when it has one; else
   * from a `package=NAME` line anywhere in the file (our test APKs carry one), else made up.
   */
  installApk(data: Buffer, apkDisplayPath: string): InstallOutcome {
    if (data.length < 4 || data.readUInt32LE(0) !== 0x04034b50) {
      return {
        ok: false,
        code: 'INSTALL_PARSE_FAILED_NOT_APK',
        message: `Failed to parse ${apkDisplayPath}: Failed to load asset path ${apkDisplayPath}`,
      };
    }
    this.installs++;
    const manifest = readApkManifest(data);
    if (manifest?.minSdk !== undefined && manifest.minSdk > this.sdk) {
      // PackageParser refuses an APK for a newer Android before anything is installed.
      return {
        ok: false,
        code: 'INSTALL_FAILED_OLDER_SDK',
        message: `Failed parse during installPackageLI: ${apkDisplayPath} (at Binary XML file line #7): Requires newer sdk version #${manifest.minSdk} (current version is #${this.sdk})`,
      };
    }
    if (manifest) {
      const existing = this.packages.get(manifest.package);
      if (existing?.system)
        return {
          ok: false,
          code: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
          message: `Package ${manifest.package} signatures do not match previously installed version; ignoring!`,
        };
      this.addThirdParty(
        manifest.package,
        existing?.app ?? (HEADLESS_PACKAGES.has(manifest.package) ? undefined : createGenericApp(manifest.package)),
      );
      const info = this.packages.get(manifest.package);
      if (info) {
        info.versionCode = manifest.versionCode;
        if (manifest.versionName !== undefined) info.versionName = manifest.versionName;
        info.instrumentation = manifest.instrumentation;
        info.sha256 = createHash('sha256').update(data).digest('hex');
      }
      return { ok: true, name: manifest.package };
    }
    const match = /package=([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)+)/.exec(data.toString('latin1'));
    const name = match?.[1] ?? `com.sim.installed${this.installs}`;
    const existing = this.packages.get(name);
    if (existing?.system)
      return {
        ok: false,
        code: 'INSTALL_FAILED_UPDATE_INCOMPATIBLE',
        message: `Package ${name} signatures do not match previously installed version; ignoring!`,
      };
    this.addThirdParty(name, existing?.app ?? createGenericApp(name));
    const added = this.packages.get(name);
    if (added) added.sha256 = createHash('sha256').update(data).digest('hex');
    return { ok: true, name };
  }

  /** The permissions the package's manifest asks for (none for a package the phone does not have). */
  requestedPermissions(name: string): readonly string[] {
    const info = this.packages.get(name);
    // The resident helper's APKs are left out: the bridge never changes their permissions.
    return info && !HEADLESS_PACKAGES.has(name) ? this.permissions.requested(name, !info.system) : [];
  }

  /** The package whose base.apk is at `path`, if any. */
  byApkPath(path: string): PackageInfo | undefined {
    for (const info of this.packages.values()) if (info.apkPath === path) return info;
    return undefined;
  }

  /** An app installed for user 0 another way than `pm install` (the store, a browser download). */
  installFromStore(name: string): void {
    if (this.packages.get(name)?.system) throw new TypeError(`installFromStore: ${name} is a system package`);
    this.installs++;
    this.addThirdParty(name, this.packages.get(name)?.app ?? createGenericApp(name));
  }

  /** A user besides 0 (a work profile) with these third-party packages installed for it. */
  addUser(userId: number, packages: readonly string[]): void {
    if (!Number.isSafeInteger(userId) || userId <= 0) throw new TypeError('addUser: a user id above 0');
    this.otherUsers.set(userId, new Set(packages));
  }

  /** Whether the phone has this user (0 always). */
  hasUser(userId: number): boolean {
    return userId === 0 || this.otherUsers.has(userId);
  }

  /** The third-party packages installed for a user other than 0 (empty for an unknown one). */
  packagesOfUser(userId: number): string[] {
    return [...(this.otherUsers.get(userId) ?? [])];
  }

  /** `pm install` without `--user` installs for every user: the other users get the package too. */
  installedForAllUsers(name: string): void {
    for (const names of this.otherUsers.values()) names.add(name);
  }

  /**
   * `pm uninstall [--user N]`: for one user, or (`all`) for every user. False when the
   * package was not installed for any of them.
   */
  uninstallFor(name: string, user: number | 'all'): boolean {
    let removed = false;
    for (const [id, names] of this.otherUsers)
      if ((user === 'all' || user === id) && names.delete(name)) removed = true;
    if (user === 'all' || user === 0) removed = this.uninstall(name) || removed;
    return removed;
  }

  /** Removes a third-party package; system packages cannot be removed for all users. */
  uninstall(name: string): boolean {
    const info = this.packages.get(name);
    if (!info || info.system) return false;
    this.packages.delete(name);
    this.permissions.reset(name);
    return true;
  }

  private addThirdParty(name: string, app: AppDef | undefined): void {
    const seed = `${name}#${this.installs}`;
    const apkPath = `/data/app/~~${token(`a:${seed}`)}==/${name}-${token(`b:${seed}`)}==/base.apk`;
    this.packages.set(name, { name, system: false, apkPath, app });
  }
}

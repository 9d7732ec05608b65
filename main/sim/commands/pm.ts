/**
 * `pm` (Android 14's `cmd package`): list packages [-3|-s|-f|-e|-d|-U] [FILTER], path,
 * install (from a file on the phone), uninstall, clear, grant/revoke (pm-permissions.ts).
 * Output and failure texts follow PackageManagerShellCommand (`Success`, `Failure [CODE:
 * detail]`, exit 1).
 * Install quirks (phone-quirks.ts) refuse the install the way those phones do, after the
 * APK was read; the verifier quirk first waits for a prompt nobody answers.
 */
import { HEADLESS_PACKAGES } from '../helper/uia2-ids';
import { readApkManifest } from '../helper/apk-manifest';
import { LATIN_IME_ID } from '../phone-settings';
import { quirkWaitMs } from '../phone-quirks';
import { sleepUnlessAborted } from '../timing-profiles';
import type { CommandIo, PhoneContext } from './command-types';
import { reportShellException } from './java-exception';
import { grantRevokeCommand } from './pm-permissions';

const USAGE = `Package manager (package) commands:
  help
    Print this help text.

  path [--user USER_ID] PACKAGE
    Print the path to the .apk of the given PACKAGE.

  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] [-U]
      [--show-versioncode] [--apex-only] [--factory-only]
      [--uid UID] [--user USER_ID] [FILTER]
    Prints all packages; optionally only those whose name contains
    the text in FILTER.

  install [-rtfdg] [-i PACKAGE] [--user USER_ID|all|current] [PATH...]
    Install an application.

  uninstall [-k] [--user USER_ID] [--versionCode VERSION_CODE] PACKAGE
    Remove the given package name from the system.

  clear [--user USER_ID] PACKAGE
    Deletes all data associated with a package.

  grant [--user USER_ID] PACKAGE PERMISSION
  revoke [--user USER_ID] PACKAGE PERMISSION
    These commands either grant or revoke permissions to apps.  The permissions
    must be declared as used in the app's manifest, be runtime permissions
    (protection level dangerous), and the app targeting SDK greater than Lollipop MR1.
`;

function listPackages(io: CommandIo, phone: PhoneContext, args: readonly string[]): number {
  let thirdParty = false;
  let systemOnly = false;
  let showPath = false;
  let showUid = false;
  let disabledOnly = false;
  let filter: string | undefined;
  let user = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--user') user = userArg(args[++i]);
    else if (a === '--uid') i++;
    else if (a.startsWith('-') && !a.startsWith('--')) {
      for (const flag of a.slice(1)) {
        if (flag === '3') thirdParty = true;
        else if (flag === 's') systemOnly = true;
        else if (flag === 'f') showPath = true;
        else if (flag === 'U') showUid = true;
        else if (flag === 'd') disabledOnly = true;
        else if (!'eilua'.includes(flag)) {
          io.err(`Error: Unknown option: -${flag}\n`);
          return 255;
        }
      }
    } else if (!a.startsWith('--')) filter = a;
  }
  if (!phone.packages.hasUser(user)) {
    io.err(`Error: user ${user} does not exist\n`);
    return 255;
  }
  const ofUser = user === 0 ? null : new Set(phone.packages.packagesOfUser(user));
  const lines = phone.packages
    .list()
    .filter((p) => ofUser === null || p.system || ofUser.has(p.name))
    .filter(
      (p) =>
        !disabledOnly &&
        (!thirdParty || !p.system) &&
        (!systemOnly || p.system) &&
        (filter === undefined || p.name.includes(filter)),
    )
    .map(
      (p, i) =>
        `package:${showPath ? `${p.apkPath}=` : ''}${p.name}${showUid ? ` uid:${p.system ? 1000 + i : 10100 + i}` : ''}\n`,
    );
  io.out(lines.join(''));
  return 0;
}

/** The failure line an install quirk prints, or undefined when the phone has none. */
function installQuirkFailure(phone: PhoneContext): string | undefined {
  if (phone.quirks.has('install-user-restricted')) return 'INSTALL_FAILED_USER_RESTRICTED: Install canceled by user';
  if (phone.quirks.has('install-version-downgrade'))
    return 'INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 34 is older than current 35';
  if (phone.quirks.has('install-insufficient-storage')) return 'INSTALL_FAILED_INSUFFICIENT_STORAGE';
  if (phone.quirks.has('install-verifier-timeout')) return 'INSTALL_FAILED_VERIFICATION_FAILURE';
  return undefined;
}

async function install(io: CommandIo, phone: PhoneContext, args: readonly string[]): Promise<number> {
  let path: string | undefined;
  let size: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-S') size = Number(args[++i]);
    else if (
      ['-i', '--user', '--install-location', '--originating-uri', '--referrer', '--abi', '--install-reason'].includes(a)
    )
      i++;
    else if (!a.startsWith('-')) path = a;
  }
  if (path === undefined && size === undefined) {
    io.out('Error: must either specify a package size or an APK file\n');
    return 1;
  }
  // `-S SIZE` with no path: the APK arrives on stdin (adb install's streamed mode).
  if (path === undefined && size !== undefined && io.stdin.length !== size) {
    io.out(
      `Failure [INSTALL_PARSE_FAILED_NOT_APK: Failed to parse /data/app/vmdl.tmp/base.apk: read ${io.stdin.length} of ${size} bytes]\n`,
    );
    return 1;
  }
  path ??= 'base.apk';
  const data =
    size !== undefined && io.stdin.length === size
      ? io.stdin
      : phone.fs.stat(path) && !phone.fs.isDirectory(path)
        ? phone.fs.read(path)
        : undefined;
  if (!data) {
    return reportShellException(
      io,
      'package',
      'install',
      `java.lang.IllegalArgumentException: Error: Can't open file: ${path}`,
      [
        'com.android.server.pm.PackageManagerShellCommand.setParamsSize(PackageManagerShellCommand.java:684)',
        'com.android.server.pm.PackageManagerShellCommand.doRunInstall(PackageManagerShellCommand.java:1498)',
        'com.android.server.pm.PackageManagerShellCommand.runInstall(PackageManagerShellCommand.java:1460)',
        'com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:207)',
      ],
    );
  }
  const refused = installQuirkFailure(phone) ?? helperInstallRefused(phone, data);
  if (refused !== undefined) {
    if (
      phone.quirks.has('install-verifier-timeout') &&
      !(await sleepUnlessAborted(quirkWaitMs(phone.profile, 'verifier'), io.signal))
    )
      return 130;
    io.out(`Failure [${refused}]\n`);
    return 1;
  }
  const user = userOption(args);
  // The simulated phone installs for its own user (0), or for every user (no --user, or all).
  if (user !== undefined && user !== 0 && user !== -1) {
    io.out(`Failure [INSTALL_FAILED_INTERNAL_ERROR: the simulated phone installs for user 0 or all users only]\n`);
    return 1;
  }
  const staged = `/data/app/vmdl${100000000 + (phone.now() % 900000000)}.tmp/base.apk`;
  const outcome = phone.packages.installApk(data, staged);
  if (!outcome.ok) {
    io.out(`Failure [${outcome.code}: ${outcome.message}]\n`);
    return 1;
  }
  if (user === undefined || user === -1) phone.packages.installedForAllUsers(outcome.name);
  phone.screen.forceStop(outcome.name);
  // Updating the helper's packages kills its running instrumentation, as an update does.
  phone.helper.packageStopped(outcome.name);
  phone.snapshotHelper.packageStopped(outcome.name);
  io.out('Success\n');
  return 0;
}

/** helper-install-refused: the phone refuses the resident helper's APKs (and only those). */
function helperInstallRefused(phone: PhoneContext, data: Buffer): string | undefined {
  if (!phone.quirks.has('helper-install-refused')) return undefined;
  const name = readApkManifest(data)?.package;
  return name !== undefined && HEADLESS_PACKAGES.has(name)
    ? 'INSTALL_FAILED_USER_RESTRICTED: Install canceled by user'
    : undefined;
}

/** `--user N|current|all`: the phone's own user is 0 (and current); all is -1. */
function userArg(value: string | undefined): number {
  if (value === 'current' || value === undefined) return 0;
  if (value === 'all') return -1;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : -2;
}

/** The `--user` option's value, or undefined when the command has none. */
function userOption(args: readonly string[]): number | undefined {
  const at = args.indexOf('--user');
  return at < 0 ? undefined : userArg(args[at + 1]);
}

/** The package argument after options like `--user 0` / `-k`. */
function packageArg(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--user' || a === '--versionCode') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

export function pmCommand(io: CommandIo, phone: PhoneContext): number | Promise<number> {
  const [, sub, ...args] = io.argv;
  switch (sub) {
    case 'list':
      if (args[0] === 'packages') return listPackages(io, phone, args.slice(1));
      if (args[0] === 'instrumentation') {
        io.out(phone.helper.instrumentationLines().join(''));
        return 0;
      }
      io.err(`Error: unknown list type '${args[0] ?? ''}'\n`);
      return 255;
    case 'path': {
      const name = packageArg(args);
      const info = name === undefined ? undefined : phone.packages.info(name);
      if (!info) return 1;
      io.out(`package:${info.apkPath}\n`);
      return 0;
    }
    case 'install':
      return install(io, phone, args);
    case 'uninstall': {
      const name = packageArg(args);
      if (name !== undefined) {
        phone.helper.packageStopped(name);
        phone.snapshotHelper.packageStopped(name);
        phone.snapshotHelper.packageStopped(name);
      }
      // No --user: every user loses it (a work profile's copy too), as on a real phone.
      const user = userOption(args) ?? -1;
      if (name === undefined || !phone.packages.uninstallFor(name, user === -1 ? 'all' : user)) {
        io.out('Failure [DELETE_FAILED_INTERNAL_ERROR]\n');
        return 1;
      }
      phone.screen.clearData(name);
      // Removing the selected keyboard falls back to the default one, as the IMMS does.
      if (phone.settings.currentIme() === undefined) phone.settings.setIme(LATIN_IME_ID);
      io.out('Success\n');
      return 0;
    }
    case 'clear': {
      const name = packageArg(args);
      if (name === undefined) {
        io.err('Error: no package specified\n');
        return 1;
      }
      // ActivityManagerService.clearApplicationUserData: an unknown package answers the observer false.
      if (!phone.packages.has(name)) {
        io.out('Failed\n');
        return 1;
      }
      // The app is killed (the helper's instrumentation with it), its data erased, its runtime permissions reset.
      phone.helper.packageStopped(name);
      phone.screen.clearData(name);
      phone.packages.permissions.reset(name);
      io.out('Success\n');
      return 0;
    }
    case 'grant':
    case 'revoke':
      return grantRevokeCommand(io, phone, sub, args);
    case undefined:
    case 'help':
      io.out(USAGE);
      return 0;
    default:
      io.err(`Unknown command: ${sub}\n`);
      return 255;
  }
}

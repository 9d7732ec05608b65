/**
 * Apps on the phone: list installed packages, launch (by launcher intent or explicit
 * activity), force-stop, open a URL, check installation. Owns package/activity name
 * validation and the reading of `am`/`monkey`/`pm` answers, which report most failures as
 * text rather than exit status. Installs a phone refuses for a reason a person can fix are
 * BridgeError('install_blocked') with the fix (phone-fixes.ts).
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { phoneProblem, type PhoneProblem } from './phone-fixes';
import { excerpt, OperationDeadline, runChecked, runText } from '../devices/shell-quote';
import type { OperationOptions } from '../devices/shell-quote';

const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
/** Fully qualified (`com.app.MainActivity`) or relative to the package (`.MainActivity`); `$` for nested classes. */
const ACTIVITY_RE = /^(\.?[A-Za-z_$][A-Za-z0-9_$]*)(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const MAX_NAME_LENGTH = 255;
const MAX_URL_LENGTH = 8_192;
const DEFAULT_TIMEOUT_MS = 15_000;

export function isValidPackageName(name: string): boolean {
  return typeof name === 'string' && name.length <= MAX_NAME_LENGTH && PACKAGE_RE.test(name);
}

export function assertPackageName(name: string): void {
  if (!isValidPackageName(name)) {
    throw new BridgeError(
      'invalid_arguments',
      `"${String(name).slice(0, 80)}" is not a valid Android package name (e.g. com.example.app)`,
    );
  }
}

export function isValidActivityName(name: string): boolean {
  return typeof name === 'string' && name.length <= MAX_NAME_LENGTH && ACTIVITY_RE.test(name);
}

export function assertActivityName(name: string): void {
  if (!isValidActivityName(name)) {
    throw new BridgeError(
      'invalid_arguments',
      `"${String(name).slice(0, 80)}" is not a valid activity name (e.g. .MainActivity or com.example.app.MainActivity)`,
    );
  }
}

/** Parses `pm list packages` output (`package:NAME` lines) into sorted, unique names. */
export function parsePackageList(output: string): string[] {
  const names = new Set<string>();
  for (const line of output.split('\n')) {
    const match = /^package:(\S+)\s*$/.exec(line.trim());
    if (match?.[1] && isValidPackageName(match[1])) names.add(match[1]);
  }
  return [...names].sort();
}

export interface ListPackagesOptions extends OperationOptions {
  /** Only apps the user installed (`pm list packages -3`). */
  thirdPartyOnly?: boolean;
  /** The apps of this Android user (`--user N`); unset, the phone's default. */
  user?: number;
}

export async function listPackages(shell: DeviceShell, options?: ListPackagesOptions): Promise<string[]> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'listing packages');
  const argv = [
    'pm',
    'list',
    'packages',
    ...(options?.thirdPartyOnly ? ['-3'] : []),
    ...(options?.user !== undefined ? ['--user', String(options.user)] : []),
  ];
  return parsePackageList(await runChecked(shell, argv, deadline.next()));
}

/**
 * The Android user in the foreground (`am get-current-user`): the one a person sees, whose
 * apps an install for "this phone" means. Null when the phone does not say (a work profile is
 * never the foreground user).
 */
export async function currentUser(shell: DeviceShell, options?: OperationOptions): Promise<number | null> {
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading the current user');
  const out = await runText(shell, ['am', 'get-current-user'], deadline.next());
  const user = /^\s*(\d+)\s*$/.exec(out.text)?.[1];
  return out.exitCode === 0 || out.exitCode === undefined ? (user === undefined ? null : Number(user)) : null;
}

/**
 * `pm uninstall` for one user (`--user N`), or, with none known, as the phone's default does
 * (for every user: a work profile's copy too). Throws command_failed unless pm says Success.
 */
export async function uninstallApp(
  shell: DeviceShell,
  pkg: string,
  user: number | undefined,
  options?: OperationOptions,
): Promise<void> {
  assertPackageName(pkg);
  const deadline = new OperationDeadline(options, 60_000, `uninstalling ${pkg}`);
  const argv = ['pm', 'uninstall', ...(user !== undefined ? ['--user', String(user)] : []), pkg];
  const out = await runText(shell, argv, deadline.next());
  // pm says Success, or Failure [DELETE_FAILED_…] with exit status 1 on Android 7+.
  if (!/^Success/m.test(out.text))
    throw new BridgeError('command_failed', out.text.trim().slice(0, 200) || 'no answer');
}

/** True when `pm path PKG` names an APK; `pm` exits 1 with no output for unknown packages. */
export async function isPackageInstalled(
  shell: DeviceShell,
  pkg: string,
  options?: OperationOptions,
): Promise<boolean> {
  assertPackageName(pkg);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'checking a package');
  const out = await runText(shell, ['pm', 'path', pkg], deadline.next());
  return /^package:\S/m.test(out.text);
}

/** Reads an `am start` answer: `Error:`/`Error type N` lines mean the start failed. */
export function checkAmStartOutput(output: string, exitCode: number | undefined, what: string): void {
  if (/Permission Denial|SecurityException/.test(output)) {
    throw new BridgeError('permission_denied', `${what}: the phone refused${excerpt(output)}`);
  }
  if (/does not exist|unable to resolve Intent|Activity not started, unable/.test(output)) {
    throw new BridgeError('invalid_arguments', `${what}: nothing on the phone matches${excerpt(output)}`);
  }
  if (/^Error( type \d+)?:?/m.test(output) || (exitCode !== undefined && exitCode !== 0)) {
    throw new BridgeError('command_failed', `${what} failed${excerpt(output)}`, { exitCode });
  }
}

/**
 * Starts an app. With an activity: `am start -n PKG/ACTIVITY` (an unknown activity is
 * BridgeError('invalid_arguments')). Without: the launcher intent via
 * `monkey -p PKG -c android.intent.category.LAUNCHER 1`.
 */
export async function launchApp(
  shell: DeviceShell,
  pkg: string,
  activity?: string,
  options?: OperationOptions,
): Promise<void> {
  assertPackageName(pkg);
  if (activity !== undefined) assertActivityName(activity);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'launching an app');

  if (activity !== undefined) {
    const component = `${pkg}/${activity}`;
    const out = await runText(shell, ['am', 'start', '-n', component], deadline.next());
    checkAmStartOutput(out.text, out.exitCode, `starting ${component}`);
    return;
  }

  const out = await runText(
    shell,
    ['monkey', '-p', pkg, '-c', 'android.intent.category.LAUNCHER', '1'],
    deadline.next(),
  );
  if (/Events injected: 1\b/.test(out.text)) return;
  if (
    /No activities found/.test(out.text) ||
    !(await isPackageInstalled(shell, pkg, { timeoutMs: deadline.next().timeoutMs }))
  ) {
    throw new BridgeError(
      'app_not_found',
      `${pkg} is not installed or has no launcher activity; pass an activity or check the package name`,
    );
  }
  throw new BridgeError('command_failed', `launching ${pkg} failed${excerpt(out.text)}`, { exitCode: out.exitCode });
}

/** Force-stops an app (`am force-stop PKG`); stopping an app that is not running is fine. */
export async function stopApp(shell: DeviceShell, pkg: string, options?: OperationOptions): Promise<void> {
  assertPackageName(pkg);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'stopping an app');
  await runChecked(shell, ['am', 'force-stop', pkg], deadline.next());
}

/**
 * Erases an app's data: `pm clear PKG` (ActivityManager.clearApplicationUserData), which also
 * stops the app and resets the runtime permissions the person or an agent granted. It prints
 * `Success`, or `Failed` with exit 1 for a package that is not installed
 * (`app_not_found`) or one Android does not let be cleared (`command_failed`).
 */
export async function clearAppData(shell: DeviceShell, pkg: string, options?: OperationOptions): Promise<void> {
  assertPackageName(pkg);
  const deadline = new OperationDeadline(options, 30_000, 'clearing an app’s data');
  const out = await runText(shell, ['pm', 'clear', pkg], deadline.next());
  if (/^Success\b/m.test(out.text) && (out.exitCode === undefined || out.exitCode === 0)) return;
  if (!(await isPackageInstalled(shell, pkg, deadline.next())))
    throw new BridgeError('app_not_found', `${pkg} is not installed on the phone`);
  throw new BridgeError('command_failed', `the phone did not clear ${pkg}'s data${excerpt(out.text)}`, {
    exitCode: out.exitCode,
  });
}

/**
 * Opens a URL with whatever app handles it: `am start -a android.intent.action.VIEW -d URL`.
 * The caller checks the scheme; here we only refuse what could be read as an option.
 */
export async function openUrl(shell: DeviceShell, url: string, options?: OperationOptions): Promise<void> {
  if (typeof url !== 'string' || url.length === 0 || url.length > MAX_URL_LENGTH) {
    throw new BridgeError('invalid_arguments', `url must be 1 to ${MAX_URL_LENGTH} characters`);
  }
  if (url.startsWith('-') || /[\s\0]/.test(url)) {
    throw new BridgeError('invalid_arguments', 'url must not start with "-" or contain whitespace');
  }
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'opening a URL');
  const out = await runText(shell, ['am', 'start', '-a', 'android.intent.action.VIEW', '-d', url], deadline.next());
  checkAmStartOutput(out.text, out.exitCode, 'opening the URL');
}

/** `pm install` failure codes a person can fix, with what they mean. */
const INSTALL_REFUSALS: ReadonlyArray<readonly [RegExp, PhoneProblem, string]> = [
  [/^INSTALL_FAILED_USER_RESTRICTED\b/, 'install_user_restricted', 'the phone refused installs over USB'],
  [/^INSTALL_FAILED_VERSION_DOWNGRADE\b/, 'install_version_downgrade', 'a newer version of this app is installed'],
  [/^INSTALL_FAILED_INSUFFICIENT_STORAGE\b/, 'install_insufficient_storage', 'the phone has not enough free storage'],
  [
    /^INSTALL_FAILED_VERIFICATION_(?:FAILURE|TIMEOUT)\b/,
    'install_verification',
    'the phone’s app verification did not allow the install',
  ],
];

/**
 * Reads a `pm install` answer: nothing when it says `Success`; BridgeError('install_blocked')
 * with the fix for a refusal a person can fix; BridgeError('command_failed') quoting the
 * phone otherwise.
 */
export function checkInstallOutput(output: string, exitCode: number | undefined): void {
  if (/^Success\b/m.test(output) && !/^Failure \[/m.test(output)) return;
  const failure = /^Failure \[([^\]\n]*)\]?/m.exec(output)?.[1]?.trim();
  if (failure !== undefined) {
    for (const [pattern, problem, what] of INSTALL_REFUSALS) {
      if (pattern.test(failure))
        throw phoneProblem(problem, `install refused: ${what} (${failure.slice(0, 200)})`, { exitCode });
    }
  }
  throw new BridgeError('command_failed', `install failed${excerpt(output)}`, { exitCode });
}

/**
 * Installs an APK already on the phone: `pm install -r PATH`, once. A phone that gives no
 * answer before the deadline is usually showing a prompt nobody answered, so that is
 * install_blocked (whether it installed later is unknown: check before trying again).
 */
export async function installApk(
  shell: DeviceShell,
  remotePath: string,
  options?: OperationOptions & { user?: number },
): Promise<void> {
  if (typeof remotePath !== 'string' || !remotePath.startsWith('/') || /[\s\0]/.test(remotePath)) {
    throw new BridgeError('invalid_arguments', 'the APK path on the phone must be absolute, without whitespace');
  }
  const deadline = new OperationDeadline(options, 180_000, 'installing an APK');
  let out;
  try {
    const user = options?.user !== undefined ? ['--user', String(options.user)] : [];
    out = await runText(shell, ['pm', 'install', '-r', ...user, remotePath], deadline.next());
  } catch (error) {
    if (error instanceof BridgeError && error.code === 'command_timeout') {
      throw phoneProblem(
        'install_no_answer',
        'the phone did not answer the install in time; a prompt may be waiting on it',
      );
    }
    throw error;
  }
  checkInstallOutput(out.text, out.exitCode);
}

/**
 * An app's runtime permissions: what `dumpsys package PKG` says about them, and granting or
 * revoking one with `pm grant|revoke PKG PERMISSION`, checked against the phone's own state.
 *
 * `pm grant` and `pm revoke` cannot be trusted by what they print. Their answers changed with
 * Android versions (PackageManagerShellCommand.runGrantRevokePermission hands over to the
 * permission service and prints nothing itself):
 * - Android 10 and older throw `IllegalArgumentException: Unknown package: PKG`; Android 11–14
 *   (PermissionManagerService[Impl].grantRuntimePermissionInternal) only log it and return, so
 *   the command says nothing and exits 0; so does Android 15+ (the new PermissionService.kt,
 *   "to avoid leaking the package existence");
 * - a permission the app does not request throws `SecurityException: Package PKG has not
 *   requested permission PERM` up to Android 14, but is only logged on Android 15+;
 * - a permission fixed by the system or a device policy is left as it is with only a log line.
 * So the bridge reads the package first (installed? requested? a runtime permission?), runs
 * the command, and reads the package again: the result is the state the phone reports.
 * Where each text comes from: main/sim/QUIRKS.md.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { excerpt, OperationDeadline, runText, type OperationOptions } from '../devices/shell-quote';
import { assertPackageName } from './apps';
import { phoneProblem } from './phone-fixes';

const PERMISSION_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const DEFAULT_TIMEOUT_MS = 20_000;

export function isValidPermissionName(name: string): boolean {
  return typeof name === 'string' && name.length <= 255 && PERMISSION_RE.test(name);
}

/** One runtime permission of one user, as `dumpsys package` prints it. */
export interface RuntimePermissionState {
  granted: boolean;
  /** `flags=[ USER_SET|SYSTEM_FIXED … ]`, split. */
  flags: string[];
}

/** What `dumpsys package PKG` says about the package's permissions (user 0). */
export interface PackagePermissions {
  /** `requested permissions:` — what the manifest asks for. */
  requested: string[];
  /** `install permissions:` — granted at install, not changeable. */
  install: Map<string, boolean>;
  /** `User 0:` → `runtime permissions:`. */
  runtime: Map<string, RuntimePermissionState>;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

/**
 * Reads the package's block of `dumpsys package PKG` (the first one, under `Packages:`; an
 * updated system app is listed again under `Hidden system packages:`); null when the package
 * is not installed (the dump then has no `Package [PKG]` line).
 */
export function parsePackagePermissions(dump: string, pkg: string, userId = 0): PackagePermissions | null {
  const lines = dump.replaceAll('\r\n', '\n').split('\n');
  const start = lines.findIndex(
    (line) => line.trimStart().startsWith(`Package [${pkg}] (`) || line.trim() === `Package [${pkg}]:`,
  );
  if (start < 0) return null;
  const blockIndent = indentOf(lines[start] ?? '');
  const out: PackagePermissions = { requested: [], install: new Map(), runtime: new Map() };
  let section: { name: 'requested' | 'install' | 'runtime' | 'other'; indent: number } = {
    name: 'other',
    indent: blockIndent,
  };
  let inUser = false;
  let userIndent = 0;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    const indent = indentOf(line);
    if (indent <= blockIndent) break;
    const text = line.trim();
    if (inUser && indent <= userIndent) inUser = false;
    if (indent <= section.indent) section = { name: 'other', indent };
    const user = /^User (\d+):/.exec(text);
    if (user) {
      inUser = Number(user[1]) === userId;
      userIndent = indent;
      section = { name: 'other', indent };
      continue;
    }
    if (text === 'requested permissions:') section = { name: 'requested', indent };
    else if (text === 'install permissions:' && !inUser) section = { name: 'install', indent };
    else if (text === 'runtime permissions:' && inUser) section = { name: 'runtime', indent };
    else if (/^[\w -]+:$/.test(text)) section = { name: 'other', indent };
    else if (section.name === 'requested') {
      const name = /^([A-Za-z][\w.]*)/.exec(text)?.[1];
      if (name) out.requested.push(name);
    } else if (section.name === 'install' || section.name === 'runtime') {
      const entry = /^([A-Za-z][\w.]*): granted=(true|false)(?:, flags=\[([^\]]*)\])?/.exec(text);
      if (!entry?.[1]) continue;
      const granted = entry[2] === 'true';
      if (section.name === 'install') out.install.set(entry[1], granted);
      else out.runtime.set(entry[1], { granted, flags: (entry[3] ?? '').split(/[|\s]+/).filter((f) => f !== '') });
    }
  }
  return out;
}

/** Reads the package's permissions; BridgeError('app_not_found') when it is not installed. */
export async function readPackagePermissions(
  shell: DeviceShell,
  pkg: string,
  options?: OperationOptions,
): Promise<PackagePermissions> {
  assertPackageName(pkg);
  const deadline = new OperationDeadline(options, DEFAULT_TIMEOUT_MS, 'reading an app’s permissions');
  const out = await runText(shell, ['dumpsys', 'package', pkg], deadline.next());
  const parsed = parsePackagePermissions(out.text, pkg);
  if (!parsed) throw new BridgeError('app_not_found', `${pkg} is not installed on the phone`);
  return parsed;
}

/**
 * The first Java exception a `cmd`-based command printed, or null: `java.lang.SecurityException:
 * …` after `Exception occurred while executing 'grant':` (Android 11+), or inside `Bad argument:` /
 * `Security exception:` lines (older `pm`).
 */
export function shellException(output: string): { type: string; message: string } | null {
  const match = /\b(?:[a-z]\w*\.)*([A-Z]\w*Exception): ([^\n]+)/.exec(output);
  if (!match?.[1] || !match[2]) return null;
  return { type: match[1], message: match[2].trim().slice(0, 300) };
}

export interface PermissionChange {
  /** The state the phone reports after the command. */
  granted: boolean;
  /** Whether it was different before. */
  changed: boolean;
}

/**
 * Grants or revokes one runtime permission the app requests, and returns the state the phone
 * reports afterwards. Refused before anything changes: a package that is not installed
 * (`app_not_found`), a permission the app does not request or one granted at install
 * (`invalid_arguments`). A phone that refuses (`Neither user 2000 nor current process has
 * android.permission.GRANT_RUNTIME_PERMISSIONS`: Xiaomi without USB debugging (Security
 * settings)) is `permission_denied` with the fix; one that leaves the permission as it was is
 * `command_failed` naming the permission's flags.
 */
export async function setRuntimePermission(
  shell: DeviceShell,
  pkg: string,
  permission: string,
  grant: boolean,
  options?: OperationOptions,
): Promise<PermissionChange> {
  assertPackageName(pkg);
  if (!isValidPermissionName(permission))
    throw new BridgeError(
      'invalid_arguments',
      `"${String(permission).slice(0, 80)}" is not a permission name (e.g. android.permission.CAMERA)`,
    );
  const verb = grant ? 'grant' : 'revoke';
  const deadline = new OperationDeadline(
    options,
    DEFAULT_TIMEOUT_MS,
    `${grant ? 'granting' : 'revoking'} a permission`,
  );
  const before = await readPackagePermissions(shell, pkg, deadline.next());
  const was = before.runtime.get(permission);
  if (!was) {
    if (before.install.has(permission)) {
      throw new BridgeError(
        'invalid_arguments',
        `${permission} is an install-time permission of ${pkg}, granted when the app is installed; only runtime permissions can be granted or revoked`,
      );
    }
    if (!before.requested.includes(permission)) {
      throw new BridgeError(
        'invalid_arguments',
        `${pkg} does not request ${permission} (only permissions an app requests in its manifest can be granted or revoked)`,
      );
    }
    throw new BridgeError('invalid_arguments', `${permission} is not a runtime permission of ${pkg} on this phone`);
  }
  const out = await runText(shell, ['pm', verb, pkg, permission], deadline.next());
  const exception = shellException(out.text);
  if (exception) {
    if (/GRANT_RUNTIME_PERMISSIONS|REVOKE_RUNTIME_PERMISSIONS/.test(exception.message)) {
      throw phoneProblem(
        'permission_change_denied',
        `the phone refused to ${verb} ${permission} (${exception.type}: ${exception.message.slice(0, 160)})`,
      );
    }
    throw new BridgeError(
      'command_failed',
      `the phone refused to ${verb} ${permission} of ${pkg}: ${exception.type}: ${exception.message}`,
      { exitCode: out.exitCode },
    );
  }
  if (out.exitCode !== undefined && out.exitCode !== 0)
    throw new BridgeError('command_failed', `pm ${verb} failed${excerpt(out.text)}`, { exitCode: out.exitCode });
  const after = (await readPackagePermissions(shell, pkg, deadline.next())).runtime.get(permission);
  if (!after || after.granted !== grant) {
    const flags = (after ?? was).flags.filter((f) => /FIXED|RESTRICT/.test(f));
    throw new BridgeError(
      'command_failed',
      `the phone left ${permission} of ${pkg} ${grant ? 'not granted' : 'granted'}${flags.length ? ` (flags ${flags.join(', ')})` : ''}: Android leaves a permission fixed by the system or a device policy as it is and says nothing`,
    );
  }
  return { granted: after.granted, changed: after.granted !== was.granted };
}

/**
 * `pm grant|revoke [--user N] PACKAGE PERMISSION`. PackageManagerShellCommand
 * .runGrantRevokePermission prints only its own usage errors; the rest is the permission
 * service's, and changed with Android versions (AOSP sources in main/sim/QUIRKS.md):
 * - API ≤ 29 (PermissionManagerService.grantRuntimePermission): an unknown package throws
 *   `IllegalArgumentException: Unknown package: PKG`;
 * - API 30–34 (PermissionManagerService[Impl].grantRuntimePermissionInternal): an unknown
 *   package is only logged (nothing printed, exit 0); an unknown permission throws
 *   `Unknown permission: PERM`, an install-time one `Permission PERM requested by PKG is not a
 *   changeable permission type`, one the app does not request `Package PKG has not requested
 *   permission PERM` (SecurityException);
 * - API ≥ 35 (PermissionService.kt, the access-checking service): unknown package and a
 *   permission the app does not request are only logged; `Unknown permission PERM` (no
 *   colon) and `Permission PERM requested by package PKG is not a changeable permission type`.
 * On Xiaomi without "USB debugging (Security settings)" (the `inject-events-denied` quirk) the
 * shell lacks GRANT/REVOKE_RUNTIME_PERMISSIONS and the call throws a SecurityException.
 */
import type { CommandIo, PhoneContext } from './command-types';
import { reportShellException } from './java-exception';

/** The service's frames under the throw, per Android generation (grant; revoke names its own methods). */
function frames(sdk: number, grant: boolean): string[] {
  const verb = grant ? 'grant' : 'revoke';
  if (sdk >= 35) {
    return [
      `com.android.server.permission.access.permission.PermissionService.setRuntimePermissionGranted(PermissionService.kt:${grant ? 765 : 771})`,
      `com.android.server.permission.access.permission.PermissionService.${verb}RuntimePermission(PermissionService.kt:${grant ? 676 : 690})`,
      `com.android.server.pm.permission.PermissionManagerService.${verb}RuntimePermission(PermissionManagerService.java:${grant ? 613 : 620})`,
      `android.permission.PermissionManager.${verb}RuntimePermission(PermissionManager.java:${grant ? 642 : 715})`,
      'com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission(PackageManagerShellCommand.java:2727)',
      'com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:304)',
    ];
  }
  if (sdk >= 30) {
    return [
      `com.android.server.pm.permission.PermissionManagerServiceImpl.${verb}RuntimePermissionInternal(PermissionManagerServiceImpl.java:${grant ? 1395 : 1502})`,
      `com.android.server.pm.permission.PermissionManagerServiceImpl.${verb}RuntimePermission(PermissionManagerServiceImpl.java:${grant ? 1341 : 1481})`,
      `com.android.server.pm.permission.PermissionManagerService.${verb}RuntimePermission(PermissionManagerService.java:${grant ? 553 : 560})`,
      `android.permission.PermissionManager.${verb}RuntimePermission(PermissionManager.java:${grant ? 597 : 637})`,
      'com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission(PackageManagerShellCommand.java:2591)',
      'com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:302)',
    ];
  }
  return [
    `com.android.server.pm.permission.PermissionManagerService.${verb}RuntimePermission(PermissionManagerService.java:${grant ? 1423 : 1531})`,
    `com.android.server.pm.PackageManagerService.${verb}RuntimePermission(PackageManagerService.java:${grant ? 5990 : 5997})`,
    'com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission(PackageManagerShellCommand.java:1735)',
    'com.android.server.pm.PackageManagerShellCommand.onCommand(PackageManagerShellCommand.java:222)',
  ];
}

export function grantRevokeCommand(
  io: CommandIo,
  phone: PhoneContext,
  sub: 'grant' | 'revoke',
  args: readonly string[],
): number {
  const grant = sub === 'grant';
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--user') i++;
    else names.push(args[i] ?? '');
  }
  const [pkg, permission] = names;
  if (pkg === undefined) {
    io.err('Error: no package specified\n');
    return 1;
  }
  if (permission === undefined) {
    io.err('Error: no permission specified\n');
    return 1;
  }
  const sdk = phone.info.sdk;
  const thrown = (exception: string): number => reportShellException(io, 'package', sub, exception, frames(sdk, grant));
  if (phone.quirks.has('inject-events-denied')) {
    const needed = grant ? 'GRANT_RUNTIME_PERMISSIONS' : 'REVOKE_RUNTIME_PERMISSIONS';
    return reportShellException(
      io,
      'package',
      sub,
      `java.lang.SecurityException: ${sub}RuntimePermission: Neither user 2000 nor current process has android.permission.${needed}.`,
      [
        'android.app.ContextImpl.enforce(ContextImpl.java:2253)',
        'android.app.ContextImpl.enforceCallingOrSelfPermission(ContextImpl.java:2281)',
        ...frames(sdk, grant),
      ],
    );
  }
  const info = phone.packages.info(pkg);
  if (!info) return sdk <= 29 ? thrown(`java.lang.IllegalArgumentException: Unknown package: ${pkg}`) : 0;
  const permissions = phone.packages.permissions;
  const protection = permissions.protection(permission);
  if (protection === undefined)
    return thrown(`java.lang.IllegalArgumentException: Unknown permission${sdk >= 35 ? '' : ':'} ${permission}`);
  if (protection === 'install') {
    if (sdk >= 35)
      return thrown(
        `java.lang.SecurityException: Permission ${permission} requested by package ${pkg} is not a changeable permission type`,
      );
    return thrown(
      `java.lang.SecurityException: Permission ${permission} requested by ${pkg} is not a changeable permission type`,
    );
  }
  if (!phone.packages.requestedPermissions(pkg).includes(permission)) {
    // Android 15+ log "isn't requested by package" and return.
    return sdk >= 35
      ? 0
      : thrown(`java.lang.SecurityException: Package ${pkg} has not requested permission ${permission}`);
  }
  permissions.setGranted(pkg, permission, grant);
  return 0;
}

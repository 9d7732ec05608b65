/**
 * `dumpsys package PKG`: the lines tools read from it (appium-adb's getPackageInfo reads
 * `versionName=` and `versionCode=`), in the layout of Android 14's PackageManagerService
 * dump for one package, with its permissions: `requested permissions:` (the manifest),
 * `install permissions:` (granted at install) and, under `User 0:`, `runtime permissions:`
 * with each one's `granted=` and, from Android 10, its flags. An unknown package prints the
 * headers with no package section.
 */
import type { CommandIo, PhoneContext } from './command-types';
import { packageUid } from '../phone-packages';

function permissionLines(phone: PhoneContext, name: string): string[] {
  const { permissions } = phone.packages;
  const requested = phone.packages.requestedPermissions(name);
  const install = requested.filter((p) => permissions.protection(p) === 'install');
  const runtime = requested.filter((p) => permissions.protection(p) === 'runtime');
  // USER_SENSITIVE_WHEN_* came with Android 10; earlier dumps print no flags for these.
  const flags = phone.info.sdk >= 29 ? ', flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]' : '';
  return [
    ...(requested.length ? ['    requested permissions:', ...requested.map((p) => `      ${p}`)] : []),
    ...(install.length ? ['    install permissions:', ...install.map((p) => `      ${p}: granted=true`)] : []),
    '    User 0: ceDataInode=0 installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false',
    ...(install.includes('android.permission.INTERNET') ? ['      gids=[3003]'] : []),
    ...(runtime.length
      ? [
          '      runtime permissions:',
          ...runtime.map((p) => `        ${p}: granted=${permissions.isGranted(name, p)}${flags}`),
        ]
      : []),
    '',
  ];
}

export function dumpsysPackage(io: CommandIo, phone: PhoneContext, name: string | undefined): number {
  const info = name === undefined ? undefined : phone.packages.info(name);
  const lines = ['Activity Resolver Table:', '  Non-Data Actions:', '', 'Key Set Manager:', ''];
  if (info) {
    const codePath = info.apkPath.replace(/\/base\.apk$/, '');
    const uid = packageUid(info);
    lines.push(
      'Packages:',
      `  Package [${info.name}] (${uid.toString(16)}e1a2b):`,
      `    userId=${uid}`,
      `    pkg=Package{${uid.toString(16)}c3d4 ${info.name}}`,
      `    codePath=${codePath}`,
      `    resourcePath=${codePath}`,
      '    legacyNativeLibraryDir=' + `${codePath}/lib`,
      `    versionCode=${info.versionCode ?? 1} minSdk=24 targetSdk=34`,
      `    versionName=${info.versionName ?? '1.0'}`,
      '    usesNonSdkApi=false',
      `    flags=[ ${info.system ? 'SYSTEM ' : ''}HAS_CODE ALLOW_CLEAR_USER_DATA ]`,
      '    timeStamp=2026-01-01 00:00:00',
      ...permissionLines(phone, info.name),
    );
  }
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

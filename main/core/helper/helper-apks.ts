/**
 * Where the helper's two APKs are on this computer: inside the npm package
 * appium-uiautomator2-server (Apache-2.0), shipped with the bridge, so installing the helper
 * never downloads anything. In the packaged desktop app they sit in `app.asar.unpacked`
 * (electron-builder.yml's asarUnpack), since adb has to read them as plain files.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { HELPER_SERVER_PACKAGE, HELPER_TEST_PACKAGE } from './helper-protocol';

export interface HelperApks {
  version: string;
  serverApk: string;
  testApk: string;
}

let cached: HelperApks | null | undefined;

/** The packaged APKs, or null when the package is missing (the fast lane then stays off). */
export function findHelperApks(): HelperApks | null {
  if (cached !== undefined) return cached;
  try {
    const manifest = require.resolve('appium-uiautomator2-server/package.json');
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
    const dir = dirname(manifest).replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
    cached = {
      version,
      serverApk: join(dir, 'apks', `appium-uiautomator2-server-v${version}.apk`),
      testApk: join(dir, 'apks', 'appium-uiautomator2-server-debug-androidTest.apk'),
    };
  } catch {
    cached = null;
  }
  return cached;
}

/** The helper's two packages, each with the bundled APK it is installed from (and must equal once installed). */
export function bundledPackages(apks: HelperApks): Array<{ pkg: string; apk: string }> {
  return [
    { pkg: HELPER_SERVER_PACKAGE, apk: apks.serverApk },
    { pkg: HELPER_TEST_PACKAGE, apk: apks.testApk },
  ];
}

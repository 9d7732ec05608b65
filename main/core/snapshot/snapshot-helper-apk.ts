/**
 * Where the snapshot helper's APK is on this computer, and what it must be: Callstack's
 * `agent-device` (MIT, an npm dependency) ships `android/snapshot-helper/dist/` with the APK,
 * its SHA-256 and a manifest naming the package, version code, instrumentation runner and
 * status protocol. The bridge installs only an APK whose bytes hash to the manifest's SHA-256,
 * so a file changed on this computer is never put on a phone. In the packaged desktop app the
 * folder sits in `app.asar.unpacked` (electron-builder.yml's asarUnpack): adb reads plain files.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { z } from 'zod';
import { BridgeError } from '../errors';

/** The status-line protocol this module reads (agent-device's manifest names it). */
export const SNAPSHOT_STATUS_PROTOCOL = 'android-snapshot-helper-v1';

export interface SnapshotHelperApk {
  /** Absolute path of the APK file. */
  apkPath: string;
  /** SHA-256 (hex) the APK must hash to: the manifest's, not computed from the file. */
  sha256: string;
  packageName: string;
  versionCode: number;
  versionName: string;
  /** `package/.Class` given to `am instrument`. */
  runner: string;
  /** Lowest Android API level the APK installs on. */
  minSdk: number;
}

const ManifestSchema = z.object({
  name: z.literal('android-snapshot-helper'),
  version: z.string().min(1),
  assetName: z.string().regex(/^[\w.-]+\.apk$/),
  sha256: z.string().regex(/^[0-9a-f]{64}$/i),
  packageName: z.string().regex(/^[A-Za-z]\w*(\.[A-Za-z_]\w*)+$/),
  versionCode: z.number().int().positive(),
  instrumentationRunner: z.string().regex(/^[A-Za-z]\w*(\.[A-Za-z_]\w*)+\/[\w.$]+$/),
  minSdk: z.number().int().positive(),
  outputFormat: z.literal('uiautomator-xml'),
  statusProtocol: z.literal(SNAPSHOT_STATUS_PROTOCOL),
});

const HELPER_DIR = ['agent-device', 'android', 'snapshot-helper', 'dist'];

/**
 * The folder agent-device ships the helper in. Not `require.resolve('agent-device')`: the
 * package exports ESM only, so its entry cannot be resolved from this CommonJS build; the
 * lookup paths are the same node_modules folders Node would search.
 */
function defaultHelperDir(): string | null {
  for (const base of require.resolve.paths('agent-device') ?? []) {
    const dir = join(base, ...HELPER_DIR).replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
    if (existsSync(dir)) return dir;
  }
  return null;
}

/**
 * The bundled helper as its manifest describes it, or null when agent-device or its helper
 * folder is missing or the manifest is not one this bridge reads (the tree then stays on stock
 * `uiautomator dump`). `dir` is for tests; the default is agent-device's own folder.
 */
export function findSnapshotHelperApk(dir: string | null = defaultHelperDir()): SnapshotHelperApk | null {
  if (dir === null) return null;
  try {
    const manifestFile = readdirSync(dir).find((f) =>
      /^agent-device-android-snapshot-helper-.*\.manifest\.json$/.test(f),
    );
    if (!manifestFile) return null;
    const manifest = ManifestSchema.parse(JSON.parse(readFileSync(join(dir, manifestFile), 'utf8')));
    const apkPath = join(dir, manifest.assetName);
    if (!existsSync(apkPath)) return null;
    return {
      apkPath,
      sha256: manifest.sha256.toLowerCase(),
      packageName: manifest.packageName,
      versionCode: manifest.versionCode,
      versionName: manifest.version,
      runner: manifest.instrumentationRunner,
      minSdk: manifest.minSdk,
    };
  } catch {
    return null;
  }
}

/**
 * Reads the APK and checks its bytes against the manifest's SHA-256; returns the bytes. A
 * missing file or other bytes are helper_unavailable (reason apk_missing / apk_tampered) and
 * nothing is installed.
 */
export async function readVerifiedApk(apk: SnapshotHelperApk): Promise<Buffer> {
  let bytes: Buffer;
  try {
    bytes = await readFile(apk.apkPath);
  } catch {
    throw snapshotHelperError(
      'apk_missing',
      `the snapshot helper's APK is missing (${apk.apkPath})`,
      'reinstall the bridge; until then the tree is read with stock uiautomator dump',
    );
  }
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== apk.sha256) {
    throw snapshotHelperError(
      'apk_tampered',
      `the snapshot helper's APK on this computer is not the one shipped (SHA-256 ${actual.slice(0, 12)}…, expected ${apk.sha256.slice(0, 12)}…); it was not installed`,
      'reinstall the bridge to restore the shipped file; until then the tree is read with stock uiautomator dump',
      { expectedSha256: apk.sha256, actualSha256: actual },
    );
  }
  return bytes;
}

/** Why a snapshot helper call failed (`details.reason` of helper_unavailable). */
export type SnapshotHelperFailure =
  | 'apk_missing'
  | 'apk_tampered'
  | 'install_refused'
  | 'install_unverified'
  | 'not_installed'
  | 'start_refused'
  | 'crashed'
  | 'timeout'
  | 'accessibility_timeout'
  | 'helper_error'
  | 'malformed_output';

/** helper_unavailable with the reason, the fix in words (message and `details.fix`). */
export function snapshotHelperError(
  reason: SnapshotHelperFailure,
  what: string,
  fix: string,
  details: Record<string, unknown> = {},
): BridgeError {
  return new BridgeError('helper_unavailable', `${what}. Fix: ${fix}`, { ...details, reason, fix });
}

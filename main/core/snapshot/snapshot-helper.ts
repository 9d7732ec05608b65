/**
 * The UI tree without a listener: agent-device's snapshot helper (an instrumentation APK) is
 * started with `am instrument -w` for each read and prints the tree on its status lines, so
 * nothing on the phone listens on a port or socket an app or the network could reach; adb is
 * the only way in, as for every stock command.
 *
 * Owns: putting the helper on a phone only as the shipped bytes (hash before install, hash of
 * the installed base.apk after), one read with a deadline, and taking it off again. Callers
 * (the fast lane) decide when to use it and fall back to stock `uiautomator dump` on failure.
 */
import { BridgeError } from '../errors';
import type { DeviceShell, ShellRunOptions } from '../devices/device-shell';
import { OperationDeadline, runText } from '../devices/shell-quote';
import { installApk } from '../android/apps';
import { parseUiXml, type UiNode } from '../android/ui-tree';
import { installedApkSha256 } from '../android/installed-apk';
import { readVerifiedApk, snapshotHelperError, type SnapshotHelperApk } from './snapshot-helper-apk';
import { parseInstrumentOutput, xmlFromInstrumentOutput } from './snapshot-status';

export { findSnapshotHelperApk, type SnapshotHelperApk, type SnapshotHelperFailure } from './snapshot-helper-apk';

/**
 * Why results read through the snapshot helper say `toasts_watched: false`: a toast is an
 * accessibility event, and the helper only walks the windows at the moment of the read; it
 * runs for that read alone, so nothing listens for events between reads.
 */
export const SNAPSHOT_TOASTS_UNWATCHED_REASON =
  'the tree was read by the port-less snapshot helper, which runs only for the read and does not report toasts';

/** A helper checked on this phone: installed, and its base.apk hashes to the shipped APK. */
export interface SnapshotHelperHandle {
  readonly packageName: string;
  readonly runner: string;
  readonly versionCode: number;
  readonly sha256: string;
  /** What ensureSnapshotHelper found: already current, or installed now (and why). */
  readonly installed: 'current' | 'missing' | 'replaced';
}

export interface SnapshotTree {
  xml: string;
  nodes: UiNode[];
  /** Wall time of the read, from `am instrument` sent to its last line read. */
  durationMs: number;
  /** Always empty: the helper does not report toasts (SNAPSHOT_TOASTS_UNWATCHED_REASON). */
  toasts: never[];
  toastsWatched: false;
  toastsUnwatchedReason: string;
}

export interface ReadSnapshotOptions {
  helper: SnapshotHelperHandle;
  /** Deadline for the whole read, force-stop after a failure included; default 15 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface EnsureOptions {
  /** Deadline for the check and any install; default 120 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const REMOTE_APK = '/data/local/tmp/xagent-snapshot-helper.apk';
const DEFAULT_ENSURE_TIMEOUT_MS = 120_000;
const DEFAULT_READ_TIMEOUT_MS = 15_000;
const CLEANUP_TIMEOUT_MS = 5_000;
/**
 * What the helper is asked for (agent-device's own defaults): wait at most 500 ms for the
 * screen to be idle, counting it idle after 100 ms without accessibility events (stock
 * `uiautomator dump` waits for a full second of quiet), and stop at 128 levels / 5000 nodes.
 */
const HELPER_ARGS = { waitForIdleTimeoutMs: 500, waitForIdleQuietMs: 100, maxDepth: 128, maxNodes: 5000 } as const;
/** am prints the whole tree as base64 status lines: 4/3 of the XML, which the parser caps at 16 MiB. */
const MAX_OUTPUT_BYTES = 24 * 1024 * 1024;

/**
 * Makes sure the bundled snapshot helper is on the phone as shipped: the APK here must hash to
 * its manifest's SHA-256 (else helper_unavailable apk_tampered, nothing installed); the phone's
 * Android must be at least the APK's minSdk (else tool_unavailable); the installed base.apk is
 * hashed on the phone (`pm path` + `sha256sum`: a few milliseconds of phone time, no pull) and
 * the APK installed when it is missing or differs (another version, or a planted package under
 * the helper's name). After an install the hash is read again; a phone that kept other bytes
 * is install_unverified.
 */
export async function ensureSnapshotHelper(
  shell: DeviceShell,
  apk: SnapshotHelperApk,
  options: EnsureOptions = {},
): Promise<SnapshotHelperHandle> {
  const deadline = new OperationDeadline(options, DEFAULT_ENSURE_TIMEOUT_MS, 'checking the snapshot helper');
  const bytes = await readVerifiedApk(apk);
  const sdk = Number((await runText(shell, ['getprop', 'ro.build.version.sdk'], deadline.next())).text.trim());
  if (Number.isInteger(sdk) && sdk > 0 && sdk < apk.minSdk) {
    const fix =
      'on this phone the tree is read with stock uiautomator dump; the snapshot helper needs Android 6 or newer';
    throw new BridgeError(
      'tool_unavailable',
      `the snapshot helper needs Android API ${apk.minSdk} or newer; this phone has API ${sdk}. Fix: ${fix}`,
      { reason: 'android_too_old', sdk, minSdk: apk.minSdk, fix },
    );
  }
  const before = await installedApkSha256(shell, apk.packageName, deadline.next());
  const handle = (installed: SnapshotHelperHandle['installed']): SnapshotHelperHandle => ({
    packageName: apk.packageName,
    runner: apk.runner,
    versionCode: apk.versionCode,
    sha256: apk.sha256,
    installed,
  });
  if ('sha256' in before && before.sha256 === apk.sha256) return handle('current');

  await shell.push(bytes, REMOTE_APK, deadline.next());
  try {
    await installOnce(shell, deadline);
  } catch (error) {
    if (
      !(error instanceof BridgeError) ||
      error.code !== 'command_failed' ||
      !/UPDATE_INCOMPATIBLE/.test(error.message)
    )
      throw refused(error);
    // Another package under the helper's name, signed by someone else: it goes, ours comes.
    await runText(shell, ['pm', 'uninstall', apk.packageName], deadline.next());
    await installOnce(shell, deadline).catch((again: unknown) => {
      throw refused(again);
    });
  } finally {
    await runText(shell, ['rm', '-f', REMOTE_APK], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(
      () => undefined,
    );
  }
  const after = await installedApkSha256(shell, apk.packageName, deadline.next());
  if (!('sha256' in after) || after.sha256 !== apk.sha256)
    throw snapshotHelperError(
      'install_unverified',
      `the snapshot helper was installed, but the phone holds other bytes (${'sha256' in after ? `SHA-256 ${after.sha256.slice(0, 12)}…` : after.problem})`,
      'uninstall com.callstack.agentdevice.snapshothelper from the phone and try again',
    );
  return handle('sha256' in before ? 'replaced' : 'missing');
}

function installOnce(shell: DeviceShell, deadline: OperationDeadline): Promise<void> {
  return installApk(shell, REMOTE_APK, deadline.next());
}

/** A refused install as helper_unavailable install_refused, keeping the phone's own fix. */
function refused(error: unknown): BridgeError {
  if (error instanceof BridgeError && (error.code === 'canceled' || error.code === 'command_timeout')) return error;
  const inner = error instanceof BridgeError ? error : undefined;
  const fix =
    typeof inner?.details?.fix === 'string' ? inner.details.fix : 'check the phone for a prompt, then try again';
  const what = (inner?.message ?? String(error)).replace(/\s*Fix: .*$/s, '');
  return snapshotHelperError('install_refused', `the phone refused the snapshot helper's install: ${what}`, fix, {
    cause: inner?.code ?? 'internal_error',
  });
}

/**
 * One read of the screen's tree through the helper: `am instrument -w` until it prints its
 * final result, then the XML from its status lines, parsed into the project's UiNode list.
 *
 * The instrumentation's process must be gone after every read: Android allows one
 * UiAutomation connection at a time, and while the helper holds it every stock `uiautomator
 * dump` (the fallback) and any other automation on the phone fails. A read that finishes
 * ends it by itself (the system force-stops an instrumentation's package when it finishes,
 * unless `--no-restart`); a read cut short — the deadline, an abort, a crash — has no such
 * guarantee (closing `am`'s stream does not stop the instrumentation), so it is force-stopped.
 */
export async function readSnapshotTree(shell: DeviceShell, options: ReadSnapshotOptions): Promise<SnapshotTree> {
  const { helper } = options;
  const deadline = new OperationDeadline(options, DEFAULT_READ_TIMEOUT_MS, 'reading the tree with the snapshot helper');
  const started = performance.now();
  // Leaves room for the force-stop a failed read needs, inside the caller's deadline.
  const budget = deadline.next();
  const runOptions: ShellRunOptions = { ...budget, timeoutMs: Math.max(1, budget.timeoutMs - 1_000) };
  const helperTimeoutMs = Math.max(1_000, runOptions.timeoutMs - 500);
  const argv = [
    'am',
    'instrument',
    '-w',
    ...Object.entries({ ...HELPER_ARGS, timeoutMs: helperTimeoutMs }).flatMap(([k, v]) => ['-e', k, String(v)]),
    helper.runner,
  ];
  let finished = false;
  try {
    let out;
    try {
      out = await shell.run(argv, runOptions);
    } catch (error) {
      if (error instanceof BridgeError && error.code === 'command_timeout')
        throw snapshotHelperError(
          'timeout',
          `the snapshot helper did not answer within ${runOptions.timeoutMs} ms`,
          'try again; a phone this slow is better read with a screenshot',
        );
      throw error;
    }
    if (out.stdout.length > MAX_OUTPUT_BYTES)
      throw new BridgeError(
        'screen_unreadable',
        `the screen's UI tree is too large to read (${Math.round(out.stdout.length / 1048576)} MB from the helper). Fix: use android_screenshot and tap by coordinates, or scroll to a simpler screen`,
      );
    const parsed = parseInstrumentOutput(out.stdout.toString('utf8'));
    // A final result means the system finished the instrumentation (and stopped its package).
    finished = parsed.result !== null;
    const xml = xmlFromInstrumentOutput(parsed, out.exitCode);
    return {
      xml,
      nodes: parseUiXml(xml),
      durationMs: performance.now() - started,
      toasts: [],
      toastsWatched: false,
      toastsUnwatchedReason: SNAPSHOT_TOASTS_UNWATCHED_REASON,
    };
  } finally {
    if (!finished) await stopHelperProcess(shell, helper.packageName);
  }
}

/** `am force-stop`: ends the instrumentation and frees UiAutomation; a failure is passed over (best effort, bounded). */
async function stopHelperProcess(shell: DeviceShell, packageName: string): Promise<void> {
  await runText(shell, ['am', 'force-stop', packageName], OperationDeadline.cleanup(CLEANUP_TIMEOUT_MS)).catch(
    () => undefined,
  );
}

/** Stops and uninstalls the helper; a phone without it is fine. */
export async function removeSnapshotHelper(
  shell: DeviceShell,
  apk: Pick<SnapshotHelperApk, 'packageName'>,
  options: EnsureOptions = {},
): Promise<void> {
  const deadline = new OperationDeadline(options, 60_000, 'removing the snapshot helper');
  await stopHelperProcess(shell, apk.packageName);
  const out = await runText(shell, ['pm', 'uninstall', apk.packageName], deadline.next());
  if (/^Success/m.test(out.text) || /not installed|Unknown package|DELETE_FAILED_INTERNAL_ERROR/i.test(out.text))
    return;
  throw new BridgeError(
    'command_failed',
    `the snapshot helper could not be uninstalled: ${out.text.trim().slice(0, 200)}`,
  );
}

/**
 * Putting the helper's two APKs on a phone, and taking them off again.
 *
 * Install checks the installed version (`dumpsys package`) and skips when it is equal and the
 * installed files are the bridge's own copy; a refused install leaves the helper failed with
 * the phone's reason (until enabled again), and the stock lane works.
 */
import { createReadStream } from 'node:fs';
import { BridgeError, isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';
import { installApk } from '../android/apps';
import { bundledPackages } from './helper-apks';
import { HELPER_VERIFY_TIMEOUT_MS, helperMismatch } from './helper-guard';
import {
  HELPER_SERVER_PACKAGE,
  HELPER_STOP_ARGV,
  HELPER_TEST_PACKAGE,
  parseInstalledUid,
  parseInstalledVersion,
} from './helper-protocol';
import { SHORT_COMMAND_MS } from '../devices/deadline';
import { helperError, type HelperContext, type PhoneHelper } from './phone-helper';

const INSTALL_TIMEOUT_MS = 180_000;
const PUSH_TIMEOUT_MS = 120_000;
const UNINSTALL_TIMEOUT_MS = 60_000;

/**
 * Puts the bundled helper on the phone unless the phone already holds the bridge's own copy of
 * this version (the first part of a start: the lifecycle's verify step, or enable's prepare),
 * and reads the server app's uid for the guard. Throws a `uia2_install_refused` failure with
 * the phone's words when refused.
 */
export async function installHelper(
  context: HelperContext,
  phone: PhoneHelper,
  shell: DeviceShell,
  signal?: AbortSignal,
): Promise<void> {
  const apks = context.apks;
  if (!apks) throw new BridgeError('tool_unavailable', 'this build carries no appium-uiautomator2-server');
  const short = { timeoutMs: SHORT_COMMAND_MS, ...(signal ? { signal } : {}) };
  try {
    const [serverDump, testDump] = await Promise.all(
      [HELPER_SERVER_PACKAGE, HELPER_TEST_PACKAGE].map(
        async (pkg) => (await runText(shell, ['dumpsys', 'package', pkg], short)).text,
      ),
    );
    const server = parseInstalledVersion(serverDump ?? '', HELPER_SERVER_PACKAGE);
    const test = parseInstalledVersion(testDump ?? '', HELPER_TEST_PACKAGE);
    // A helper left running by an earlier bridge (stopped without its stop, say) would hold
    // UiAutomation while this bridge thinks it stopped: end it first.
    if (server !== null) await runText(shell, HELPER_STOP_ARGV, short).catch(() => undefined);
    // The same version name is not enough: a package planted under the helper's name
    // (signed with the same public test key) is replaced by the bridge's own copy.
    const current =
      server === apks.version &&
      test !== null &&
      (await helperMismatch(shell, bundledPackages(apks), { timeoutMs: HELPER_VERIFY_TIMEOUT_MS })) === null;
    if (!current) {
      for (const [path, name] of [
        [apks.serverApk, 'server'],
        [apks.testApk, 'test'],
      ] as const) {
        signal?.throwIfAborted();
        const remote = `/data/local/tmp/xagent-helper-${name}.apk`;
        await shell.push(createReadStream(path), remote, { timeoutMs: PUSH_TIMEOUT_MS });
        try {
          await installApk(shell, remote, { timeoutMs: INSTALL_TIMEOUT_MS });
        } finally {
          await shell.run(['rm', '-f', remote], { timeoutMs: SHORT_COMMAND_MS }).catch(() => undefined);
        }
      }
    }
    // The uid the server app has now: read before when nothing was installed, else again.
    const dump = current
      ? (serverDump ?? '')
      : (await runText(shell, ['dumpsys', 'package', HELPER_SERVER_PACKAGE], short)).text;
    phone.helperUid = parseInstalledUid(dump, HELPER_SERVER_PACKAGE);
  } catch (error) {
    if (signal?.aborted) throw error;
    const message = `the helper could not be installed: ${(error instanceof Error ? error.message : String(error)).slice(0, 300)}`;
    // The phone's own code (install_blocked, …) is kept: its fix is known by it.
    if (isBridgeError(error) && error.code !== 'tool_unavailable')
      throw new BridgeError(error.code, message, { reason: 'uia2_install_refused' });
    throw helperError('uia2_install_refused', message);
  }
}

/** Uninstalls both helper packages; one that is not there (or will not go) is passed over. */
export async function uninstallHelper(shell: DeviceShell): Promise<void> {
  for (const pkg of [HELPER_TEST_PACKAGE, HELPER_SERVER_PACKAGE]) {
    await runText(shell, ['pm', 'uninstall', pkg], { timeoutMs: UNINSTALL_TIMEOUT_MS }).catch(() => undefined);
  }
}

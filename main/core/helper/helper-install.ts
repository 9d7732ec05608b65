/**
 * Putting the helper's two APKs on a phone, and taking them off again.
 *
 * Install checks the installed version (`dumpsys package`) and skips when it is equal and the
 * installed files are the bridge's own copy; a refused install leaves the phone `failed` with
 * the phone's reason, and the stock lane works.
 */
import { createReadStream } from 'node:fs';
import { isBridgeError } from '../errors';
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
import { COMMAND_TIMEOUT_MS, failHelper, type HelperContext, type PhoneHelper } from './phone-helper';

const INSTALL_TIMEOUT_MS = 180_000;
const PUSH_TIMEOUT_MS = 120_000;
const UNINSTALL_TIMEOUT_MS = 60_000;

/**
 * Installs the bundled helper on the phone in the background (once at a time: a second call
 * gets the install under way). Leaves the phone `stopped` when done, `failed` when refused.
 */
export function installHelper(context: HelperContext, phone: PhoneHelper): Promise<void> {
  if (phone.installing) return phone.installing;
  const apks = context.apks;
  const shell = context.shellFor(phone.deviceId);
  if (!apks || !shell || phone.state === 'running' || phone.state === 'starting') return Promise.resolve();
  phone.state = 'installing';
  phone.lastError = null;
  phone.lastErrorCode = null;
  context.changed();
  const work = (async () => {
    try {
      const [serverDump, testDump] = await Promise.all(
        [HELPER_SERVER_PACKAGE, HELPER_TEST_PACKAGE].map(
          async (pkg) => (await runText(shell, ['dumpsys', 'package', pkg], { timeoutMs: COMMAND_TIMEOUT_MS })).text,
        ),
      );
      const server = parseInstalledVersion(serverDump ?? '', HELPER_SERVER_PACKAGE);
      const test = parseInstalledVersion(testDump ?? '', HELPER_TEST_PACKAGE);
      // A helper left running by an earlier bridge (stopped without its stop, say) would hold
      // UiAutomation while this bridge thinks it stopped: end it first.
      if (server !== null)
        await runText(shell, HELPER_STOP_ARGV, { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => undefined);
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
          const remote = `/data/local/tmp/xagent-helper-${name}.apk`;
          await shell.push(createReadStream(path), remote, { timeoutMs: PUSH_TIMEOUT_MS });
          try {
            await installApk(shell, remote, { timeoutMs: INSTALL_TIMEOUT_MS });
          } finally {
            await shell.run(['rm', '-f', remote], { timeoutMs: COMMAND_TIMEOUT_MS }).catch(() => undefined);
          }
        }
      }
      if (context.bridgeStopped()) return;
      // The uid the server app has now: read before when nothing was installed, else again.
      const dump = current
        ? (serverDump ?? '')
        : (await runText(shell, ['dumpsys', 'package', HELPER_SERVER_PACKAGE], { timeoutMs: COMMAND_TIMEOUT_MS })).text;
      phone.helperUid = parseInstalledUid(dump, HELPER_SERVER_PACKAGE);
      phone.version = apks.version;
      phone.state = 'stopped';
      context.changed();
    } catch (error) {
      const code = isBridgeError(error) ? error.code : 'internal_error';
      const message = error instanceof Error ? error.message : String(error);
      failHelper(context, phone, `the helper could not be installed: ${message.slice(0, 300)}`, code);
    } finally {
      phone.installing = undefined;
    }
  })();
  phone.installing = work;
  return work;
}

/** Uninstalls both helper packages; one that is not there (or will not go) is passed over. */
export async function uninstallHelper(shell: DeviceShell): Promise<void> {
  for (const pkg of [HELPER_TEST_PACKAGE, HELPER_SERVER_PACKAGE]) {
    await runText(shell, ['pm', 'uninstall', pkg], { timeoutMs: UNINSTALL_TIMEOUT_MS }).catch(() => undefined);
  }
}

/**
 * The xagent UI reader's jar: where it is on this computer (resources/device/, built by
 * scripts/build-ui-reader.mjs), where it goes on the phone (device/ui-reader/README.md), and the
 * check that the phone's copy has the jar's bytes before every start — a missing or tampered
 * copy is pushed again; a copy that still differs is never run. In the packaged app the folder
 * sits in `app.asar.unpacked` (electron-builder.yml's asarUnpack): adb pushes plain files.
 */
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { projectRoot } from '../build-info';
import type { DeviceShell } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';
import { installCheckedFiles, localFileSha256 } from '../program-lifecycle/checked-files';

/** The reader's own folder on the phone: the shell user's, mode 700. */
export const UI_READER_DIR = '/data/local/tmp/xagent-ui-reader';
export const UI_READER_JAR_REMOTE = `${UI_READER_DIR}/ui-reader-v1.jar`;
/** Written by the dumper for each read, read back and deleted at once by the reader. */
export const UI_READER_DUMP_FILE = `${UI_READER_DIR}/dump.xml`;
/** Where `uiautomator dump` itself comes from: the reader uses its classes and nothing else. */
export const PHONE_UIAUTOMATOR_JAR = '/system/framework/uiautomator.jar';
export const UI_READER_MAIN_CLASS = 'com.xagent.bridge.UiReader';
const LOCAL_NAME = 'xagent-ui-reader.jar';

/** The jar in this build (the asar-unpacked copy in the packaged app), or null when the build carries none. */
export function uiReaderJarLocalPath(root = projectRoot()): string | null {
  const path = join(root, 'resources', 'device', LOCAL_NAME).replace(`app.asar${sep}`, `app.asar.unpacked${sep}`);
  return existsSync(path) ? path : null;
}

/**
 * Puts the jar on the phone unless its copy already has the local jar's bytes, then checks the
 * copy again: throws BridgeError('command_failed', reason `reader_jar_mismatch`) when it still differs,
 * and the reader is not run.
 */
export async function installUiReaderJar(shell: DeviceShell, local: string, signal?: AbortSignal): Promise<void> {
  await installCheckedFiles(
    shell,
    {
      files: [{ local, sha256: localFileSha256(local), remote: UI_READER_JAR_REMOTE }],
      dir: UI_READER_DIR,
      // Only the shell user reads the folder: the dump written there is the screen's text.
      dirMode: '700',
      what: 'UI reader',
      reason: 'reader_jar_mismatch',
    },
    signal,
  );
}

/** Takes the reader's folder off the phone (the admin's Remove). */
export async function removeUiReader(shell: DeviceShell, options: { timeoutMs: number }): Promise<void> {
  await runText(shell, ['rm', '-rf', UI_READER_DIR], options);
}

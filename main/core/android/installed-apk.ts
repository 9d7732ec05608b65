/**
 * The SHA-256 of a package's installed APK, read on the phone: how the bridge proves a program
 * it installs (the open-ports helper, the snapshot helper) is its own copy before it runs it.
 */
import { createHash } from 'node:crypto';
import { BridgeError } from '../errors';
import type { DeviceShell, ShellRunOptions } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';

const MAX_PULLED_APK_BYTES = 128 * 1024 * 1024;

/**
 * SHA-256 of a package's installed base.apk, or a reason it cannot be had (not installed,
 * split APKs). Hashed on the phone (toybox `sha256sum`); on a phone without it the file is
 * pulled and hashed here.
 */
export async function installedApkSha256(
  shell: DeviceShell,
  pkg: string,
  options: ShellRunOptions,
): Promise<{ sha256: string } | { problem: string }> {
  const paths = (await runText(shell, ['pm', 'path', pkg], options)).text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('package:'))
    .map((l) => l.slice('package:'.length));
  if (paths.length === 0) return { problem: `${pkg} is not installed` };
  if (paths.length !== 1 || !paths[0]?.endsWith('/base.apk'))
    return { problem: `${pkg} is installed as ${paths.length} files, not the one APK the bridge installs` };
  const path = paths[0];
  const summed = await runText(shell, ['sha256sum', path], options);
  const hex = /^([0-9a-f]{64})\s/.exec(summed.text.trim() + ' ')?.[1];
  if (hex) return { sha256: hex };
  if (summed.exitCode === 127 || /not found|inaccessible/i.test(summed.text)) {
    const bytes = await shell.pull(path, options);
    if (bytes.length > MAX_PULLED_APK_BYTES) return { problem: `${pkg}'s APK is larger than any the bridge installs` };
    return { sha256: createHash('sha256').update(bytes).digest('hex') };
  }
  throw new BridgeError(
    'command_failed',
    `could not hash ${pkg}'s installed APK: ${summed.text.trim().slice(0, 160) || `exit ${summed.exitCode ?? '?'}`}`,
  );
}

/**
 * The names people know a phone's apps by, as its launcher shows them. Android's shell has no
 * command that prints an app's label (`pm` and `dumpsys package` give packages and resource
 * ids only; `cmd package query-activities` a label only when the manifest spells it out), so
 * the bridge asks the one program it already runs on the phone that can: scrcpy-server's
 * `list_apps=true` (scrcpy ≥ 2.1, `scrcpy --list-apps`) loads each launchable app's label in
 * the phone's language and prints one line per app:
 *
 *     [server] INFO: List of apps:
 *      * Settings                       com.android.settings
 *      - Notes                          com.example.notes
 *
 * (`*` a system app, `-` an installed one; a name of 30 characters or more puts the package on
 * the next line.) `cleanup=false`: in a list run the server would otherwise delete its own jar.
 */
import { BridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine, excerpt, runText } from '../devices/shell-quote';
import { installScrcpyJar, SCRCPY_JAR_REMOTE, SCRCPY_VERSION } from './scrcpy-input-session';

const MAIN_CLASS = 'com.genymobile.scrcpy.Server';
const PACKAGE_RE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/;
const APP_LINE = /^ [*-] (.*)$/;

/** Package → label from scrcpy-server's app list; lines that are not an app's are skipped. */
export function parseScrcpyAppList(output: string): Map<string, string> {
  const labels = new Map<string, string>();
  const lines = output.replaceAll('\r\n', '\n').split('\n');
  const start = lines.findIndex((l) => l.endsWith('List of apps:'));
  if (start < 0) return labels;
  let pending: string | null = null;
  for (const line of lines.slice(start + 1)) {
    const app = APP_LINE.exec(line);
    if (app?.[1] !== undefined) {
      const words = app[1].trimEnd();
      const cut = words.search(/\s+\S+$/);
      const pkg = cut < 0 ? '' : words.slice(cut).trim();
      if (cut > 0 && PACKAGE_RE.test(pkg)) {
        labels.set(pkg, words.slice(0, cut).trim());
        pending = null;
      } else pending = words.trim();
      continue;
    }
    // A long name's package, alone and indented on the next line.
    const alone = /^\s+(\S+)\s*$/.exec(line)?.[1];
    if (pending !== null && alone !== undefined && PACKAGE_RE.test(alone)) labels.set(alone, pending);
    else if (!/^\s/.test(line)) break;
    pending = null;
  }
  return labels;
}

/**
 * Runs scrcpy-server's app list on the phone (its jar pushed first if the phone's copy is not
 * this build's) and reads it. Throws a BridgeError when the server does not print a list.
 */
export async function readScrcpyAppList(
  shell: DeviceShell,
  jar: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<Map<string, string>> {
  await installScrcpyJar(shell, jar, options.signal);
  const line = `CLASSPATH=${SCRCPY_JAR_REMOTE} ${buildCommandLine([
    'app_process',
    '/',
    MAIN_CLASS,
    SCRCPY_VERSION,
    'list_apps=true',
    'cleanup=false',
    'log_level=info',
  ])}`;
  const out = await runText(shell, ['sh', '-c', line], options);
  if (!/List of apps:/.test(out.text))
    throw new BridgeError('command_failed', `scrcpy-server printed no app list${excerpt(out.text)}`, {
      exitCode: out.exitCode,
    });
  return parseScrcpyAppList(out.text);
}

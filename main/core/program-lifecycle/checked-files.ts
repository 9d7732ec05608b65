/**
 * The bridge's own files on a phone (scrcpy-server's jar, the UI reader's jar, minicap): each is
 * checked with `sha256sum` against the package's bytes before every start, pushed when it
 * differs, and checked again; a copy that still differs is never run.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { BridgeError } from '../errors';
import { SHORT_COMMAND_MS } from '../devices/deadline';
import type { DeviceShell } from '../devices/device-shell';
import { runText } from '../devices/shell-quote';

/** The push of one file (`sha256sum` and `mkdir` are short commands). */
const PUSH_MS = 30_000;

const localHashes = new Map<string, string>();

/** A file of the bridge's package, hashed once per path (the package does not change while it runs). */
export function localFileSha256(path: string): string {
  let hash = localHashes.get(path);
  if (!hash) {
    hash = createHash('sha256').update(readFileSync(path)).digest('hex');
    localHashes.set(path, hash);
  }
  return hash;
}

/** `sha256sum` output → path → hash (a file it could not read has no entry). */
export function parseSha256sum(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]{64})\s+\*?(\S.*)$/.exec(line.trim());
    if (m?.[1] && m[2]) out.set(m[2], m[1]);
  }
  return out;
}

/** One program's files for a phone: where each goes and the bytes it must have there. */
export interface CheckedFiles {
  files: ReadonlyArray<{ local: string; remote: string; sha256: string; mode?: number }>;
  /** The folder they go in, made when one is pushed (a push makes missing folders with default modes). */
  dir?: string;
  /** chmod for that folder when it is made (a folder whose files only the shell user may read). */
  dirMode?: string;
  /** How the refusal names the program ("scrcpy-server", "UI reader", "minicap"). */
  what: string;
  /** `details.reason` of the refusal, when the program has one. */
  reason?: string;
}

/**
 * Puts each file on the phone unless its copy already has the package's bytes, then checks
 * them all again: BridgeError('command_failed') naming those that still differ (none is run).
 */
export async function installCheckedFiles(shell: DeviceShell, set: CheckedFiles, signal?: AbortSignal): Promise<void> {
  const options = { timeoutMs: SHORT_COMMAND_MS, ...(signal ? { signal } : {}) };
  const remote = set.files.map((f) => f.remote);
  const onPhone = async (): Promise<Map<string, string>> =>
    parseSha256sum((await runText(shell, ['sha256sum', ...remote], options)).text);
  const before = await onPhone();
  const differ = set.files.filter((f) => before.get(f.remote) !== f.sha256);
  if (differ.length === 0) return;
  if (set.dir) {
    await runText(shell, ['mkdir', '-p', set.dir], options);
    if (set.dirMode) await runText(shell, ['chmod', set.dirMode, set.dir], options);
  }
  for (const file of differ)
    await shell.push(readFileSync(file.local), file.remote, {
      ...options,
      timeoutMs: PUSH_MS,
      mode: file.mode ?? 0o644,
    });
  const after = await onPhone();
  const wrong = set.files.filter((f) => after.get(f.remote) !== f.sha256);
  if (wrong.length > 0)
    throw new BridgeError(
      'command_failed',
      `the phone’s copy of ${wrong.map((f) => f.remote).join(', ')} is not the bridge’s ${set.what}; it was not run`,
      set.reason ? { reason: set.reason } : undefined,
    );
}

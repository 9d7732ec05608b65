/**
 * Waiting on what a folder holds: checked now and again on each change the file system
 * reports for it (fs.watch), for work the code under test does on disk in the background.
 */
import { readdirSync, watch } from 'node:fs';

/** Resolves once `check` holds for `dir`; fails after `timeoutMs` listing what the folder holds. */
export async function untilFolder(dir: string, check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  let recheck = (): void => undefined;
  // Watching starts before the first check, so no change can fall between the two.
  const watcher = watch(dir, () => recheck());
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `timed out after ${timeoutMs} ms waiting for ${what}; ${dir} holds ${JSON.stringify(readdirSync(dir))}`,
            ),
          ),
        timeoutMs,
      );
      recheck = () => {
        if (!check()) return;
        clearTimeout(timer);
        resolve();
      };
      recheck();
    });
  } finally {
    watcher.close();
  }
}

/**
 * Whether a phone's screen is awake and whether its lock screen is up, read from the
 * `dumpsys power` and `dumpsys window` lines other tools read for the same question
 * (Appium's appium-adb `lib/tools/lockmgmt.js`). The lines differ by Android version:
 *   - power: `mWakefulness=Awake|Asleep|Dozing|Dreaming` (Android 5+);
 *   - window, Android 8–9: `mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=true`;
 *   - window, Android 10+: `KeyguardServiceDelegate` with `showing=true` and `secure=true|false`,
 *     and `KeyguardStateMonitor` with `mIsShowing=true` and `mInputRestricted=true`.
 * A parser that finds none of its lines answers null (unknown), never a guess.
 */

export type Wakefulness = 'Awake' | 'Asleep' | 'Dozing' | 'Dreaming';

/** `mWakefulness=…` from `dumpsys power`, or null when the line is missing or unexpected. */
export function parseWakefulness(output: string): Wakefulness | null {
  const value = /mWakefulness=(\w+)/.exec(output)?.[1];
  return value === 'Awake' || value === 'Asleep' || value === 'Dozing' || value === 'Dreaming' ? value : null;
}

export interface KeyguardState {
  showing: boolean;
  /** True when the lock screen asks for a PIN, pattern or password; null when the output does not say. */
  secure: boolean | null;
}

/** The lock screen as `dumpsys window` reports it, or null when none of the known lines is there. */
export function parseKeyguard(output: string): KeyguardState | null {
  const delegate = delegateBlock(output);
  if (delegate !== null) {
    const showing = /\bshowing=(true|false)/.exec(delegate)?.[1];
    const secure = /\bsecure=(true|false)/.exec(delegate)?.[1];
    if (showing !== undefined)
      return { showing: showing === 'true', secure: secure === undefined ? null : secure === 'true' };
  }
  const monitor = /KeyguardStateMonitor\s*\n[ \t]+mIsShowing=(true|false)/.exec(output)?.[1];
  if (monitor !== undefined) {
    const simSecure = /mSimSecure=(true|false)/.exec(output)?.[1];
    const secure = /\bmSecure=(true|false)/.exec(output)?.[1] ?? simSecure;
    return { showing: monitor === 'true', secure: secure === undefined ? null : secure === 'true' };
  }
  const legacy = /mShowingLockscreen=(true|false)/.exec(output)?.[1];
  const dreaming = /mDreamingLockscreen=(true|false)/.exec(output)?.[1];
  if (legacy !== undefined || dreaming !== undefined)
    return { showing: legacy === 'true' || dreaming === 'true', secure: null };
  return null;
}

/** The `key=value` lines right under `KeyguardServiceDelegate`, or null when it is not there. */
function delegateBlock(output: string): string | null {
  const lines = output.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === 'KeyguardServiceDelegate');
  if (start < 0) return null;
  const block: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!/^\s+\w+=\S*\s*$/.test(line)) break;
    block.push(line.trim());
  }
  return block.join('\n');
}

/** `df /data` (toybox): the Available column of its one data row, in KiB; null when unreadable. */
export function parseDfAvailableKib(output: string): number | null {
  const lines = output.trim().split('\n');
  const header = lines[0]?.trim().split(/\s+/) ?? [];
  const column = header.findIndex((h) => /^avail/i.test(h));
  // "Mounted on" is one column in two words: a data row has one word fewer than the header.
  const row = lines
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .find((cols) => cols.length > column && cols.length >= header.length - 1);
  if (column < 0 || row === undefined) return null;
  const value = row[column] ?? '';
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)$/i.exec(value);
  if (!m) return null;
  const scale: Record<string, number> = { '': 1, K: 1, M: 1024, G: 1024 ** 2, T: 1024 ** 3 };
  // toybox `df` without -h prints 1K blocks; with a unit suffix the unit says.
  return Math.round(Number(m[1]) * (scale[(m[2] ?? '').toUpperCase()] ?? 1));
}

/**
 * Named quirks a simulated phone can carry: the ways phones people own fail, each
 * reproducing the real phone's output, exit status and (where it matters) timing. Where
 * each one comes from and what the bridge does about it: main/sim/QUIRKS.md.
 */
import type { TimingProfile } from './timing-profiles';

export const QUIRK_NAMES = [
  /** MIUI/HyperOS without "USB debugging (Security settings)": every `input` injection throws SecurityException. */
  'inject-events-denied',
  /** "Install via USB" off (Xiaomi): `pm install` answers INSTALL_FAILED_USER_RESTRICTED. */
  'install-user-restricted',
  /** A newer version of the app is installed: INSTALL_FAILED_VERSION_DOWNGRADE. */
  'install-version-downgrade',
  /** The phone's storage is full: INSTALL_FAILED_INSUFFICIENT_STORAGE. */
  'install-insufficient-storage',
  /** "Verify apps over USB": the install waits for the verifier prompt, nobody answers, INSTALL_FAILED_VERIFICATION_FAILURE. */
  'install-verifier-timeout',
  /** Animation or video never lets the UI settle: `uiautomator dump` waits 10 s, then "ERROR: could not get idle state.". */
  'ui-dump-idle-timeout',
  /** No active window root (screen off, transitions, some Android 9 builds): "ERROR: null root node returned by UiTestAutomationBridge.". */
  'ui-dump-null-root',
  /** The dump is an empty `<hierarchy rotation="0" />`. */
  'ui-dump-empty',
  /** The dump says it was written, but nothing can be read back (no XML on /dev/tty, the file is missing). */
  'ui-dump-unreadable',
  /** The screen holds several thousand nodes (a long web page, a big grid). */
  'ui-huge-tree',
  /** The screen is off (mWakefulness=Asleep) until a wake key or the power button. */
  'screen-off',
  /** Always-on display: the screen dozes (mWakefulness=Dozing, Display Power: state=DOZE) until woken. */
  'dozing',
  /** A lock screen without a secret (swipe): the keyguard shows, secure=false, until the person unlocks. */
  'locked-swipe',
  /** A lock screen with a PIN or pattern: the keyguard shows, secure=true, until the person unlocks. */
  'locked-pin',
] as const;

export type QuirkName = (typeof QUIRK_NAMES)[number];

export function isQuirkName(value: string): value is QuirkName {
  return (QUIRK_NAMES as readonly string[]).includes(value);
}

/** Checks a list of quirk names; throws a TypeError naming the unknown ones and the known list. */
export function checkQuirks(names: readonly string[]): QuirkName[] {
  const unknown = names.filter((n) => !isQuirkName(n));
  if (unknown.length > 0) {
    throw new TypeError(`unknown quirk${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => JSON.stringify(n)).join(', ')}; known quirks: ${QUIRK_NAMES.join(', ')}`);
  }
  return [...new Set(names as QuirkName[])];
}

/** `a,b,c` (the `--quirks` flag) as checked names; empty items are ignored. */
export function parseQuirkList(text: string): QuirkName[] {
  return checkQuirks(
    text
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
}

/** How many nodes `ui-huge-tree` adds to the front window's dump. */
export const HUGE_TREE_NODES = 6_000;

/**
 * How long a real phone takes before giving up: DumpCommand waits for idle with a 10 s global
 * timeout; the package verifier's default timeout is 10 s. Instant phones wait a token time.
 */
export function quirkWaitMs(profile: TimingProfile, what: 'idle' | 'verifier'): number {
  if (!profile.realDurations) return what === 'idle' ? 0 : 50;
  return 10_000;
}

/**
 * The `ui-huge-tree` rows: a grid of small clickable cells inside the screen, spliced into
 * the front window's dump just before its root closes.
 */
export function hugeTreeNodes(pkg: string, width: number, height: number): string {
  const columns = 20;
  const rows = Math.ceil(HUGE_TREE_NODES / columns);
  const cellW = Math.max(1, Math.floor(width / columns));
  const cellH = Math.max(1, Math.floor(height / rows));
  const out: string[] = [];
  for (let i = 0; i < HUGE_TREE_NODES; i++) {
    const left = (i % columns) * cellW;
    const top = Math.floor(i / columns) * cellH;
    out.push(
      `<node index="${i}" text="Cell ${i + 1}" resource-id="${pkg}:id/cell" class="android.widget.TextView" package="${pkg}" content-desc="" checkable="false" checked="false" clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="[${left},${top}][${left + cellW},${top + cellH}]" />`,
    );
  }
  return out.join('');
}

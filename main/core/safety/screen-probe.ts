/**
 * A cheap look at the phone before a control action runs: which app and activity are in
 * front and whether their window is FLAG_SECURE (one `dumpsys window windows`), and, when
 * the action works on screen content, the UI tree (one `uiautomator dump`). Failures never
 * throw: the engine learns what could not be read and decides with that.
 */
import { isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { parseForegroundApp } from '../android/device-info';
import { OperationDeadline, runText } from '../android/shell-quote';
import { readUiTree, type UiNode } from '../android/ui-tree';

export interface WindowFacts {
  package: string | null;
  activity: string | null;
  /** null when the window's flags were not found. */
  secure: boolean | null;
}

export interface ScreenFacts {
  window: WindowFacts | null;
  /** null when not read (not needed) or unreadable. */
  nodes: UiNode[] | null;
  /** What could not be read, for the reasons list. */
  problems: string[];
  /** The phone is gone or the call was canceled: the tool itself will report it. */
  fatal: 'canceled' | 'offline' | null;
}

const FLAG_SECURE = 0x2000;

/**
 * Parses `dumpsys window windows`: the focused window (mCurrentFocus) and whether its
 * attributes carry FLAG_SECURE — `fl=… SECURE …` (names, Android 5+) or `fl=#2000` bits
 * (hex, older builds). The flags may sit on the mAttrs line or the next one.
 */
export function parseWindowFacts(output: string): WindowFacts | null {
  const app = parseForegroundApp(output);
  const focus = /mCurrentFocus=(Window\{[^}\s]+)/.exec(output)?.[1];
  let secure: boolean | null = null;
  if (focus) {
    const lines = output.split('\n');
    const start = lines.findIndex((l) => /^\s*Window #\d+/.test(l) && l.includes(focus));
    if (start >= 0) {
      const block: string[] = [];
      for (let i = start + 1; i < lines.length; i++) {
        const line = lines[i] ?? '';
        if (/^\s*Window #\d+/.test(line) || /^\s{0,2}\S/.test(line)) break;
        block.push(line);
      }
      const text = block.join('\n');
      const named = /\bfl=([A-Z0-9_]+(?:\s+[A-Z0-9_]+)*)/.exec(text);
      const hex = /\bfl=#?([0-9a-fA-F]+)\b/.exec(text);
      if (named?.[1] && /[A-Z_]{3,}/.test(named[1])) secure = named[1].split(/\s+/).includes('SECURE');
      else if (hex?.[1]) secure = (Number.parseInt(hex[1], 16) & FLAG_SECURE) !== 0;
      else if (/\bmAttrs=/.test(text)) secure = false;
    }
  }
  if (!app && secure === null) return null;
  return { package: app?.package ?? null, activity: app?.activity ?? null, secure };
}

export interface ProbeOptions {
  withTree: boolean;
  timeoutMs: number;
  signal: AbortSignal;
}

function fatalOf(error: unknown, signal: AbortSignal): ScreenFacts['fatal'] {
  if (signal.aborted || (isBridgeError(error) && error.code === 'canceled')) return 'canceled';
  if (isBridgeError(error) && (error.code === 'device_offline' || error.code === 'device_unauthorized' || error.code === 'adb_unavailable')) return 'offline';
  return null;
}

/** Reads the window facts and (optionally) the UI tree concurrently, each within the deadline. */
export async function probeScreen(shell: DeviceShell, options: ProbeOptions): Promise<ScreenFacts> {
  const problems: string[] = [];
  let fatal: ScreenFacts['fatal'] = null;
  const windowRead = (async (): Promise<WindowFacts | null> => {
    try {
      const deadline = new OperationDeadline({ timeoutMs: options.timeoutMs, signal: options.signal }, options.timeoutMs, 'reading the window in front');
      const facts = parseWindowFacts((await runText(shell, ['dumpsys', 'window', 'windows'], deadline.next())).text);
      if (!facts) problems.push('the app in front could not be identified');
      return facts;
    } catch (error) {
      fatal = fatal ?? fatalOf(error, options.signal);
      problems.push('the app in front could not be read');
      return null;
    }
  })();
  const treeRead = (async (): Promise<UiNode[] | null> => {
    if (!options.withTree) return null;
    try {
      return await readUiTree(shell, { timeoutMs: options.timeoutMs, signal: options.signal });
    } catch (error) {
      fatal = fatal ?? fatalOf(error, options.signal);
      problems.push('the screen content could not be read');
      return null;
    }
  })();
  const [window, nodes] = await Promise.all([windowRead, treeRead]);
  return { window, nodes, problems, fatal };
}

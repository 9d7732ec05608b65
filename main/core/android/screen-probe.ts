/**
 * A cheap look at the phone before a control action runs: which app and activity are in
 * front and whether their window is FLAG_SECURE (`dumpsys window displays` and `windows`,
 * concurrently: the focus line moved to the display section in Android 10), and, when
 * the action works on screen content, the UI tree (one `uiautomator dump`). Failures never
 * throw: the engine learns what could not be read and decides with that.
 */
import { isBridgeError } from '../errors';
import type { DeviceShell } from '../devices/device-shell';
import { parseForegroundApp } from './device-info';
import { OperationDeadline, runText } from '../devices/shell-quote';
import { readUiTree, type UiNode } from './ui-tree';

export interface WindowFacts {
  /** The focused window's identity (`Window{hash u0 …}`): a dialog or new activity changes it. */
  token: string | null;
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
  /** The UI tree came from the runtime's cache instead of a new dump. */
  reusedTree: boolean;
}

const FLAG_SECURE = 0x2000;

/**
 * Parses `dumpsys window displays` + `windows`: the focused window (mCurrentFocus) and whether its
 * attributes carry FLAG_SECURE — `fl=… SECURE …` (names, Android 5+) or `fl=#2000` bits
 * (hex, older builds). The flags may sit on the mAttrs line or the next one.
 */
export function parseWindowFacts(output: string): WindowFacts | null {
  const app = parseForegroundApp(output);
  // The first focus that is a window (a display without focus prints `mCurrentFocus=null`).
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
  return { token: focus ?? null, package: app?.package ?? null, activity: app?.activity ?? null, secure };
}

export interface ProbeOptions {
  withTree: boolean;
  /** Given the fresh window facts, a still-current UI tree to use instead of dumping, or null. */
  reuseTree?: (window: WindowFacts | null) => UiNode[] | null;
  timeoutMs: number;
  signal: AbortSignal;
  /**
   * Reads the tree another way (the fast lane: the helper when it runs, else the stock dump),
   * given the window read running at the same time; default: one `uiautomator dump`.
   */
  readTree?: (window: Promise<WindowFacts | null>) => Promise<UiNode[]>;
  /** The tree read costs the phone nothing (the fast lane's helper runs): it may start before reuse is decided. */
  cheapTree?: boolean;
  /** Settles before `reuseTree` is asked (a tree read that may stand in is still running); the window is read meanwhile. */
  beforeReuse?: Promise<void>;
}

function fatalOf(error: unknown, signal: AbortSignal): ScreenFacts['fatal'] {
  if (signal.aborted || (isBridgeError(error) && error.code === 'canceled')) return 'canceled';
  if (
    isBridgeError(error) &&
    (error.code === 'device_offline' || error.code === 'device_unauthorized' || error.code === 'adb_unavailable')
  )
    return 'offline';
  return null;
}

/**
 * Reads the window facts, then the UI tree unless `reuseTree` offers a current one (the
 * window read decides that, so the two run one after the other only when reuse is possible).
 */
export async function probeScreen(shell: DeviceShell, options: ProbeOptions): Promise<ScreenFacts> {
  const problems: string[] = [];
  let fatal: ScreenFacts['fatal'] = null;
  const readWindow = async (): Promise<WindowFacts | null> => {
    try {
      const deadline = new OperationDeadline(
        { timeoutMs: options.timeoutMs, signal: options.signal },
        options.timeoutMs,
        'reading the window in front',
      );
      // Android 10+ print the focus (mCurrentFocus) only in the display section, 8–9 only in the
      // windows section, whose window blocks carry the flags: read both, at once.
      const [displays, windows] = await Promise.all([
        runText(shell, ['dumpsys', 'window', 'displays'], deadline.next()),
        runText(shell, ['dumpsys', 'window', 'windows'], deadline.next()),
      ]);
      const facts = parseWindowFacts(`${displays.text}\n${windows.text}`);
      if (!facts) problems.push('the app in front could not be identified');
      return facts;
    } catch (error) {
      fatal = fatal ?? fatalOf(error, options.signal);
      problems.push('the app in front could not be read');
      return null;
    }
  };
  const readTree = async (window: Promise<WindowFacts | null>): Promise<UiNode[] | null> => {
    try {
      if (options.readTree) return await options.readTree(window);
      return await readUiTree(shell, { timeoutMs: options.timeoutMs, signal: options.signal });
    } catch (error) {
      fatal = fatal ?? fatalOf(error, options.signal);
      problems.push('the screen content could not be read');
      return null;
    }
  };
  if (!options.withTree) return { window: await readWindow(), nodes: null, problems, fatal, reusedTree: false };
  if (options.reuseTree && options.readTree && options.cheapTree) {
    // The fast lane's tree read costs the phone nothing but the helper's time: it starts with
    // the window read instead of after it, and is dropped when the cached tree is current.
    const windowRead = readWindow();
    const treeRead = readTree(windowRead);
    const window = await windowRead;
    const cached = options.reuseTree(window);
    if (cached) return { window, nodes: cached, problems: [...problems], fatal, reusedTree: true };
    const nodes = await treeRead;
    return { window, nodes, problems, fatal, reusedTree: false };
  }
  if (options.reuseTree) {
    const window = await readWindow();
    if (options.beforeReuse) await options.beforeReuse;
    const cached = options.reuseTree(window);
    if (cached) return { window, nodes: cached, problems, fatal, reusedTree: true };
    if (fatal) return { window, nodes: null, problems, fatal, reusedTree: false };
    return { window, nodes: await readTree(Promise.resolve(window)), problems, fatal, reusedTree: false };
  }
  const windowRead = readWindow();
  const [window, nodes] = await Promise.all([windowRead, readTree(windowRead)]);
  return { window, nodes, problems, fatal, reusedTree: false };
}

/**
 * `uiautomator dump [--compressed] [FILE]`: writes the front window's hierarchy (default
 * /sdcard/window_dump.xml; /dev/tty means stdout) and prints "UI hierchary dumped to:
 * FILE" (Android 14's spelling). After failNextUiDump() it prints "ERROR: could not get
 * idle state." on stderr and, like the real tool, still exits 0 without writing anything.
 * The ui-dump-* quirks (phone-quirks.ts) fail every dump the way those phones do, and
 * ui-huge-tree adds several thousand nodes to the front window.
 */
import { dumpWindowXml } from '../screen/ui-dump';
import { hugeTreeNodes, quirkWaitMs } from '../phone-quirks';
import { sleepUnlessAborted, untilAborted } from '../timing-profiles';
import type { CommandIo, PhoneContext } from './command-types';

export const DEFAULT_DUMP_FILE = '/sdcard/window_dump.xml';
/** Where the `uiautomator` script's classes live (its CLASSPATH); the UI reader links against it too. */
export const UIAUTOMATOR_JAR = '/system/framework/uiautomator.jar';

const USAGE = `Usage: uiautomator <subcommand> [options]

Available subcommands:

help: displays help message

runtest: executes UI automation tests
    runtest <class spec> [options]

dump: creates an XML dump of current UI hierarchy
    dump [--verbose][file]
      [--compressed]: dumps compressed layout information.
      [file]: the location where the dumped XML should be stored, default is
      ${DEFAULT_DUMP_FILE}

events: prints out accessibility events until terminated
`;

/** What AccessibilityNodeInfoDumper.dumpWindowToFile is told: the rotation it writes and the size bounds are clipped to. */
export interface DumpFrame {
  rotation: number;
  width: number;
  height: number;
}

/**
 * The front window's hierarchy as stock `uiautomator dump` writes it (the snapshot helper's and
 * the UI reader's reads agree with it). `frame` defaults to the display's own, as DumpCommand
 * asks the display; the UI reader passes what the bridge told it.
 */
export function stockDumpXml(phone: PhoneContext, frame?: DumpFrame): string {
  if (phone.quirks.has('ui-dump-empty'))
    return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${frame?.rotation ?? 0}" />`;
  const window = phone.screen.window();
  // Bounds are in the display's current orientation; <hierarchy rotation> says which it is.
  const { width, height } = frame ?? phone.displays.logicalSize();
  const xml = dumpWindowXml(window, width, height, frame?.rotation ?? phone.displays.rotation());
  if (!phone.quirks.has('ui-huge-tree')) return xml;
  // Inside the root window, after its own children.
  const close = xml.lastIndexOf('</node></hierarchy>');
  return close < 0 ? xml : xml.slice(0, close) + hugeTreeNodes(window.pkg, width, height) + xml.slice(close);
}

export async function uiautomatorCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  const [, sub, ...args] = io.argv;
  if (!phone.fs.stat(UIAUTOMATOR_JAR)) {
    // The script's `exec app_process /system/bin com.android.commands.uiautomator.Launcher`
    // finds no class: a class path entry that does not exist is left out of the DexPathList.
    io.err(
      'Exception in thread "main" java.lang.ClassNotFoundException: Didn\'t find class "com.android.commands.uiautomator.Launcher" on path: DexPathList[[],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]\n',
    );
    return 1;
  }
  if (sub === 'events') {
    await untilAborted(io.signal);
    return 0;
  }
  if (sub !== 'dump') {
    io.out(USAGE);
    return 0;
  }
  let file = DEFAULT_DUMP_FILE;
  for (const arg of args) if (!arg.startsWith('-')) file = arg.startsWith('/') ? arg : `/${arg}`;
  if (
    phone.helper.holdsUiAutomation() ||
    phone.snapshotHelper.holdsUiAutomation() ||
    phone.uiReader.holdsUiAutomation()
  ) {
    // Another UiAutomation client (the resident helper's instrumentation, the UI reader) is connected: the
    // dump's own connection fails and the process dies with no output, exit 137 (QUIRKS.md).
    return 137;
  }
  if (phone.quirks.has('ui-dump-idle-timeout')) {
    // DumpCommand: waitForIdle(1000, 10 * 1000) times out, then it prints and returns.
    if (!(await sleepUnlessAborted(quirkWaitMs(phone.profile, 'idle'), io.signal))) return 130;
    io.err('ERROR: could not get idle state.\n');
    return 0;
  }
  if (phone.takeUiDumpFailure()) {
    io.err('ERROR: could not get idle state.\n');
    return 0;
  }
  if (phone.quirks.has('ui-dump-null-root')) {
    io.err('ERROR: null root node returned by UiTestAutomationBridge.\n');
    return 0;
  }
  const xml = stockDumpXml(phone);
  if (phone.quirks.has('ui-dump-unreadable')) {
    // The dumper's IOException is only logged: the success line is printed, nothing is written.
    io.out(`UI hierchary dumped to: ${file}\n`);
    return 0;
  }
  if (file === '/dev/tty') io.out(xml);
  else {
    try {
      phone.fs.create(file, Buffer.from(xml, 'utf8'));
    } catch {
      // AccessibilityNodeInfoDumper logs the IOException and the command still reports success.
    }
  }
  io.out(`UI hierchary dumped to: ${file}\n`);
  return 0;
}

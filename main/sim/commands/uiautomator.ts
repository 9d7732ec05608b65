/**
 * `uiautomator dump [--compressed] [FILE]`: writes the front window's hierarchy (default
 * /sdcard/window_dump.xml; /dev/tty means stdout) and prints "UI hierchary dumped to:
 * FILE" (Android 14's spelling). After failNextUiDump() it prints "ERROR: could not get
 * idle state." on stderr and, like the real tool, still exits 0 without writing anything.
 */
import { dumpWindowXml } from '../screen/ui-dump';
import { untilAborted } from '../timing-profiles';
import type { CommandIo, PhoneContext } from './command-types';

export const DEFAULT_DUMP_FILE = '/sdcard/window_dump.xml';

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

export async function uiautomatorCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  const [, sub, ...args] = io.argv;
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
  if (phone.takeUiDumpFailure()) {
    io.err('ERROR: could not get idle state.\n');
    return 0;
  }
  const xml = dumpWindowXml(phone.screen.window(), phone.info.width, phone.info.height);
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

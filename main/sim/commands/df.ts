/**
 * `df` (toybox): one row per mount asked for, sizes in 1K blocks, as Android prints it:
 *   Filesystem       1K-blocks     Used Available Use% Mounted on
 *   /dev/block/dm-47 115247656 23795604  91320980  21% /data
 * A phone with the install-insufficient-storage quirk has 50 MiB left on /data.
 */
import type { CommandIo, PhoneContext } from './command-types';

const DATA_TOTAL_KIB = 115_247_656;

export function dfCommand(io: CommandIo, phone: PhoneContext): number {
  const paths = io.argv.slice(1).filter((a) => !a.startsWith('-'));
  const available = phone.quirks.has('install-insufficient-storage') ? 51_200 : 91_320_980;
  const used = DATA_TOTAL_KIB - available;
  const rows: string[] = ['Filesystem       1K-blocks     Used Available Use% Mounted on'];
  for (const path of paths.length ? paths : ['/data']) {
    if (path !== '/data' && !path.startsWith('/data/') && path !== '/sdcard' && !path.startsWith('/sdcard/')) {
      io.err(`df: ${path}: No such file or directory\n`);
      continue;
    }
    const pct = Math.ceil((used / DATA_TOTAL_KIB) * 100);
    rows.push(
      `/dev/block/dm-47 ${DATA_TOTAL_KIB} ${used} ${String(available).padStart(9)} ${String(pct).padStart(3)}% /data`,
    );
  }
  io.out(`${rows.join('\n')}\n`);
  return rows.length > 1 ? 0 : 1;
}

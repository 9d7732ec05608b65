/**
 * `screencap [-hp] [-d display-id] [FILENAME]`: raw (16-byte header + RGBA) or PNG (with
 * -p, or when FILENAME ends in .png) of the front window, to stdout or to a file. Secure
 * windows and a sleeping display capture black, as on a real phone. The capture is the
 * logical display in its current orientation (landscape phones give landscape pixels).
 *
 * `-d` takes a physical display id (`dumpsys SurfaceFlinger --display-id`). Without it, a
 * phone with several physical displays (a foldable) captures the first one SurfaceFlinger
 * lists and, on Android 14+, prints AOSP cmds/screencap/screencap.cpp's three warning lines
 * on stderr first; a foldable's panel that is not in use captures black.
 */
import { blackCapture } from '../screen/frame-renderer';
import type { CommandIo, PhoneContext } from './command-types';

const usage = (defaultId: string | undefined): string => `usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the display ID to capture${defaultId ? ` (default: ${defaultId})` : ''}
       see "dumpsys SurfaceFlinger --display-id" for valid display IDs.
   --hint-for-seamless If set will use the hintForSeamless path in SF

If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
`;

/** Android 14+ screencap.cpp, verbatim, when no -d is given and several physical displays exist. */
export const MULTIPLE_DISPLAYS_WARNING =
  '[Warning] Multiple displays were found, but no display id was specified! Defaulting to the first display found, however this default is not guaranteed to be consistent across captures. A display id should be specified.\n' +
  'A display ID can be specified with the [-d display-id] option.\n' +
  'See "dumpsys SurfaceFlinger --display-id" for valid display IDs.\n';

export async function screencapCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  let png = false;
  let file: string | undefined;
  let displayId: string | undefined;
  const panels = phone.displays.panels();
  const args = io.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-p') png = true;
    else if (a === '-d') {
      displayId = args[++i] ?? '';
      if (!/^\d+$/.test(displayId) || BigInt(displayId) >= 2n ** 64n) {
        io.err('Invalid display ID: Out of range [0, 2^64).\n');
        return 1;
      }
    } else if (a === '-h' || a.startsWith('-')) {
      io.err(usage(panels.length === 1 ? panels[0]?.physicalId : undefined));
      return 1;
    } else file = a;
  }
  if (file?.toLowerCase().endsWith('.png')) png = true;
  if (displayId === undefined) {
    displayId = panels[0]?.physicalId;
    if (panels.length > 1 && phone.info.sdk >= 34) io.err(MULTIPLE_DISPLAYS_WARNING);
  }
  const panel = panels.find((p) => p.physicalId === displayId);
  if (!panel) {
    // SurfaceFlinger finds no display with that id: the capture fails (NAME_NOT_FOUND).
    io.err('Failed to take screenshot. Status: -2\n');
    return 1;
  }
  const inUse = panel.physicalId === phone.displays.activePanel().physicalId;
  const data = !inUse
    ? await blackCapture(panel.width, panel.height, png)
    : png
      ? await phone.frames.png()
      : await phone.frames.rawScreencap();
  if (file === undefined) {
    io.out(data);
    return 0;
  }
  try {
    phone.fs.create(file, data);
  } catch (error) {
    io.err(`Error opening file: ${file} (${error instanceof Error ? error.message : String(error)})\n`);
    return 1;
  }
  return 0;
}

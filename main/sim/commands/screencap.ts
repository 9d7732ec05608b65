/**
 * `screencap [-hp] [-d display-id] [FILENAME]`: raw (16-byte header + RGBA) or PNG (with
 * -p, or when FILENAME ends in .png) of the front window, to stdout or to a file. Secure
 * windows and a sleeping display capture black, as on a real phone.
 */
import type { CommandIo, PhoneContext } from './command-types';

const USAGE = `usage: screencap [-hp] [-d display-id] [FILENAME]
   -h: this message
   -p: save the file as a png.
   -d: specify the physical display ID to capture (default: 4619827259835644672)
       see "dumpsys SurfaceFlinger --display-id" for valid display IDs.
If FILENAME ends with .png it will be saved as a png.
If FILENAME is not given, the results will be printed to stdout.
`;

export async function screencapCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  let png = false;
  let file: string | undefined;
  const args = io.argv.slice(1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-p') png = true;
    else if (a === '-d') i++;
    else if (a === '-h' || a.startsWith('-')) {
      io.err(USAGE);
      return a === '-h' ? 0 : 1;
    } else file = a;
  }
  if (file?.toLowerCase().endsWith('.png')) png = true;
  const data = png ? await phone.frames.png() : await phone.frames.rawScreencap();
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

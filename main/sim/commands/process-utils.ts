/**
 * toybox `chmod MODE FILE…` (octal modes and `+x`/`u+x`-style symbolic ones), `kill [-SIG] PID…`
 * for the phone's native processes (phone-processes.ts), and `app_process`, which on this
 * simulator runs one Java program: minicap's APK (minicap/minicap-command.ts).
 */
import { PhoneFsError, normalizePhonePath } from '../phone-fs';
import { SIGNALS, signalNumber } from '../phone-processes';
import { runMinicapApk } from '../minicap/minicap-command';
import { runScrcpyServer } from '../scrcpy/scrcpy-server';
import { runUiReader } from '../ui-reader/ui-reader';
import type { CommandIo, PhoneContext } from './command-types';

function applySymbolicMode(mode: number, spec: string): number | undefined {
  let result = mode;
  for (const clause of spec.split(',')) {
    const m = /^([ugoa]*)([+=-])([rwx]*)$/.exec(clause);
    if (!m) return undefined;
    const who = m[1] === '' || m[1]?.includes('a') ? 'ugo' : (m[1] ?? '');
    let bits = 0;
    for (const w of who) {
      const shift = w === 'u' ? 6 : w === 'g' ? 3 : 0;
      for (const p of m[3] ?? '') bits |= (p === 'r' ? 4 : p === 'w' ? 2 : 1) << shift;
    }
    if (m[2] === '+') result |= bits;
    else if (m[2] === '-') result &= ~bits;
    else result = bits;
  }
  return result;
}

export function chmodCommand(io: CommandIo, phone: PhoneContext): number {
  const [spec, ...paths] = io.argv.slice(1).filter((a) => a !== '-R');
  if (spec === undefined || paths.length === 0) {
    io.err('chmod: Need 2 arguments (see "chmod --help")\n');
    return 1;
  }
  let status = 0;
  for (const path of paths) {
    const full = normalizePhonePath(path, io.cwd);
    const stat = phone.fs.stat(full);
    if (!stat) {
      io.err(`chmod: ${path}: No such file or directory\n`);
      status = 1;
      continue;
    }
    const mode = /^[0-7]{1,4}$/.test(spec) ? Number.parseInt(spec, 8) : applySymbolicMode(stat.mode & 0o7777, spec);
    if (mode === undefined) {
      io.err(`chmod: bad mode '${spec}'\n`);
      return 1;
    }
    try {
      phone.fs.chmod(full, mode);
    } catch (error) {
      io.err(`chmod: ${path}: ${error instanceof PhoneFsError ? error.message : String(error)}\n`);
      status = 1;
    }
  }
  return status;
}

/** toybox kill: `kill PID…`, `kill -9 PID`, `kill -KILL PID`, `kill -s TERM PID`; default SIGTERM. */
export function killCommand(io: CommandIo, phone: PhoneContext): number {
  const args = io.argv.slice(1);
  let signum: number | undefined = SIGNALS.TERM;
  if (args[0] === '-s' || args[0] === '-n') {
    args.shift();
    signum = signalNumber(args.shift() ?? '');
  } else if (args[0]?.startsWith('-') && args[0] !== '--') {
    signum = signalNumber(args.shift()?.slice(1) ?? '');
  }
  if (signum === undefined) {
    io.err('kill: unknown signal\n');
    return 1;
  }
  if (args.length === 0) {
    io.err('kill: Needs 1 argument\n');
    return 1;
  }
  let status = 0;
  for (const arg of args) {
    const pid = Number(arg);
    const target = Number.isInteger(pid) ? phone.processes.get(pid) : undefined;
    if (!target) {
      // Other processes belong to other users (shell may not signal them) or do not exist.
      const known = Number.isInteger(pid) && phone.logcat.appProcesses().some((p) => p.pid === pid);
      io.err(`kill: ${arg}: ${known ? 'Operation not permitted' : 'No such process'}\n`);
      status = 1;
      continue;
    }
    target.signal(signum);
  }
  return status;
}

/**
 * DexPathList.toString for a class path: one `zip file "…"` element per entry that is a file
 * (an entry that does not exist is left out, as makeDexElements skips it; a file that is no
 * dex still has its element), then the native library folders.
 */
export function dexPathList(phone: PhoneContext, classPath: string, cwd: string): string {
  const elements = classPath
    .split(':')
    .filter((entry) => entry !== '' && phone.fs.stat(normalizePhonePath(entry, cwd)) !== undefined)
    .map((entry) => `zip file "${entry}"`);
  return `DexPathList[[${elements.join(', ')}],nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]]`;
}

/**
 * `app_process [-Djava.class.path=PATH] PARENT_DIR [--nice-name=NAME] CLASS ARGS…` with the
 * class path from the option or CLASSPATH. Only minicap's APK, scrcpy-server's jar and the bridge's UI reader
 * run; anything else fails as ART does for a class it cannot find.
 */
export function appProcessCommand(io: CommandIo, phone: PhoneContext): number | Promise<number> {
  const args = io.argv.slice(1);
  let classPath = io.env?.get('CLASSPATH');
  while (args[0]?.startsWith('-')) {
    const option = args.shift() ?? '';
    if (option.startsWith('-Djava.class.path=')) classPath = option.slice('-Djava.class.path='.length);
  }
  args.shift(); // the parent directory (/system/bin)
  while (args[0]?.startsWith('--')) args.shift(); // --nice-name=…, --application
  const className = args.shift();
  if (className === undefined) {
    io.err('Error: no class name or --zygote supplied.\n');
    return 1;
  }
  const ran =
    classPath === undefined
      ? undefined
      : (runMinicapApk(io, phone, classPath, className, args) ??
        runScrcpyServer(io, phone, classPath, className, args) ??
        runUiReader(io, phone, classPath, className, args));
  if (ran !== undefined) return ran;
  io.err(
    `Exception in thread "main" java.lang.ClassNotFoundException: Didn't find class "${className}" on path: ${dexPathList(phone, classPath ?? '', io.cwd)}\n`,
  );
  return 1;
}

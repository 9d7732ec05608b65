/**
 * toybox file commands on the phone's file system: cat, ls [-l] [-a] [-d], rm [-f] [-r],
 * mkdir [-p], touch. Messages follow toybox ("ls: PATH: No such file or directory") and
 * plain `ls` prints one name per line, as it does when its output is not a terminal.
 */
import { createHash } from 'node:crypto';
import { apkSha256 } from '../phone-packages';
import { PhoneFsError, S_IFCHR, S_IFDIR, S_IFMT, normalizePhonePath } from '../phone-fs';
import type { PhoneFileStat } from '../phone-device';
import type { CommandIo, PhoneContext } from './command-types';

/** Splits `-abc` style flags from operands (`--` ends flags). */
export function splitFlags(args: readonly string[]): { flags: Set<string>; operands: string[] } {
  const flags = new Set<string>();
  const operands: string[] = [];
  let done = false;
  for (const a of args) {
    if (!done && a === '--') done = true;
    else if (!done && a.startsWith('-') && a.length > 1) for (const f of a.slice(1)) flags.add(f);
    else operands.push(a);
  }
  return { flags, operands };
}

function errnoText(error: unknown): string {
  return error instanceof PhoneFsError || error instanceof Error ? error.message : String(error);
}

/** `/proc/uptime`: seconds since boot and idle seconds (8 cores mostly idle), two decimals. */
function procUptime(uptimeMs: number): string {
  const up = uptimeMs / 1000;
  return `${up.toFixed(2)} ${(up * 7.4).toFixed(2)}\n`;
}

export function catCommand(io: CommandIo, phone: PhoneContext): number {
  const { operands } = splitFlags(io.argv.slice(1));
  if (operands.length === 0) {
    io.out(io.stdin);
    return 0;
  }
  let status = 0;
  for (const path of operands) {
    const full = normalizePhonePath(path, io.cwd);
    if (phone.fs.isDirectory(full)) {
      io.err(`cat: ${path}: Is a directory\n`);
      status = 1;
      continue;
    }
    const data =
      full === '/proc/net/tcp' || full === '/proc/net/tcp6'
        ? Buffer.from(phone.network.procNetTcp(full.endsWith('6')))
        : full === '/proc/uptime'
          ? Buffer.from(procUptime(phone.uptimeMs()))
          : phone.fs.read(full);
    if (!data) {
      io.err(`cat: ${path}: No such file or directory\n`);
      status = 1;
      continue;
    }
    io.out(data);
  }
  return status;
}

/**
 * toybox `sha256sum FILE…`: "HEX  PATH" per file. Installed APKs (which the sim keeps in its
 * package database, not its file system) hash the bytes `pm install` was given.
 */
export function sha256sumCommand(io: CommandIo, phone: PhoneContext): number {
  const { operands } = splitFlags(io.argv.slice(1));
  let status = 0;
  for (const path of operands) {
    const full = normalizePhonePath(path, io.cwd);
    const data = phone.fs.read(full);
    const installed = data ? undefined : phone.packages.byApkPath(full);
    const hex = data ? createHash('sha256').update(data).digest('hex') : installed ? apkSha256(installed) : undefined;
    if (hex === undefined) {
      io.err(`sha256sum: ${path}: No such file or directory\n`);
      status = 1;
      continue;
    }
    io.out(`${hex}  ${path}\n`);
  }
  return status;
}

function modeString(stat: PhoneFileStat): string {
  const type = (stat.mode & S_IFMT) === S_IFDIR ? 'd' : (stat.mode & S_IFMT) === S_IFCHR ? 'c' : '-';
  const bits = 'rwxrwxrwx';
  let out = type;
  for (let i = 0; i < 9; i++) out += stat.mode & (1 << (8 - i)) ? bits[i] : '-';
  return out;
}

function owner(full: string): string {
  if (full.startsWith('/storage/')) return 'u0_a199 media_rw';
  if (full.startsWith('/data/local/tmp')) return 'shell shell';
  return 'root root';
}

function longLine(name: string, full: string, stat: PhoneFileStat): string {
  const date = new Date(stat.mtime * 1000).toISOString();
  const links = (stat.mode & S_IFMT) === S_IFDIR ? 2 : 1;
  return `${modeString(stat)} ${links} ${owner(full)} ${stat.size} ${date.slice(0, 10)} ${date.slice(11, 16)} ${name}\n`;
}

export function lsCommand(io: CommandIo, phone: PhoneContext): number {
  const { flags, operands } = splitFlags(io.argv.slice(1));
  const long = flags.has('l');
  const all = flags.has('a');
  const targets = operands.length > 0 ? operands : ['.'];
  let status = 0;
  const sections: string[] = [];
  for (const path of targets) {
    const full = normalizePhonePath(path, io.cwd);
    const stat = phone.fs.stat(full);
    if (!stat) {
      io.err(`ls: ${path}: No such file or directory\n`);
      status = 1;
      continue;
    }
    if ((stat.mode & S_IFMT) !== S_IFDIR || flags.has('d')) {
      sections.push(long ? longLine(path, full, stat) : `${path}\n`);
      continue;
    }
    const entries = phone.fs.list(full) ?? [];
    const shown = [
      ...(all
        ? [
            { name: '.', stat },
            { name: '..', stat },
          ]
        : []),
      ...entries.filter((e) => all || !e.name.startsWith('.')),
    ];
    let text = targets.length > 1 ? `${path}:\n` : '';
    if (long) text += `total ${shown.length * 8}\n`;
    text += shown.map((e) => (long ? longLine(e.name, `${full}/${e.name}`, e.stat) : `${e.name}\n`)).join('');
    sections.push(text);
  }
  io.out(sections.join(targets.length > 1 ? '\n' : ''));
  return status;
}

export function rmCommand(io: CommandIo, phone: PhoneContext): number {
  const { flags, operands } = splitFlags(io.argv.slice(1));
  const force = flags.has('f');
  const recursive = flags.has('r') || flags.has('R');
  if (operands.length === 0 && !force) {
    io.err('rm: Needs 1 argument (see "rm --help")\n');
    return 1;
  }
  let status = 0;
  for (const path of operands) {
    try {
      phone.fs.remove(normalizePhonePath(path, io.cwd), recursive);
    } catch (error) {
      if (force && error instanceof PhoneFsError && error.errno === 'ENOENT') continue;
      io.err(`rm: ${path}: ${errnoText(error)}\n`);
      status = 1;
    }
  }
  return status;
}

export function mkdirCommand(io: CommandIo, phone: PhoneContext): number {
  const { flags, operands } = splitFlags(io.argv.slice(1));
  if (operands.length === 0) {
    io.err('mkdir: Needs 1 argument (see "mkdir --help")\n');
    return 1;
  }
  let status = 0;
  for (const path of operands) {
    try {
      phone.fs.mkdir(normalizePhonePath(path, io.cwd), flags.has('p'));
    } catch (error) {
      io.err(`mkdir: '${path}': ${errnoText(error)}\n`);
      status = 1;
    }
  }
  return status;
}

export function touchCommand(io: CommandIo, phone: PhoneContext): number {
  const { operands } = splitFlags(io.argv.slice(1));
  let status = 0;
  for (const path of operands) {
    const full = normalizePhonePath(path, io.cwd);
    try {
      const existing = phone.fs.read(full);
      phone.fs.create(full, existing ?? Buffer.alloc(0));
    } catch (error) {
      io.err(`touch: '${path}': ${errnoText(error)}\n`);
      status = 1;
    }
  }
  return status;
}

/**
 * toybox text filters for pipelines such as `dumpsys window | grep mCurrentFocus`: grep
 * (-i -v -c -q -o -n -w -x -E -F -e; basic regex by default), head, tail, wc, base64.
 */
import { normalizePhonePath } from '../phone-fs';
import type { CommandIo, PhoneContext } from './command-types';
import { splitFlags } from './file-utils';

/** Reads the operand files (or stdin when none), reporting missing ones. */
function inputs(
  io: CommandIo,
  phone: PhoneContext,
  name: string,
  operands: string[],
): { text: string; failed: boolean } {
  if (operands.length === 0) return { text: io.stdin.toString('utf8'), failed: false };
  let text = '';
  let failed = false;
  for (const path of operands) {
    const data = phone.fs.read(normalizePhonePath(path, io.cwd));
    if (!data) {
      io.err(`${name}: ${path}: No such file or directory\n`);
      failed = true;
    } else text += data.toString('utf8');
  }
  return { text, failed };
}

function lines(text: string): string[] {
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  return all;
}

/** POSIX basic regular expression → JavaScript (\( \) \{ \} \| \+ \? are the operators). */
function basicToJs(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '\\' && i + 1 < pattern.length) {
      const n = pattern.charAt(++i);
      out += '(){}|+?'.includes(n) ? n : `\\${n}`;
    } else if ('(){}|+?'.includes(c)) out += `\\${c}`;
    else out += c;
  }
  return out;
}

function posixClasses(pattern: string): string {
  return pattern
    .replace(/\[:digit:\]/g, '0-9')
    .replace(/\[:alpha:\]/g, 'A-Za-z')
    .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
    .replace(/\[:space:\]/g, '\\s')
    .replace(/\[:upper:\]/g, 'A-Z')
    .replace(/\[:lower:\]/g, 'a-z');
}

export function grepCommand(io: CommandIo, phone: PhoneContext): number {
  const args = io.argv.slice(1);
  const patterns: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '-e') patterns.push(args[++i] ?? '');
    else rest.push(args[i] ?? '');
  }
  const { flags, operands } = splitFlags(rest);
  if (patterns.length === 0) {
    const p = operands.shift();
    if (p === undefined) {
      io.err('grep: no pattern\n');
      return 2;
    }
    patterns.push(p);
  }
  let regex: RegExp;
  try {
    const sources = patterns.map((p) => {
      if (flags.has('F')) return p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      return posixClasses(flags.has('E') ? p : basicToJs(p));
    });
    let source = sources.map((s) => `(?:${s})`).join('|');
    if (flags.has('w')) source = `(?<![A-Za-z0-9_])(?:${source})(?![A-Za-z0-9_])`;
    if (flags.has('x')) source = `^(?:${source})$`;
    regex = new RegExp(source, flags.has('i') ? 'gi' : 'g');
  } catch {
    io.err(`grep: bad regex '${patterns.join("' '")}'\n`);
    return 2;
  }
  const { text, failed } = inputs(io, phone, 'grep', operands);
  let count = 0;
  let out = '';
  lines(text).forEach((line, index) => {
    regex.lastIndex = 0;
    const matched = regex.test(line) !== flags.has('v');
    if (!matched) return;
    count++;
    const prefix = flags.has('n') ? `${index + 1}:` : '';
    if (flags.has('o') && !flags.has('v')) {
      regex.lastIndex = 0;
      for (const m of line.matchAll(regex)) if (m[0] !== '') out += `${prefix}${m[0]}\n`;
    } else out += `${prefix}${line}\n`;
  });
  if (!flags.has('q')) io.out(flags.has('c') ? `${count}\n` : out);
  if (failed) return 2;
  return count > 0 ? 0 : 1;
}

function countArg(args: string[], fallback: number): { n: number; operands: string[] } {
  let n = fallback;
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-n') n = Number(args[++i]);
    else if (/^-n\d+$/.test(a)) n = Number(a.slice(2));
    else if (/^-\d+$/.test(a)) n = Number(a.slice(1));
    else operands.push(a);
  }
  return { n, operands };
}

export function headCommand(io: CommandIo, phone: PhoneContext): number {
  const { n, operands } = countArg(io.argv.slice(1), 10);
  const { text, failed } = inputs(io, phone, 'head', operands);
  io.out(
    lines(text)
      .slice(0, n)
      .map((l) => `${l}\n`)
      .join(''),
  );
  return failed ? 1 : 0;
}

export function tailCommand(io: CommandIo, phone: PhoneContext): number {
  const { n, operands } = countArg(io.argv.slice(1), 10);
  const { text, failed } = inputs(io, phone, 'tail', operands);
  const all = lines(text);
  io.out(
    all
      .slice(Math.max(0, all.length - n))
      .map((l) => `${l}\n`)
      .join(''),
  );
  return failed ? 1 : 0;
}

export function wcCommand(io: CommandIo, phone: PhoneContext): number {
  const { flags, operands } = splitFlags(io.argv.slice(1));
  const { text, failed } = inputs(io, phone, 'wc', operands);
  const counts: number[] = [];
  const all = flags.size === 0;
  if (all || flags.has('l')) counts.push((text.match(/\n/g) ?? []).length);
  if (all || flags.has('w')) counts.push(text.split(/\s+/).filter(Boolean).length);
  if (all || flags.has('c')) counts.push(Buffer.byteLength(text));
  io.out(`${counts.join(' ')}\n`);
  return failed ? 1 : 0;
}

export function base64Command(io: CommandIo, phone: PhoneContext): number {
  const { flags, operands } = splitFlags(io.argv.slice(1));
  const path = operands[0];
  const data = path === undefined ? io.stdin : phone.fs.read(normalizePhonePath(path, io.cwd));
  if (!data) {
    io.err(`base64: ${path ?? ''}: No such file or directory\n`);
    return 1;
  }
  if (flags.has('d')) {
    io.out(Buffer.from(data.toString('latin1').replace(/\s+/g, ''), 'base64'));
    return 0;
  }
  const encoded = data.toString('base64');
  io.out(`${encoded.replace(/(.{76})/g, '$1\n').replace(/\n$/, '')}\n`);
  return 0;
}

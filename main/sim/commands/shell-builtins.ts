/**
 * Small commands every script leans on: mksh's echo (backslash escapes on by default,
 * -n/-e/-E), true, false, sleep (toybox; fractions and s/m/h/d suffixes; ends early when
 * the stream closes), id, whoami, pwd, and test / [ for file and string checks.
 */
import { normalizePhonePath, S_IFDIR, S_IFMT } from '../phone-fs';
import type { CommandIo, PhoneContext } from './command-types';

const ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
};

/** mksh echo/print escape processing; returns the text and whether \c cut the output. */
function interpretEscapes(text: string): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c !== '\\' || i + 1 >= text.length) {
      out += c;
      continue;
    }
    const next = text.charAt(i + 1);
    if (next === 'c') return { text: out, stop: true };
    if (next === '0') {
      const digits = /^[0-7]{0,3}/.exec(text.slice(i + 2))?.[0] ?? '';
      out += String.fromCharCode(digits ? Number.parseInt(digits, 8) : 0);
      i += 1 + digits.length;
      continue;
    }
    const mapped = ESCAPES[next];
    if (mapped !== undefined) {
      out += mapped;
      i++;
    } else out += c;
  }
  return { text: out, stop: false };
}

export function echoCommand(io: CommandIo): number {
  const args = io.argv.slice(1);
  let newline = true;
  let escapes = true;
  while (args.length > 0 && /^-[neE]+$/.test(args[0] ?? '')) {
    const opt = args.shift() ?? '';
    if (opt.includes('n')) newline = false;
    if (opt.includes('E')) escapes = false;
    if (opt.includes('e')) escapes = true;
  }
  const joined = args.join(' ');
  if (!escapes) {
    io.out(newline ? `${joined}\n` : joined);
    return 0;
  }
  const { text, stop } = interpretEscapes(joined);
  io.out(newline && !stop ? `${text}\n` : text);
  return 0;
}

export async function sleepCommand(io: CommandIo, phone: PhoneContext): Promise<number> {
  const arg = io.argv[1];
  const m = arg === undefined ? null : /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(arg);
  if (!m) {
    io.err(arg === undefined ? 'sleep: Needs 1 argument (see "sleep --help")\n' : `sleep: invalid number '${arg}'\n`);
    return 1;
  }
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] ?? ''] ?? 1;
  await phone.sleep(Number(m[1]) * unit * 1000, io.signal);
  return 0;
}

export function idCommand(io: CommandIo): number {
  io.out(
    'uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0\n',
  );
  return 0;
}

export function whoamiCommand(io: CommandIo): number {
  io.out('shell\n');
  return 0;
}

export function pwdCommand(io: CommandIo): number {
  io.out(`${io.cwd}\n`);
  return 0;
}

function evaluateTest(args: string[], phone: PhoneContext, cwd: string): boolean {
  if (args[0] === '!') return !evaluateTest(args.slice(1), phone, cwd);
  if (args.length === 0) return false;
  if (args.length === 1) return (args[0] ?? '') !== '';
  const [a = '', op = '', b = ''] = args;
  if (args.length === 2) {
    const stat = phone.fs.stat(normalizePhonePath(op, cwd));
    switch (a) {
      case '-z':
        return op === '';
      case '-n':
        return op !== '';
      case '-e':
      case '-r':
      case '-w':
        return stat !== undefined;
      case '-f':
        return stat !== undefined && (stat.mode & S_IFMT) !== S_IFDIR;
      case '-d':
        return stat !== undefined && (stat.mode & S_IFMT) === S_IFDIR;
      case '-s':
        return stat !== undefined && stat.size > 0;
      case '-x':
        return stat !== undefined && (stat.mode & 0o111) !== 0;
      default:
        throw new Error(`${a}: unknown operand`);
    }
  }
  const numeric = (): [number, number] => {
    if (!/^-?\d+$/.test(a) || !/^-?\d+$/.test(b)) throw new Error('bad number');
    return [Number(a), Number(b)];
  };
  switch (op) {
    case '=':
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '-eq':
      return numeric()[0] === numeric()[1];
    case '-ne':
      return numeric()[0] !== numeric()[1];
    case '-lt':
      return numeric()[0] < numeric()[1];
    case '-le':
      return numeric()[0] <= numeric()[1];
    case '-gt':
      return numeric()[0] > numeric()[1];
    case '-ge':
      return numeric()[0] >= numeric()[1];
    default:
      throw new Error(`${op}: unknown operand`);
  }
}

export function testCommand(io: CommandIo, phone: PhoneContext): number {
  const name = io.argv[0] ?? 'test';
  const args = io.argv.slice(1);
  if (name === '[') {
    if (args[args.length - 1] !== ']') {
      io.err('[: missing ]\n');
      return 2;
    }
    args.pop();
  }
  try {
    return evaluateTest(args, phone, io.cwd) ? 0 : 1;
  } catch (error) {
    io.err(`${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
}

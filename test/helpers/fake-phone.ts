/**
 * A deliberately small PhoneDevice for transport tests (the real simulated phone lives in
 * main/sim/phone.ts): a handful of commands, sh-like quoting, and an in-memory file system,
 * enough to drive every adbd service and fault from the real adb CLI and adbkit.
 *
 * Commands: `echo ARGS`, `getprop [NAME]`, `cat PATH`, `ls PATH`, `exit N`, `fail-stderr TEXT`,
 * `big N` (N bytes of a known pattern, see bigPattern), `sleep-forever` (until aborted).
 */
import { EventEmitter } from 'node:events';
import type {
  PhoneDevice,
  PhoneFileStat,
  PhoneFileSystem,
  PhoneIdentity,
  ShellResult,
} from '../../main/sim/phone-device';

const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFMT = 0o170000;

/** The bytes `big N` prints: a repeating 251-byte cycle so offsets errors show up. */
export function bigPattern(length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = i % 251;
  return out;
}

class MemoryFileSystem implements PhoneFileSystem {
  private readonly files = new Map<string, { stat: PhoneFileStat; data?: Buffer }>();

  constructor() {
    for (const dir of ['/', '/sdcard', '/data', '/data/local', '/data/local/tmp']) this.mkdir(dir);
  }

  stat(path: string): PhoneFileStat | undefined {
    const entry = this.files.get(normalize(path));
    return entry ? { ...entry.stat } : undefined;
  }

  list(path: string): Array<{ name: string; stat: PhoneFileStat }> | undefined {
    const dir = normalize(path);
    const entry = this.files.get(dir);
    if (!entry || (entry.stat.mode & S_IFMT) !== S_IFDIR) return undefined;
    const prefix = dir === '/' ? '/' : `${dir}/`;
    const out: Array<{ name: string; stat: PhoneFileStat }> = [];
    for (const [key, value] of this.files) {
      if (key !== dir && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')) {
        out.push({ name: key.slice(prefix.length), stat: { ...value.stat } });
      }
    }
    return out;
  }

  read(path: string): Buffer | undefined {
    return this.files.get(normalize(path))?.data;
  }

  write(path: string, data: Buffer, mode: number, mtime: number): void {
    const full = normalize(path);
    const parent = full.slice(0, full.lastIndexOf('/')) || '/';
    this.mkdir(parent);
    this.files.set(full, {
      stat: { mode: S_IFREG | (mode & 0o7777), size: data.length, mtime },
      data: Buffer.from(data),
    });
  }

  private mkdir(path: string): void {
    const parts = normalize(path).split('/').filter(Boolean);
    let current = '';
    this.files.set('/', this.files.get('/') ?? { stat: { mode: S_IFDIR | 0o755, size: 4096, mtime: 0 } });
    for (const part of parts) {
      current += `/${part}`;
      if (!this.files.has(current)) this.files.set(current, { stat: { mode: S_IFDIR | 0o755, size: 4096, mtime: 0 } });
    }
  }
}

/**
 * Just enough of sh's word splitting for what adb sends: `adb exec-out big 5` arrives as
 * `big '5'` because the CLI single-quotes every argument after the first.
 */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function normalize(path: string): string {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  return `/${parts.join('/')}`;
}

export interface FakePhoneOptions {
  model?: string;
  serial?: string;
}

export class FakePhone implements PhoneDevice {
  readonly fs = new MemoryFileSystem();
  /** Every command line received, in order. */
  readonly commands: string[] = [];
  /** Commands currently running (to observe that aborts reach the phone). */
  running = 0;
  /** 'exec-start' and 'exec-end' with the command line, so tests await them instead of polling. */
  readonly events = new EventEmitter();
  private readonly props: PhoneIdentity;

  constructor(options: FakePhoneOptions = {}) {
    this.props = {
      serial: options.serial ?? 'FAKE0001',
      product: 'fake_product',
      model: options.model ?? 'Fake_Phone',
      device: 'fakedevice',
    };
  }

  identity(): PhoneIdentity {
    return { ...this.props };
  }

  async exec(commandLine: string, options: { signal: AbortSignal }): Promise<ShellResult> {
    this.commands.push(commandLine);
    this.running++;
    this.events.emit('exec-start', commandLine);
    try {
      return await this.run(splitWords(commandLine), options.signal);
    } finally {
      this.running--;
      this.events.emit('exec-end', commandLine);
    }
  }

  private async run(argv: string[], signal: AbortSignal): Promise<ShellResult> {
    const [name = '', ...args] = argv;
    const ok = (stdout: string | Buffer): ShellResult => ({
      stdout: Buffer.from(stdout),
      stderr: Buffer.alloc(0),
      exitCode: 0,
    });
    const err = (message: string, exitCode = 1): ShellResult => ({
      stdout: Buffer.alloc(0),
      stderr: Buffer.from(`${message}\n`),
      exitCode,
    });
    switch (name) {
      case 'echo':
        return ok(`${args.join(' ')}\n`);
      case 'getprop': {
        const props: Record<string, string> = {
          'ro.product.model': this.props.model,
          'ro.product.name': this.props.product,
          'ro.product.device': this.props.device,
          'ro.serialno': this.props.serial,
          'ro.build.version.sdk': '34',
        };
        if (args[0] !== undefined) return ok(`${props[args[0]] ?? ''}\n`);
        return ok(
          Object.entries(props)
            .map(([key, value]) => `[${key}]: [${value}]\n`)
            .join(''),
        );
      }
      case 'cat': {
        const data = this.fs.read(args[0] ?? '');
        return data ? ok(data) : err(`cat: ${args[0] ?? ''}: No such file or directory`);
      }
      case 'ls': {
        const entries = this.fs.list(args[0] ?? '/');
        return entries
          ? ok(entries.map((e) => `${e.name}\n`).join(''))
          : err(`ls: ${args[0] ?? ''}: No such file or directory`);
      }
      case 'exit':
        return { stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exitCode: Number(args[0] ?? 0) };
      case 'fail-stderr':
        return err(args.join(' '), 3);
      case 'big':
        return ok(bigPattern(Number(args[0] ?? 0)));
      case 'sleep-forever':
        await new Promise<void>((resolve) => {
          if (signal.aborted) resolve();
          else signal.addEventListener('abort', () => resolve(), { once: true });
        });
        return err('killed', 137);
      default:
        return err(`/system/bin/sh: ${name}: inaccessible or not found`, 127);
    }
  }
}

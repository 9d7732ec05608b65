/**
 * The simulated phone's in-memory file system: the folders an adb user meets on an
 * Android 14 phone (/sdcard, /data/local/tmp, /system/bin …), files pushed by sync or
 * written by commands. /sdcard and /storage/self/primary are aliases of
 * /storage/emulated/0, as on a real phone; /system is read-only.
 */
import type { PhoneFileStat, PhoneFileSystem } from './phone-device';

export const S_IFMT = 0o170000;
export const S_IFREG = 0o100000;
export const S_IFDIR = 0o040000;
export const S_IFCHR = 0o020000;

/** An error carrying the errno name a real shell or toybox command would print. */
export class PhoneFsError extends Error {
  constructor(
    readonly errno: 'ENOENT' | 'EISDIR' | 'ENOTDIR' | 'EROFS' | 'EEXIST' | 'ENOTEMPTY',
    message: string,
  ) {
    super(message);
    this.name = 'PhoneFsError';
  }
}

const ERRNO_TEXT: Record<PhoneFsError['errno'], string> = {
  ENOENT: 'No such file or directory',
  EISDIR: 'Is a directory',
  ENOTDIR: 'Not a directory',
  EROFS: 'Read-only file system',
  EEXIST: 'File exists',
  ENOTEMPTY: 'Directory not empty',
};

function fsError(errno: PhoneFsError['errno']): PhoneFsError {
  return new PhoneFsError(errno, ERRNO_TEXT[errno]);
}

interface FileEntry {
  kind: 'file';
  mode: number;
  mtime: number;
  data: Buffer;
}
interface DirEntry {
  kind: 'dir';
  mode: number;
  mtime: number;
  children: Map<string, Entry>;
}
interface DeviceEntry {
  kind: 'device';
  mode: number;
  mtime: number;
}
type Entry = FileEntry | DirEntry | DeviceEntry;

const STORAGE_ROOT = '/storage/emulated/0';
const ALIASES = ['/sdcard', '/storage/self/primary', '/mnt/sdcard'];
const READ_ONLY = ['/system', '/vendor', '/product', '/apex'];

/**
 * Canonical absolute path: resolves `.`/`..` against `/` (the cwd of `adb shell`), strips
 * trailing slashes and maps the shared-storage aliases onto /storage/emulated/0.
 */
export function normalizePhonePath(path: string, cwd = '/'): string {
  const joined = path.startsWith('/') ? path : `${cwd}/${path}`;
  const parts: string[] = [];
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') parts.pop();
    else parts.push(part);
  }
  const full = `/${parts.join('/')}`;
  for (const alias of ALIASES) {
    if (full === alias || full.startsWith(`${alias}/`)) return STORAGE_ROOT + full.slice(alias.length);
  }
  return full;
}

function isReadOnly(path: string): boolean {
  return READ_ONLY.some((root) => path === root || path.startsWith(`${root}/`));
}

/** PhoneFileSystem plus the operations shell commands need (mkdir, remove, append). */
export class PhoneFs implements PhoneFileSystem {
  private readonly root: DirEntry;

  constructor(private readonly now: () => number) {
    this.root = { kind: 'dir', mode: S_IFDIR | 0o755, mtime: this.seconds(), children: new Map() };
    for (const dir of [
      '/data/local/tmp',
      `${STORAGE_ROOT}/Download`,
      `${STORAGE_ROOT}/DCIM/Camera`,
      `${STORAGE_ROOT}/Pictures`,
      `${STORAGE_ROOT}/Movies`,
      `${STORAGE_ROOT}/Documents`,
      `${STORAGE_ROOT}/Android/data`,
      '/system/bin',
      '/dev',
      '/proc',
    ]) {
      this.mkdirInternal(dir, 0o771);
    }
    const dev = this.lookup('/dev');
    if (dev?.kind === 'dir') {
      for (const name of ['null', 'tty', 'zero']) {
        dev.children.set(name, { kind: 'device', mode: S_IFCHR | 0o666, mtime: this.seconds() });
      }
    }
  }

  /** Adds placeholder executables so `ls /system/bin` lists the commands the shell knows. */
  installBinaries(names: readonly string[]): void {
    const bin = this.lookup('/system/bin');
    if (bin?.kind !== 'dir') return;
    for (const name of names) {
      bin.children.set(name, { kind: 'file', mode: S_IFREG | 0o755, mtime: this.seconds(), data: Buffer.alloc(0) });
    }
  }

  /**
   * A file of the read-only system image, there or not (a stripped ROM lacks some): created
   * empty, as the placeholder binaries are, since nothing on the phone reads its bytes.
   */
  setSystemFile(path: string, present: boolean): void {
    const full = normalizePhonePath(path);
    const slash = full.lastIndexOf('/');
    const name = full.slice(slash + 1);
    if (present) this.mkdirInternal(full.slice(0, slash), 0o755);
    const dir = this.lookup(full.slice(0, slash) || '/');
    if (dir?.kind !== 'dir' || name === '') return;
    if (!present) dir.children.delete(name);
    else if (!dir.children.has(name))
      dir.children.set(name, { kind: 'file', mode: S_IFREG | 0o644, mtime: this.seconds(), data: Buffer.alloc(0) });
  }

  stat(path: string): PhoneFileStat | undefined {
    const entry = this.lookup(normalizePhonePath(path));
    return entry ? statOf(entry) : undefined;
  }

  list(path: string): Array<{ name: string; stat: PhoneFileStat }> | undefined {
    const entry = this.lookup(normalizePhonePath(path));
    if (entry?.kind !== 'dir') return undefined;
    return [...entry.children.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, child]) => ({ name, stat: statOf(child) }));
  }

  read(path: string): Buffer | undefined {
    const entry = this.lookup(normalizePhonePath(path));
    if (entry?.kind === 'file') return entry.data;
    if (entry?.kind === 'device') return Buffer.alloc(0);
    return undefined;
  }

  /** Creates parent folders as needed; throws PhoneFsError (EROFS, EISDIR, ENOTDIR). */
  write(path: string, data: Buffer, mode: number, mtime: number): void {
    const target = this.fileTarget(path, true);
    if (!target) return;
    target.parent.children.set(target.name, {
      kind: 'file',
      mode: S_IFREG | (mode & 0o7777),
      mtime,
      data: Buffer.from(data),
    });
  }

  /** Appends (creating the file); used by `>>` redirections. Parent folder must exist. */
  append(path: string, data: Buffer): void {
    this.commandWrite(path, (before) => Buffer.concat([before, data]));
  }

  /** Writes a whole file created by a command (parent folder must exist, like open(O_CREAT)). */
  create(path: string, data: Buffer): void {
    this.commandWrite(path, () => Buffer.from(data));
  }

  /** A command writing a file: the parent folder must exist; a file already there keeps its mode. */
  private commandWrite(path: string, contents: (before: Buffer) => Buffer): void {
    const target = this.fileTarget(path, false);
    if (!target) return;
    const { existing } = target;
    target.parent.children.set(target.name, {
      kind: 'file',
      mode: existing?.mode ?? S_IFREG | 0o666,
      mtime: this.seconds(),
      data: contents(existing?.kind === 'file' ? existing.data : Buffer.alloc(0)),
    });
  }

  /**
   * Where a write to `path` lands (its folder, its name, what is there now); null for
   * /dev/null, where writes vanish. Throws PhoneFsError (EROFS, EISDIR, ENOTDIR).
   */
  private fileTarget(
    path: string,
    createParents: boolean,
  ): { parent: DirEntry; name: string; existing: Entry | undefined } | null {
    const full = normalizePhonePath(path);
    if (full === '/dev/null') return null;
    if (isReadOnly(full)) throw fsError('EROFS');
    const { parent, name } = this.parentOf(full, createParents);
    const existing = parent.children.get(name);
    if (existing?.kind === 'dir') throw fsError('EISDIR');
    return { parent, name, existing };
  }

  /** mkdir; with `parents` like `mkdir -p` (no error when it exists). */
  mkdir(path: string, parents: boolean): void {
    const full = normalizePhonePath(path);
    if (isReadOnly(full)) throw fsError('EROFS');
    const existing = this.lookup(full);
    if (existing) {
      if (parents && existing.kind === 'dir') return;
      throw fsError('EEXIST');
    }
    if (parents) {
      this.mkdirInternal(full, 0o771);
      return;
    }
    const { parent, name } = this.parentOf(full, false);
    parent.children.set(name, { kind: 'dir', mode: S_IFDIR | 0o771, mtime: this.seconds(), children: new Map() });
  }

  /** rm; folders need `recursive`. */
  remove(path: string, recursive: boolean): void {
    const full = normalizePhonePath(path);
    if (isReadOnly(full)) throw fsError('EROFS');
    const entry = this.lookup(full);
    if (!entry || full === '/') throw fsError('ENOENT');
    if (entry.kind === 'dir' && !recursive) throw fsError('EISDIR');
    const { parent, name } = this.parentOf(full, false);
    parent.children.delete(name);
  }

  /** chmod: sets the permission bits (the file type stays). */
  chmod(path: string, perms: number): void {
    const full = normalizePhonePath(path);
    const entry = this.lookup(full);
    if (!entry) throw fsError('ENOENT');
    if (isReadOnly(full)) throw fsError('EROFS');
    entry.mode = (entry.mode & ~0o7777) | (perms & 0o7777);
  }

  isDirectory(path: string): boolean {
    return this.lookup(normalizePhonePath(path))?.kind === 'dir';
  }

  private seconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private lookup(full: string): Entry | undefined {
    let entry: Entry = this.root;
    for (const part of full.split('/')) {
      if (part === '') continue;
      if (entry.kind !== 'dir') return undefined;
      const next: Entry | undefined = entry.children.get(part);
      if (!next) return undefined;
      entry = next;
    }
    return entry;
  }

  private parentOf(full: string, createParents: boolean): { parent: DirEntry; name: string } {
    const cut = full.lastIndexOf('/');
    const parentPath = full.slice(0, cut) || '/';
    const name = full.slice(cut + 1);
    if (name === '') throw fsError('EISDIR');
    if (createParents) this.mkdirInternal(parentPath, 0o771);
    const parent = this.lookup(parentPath);
    if (!parent) throw fsError('ENOENT');
    if (parent.kind !== 'dir') throw fsError('ENOTDIR');
    return { parent, name };
  }

  private mkdirInternal(full: string, perms: number): void {
    let dir: DirEntry = this.root;
    for (const part of full.split('/')) {
      if (part === '') continue;
      const next: Entry | undefined = dir.children.get(part);
      if (next === undefined) {
        const created: DirEntry = { kind: 'dir', mode: S_IFDIR | perms, mtime: this.seconds(), children: new Map() };
        dir.children.set(part, created);
        dir = created;
      } else if (next.kind === 'dir') {
        dir = next;
      } else {
        throw fsError('ENOTDIR');
      }
    }
  }
}

function statOf(entry: Entry): PhoneFileStat {
  if (entry.kind === 'file') return { mode: entry.mode, size: entry.data.length, mtime: entry.mtime };
  if (entry.kind === 'dir') return { mode: entry.mode, size: 3452, mtime: entry.mtime };
  return { mode: entry.mode, size: 0, mtime: entry.mtime };
}

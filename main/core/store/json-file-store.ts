/**
 * Atomic JSON persistence for one file: write to a temp file, fsync, rename. A file that
 * cannot be parsed is never silently wiped: it is moved aside to `<name>.corrupt-<time>`
 * and reported through `onCorrupt`, and the store starts from the default value.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export interface JsonFileStoreOptions<T> {
  path: string;
  defaults: () => T;
  /** Shape check: returns the value when it is acceptable, throws otherwise. */
  parse: (raw: unknown) => T;
  onCorrupt?: (info: { path: string; movedTo: string; reason: string }) => void;
  mode?: number;
}

export class JsonFileStore<T> {
  private value: T;
  corruption: { movedTo: string; reason: string } | undefined;

  constructor(private readonly options: JsonFileStoreOptions<T>) {
    this.value = this.load();
  }

  get(): T {
    return this.value;
  }

  /** Replaces the value and writes it durably before returning. */
  set(next: T): void {
    this.value = next;
    this.flush();
  }

  update(mutate: (draft: T) => void): void {
    mutate(this.value);
    this.flush();
  }

  flush(): void {
    writeFileAtomic(this.options.path, `${JSON.stringify(this.value, null, 1)}\n`, this.options.mode ?? 0o600);
  }

  private load(): T {
    const { path } = this.options;
    if (!existsSync(path)) return this.options.defaults();
    let reason: string;
    try {
      return this.options.parse(JSON.parse(readFileSync(path, 'utf8')));
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
    const movedTo = `${path}.corrupt-${Date.now()}`;
    renameSync(path, movedTo);
    this.corruption = { movedTo, reason };
    this.options.onCorrupt?.({ path, movedTo, reason });
    return this.options.defaults();
  }
}

export function writeFileAtomic(path: string, data: string | Buffer, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * Atomic JSON persistence for one file: write to a temp file, fsync, rename. A file that
 * cannot be parsed is never silently wiped: it is moved aside to `<name>.corrupt-<time>`
 * and reported through `onCorrupt`, and the store starts from the default value.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
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
  /** Counts writes begun; a background write renames its file only if no write began after it. */
  private writes = 0;
  private background: Promise<void> | undefined;
  private backgroundAgain = false;

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
    this.writes += 1;
    writeFileAtomic(this.options.path, this.text(), this.options.mode ?? 0o600);
  }

  /**
   * Writes the value durably without holding up the event loop (the fsync runs on the thread
   * pool), for frequent writes nobody waits on, such as a lease's last activity: a synchronous
   * fsync there stalls every phone's traffic for as long as the disk takes. One write at a
   * time; calls meanwhile coalesce into one more. A `flush()` that begins meanwhile wins: the
   * older background text is then never renamed over it. Rejects when the write failed.
   */
  flushInBackground(): Promise<void> {
    if (this.background) {
      this.backgroundAgain = true;
      return this.background;
    }
    const run = async (): Promise<void> => {
      do {
        this.backgroundAgain = false;
        const write = (this.writes += 1);
        await writeFileAtomicInBackground(
          this.options.path,
          this.text(),
          this.options.mode ?? 0o600,
          () => this.writes === write,
        );
      } while (this.backgroundAgain);
    };
    const running = run().finally(() => {
      this.background = undefined;
    });
    this.background = running;
    return running;
  }

  /** Settles when no background write is in flight (at stop, before the folder may go away). */
  async settled(): Promise<void> {
    await this.background?.catch(() => undefined);
  }

  private text(): string {
    return `${JSON.stringify(this.value, null, 1)}\n`;
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

/**
 * writeFileAtomic with the write and fsync off the event loop. The rename happens only while
 * `current()` holds, checked with no await between, so a newer synchronous write is never
 * replaced by older text.
 */
async function writeFileAtomicInBackground(
  path: string,
  data: string,
  mode: number,
  current: () => boolean,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}-background`;
  const file = await open(tmp, 'w', mode);
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  if (current()) renameSync(tmp, path);
  else unlinkSync(tmp);
}

/**
 * FileCache: the transfer plane's short-lived file store (screenshots, recordings, uploads).
 *
 * It owns one directory and everything in it that matches its own naming scheme. A file is
 * reachable only through its `file_ref`, looked up in an in-memory map; the on-disk name is
 * derived from the random bytes behind the ref, so nothing a request carries ever becomes a
 * path. The cache is not kept across restarts: `start()` deletes what a previous run left.
 *
 * Capacity (bytes and file count) is admitted before a byte is written: every write first
 * reserves space, evicting least-recently-used files when needed, and a reservation keeps
 * counting until its temporary file is renamed or deleted; an evicted file keeps counting
 * until its unlink has finished. So the caps hold for the directory itself at every moment,
 * even under a burst of concurrent writes.
 *
 * Limits may change while it runs (`setLimits`): a new TTL applies to files stored from then
 * on and a shorter one also ends older files early; smaller caps evict least-recently-used
 * files at once (writes already admitted still finish).
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { join, resolve } from 'node:path';
import { LIMIT_DEFINITIONS } from '../../contract/limits';
import { BridgeError } from '../errors';

export interface FileCacheLimits {
  /** How long a file stays downloadable after it was stored. */
  ttlMs: number;
  /** Total bytes on disk, temporary files included. */
  maxBytes: number;
  /** Files on disk, temporary files included. */
  maxFiles: number;
  /** How often expired files are deleted (they are already invisible once expired). */
  cleanupIntervalMs: number;
}

/** TTL and caps as main/contract/limits.ts defines them (people may change those three). */
export const DEFAULT_FILE_CACHE_LIMITS: Readonly<FileCacheLimits> = Object.freeze({
  ttlMs: LIMIT_DEFINITIONS.file_cache_ttl_ms.default,
  maxBytes: LIMIT_DEFINITIONS.file_cache_max_bytes.default,
  maxFiles: LIMIT_DEFINITIONS.file_cache_max_files.default,
  cleanupIntervalMs: 30_000,
});

export type CachedFileKind = 'screenshot' | 'recording' | 'upload' | 'file';
export type EvictReason = 'ttl' | 'bytes' | 'count' | 'removed';

export interface CachedFile {
  fileRef: string;
  channelId: string;
  mimeType: string;
  filename: string;
  byteSize: number;
  /** Lowercase hex SHA-256 of the content. */
  sha256: string;
  createdAt: number;
  expiresAt: number;
  kind: CachedFileKind;
}

export interface FileCacheOptions {
  dir: string;
  limits?: Partial<FileCacheLimits> | undefined;
  clock?: () => number;
  onEvict?: (file: CachedFile, reason: EvictReason) => void;
}

export interface PutInput {
  data: Buffer;
  mimeType: string;
  filename: string;
  channelId: string;
  kind: CachedFileKind;
}

export interface PutStreamInput {
  stream: NodeJS.ReadableStream;
  /** Cap for this file; the cache's own maxBytes applies too. */
  maxBytes: number;
  mimeType: string;
  filename: string;
  channelId: string;
  kind: CachedFileKind;
  /** Aborting stops the write and deletes the partial file (BridgeError 'canceled'). */
  signal?: AbortSignal;
}

/** `file_` + 32 base64url characters (24 random bytes). */
export const FILE_REF_PATTERN = /^file_[A-Za-z0-9_-]{32}$/;

export function isFileRef(value: unknown): value is string {
  return typeof value === 'string' && FILE_REF_PATTERN.test(value);
}

const KINDS: readonly CachedFileKind[] = ['screenshot', 'recording', 'upload', 'file'];
const LIMIT_KEYS: readonly (keyof FileCacheLimits)[] = ['ttlMs', 'maxBytes', 'maxFiles', 'cleanupIntervalMs'];
/** Our on-disk names: 48 hex chars (the ref's random bytes) + `.bin` (stored) or `.part` (being written). */
const OWN_DISK_NAME = /^[0-9a-f]{48}\.(?:bin|part)$/;
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
const MAX_FILENAME_CHARS = 200;
const MAX_CHANNEL_ID_CHARS = 256;

interface Entry {
  file: Readonly<CachedFile>;
  diskName: string;
}

/** Space held by one write in progress (its temporary file). */
interface Reservation {
  bytes: number;
  holdsFile: boolean;
  waiting: boolean;
}

interface Waiter {
  reservation: Reservation;
  bytes: number;
  newFile: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

type State = 'idle' | 'running' | 'stopped';

export class FileCache {
  private readonly dir: string;
  private limits: Readonly<FileCacheLimits>;
  private readonly clock: () => number;
  private readonly onEvict: ((file: CachedFile, reason: EvictReason) => void) | undefined;

  private state: State = 'idle';
  private starting: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private runAbort = new AbortController();

  /** Visible files in LRU order (first = least recently used). */
  private readonly entries = new Map<string, Entry>();
  private committedBytes = 0;
  /** Everything that is or may be on disk: stored files, reservations, files being unlinked. */
  private usedBytes = 0;
  private usedFiles = 0;
  private deletingBytes = 0;
  private deletingFiles = 0;
  private readonly reservations = new Set<Reservation>();
  private readonly queue: Waiter[] = [];
  private pumping = false;
  private pumpAgain = false;
  /** Writes and unlinks in flight; stop() waits for them. */
  private readonly pending = new Set<Promise<unknown>>();

  constructor(options: FileCacheOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new BridgeError('invalid_arguments', 'options must be an object');
    }
    if (typeof options.dir !== 'string' || options.dir.trim() === '') {
      throw new BridgeError('invalid_arguments', 'dir must be a non-empty string');
    }
    const limits = withLimits(DEFAULT_FILE_CACHE_LIMITS, options.limits);
    if (options.clock !== undefined && typeof options.clock !== 'function') {
      throw new BridgeError('invalid_arguments', 'clock must be a function');
    }
    if (options.onEvict !== undefined && typeof options.onEvict !== 'function') {
      throw new BridgeError('invalid_arguments', 'onEvict must be a function');
    }
    this.dir = resolve(options.dir);
    this.limits = limits;
    this.clock = options.clock ?? Date.now;
    this.onEvict = options.onEvict;
  }

  /** Creates the directory (0700), deletes files a previous run left, starts the TTL sweep. */
  async start(): Promise<void> {
    if (this.state === 'running') return;
    if (this.starting) return this.starting;
    this.starting = this.doStart();
    try {
      await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  /** Stops the sweep, cancels writes in progress and waits for them. Files may stay on disk. */
  async stop(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.state !== 'running') return;
    this.state = 'stopped';
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.runAbort.abort();
    for (const waiter of this.queue.splice(0)) {
      waiter.reservation.waiting = false;
      waiter.reject(new BridgeError('canceled', 'file cache stopped'));
    }
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * Stores a buffer atomically (temporary file, then rename). Evicts least-recently-used
   * files to stay within the caps; a buffer larger than maxBytes is refused.
   */
  async put(input: PutInput): Promise<CachedFile> {
    const meta = this.checkInput(input);
    if (!Buffer.isBuffer(input.data)) throw new BridgeError('invalid_arguments', 'data must be a Buffer');
    const size = input.data.length;
    if (size > this.limits.maxBytes) {
      throw new BridgeError(
        'file_too_large',
        `file of ${size} bytes exceeds the cache limit of ${this.limits.maxBytes} bytes`,
      );
    }
    return this.track(async () => {
      const reservation = this.newReservation();
      const id = randomBytes(24);
      const diskName = id.toString('hex');
      const partPath = join(this.dir, `${diskName}.part`);
      try {
        await this.reserve(reservation, size, true);
        await fsp.writeFile(partPath, input.data, { flag: 'wx', mode: 0o600 });
        const sha256 = createHash('sha256').update(input.data).digest('hex');
        return await this.commit(reservation, id, partPath, { ...meta, byteSize: size, sha256 });
      } catch (error) {
        await unlinkQuietly(partPath);
        this.release(reservation);
        throw error;
      }
    });
  }

  /**
   * Streams to disk chunk by chunk, reserving space as bytes arrive (never buffering the
   * whole file). Past `maxBytes` the source is destroyed, the partial file deleted and the
   * call rejects with 'file_too_large'.
   */
  async putStream(input: PutStreamInput): Promise<CachedFile> {
    const meta = this.checkInput(input);
    if (typeof input.maxBytes !== 'number' || !Number.isSafeInteger(input.maxBytes) || input.maxBytes <= 0) {
      throw new BridgeError('invalid_arguments', 'maxBytes must be a positive integer');
    }
    const stream = input.stream;
    if (typeof stream !== 'object' || stream === null || typeof stream[Symbol.asyncIterator] !== 'function') {
      throw new BridgeError('invalid_arguments', 'stream must be a readable stream');
    }
    const cap = Math.min(input.maxBytes, this.limits.maxBytes);
    return this.track(async () => {
      const reservation = this.newReservation();
      const id = randomBytes(24);
      const diskName = id.toString('hex');
      const partPath = join(this.dir, `${diskName}.part`);
      const abort = (): void => {
        this.cancelWaits(reservation);
        destroyStream(stream, new BridgeError('canceled', 'file write canceled'));
      };
      const signals = [this.runAbort.signal, input.signal].filter((s): s is AbortSignal => s !== undefined);
      let handle: fsp.FileHandle | undefined;
      // Listen from the start: the source may fail while we wait for space, before iterating.
      let sourceError: unknown;
      let ended = false;
      const onError = (error: unknown): void => {
        sourceError ??= error;
      };
      const onEnd = (): void => {
        ended = true;
      };
      stream.on('error', onError);
      stream.on('end', onEnd);
      try {
        for (const signal of signals) {
          if (signal.aborted) throw new BridgeError('canceled', 'file write canceled');
          signal.addEventListener('abort', abort, { once: true });
        }
        await this.reserve(reservation, 0, true);
        handle = await fsp.open(partPath, 'wx', 0o600);
        const hash = createHash('sha256');
        let size = 0;
        for await (const chunk of stream) {
          const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
          size += buf.length;
          if (size > cap) {
            throw new BridgeError('file_too_large', `file exceeds the limit of ${cap} bytes`);
          }
          await this.reserve(reservation, buf.length, false);
          hash.update(buf);
          await writeAll(handle, buf);
        }
        if (signals.some((s) => s.aborted)) throw new BridgeError('canceled', 'file write canceled');
        // A source destroyed without an error stops iterating too; only 'end' means complete.
        if (sourceError !== undefined || !ended) throw sourceError ?? new Error('stream closed before its end');
        await handle.close();
        handle = undefined;
        return await this.commit(reservation, id, partPath, { ...meta, byteSize: size, sha256: hash.digest('hex') });
      } catch (error) {
        destroyStream(stream);
        await handle?.close().catch(() => undefined);
        await unlinkQuietly(partPath);
        this.release(reservation);
        if (error instanceof BridgeError) throw error;
        if (signals.some((s) => s.aborted)) throw new BridgeError('canceled', 'file write canceled');
        throw new BridgeError('canceled', 'file stream ended with an error', { cause: errorMessage(error) });
      } finally {
        for (const signal of signals) signal.removeEventListener('abort', abort);
        // onError stays: an error we caused by destroying the source may still be on its way.
        stream.removeListener('end', onEnd);
      }
    });
  }

  /** The file's metadata, or undefined when unknown, expired or evicted. Marks it recently used. */
  get(fileRef: string): CachedFile | undefined {
    const entry = this.liveEntry(fileRef);
    if (!entry) return undefined;
    this.entries.delete(fileRef);
    this.entries.set(fileRef, entry);
    return entry.file;
  }

  /** Absolute path for in-process readers. The name comes from the cache, never from a request. */
  path(fileRef: string): string | undefined {
    const entry = this.liveEntry(fileRef);
    return entry ? join(this.dir, `${entry.diskName}.bin`) : undefined;
  }

  /** The most recent live file of this channel with this content, if any (marks it recently used). */
  findByHash(channelId: string, sha256: string): CachedFile | undefined {
    let found: Entry | undefined;
    const now = this.clock();
    for (const entry of this.entries.values()) {
      if (entry.file.channelId === channelId && entry.file.sha256 === sha256 && entry.file.expiresAt > now)
        found = entry;
    }
    return found ? this.get(found.file.fileRef) : undefined;
  }

  /** Deletes the file now; resolves once it is gone from disk. Unknown refs are ignored. */
  async remove(fileRef: string): Promise<void> {
    const entry = this.entries.get(fileRef);
    if (!entry) return;
    await this.evict(entry, 'removed');
  }

  /**
   * Changes the TTL and caps while running (the cleanup interval stays). A shorter TTL moves
   * older files' expiry forward to createdAt + the new TTL; smaller caps evict LRU files now.
   */
  setLimits(next: Partial<Pick<FileCacheLimits, 'ttlMs' | 'maxBytes' | 'maxFiles'>>): void {
    if (typeof next === 'object' && next !== null && 'cleanupIntervalMs' in next) {
      throw new BridgeError('invalid_arguments', 'limits.cleanupIntervalMs is fixed while the cache runs');
    }
    const limits = withLimits(this.limits, next);
    const ttlShrank = limits.ttlMs < this.limits.ttlMs;
    this.limits = limits;
    if (ttlShrank) {
      for (const entry of this.entries.values()) {
        const capped = entry.file.createdAt + limits.ttlMs;
        if (capped < entry.file.expiresAt) entry.file = Object.freeze({ ...entry.file, expiresAt: capped });
      }
      this.sweep();
    }
    this.trim();
    this.pump();
  }

  stats(): { files: number; bytes: number; limits: FileCacheLimits } {
    return { files: this.entries.size, bytes: this.committedBytes, limits: { ...this.limits } };
  }

  private async doStart(): Promise<void> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    // mkdir leaves an existing directory's mode alone; the cache holds device screenshots.
    if (process.platform !== 'win32') await fsp.chmod(this.dir, 0o700);
    const names = await fsp.readdir(this.dir);
    await Promise.all(
      names.filter((name) => OWN_DISK_NAME.test(name)).map((name) => unlinkQuietly(join(this.dir, name))),
    );
    this.entries.clear();
    this.committedBytes = 0;
    this.usedBytes = 0;
    this.usedFiles = 0;
    this.deletingBytes = 0;
    this.deletingFiles = 0;
    this.reservations.clear();
    this.runAbort = new AbortController();
    this.timer = setInterval(() => this.sweep(), this.limits.cleanupIntervalMs);
    this.timer.unref();
    this.state = 'running';
  }

  private checkInput(
    input: PutInput | PutStreamInput,
  ): Omit<CachedFile, 'fileRef' | 'byteSize' | 'sha256' | 'createdAt' | 'expiresAt'> {
    if (this.state !== 'running') throw new BridgeError('internal_error', 'file cache is not running');
    if (typeof input !== 'object' || input === null)
      throw new BridgeError('invalid_arguments', 'input must be an object');
    if (
      typeof input.channelId !== 'string' ||
      input.channelId === '' ||
      input.channelId.length > MAX_CHANNEL_ID_CHARS
    ) {
      throw new BridgeError(
        'invalid_arguments',
        `channelId must be a non-empty string of at most ${MAX_CHANNEL_ID_CHARS} characters`,
      );
    }
    if (!KINDS.includes(input.kind))
      throw new BridgeError('invalid_arguments', `kind must be one of ${KINDS.join(', ')}`);
    if (typeof input.mimeType !== 'string') throw new BridgeError('invalid_arguments', 'mimeType must be a string');
    if (typeof input.filename !== 'string') throw new BridgeError('invalid_arguments', 'filename must be a string');
    return {
      channelId: input.channelId,
      kind: input.kind,
      mimeType: normalizeMimeType(input.mimeType),
      filename: safeFilename(input.filename),
    };
  }

  private track<T>(operation: () => Promise<T>): Promise<T> {
    const promise = operation();
    this.pending.add(promise);
    void promise.then(
      () => this.pending.delete(promise),
      () => this.pending.delete(promise),
    );
    return promise;
  }

  private liveEntry(fileRef: string): Entry | undefined {
    if (typeof fileRef !== 'string') return undefined;
    const entry = this.entries.get(fileRef);
    if (!entry) return undefined;
    if (entry.file.expiresAt <= this.clock()) {
      void this.evict(entry, 'ttl');
      return undefined;
    }
    return entry;
  }

  /** Evicts LRU files until what is on disk fits the caps again (after they were lowered). */
  private trim(): void {
    for (const entry of [...this.entries.values()]) {
      const overBytes = this.usedBytes - this.deletingBytes > this.limits.maxBytes;
      const overFiles = this.usedFiles - this.deletingFiles > this.limits.maxFiles;
      if (!overBytes && !overFiles) break;
      void this.evict(entry, overBytes ? 'bytes' : 'count');
    }
  }

  private sweep(): void {
    const now = this.clock();
    for (const entry of [...this.entries.values()]) {
      if (entry.file.expiresAt <= now) void this.evict(entry, 'ttl');
    }
  }

  private async commit(
    reservation: Reservation,
    id: Buffer,
    partPath: string,
    meta: Omit<CachedFile, 'fileRef' | 'createdAt' | 'expiresAt'>,
  ): Promise<CachedFile> {
    const diskName = id.toString('hex');
    const finalPath = join(this.dir, `${diskName}.bin`);
    await fsp.rename(partPath, finalPath);
    if (this.state !== 'running') {
      await unlinkQuietly(finalPath);
      throw new BridgeError('canceled', 'file cache stopped');
    }
    const createdAt = this.clock();
    const file: Readonly<CachedFile> = Object.freeze({
      fileRef: `file_${id.toString('base64url')}`,
      ...meta,
      createdAt,
      expiresAt: createdAt + this.limits.ttlMs,
    });
    // The reservation's bytes and file slot now belong to the entry.
    this.reservations.delete(reservation);
    reservation.bytes = 0;
    reservation.holdsFile = false;
    this.entries.set(file.fileRef, { file, diskName });
    this.committedBytes += file.byteSize;
    this.pump();
    return file;
  }

  private newReservation(): Reservation {
    const reservation: Reservation = { bytes: 0, holdsFile: false, waiting: false };
    this.reservations.add(reservation);
    return reservation;
  }

  /** Resolves once `bytes` more (and a file slot when `newFile`) are admitted for this write. */
  private reserve(reservation: Reservation, bytes: number, newFile: boolean): Promise<void> {
    if (this.state !== 'running') return Promise.reject(new BridgeError('canceled', 'file cache stopped'));
    const waiter: Omit<Waiter, 'resolve' | 'reject'> = { reservation, bytes, newFile };
    if (this.queue.length === 0 && this.fits(waiter)) {
      this.admit(waiter);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      reservation.waiting = true;
      this.queue.push({ ...waiter, resolve, reject });
      this.pump();
    });
  }

  /** Rejects the queued requests of an aborted write so it can clean up at once. */
  private cancelWaits(reservation: Reservation): void {
    for (let index = this.queue.length - 1; index >= 0; index -= 1) {
      const waiter = this.queue[index]!;
      if (waiter.reservation !== reservation) continue;
      this.queue.splice(index, 1);
      reservation.waiting = false;
      waiter.reject(new BridgeError('canceled', 'file write canceled'));
    }
    this.pump();
  }

  /** Gives a failed write's space back (its temporary file must already be gone). */
  private release(reservation: Reservation): void {
    if (!this.reservations.delete(reservation)) return;
    this.usedBytes -= reservation.bytes;
    if (reservation.holdsFile) this.usedFiles -= 1;
    reservation.bytes = 0;
    reservation.holdsFile = false;
    this.pump();
  }

  private fits(waiter: Omit<Waiter, 'resolve' | 'reject'>): boolean {
    return (
      this.usedBytes + waiter.bytes <= this.limits.maxBytes &&
      this.usedFiles + (waiter.newFile ? 1 : 0) <= this.limits.maxFiles
    );
  }

  private admit(waiter: Omit<Waiter, 'resolve' | 'reject'>): void {
    this.usedBytes += waiter.bytes;
    waiter.reservation.bytes += waiter.bytes;
    if (waiter.newFile) {
      this.usedFiles += 1;
      waiter.reservation.holdsFile = true;
    }
  }

  /** Admits queued writes in order, evicting LRU files for the head of the queue. */
  private pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        this.pumpOnce();
      } while (this.pumpAgain);
    } finally {
      this.pumping = false;
    }
  }

  private pumpOnce(): void {
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (this.fits(head)) {
        this.queue.shift();
        this.admit(head);
        head.reservation.waiting = false;
        head.resolve();
        continue;
      }
      const overBytes = (): number => this.usedBytes - this.deletingBytes + head.bytes - this.limits.maxBytes;
      const overFiles = (): number =>
        this.usedFiles - this.deletingFiles + (head.newFile ? 1 : 0) - this.limits.maxFiles;
      for (const entry of [...this.entries.values()]) {
        if (overBytes() <= 0 && overFiles() <= 0) break;
        void this.evict(entry, overBytes() > 0 ? 'bytes' : 'count');
      }
      // Space is on its way back once unlinks finish or a running write commits or fails.
      if (this.deletingFiles > 0) return;
      for (const reservation of this.reservations) if (!reservation.waiting) return;
      // Every write is waiting for space that only another waiting write holds: give up the
      // one holding most, so the others can go on.
      let victim = 0;
      this.queue.forEach((waiter, index) => {
        if (waiter.reservation.bytes > this.queue[victim]!.reservation.bytes) victim = index;
      });
      const [rejected] = this.queue.splice(victim, 1);
      rejected!.reservation.waiting = false;
      rejected!.reject(new BridgeError('file_too_large', 'file cache is full of files still being written'));
    }
  }

  private evict(entry: Entry, reason: EvictReason): Promise<void> {
    const { file } = entry;
    if (this.entries.get(file.fileRef) !== entry) return Promise.resolve();
    this.entries.delete(file.fileRef);
    this.committedBytes -= file.byteSize;
    this.deletingBytes += file.byteSize;
    this.deletingFiles += 1;
    if (this.onEvict) {
      try {
        this.onEvict(file, reason);
      } catch {
        // A listener's failure must not corrupt the accounting.
      }
    }
    const done = unlinkQuietly(join(this.dir, `${entry.diskName}.bin`)).then(() => {
      this.deletingBytes -= file.byteSize;
      this.deletingFiles -= 1;
      this.usedBytes -= file.byteSize;
      this.usedFiles -= 1;
      this.pump();
    });
    this.pending.add(done);
    void done.then(() => this.pending.delete(done));
    return done;
  }
}

/** `base` with the given limits replaced, each checked (a positive integer, a known name). */
function withLimits(base: Readonly<FileCacheLimits>, next: unknown): Readonly<FileCacheLimits> {
  const limits: FileCacheLimits = { ...base };
  if (next === undefined) return Object.freeze(limits);
  if (typeof next !== 'object' || next === null) {
    throw new BridgeError('invalid_arguments', 'limits must be an object');
  }
  for (const [key, value] of Object.entries(next)) {
    if (!(LIMIT_KEYS as readonly string[]).includes(key)) {
      throw new BridgeError('invalid_arguments', `limits.${key} is not a known limit`);
    }
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
      throw new BridgeError('invalid_arguments', `limits.${key} must be a positive integer`);
    }
    limits[key as keyof FileCacheLimits] = value;
  }
  return Object.freeze(limits);
}

/** A name safe to show and to put in a header: no directories, control or bidi characters. */
export function safeFilename(name: string, fallback = 'file'): string {
  const base = String(name)
    .normalize('NFC')
    .replace(/^.*[\\/]/, '');
  let cleaned = '';
  for (const ch of base) {
    const code = ch.codePointAt(0) ?? 0;
    const control = code < 0x20 || (code >= 0x7f && code <= 0x9f);
    const bidi =
      (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069) || code === 0x200e || code === 0x200f;
    if (!control && !bidi) cleaned += ch;
  }
  cleaned = cleaned.trim();
  if (cleaned === '' || cleaned === '.' || cleaned === '..') return fallback;
  const chars = Array.from(cleaned);
  if (chars.length <= MAX_FILENAME_CHARS) return cleaned;
  const dot = cleaned.lastIndexOf('.');
  const ext = dot > 0 && cleaned.length - dot <= 16 ? cleaned.slice(dot) : '';
  return (
    Array.from(cleaned.slice(0, cleaned.length - ext.length))
      .slice(0, MAX_FILENAME_CHARS - ext.length)
      .join('') + ext
  );
}

/** `type/subtype` in lowercase without parameters, or application/octet-stream when malformed. */
export function normalizeMimeType(mimeType: string): string {
  const bare = String(mimeType).split(';', 1)[0]!.trim().toLowerCase();
  return MIME_TYPE.test(bare) ? bare : 'application/octet-stream';
}

async function writeAll(handle: fsp.FileHandle, buf: Buffer): Promise<void> {
  let offset = 0;
  while (offset < buf.length) {
    const { bytesWritten } = await handle.write(buf, offset, buf.length - offset, null);
    offset += bytesWritten;
  }
}

async function unlinkQuietly(path: string): Promise<void> {
  try {
    await fsp.unlink(path);
  } catch {
    // Already gone, or undeletable now; the next start() removes leftovers.
  }
}

function destroyStream(stream: NodeJS.ReadableStream, error?: Error): void {
  const destroy = (stream as { destroy?: unknown }).destroy;
  if (typeof destroy === 'function') (destroy as (this: unknown, error?: Error) => void).call(stream, error);
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

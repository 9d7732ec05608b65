/**
 * The audit trail: one JSON line per tool call on any phone (time, channel, phone, tool,
 * redacted arguments, decision and who made it, outcome, duration, reasons, and for approved
 * high-risk calls the screenshot the approver saw). Append-only files in `dataDir/audit/`,
 * rotated by size (`audit.jsonl` → `audit.1.jsonl` … up to `maxFiles`), so the trail stays
 * bounded; the approvers' screenshots are copied to `audit/screens/` (bounded by count)
 * because the file cache forgets them after minutes. Every line passes a last secret filter.
 */
import { createReadStream, promises as fsp, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { AuditEntry } from '../../contract/admin-api';
import type { Logger } from '../logging/logger';
import { redact } from '../logging/logger';

export interface AuditLimits {
  /** Size at which the current file is rotated. */
  maxFileBytes: number;
  /** Files kept, the current one included; the oldest is deleted on rotation. */
  maxFiles: number;
  /** Approvers' screenshots kept; the oldest are deleted beyond it. */
  maxScreenshots: number;
}

export const DEFAULT_AUDIT_LIMITS: Readonly<AuditLimits> = Object.freeze({
  maxFileBytes: 4 * 1024 * 1024,
  maxFiles: 5,
  maxScreenshots: 200,
});

export interface AuditFilter {
  deviceId?: string | undefined;
  channelId?: string | undefined;
}

export const AUDIT_SCREEN_RE = /^shot_[A-Za-z0-9_-]{8,64}\.jpg$/;

function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  return (
    (filter.deviceId === undefined || entry.device_id === filter.deviceId) &&
    (filter.channelId === undefined || entry.connector_channel_id === filter.channelId)
  );
}

export class AuditLog {
  readonly dir: string;
  private readonly screensDir: string;
  private readonly limits: AuditLimits;
  private size = 0;
  /** Lines queued while a write runs; the running write takes them all next. */
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private closed = false;
  /** The current file, kept open between writes (one write per drain, not open, write, close); closed to rotate. */
  private handle: fsp.FileHandle | undefined;

  constructor(
    private readonly options: {
      dir: string;
      limits?: Partial<AuditLimits>;
      secrets: () => readonly string[];
      logger: Logger;
    },
  ) {
    this.dir = options.dir;
    this.screensDir = join(options.dir, 'screens');
    this.limits = { ...DEFAULT_AUDIT_LIMITS, ...options.limits };
    for (const [name, value] of Object.entries(this.limits)) {
      if (!Number.isSafeInteger(value) || value <= 0)
        throw new TypeError(`audit ${name} must be a positive integer (got ${String(value)})`);
    }
    mkdirSync(this.screensDir, { recursive: true, mode: 0o700 });
    try {
      this.size = statSync(this.file(0)).size;
    } catch {
      this.size = 0;
    }
  }

  getLimits(): AuditLimits {
    return { ...this.limits };
  }

  private file(i: number): string {
    return join(this.dir, i === 0 ? 'audit.jsonl' : `audit.${i}.jsonl`);
  }

  /**
   * Queues one entry. One writer appends every line queued meanwhile in one write, so under
   * load the lines waiting in memory are those that came during one write, not one promise per
   * call queued behind the disk (the load test saw thousands); lines never interleave.
   */
  append(entry: AuditEntry): void {
    if (this.closed) return;
    this.pending.push(`${redact(JSON.stringify(entry), this.options.secrets())}\n`);
    this.writing ??= this.drain();
  }

  /** Writes what is queued, in order, rotating before a write that would pass the file size cap. */
  private async drain(): Promise<void> {
    try {
      await this.drainQueued();
    } finally {
      // In the same turn as the last check of the queue: a line queued after it starts a new writer.
      this.writing = undefined;
    }
  }

  private async drainQueued(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      this.pending = [];
      let chunk = '';
      let chunkBytes = 0;
      try {
        for (const line of lines) {
          const bytes = Buffer.byteLength(line);
          if (this.size + chunkBytes > 0 && this.size + chunkBytes + bytes > this.limits.maxFileBytes) {
            await this.write(chunk, chunkBytes);
            [chunk, chunkBytes] = ['', 0];
            if (this.size > 0) await this.rotate();
          }
          chunk += line;
          chunkBytes += bytes;
        }
        await this.write(chunk, chunkBytes);
      } catch (error) {
        this.options.logger.warn('audit write failed', {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
  }

  private async write(text: string, bytes: number): Promise<void> {
    if (bytes === 0) return;
    this.handle ??= await fsp.open(this.file(0), 'a', 0o600);
    try {
      await this.handle.appendFile(text);
    } catch (error) {
      // Opened again by the next write: a file removed or a disk that failed may come back.
      await this.closeHandle();
      throw error;
    }
    this.size += bytes;
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.close().catch(() => undefined);
  }

  private async rotate(): Promise<void> {
    // Closed before the rename: the next write opens the new current file (and Windows refuses
    // to rename a file that is open).
    await this.closeHandle();
    await fsp.rm(this.file(this.limits.maxFiles - 1), { force: true });
    for (let i = this.limits.maxFiles - 2; i >= 0; i--) {
      await fsp.rename(this.file(i), this.file(i + 1)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    this.size = 0;
  }

  /** Resolves when every queued entry is on disk. */
  async flush(): Promise<void> {
    await this.writing;
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    await this.writing;
    await this.closeHandle();
  }

  private async linesOf(i: number): Promise<string[]> {
    try {
      return (await fsp.readFile(this.file(i), 'utf8')).split('\n').filter((l) => l.length > 0);
    } catch {
      return [];
    }
  }

  /** Newest first, at most `limit` entries matching the filter. */
  async read(filter: AuditFilter, limit: number): Promise<AuditEntry[]> {
    await this.flush();
    const out: AuditEntry[] = [];
    for (let i = 0; i < this.limits.maxFiles && out.length < limit; i++) {
      const lines = await this.linesOf(i);
      for (let j = lines.length - 1; j >= 0 && out.length < limit; j--) {
        try {
          const entry = JSON.parse(lines[j] ?? '') as AuditEntry;
          if (matches(entry, filter)) out.push(entry);
        } catch {
          // A torn last line after a crash: skip it.
        }
      }
    }
    return out;
  }

  /** Every matching line, oldest first, for the JSON-lines export (streamed file by file). */
  async *exportLines(filter: AuditFilter): AsyncGenerator<string> {
    await this.flush();
    const filtered = filter.deviceId !== undefined || filter.channelId !== undefined;
    for (let i = this.limits.maxFiles - 1; i >= 0; i--) {
      let stream;
      try {
        await fsp.access(this.file(i));
        stream = createReadStream(this.file(i), { encoding: 'utf8' });
      } catch {
        continue;
      }
      for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
        if (!line) continue;
        if (filtered) {
          try {
            if (!matches(JSON.parse(line) as AuditEntry, filter)) continue;
          } catch {
            continue;
          }
        }
        yield `${line}\n`;
      }
    }
  }

  /** Keeps an approver's screenshot beyond the cache's TTL; returns its reference. */
  async keepScreenshot(name: string, jpeg: Buffer): Promise<string> {
    if (!AUDIT_SCREEN_RE.test(name)) throw new TypeError('bad audit screenshot name');
    await fsp.writeFile(join(this.screensDir, name), jpeg, { mode: 0o600 });
    const files = await fsp.readdir(this.screensDir);
    if (files.length > this.limits.maxScreenshots) {
      const dated = await Promise.all(
        files.map(async (f) => ({
          f,
          t: await fsp.stat(join(this.screensDir, f)).then(
            (s) => s.mtimeMs,
            () => 0,
          ),
        })),
      );
      dated.sort((a, b) => a.t - b.t || a.f.localeCompare(b.f));
      for (const { f } of dated.slice(0, files.length - this.limits.maxScreenshots)) {
        if (f !== name) await fsp.rm(join(this.screensDir, f), { force: true });
      }
    }
    return name;
  }

  /** The path of a kept screenshot, or undefined. */
  screenshotPath(name: string): string | undefined {
    return AUDIT_SCREEN_RE.test(name) ? join(this.screensDir, name) : undefined;
  }
}

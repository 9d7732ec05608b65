/**
 * Per leased phone, one resident `logcat` stream (`exec:logcat -v threadtime -b
 * main,system,crash -T 1`, following) read by the bridge while the lease lasts. It serves
 * two things:
 *
 * - crashes and ANRs (android/logcat.ts FailureDetector): each call's result carries those
 *   that arrived since the previous call took them (`crashes`, call-pipeline.ts). The stream
 *   is already open, so a tap costs no extra round trip to the phone; a crash whose lines
 *   reach the bridge after the call answered is in the next call's result.
 * - the lease's rolling log: the last `maxBytes` of lines (in memory, oldest dropped first),
 *   for the lease's evidence bundle to pick up with `read()` when the lease ends (the bundle
 *   itself is not built here). Lines are kept as the phone wrote them; whoever hands them
 *   out redacts them (log-redaction.ts) with that lease's typed texts.
 *
 * `start(lease)` opens the stream for a lease (again after it dropped); `stop()` closes it.
 * The first line logcat prints (`-T 1`: the last line before it started) belongs to whatever
 * ran before this lease: it is dropped, as is the last lease's rolling log when a new one starts.
 */
import type { Duplex } from 'node:stream';
import type { DeviceShell } from '../devices/device-shell';
import { buildCommandLine } from '../devices/shell-quote';
import { FailureDetector, parseThreadtimeLine, type AppFailure } from '../android/logcat';

/** What the rolling log keeps per phone by default: about ten minutes of a busy phone's log. */
export const DEFAULT_CAPTURE_BYTES = 2 * 1024 * 1024;
const OPEN_TIMEOUT_MS = 5_000;
const STREAM_ARGV = ['logcat', '-v', 'threadtime', '-b', 'main,system,crash', '-T', '1'];

export interface LeaseLogCaptureOptions {
  /** Bytes of lines the rolling log keeps (oldest dropped first). */
  maxBytes?: number;
}

/** One phone's capture. */
export class LeaseLogCapture {
  private stream: Duplex | undefined;
  private opening: Promise<void> | undefined;
  private lease: string | undefined;
  private readonly lines: string[] = [];
  private bytes = 0;
  private droppedLines = 0;
  private partial = '';
  private seenFirst = false;
  private detector = new FailureDetector();
  private readonly maxBytes: number;

  constructor(options: LeaseLogCaptureOptions = {}) {
    this.maxBytes = options.maxBytes ?? DEFAULT_CAPTURE_BYTES;
    if (!Number.isSafeInteger(this.maxBytes) || this.maxBytes < 1024)
      throw new TypeError('LeaseLogCapture: maxBytes must be an integer of at least 1024');
  }

  /** The lease the capture runs for, or undefined when stopped. */
  leaseId(): string | undefined {
    return this.lease;
  }

  /**
   * Opens the stream for `lease` unless it already runs for it; a new lease starts a new
   * rolling log. Resolves once logcat runs (or could not be started: then no crashes are seen).
   */
  async start(lease: string, shell: DeviceShell): Promise<void> {
    if (this.lease !== lease) {
      this.stop();
      this.lease = lease;
      // Another lease's lines (and what its agent typed) never reach this lease's evidence.
      this.lines.length = 0;
      this.bytes = 0;
      this.droppedLines = 0;
    }
    if (this.stream || !shell.openStream) return;
    this.opening ??= this.open(lease, shell).finally(() => (this.opening = undefined));
    await this.opening;
  }

  /** Closes the stream; the rolling log stays readable until the next lease starts. Idempotent. */
  stop(): void {
    this.stream?.destroy();
    this.stream = undefined;
    this.lease = undefined;
  }

  /** Crashes and ANRs seen since the last take, each once. */
  takeFailures(): AppFailure[] {
    return this.detector.take();
  }

  /** The rolling log as the phone wrote it, oldest first, and how many older lines were dropped. */
  read(): { lines: string[]; dropped_lines: number; bytes: number } {
    return { lines: [...this.lines], dropped_lines: this.droppedLines, bytes: this.bytes };
  }

  private async open(lease: string, shell: DeviceShell): Promise<void> {
    let stream: Duplex;
    try {
      stream = await shell.openStream!(`exec:${buildCommandLine(STREAM_ARGV)}`, { timeoutMs: OPEN_TIMEOUT_MS });
    } catch {
      // No stream (the phone refused, or is gone): no crashes are seen until the next start().
      return;
    }
    if (this.lease !== lease) {
      stream.destroy();
      return;
    }
    this.stream = stream;
    this.partial = '';
    this.seenFirst = false;
    this.detector = new FailureDetector();
    stream.on('data', (chunk: Buffer) => this.receive(chunk.toString('utf8')));
    const ended = (): void => {
      // Dropped (phone gone, logd restarted): the next start() opens it again.
      if (this.stream === stream) this.stream = undefined;
    };
    stream.on('close', ended);
    stream.on('end', ended);
    stream.on('error', ended);
  }

  private receive(text: string): void {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    for (const raw of parts) {
      const line = raw.replace(/\r$/, '');
      if (line === '') continue;
      const entry = parseThreadtimeLine(line);
      // The first line (`-T 1`) was written before this lease's stream: history, kept nowhere.
      if (entry && !this.seenFirst) {
        this.seenFirst = true;
        continue;
      }
      this.keep(line);
      if (entry) this.detector.push(entry);
    }
  }

  private keep(line: string): void {
    const size = Buffer.byteLength(line, 'utf8') + 1;
    this.lines.push(line);
    this.bytes += size;
    while (this.bytes > this.maxBytes && this.lines.length > 1) {
      const old = this.lines.shift()!;
      this.bytes -= Buffer.byteLength(old, 'utf8') + 1;
      this.droppedLines++;
    }
  }
}

/** The captures of every phone, by device id (held by the tool runtime). */
export class LeaseLogCaptures {
  private readonly byPhone = new Map<string, LeaseLogCapture>();

  constructor(private readonly options: LeaseLogCaptureOptions = {}) {}

  /** The phone's capture, made on first use. */
  of(deviceId: string): LeaseLogCapture {
    let capture = this.byPhone.get(deviceId);
    if (!capture) {
      capture = new LeaseLogCapture(this.options);
      this.byPhone.set(deviceId, capture);
    }
    return capture;
  }

  /** A lease ended: its phone's stream closes (the rolling log stays for the bundle). */
  leaseEnded(deviceId: string, lease: string): void {
    const capture = this.byPhone.get(deviceId);
    if (capture?.leaseId() === lease) capture.stop();
  }

  stopAll(): void {
    for (const capture of this.byPhone.values()) capture.stop();
  }
}

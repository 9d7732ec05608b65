/**
 * The xagent UI reader's side of its adb `exec:` stream, for unit tests of the bridge's session
 * (main/core/ui-reader/): what the bridge wrote, line by line, and what the test makes the reader
 * say back; and a scripted shell whose `openStream` hands out such readers, one per start.
 */
import { Duplex } from 'node:stream';
import type { ShellRunOptions } from '../../main/core/devices/device-shell';
import { FakeDeviceShell } from './fake-device-shell';

/** The reader's side of the adb stream: what the bridge wrote, line by line; what the test says back. */
export class FakeReader extends Duplex {
  readonly lines: string[] = [];
  private partial = '';
  private readonly lineWaiters: Array<() => void> = [];

  override _read(): void {}

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error | null) => void): void {
    this.partial += chunk.toString('utf8');
    let end: number;
    while ((end = this.partial.indexOf('\n')) >= 0) {
      this.lines.push(this.partial.slice(0, end));
      this.partial = this.partial.slice(end + 1);
    }
    for (const w of this.lineWaiters.splice(0)) w();
    done();
  }

  say(data: string | Buffer): void {
    this.push(data);
  }

  answer(kind: 'tree' | 'focus', xml: string): void {
    const body = Buffer.from(xml, 'utf8');
    this.push(Buffer.concat([Buffer.from(`${kind} ${body.length}\n`), body]));
  }

  /** The reader exits: its output ends. */
  exit(): void {
    this.push(null);
  }

  /** Resolves once the bridge has written `count` lines. */
  async written(count: number): Promise<void> {
    while (this.lines.length < count) await new Promise<void>((resolve) => this.lineWaiters.push(resolve));
  }
}

/**
 * A scripted shell (FakeDeviceShell: unscripted commands reject) whose `openStream` answers with
 * `reader`, or with a new FakeReader per start told `onOpen` (a reader that says ready, say).
 */
export class ReaderShell extends FakeDeviceShell {
  readonly services: string[] = [];
  readonly readers: FakeReader[] = [];
  constructor(
    readonly reader?: FakeReader,
    private readonly onOpen?: (reader: FakeReader) => void,
  ) {
    super();
  }
  openStream(service: string, _options: ShellRunOptions): Promise<Duplex> {
    this.services.push(service);
    const reader = this.reader ?? new FakeReader();
    this.readers.push(reader);
    this.onOpen?.(reader);
    return Promise.resolve(reader);
  }
}

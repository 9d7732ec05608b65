/**
 * What the UI reader's sim tests share: the real jar and where the bridge puts it, the exact
 * command line the bridge starts it with, and a reader of its stream (lines and exact byte
 * counts, each with a deadline).
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { projectRoot } from '../../main/core/build-info';
import { buildCommandLine } from '../../main/core/devices/shell-quote';
import { UI_READER_JAR_IN_REPO } from '../../main/sim/ui-reader/ui-reader';

/** The real jar, built from device/ui-reader/smali (node scripts/build-ui-reader.mjs). */
export const JAR = join(projectRoot(), UI_READER_JAR_IN_REPO);
export const SKIP = existsSync(JAR)
  ? false
  : `${UI_READER_JAR_IN_REPO} is not in this checkout yet (node scripts/build-ui-reader.mjs builds it)`;
export const DIR = '/data/local/tmp/xagent-ui-reader';
export const REMOTE_JAR = `${DIR}/ui-reader-v1.jar`;
export const DUMP = `${DIR}/dump.xml`;
export const UIAUTOMATOR_JAR = '/system/framework/uiautomator.jar';
/** Exactly what the bridge sends (main/core/ui-reader): the assignment, then every word quoted. */
export const START = `CLASSPATH=${UIAUTOMATOR_JAR}:${REMOTE_JAR} ${buildCommandLine(['app_process', '/', 'com.xagent.bridge.UiReader', '1', DUMP])}`;
export const CALL = { timeoutMs: 15_000 };
export const WAIT_MS = 15_000;

/** Lines and exact byte counts from the reader's stream, each read with a deadline. */
export class ReaderStream {
  private buffered = Buffer.alloc(0);
  private ended = false;
  private wake: (() => void) | undefined;

  constructor(readonly stream: Duplex) {
    stream.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.wake?.();
    });
    const end = (): void => {
      this.ended = true;
      this.wake?.();
    };
    stream.on('end', end);
    stream.on('close', end);
    stream.on('error', end);
  }

  get isEnded(): boolean {
    return this.ended;
  }

  write(text: string): void {
    this.stream.write(text);
  }

  /** Waits until `ready()` says the buffer holds enough, or the stream ended. */
  private async until(ready: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + WAIT_MS;
    while (!ready() && !this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; have ${JSON.stringify(this.buffered.toString())}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /** The next line without its "\n"; undefined when the stream ends first. */
  async line(): Promise<string | undefined> {
    await this.until(() => this.buffered.includes(0x0a), 'a line');
    const at = this.buffered.indexOf(0x0a);
    if (at < 0) return undefined;
    const line = this.buffered.subarray(0, at).toString('utf8');
    this.buffered = this.buffered.subarray(at + 1);
    return line;
  }

  async bytes(n: number): Promise<Buffer> {
    await this.until(() => this.buffered.length >= n, `${n} bytes`);
    assert.ok(this.buffered.length >= n, 'the stream ended inside an answer');
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** Everything until the stream ends. */
  async rest(): Promise<string> {
    await this.until(() => false, 'the end of the stream');
    const text = this.buffered.toString('utf8');
    this.buffered = Buffer.alloc(0);
    return text;
  }

  /** One request and its answer: the XML, or null for `none`. */
  async ask(request: string): Promise<string | null> {
    this.write(`${request}\n`);
    const header = await this.line();
    assert.ok(header !== undefined, `an answer to ${request}`);
    if (header === 'none') return null;
    const m = /^(tree|focus) (\d+)$/.exec(header);
    assert.ok(m && m[1] === request.split(' ')[0], `a ${request.split(' ')[0]} answer, got ${JSON.stringify(header)}`);
    return (await this.bytes(Number(m[2]))).toString('utf8');
  }

  close(): void {
    this.stream.destroy();
  }
}

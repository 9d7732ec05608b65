/**
 * What a simulated phone knows of the bridge's UI reader between its runs (ui-reader.ts runs
 * the program): which bytes are the reader's jar, and which process, if any, holds the phone's
 * single UiAutomation connection as the reader. Its own module so the phone's context can name
 * it without an import circle.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../core/build-info';
import type { SimProcess } from '../phone-processes';

/** The reader's jar in the repository (and in the packaged app's resources). */
export const UI_READER_JAR_IN_REPO = join('resources', 'device', 'xagent-ui-reader.jar');

/** SHA-256 (hex) of a file on this computer, or undefined when it cannot be read. */
function sha256OfFile(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

/**
 * The phone's UI reader: which process runs it and whether it holds UiAutomation. One per
 * phone; `jarPath` is the file whose bytes are the reader (default: the repository's jar).
 */
export class SimUiReader {
  private holder: SimProcess | undefined;

  constructor(private readonly jarPath: string = join(projectRoot(), UI_READER_JAR_IN_REPO)) {}

  /** A reader is connected to UiAutomation (between its `ready` and its exit). */
  holdsUiAutomation(): boolean {
    return this.holder !== undefined && !this.holder.ended.aborted;
  }

  /** The pid of the reader holding UiAutomation, or undefined. */
  pid(): number | undefined {
    return this.holdsUiAutomation() ? this.holder?.pid : undefined;
  }

  /** Whether these bytes are the reader's jar. Read each time: the file may appear or change while phones run. */
  isReaderJar(data: Buffer): boolean {
    const wanted = sha256OfFile(this.jarPath);
    return wanted !== undefined && createHash('sha256').update(data).digest('hex') === wanted;
  }

  /** Called by the reader's process once its UiAutomation connection stands; released when it ends. */
  connected(process: SimProcess): void {
    this.holder = process;
    process.ended.addEventListener(
      'abort',
      () => {
        if (this.holder === process) this.holder = undefined;
      },
      { once: true },
    );
  }
}

/**
 * The bridge's UI reader (program id `ui_reader`, device/ui-reader/README.md) on a simulated
 * phone, run as the bridge runs it on a real one:
 * `CLASSPATH=/system/framework/uiautomator.jar:<jar> app_process / com.xagent.bridge.UiReader 1 <dump path>`
 * over an adb `exec:` stream, its requests on stdin as the bridge writes them.
 *
 * - The jar must hash (SHA-256) to the repository's `resources/device/xagent-ui-reader.jar`,
 *   read when the program starts; other bytes are no dex ART can load, so app_process fails
 *   as for any class it cannot find (process-utils.ts). A tampered jar never runs.
 * - Without `/system/framework/uiautomator.jar` on the class path or on the phone (quirk
 *   `no-uiautomator-jar`), the class loads and dies resolving UiAutomationShellWrapper.
 * - It is a process (`ps`, `pidof app_process`, `kill`) that holds the phone's single
 *   UiAutomation connection from its connect to its exit: stock `uiautomator dump`, the snapshot
 *   helper and appium-uiautomator2-server fail meanwhile, and it prints `error …` and exits 1
 *   when one of them holds it first (QUIRKS.md "The UI reader").
 * - `tree R W H` gives stock `uiautomator dump`'s XML of the same screen (the same generator,
 *   with the bridge's rotation and size); `focus R W H` the subtree of the focused node, or `none`.
 * - It opens no socket; `quit`, stdin's EOF (the stream closed) or a signal end it.
 * Timings: TIMING-SOURCES.md "The UI reader".
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../core/build-info';
import type { CommandIo, PhoneContext } from '../commands/command-types';
import { stockDumpXml, UIAUTOMATOR_JAR, type DumpFrame } from '../commands/uiautomator';
import { normalizePhonePath } from '../phone-fs';
import { SIGNALS, type SimProcess } from '../phone-processes';
import { dumpSubtreeXml } from '../screen/ui-dump';
import { walk } from '../screen/ui-node';
import { uiReaderTimingMs } from '../timing-profiles';
import { StdinLines } from './stdin-lines';

export const UI_READER_CLASS = 'com.xagent.bridge.UiReader';
export const UI_READER_PROTOCOL = '1';
/** The reader's jar in the repository (and in the packaged app's resources). */
export const UI_READER_JAR_IN_REPO = join('resources', 'device', 'xagent-ui-reader.jar');

/** ui-dump-unreadable: the dumper only logs its IOException; reading its file back fails. */
const UNREADABLE = 'error java.io.FileNotFoundException: open failed: ENOENT (No such file or directory)\n';
const NATIVE_LIBRARY_DIRS = 'nativeLibraryDirectories=[/system/lib64, /system_ext/lib64]';

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

/**
 * `app_process` with the reader's class and a class path holding its jar; undefined when it is
 * not that (another program, or a jar whose bytes are not the reader's: ClassNotFoundException).
 */
export function runUiReader(
  io: CommandIo,
  phone: PhoneContext,
  classPath: string,
  className: string,
  args: readonly string[],
): Promise<number> | undefined {
  if (className !== UI_READER_CLASS) return undefined;
  const entries = classPath.split(':').map((entry) => normalizePhonePath(entry, io.cwd));
  const jar = entries.find((entry) => {
    const data = entry === UIAUTOMATOR_JAR ? undefined : phone.fs.read(entry);
    return data !== undefined && phone.uiReader.isReaderJar(data);
  });
  if (jar === undefined) return undefined;
  return runReader(io, phone, args, entries, jar);
}

async function runReader(
  io: CommandIo,
  phone: PhoneContext,
  args: readonly string[],
  classPath: readonly string[],
  jar: string,
): Promise<number> {
  const say = (data: string | Buffer): void => (io.outNow ?? io.out)(data);
  if (args.length !== 2 || args[0] !== UI_READER_PROTOCOL || (args[1] ?? '') === '') {
    say('error usage\n');
    return 2;
  }
  const process = phone.processes.spawn('app_process');
  // For a raw stream, adbd's socket is stdin and stdout: its closing is EOF and the next write's
  // EPIPE. Either way the reader ends; the sim ends it at once.
  const hangUp = (): void => process.signal(SIGNALS.HUP);
  io.signal.addEventListener('abort', hangUp, { once: true });
  try {
    if (!(await phone.sleep(uiReaderTimingMs(phone.profile, 'start'), process.ended)))
      return 128 + (process.endedBy ?? SIGNALS.HUP);
    if (!classPath.includes(UIAUTOMATOR_JAR) || !phone.fs.stat(UIAUTOMATOR_JAR)) {
      // The reader's own class loaded; its first use of the uiautomator library fails to resolve.
      io.err(
        `Exception in thread "main" java.lang.NoClassDefFoundError: Failed resolution of: Lcom/android/uiautomator/core/UiAutomationShellWrapper;\n` +
          `\tat com.xagent.bridge.UiReader.main(UiReader.java)\n` +
          `\tat com.android.internal.os.RuntimeInit.nativeFinishInit(Native Method)\n` +
          `\tat com.android.internal.os.RuntimeInit.main(RuntimeInit.java:359)\n` +
          `Caused by: java.lang.ClassNotFoundException: Didn't find class "com.android.uiautomator.core.UiAutomationShellWrapper" on path: DexPathList[[zip file "${jar}"],${NATIVE_LIBRARY_DIRS}]\n`,
      );
      return 1;
    }
    if (
      phone.helper.holdsUiAutomation() ||
      phone.snapshotHelper.holdsUiAutomation() ||
      phone.uiReader.holdsUiAutomation()
    ) {
      // UiAutomationManager.registerUiTestAutomationServiceLocked refuses a second client.
      // Its text as Android prints it: the proxy's identity hash, then "already" with no space.
      const hash = ((process.pid * 40_503) % 0xfffffff).toString(16);
      say(
        `error java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@${hash}already registered!\n`,
      );
      return 1;
    }
    phone.uiReader.connected(process);
    say(`xagent-ui-reader ${UI_READER_PROTOCOL} ready ${process.pid}\n`);
    const lines = new StdinLines(io);
    for (;;) {
      const line = await lines.next(process.ended);
      if (process.ended.aborted) return 128 + (process.endedBy ?? SIGNALS.HUP);
      if (line === undefined || line.trim() === 'quit') return 0;
      const answer = await answerRequest(phone, line, process.ended);
      if (answer === undefined) return 128 + (process.endedBy ?? SIGNALS.HUP);
      say(answer);
    }
  } finally {
    io.signal.removeEventListener('abort', hangUp);
    process.exit();
  }
}

/** One request's whole answer (header and body), or undefined when the process ended meanwhile. */
async function answerRequest(phone: PhoneContext, line: string, ended: AbortSignal): Promise<Buffer | undefined> {
  const words = line.trim().split(/\s+/);
  const verb = words[0] ?? '';
  if (verb !== 'tree' && verb !== 'focus') return Buffer.from(`error unknown request ${JSON.stringify(verb)}\n`);
  const numbers = words.slice(1).map((w) => (/^\d+$/.test(w) ? Number(w) : NaN));
  const [rotation = NaN, width = NaN, height = NaN] = numbers;
  if (words.length !== 4 || rotation > 3 || !(width > 0) || !(height > 0) || numbers.some((n) => Number.isNaN(n)))
    return Buffer.from(`error usage: ${verb} <rotation 0-3> <width> <height>\n`);
  const frame: DumpFrame = { rotation, width, height };
  if (verb === 'tree') {
    // waitForIdle(100, 500): a screen that never settles uses the whole 500 ms; the timeout is ignored.
    const idle = uiReaderTimingMs(phone.profile, phone.quirks.has('ui-dump-idle-timeout') ? 'idleTimeout' : 'idle');
    if (!(await phone.sleep(idle + uiReaderTimingMs(phone.profile, 'walk'), ended))) return undefined;
    if (phone.quirks.has('ui-dump-null-root')) return Buffer.from('none\n');
    if (phone.quirks.has('ui-dump-unreadable')) return Buffer.from(UNREADABLE);
    return framed('tree', stockDumpXml(phone, frame));
  }
  if (!(await phone.sleep(uiReaderTimingMs(phone.profile, 'focus'), ended))) return undefined;
  const xml = focusedSubtreeXml(phone, frame);
  if (xml === undefined) return Buffer.from('none\n');
  return phone.quirks.has('ui-dump-unreadable') ? Buffer.from(UNREADABLE) : framed('focus', xml);
}

/** `<verb> <n>\n` and the n bytes of UTF-8. */
function framed(verb: 'tree' | 'focus', xml: string): Buffer {
  const body = Buffer.from(xml, 'utf8');
  return Buffer.concat([Buffer.from(`${verb} ${body.length}\n`), body]);
}

/** findFocus(FOCUS_INPUT) on the active window's root, dumped as its own hierarchy; undefined: no window or no focus. */
function focusedSubtreeXml(phone: PhoneContext, frame: DumpFrame): string | undefined {
  if (phone.quirks.has('ui-dump-null-root') || phone.quirks.has('ui-dump-empty')) return undefined;
  const window = phone.screen.window();
  for (const node of walk(window.root))
    if (node.focused) return dumpSubtreeXml(node, window.pkg, frame.width, frame.height, frame.rotation);
  return undefined;
}

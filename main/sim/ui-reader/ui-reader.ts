/**
 * The bridge's UI reader (program id `ui_reader`, device/ui-reader/README.md) on a simulated
 * phone, run as the bridge runs it on a real one:
 * `CLASSPATH=/system/framework/uiautomator.jar:<jar> app_process / com.xagent.bridge.UiReader 1 <dump path>`
 * over an adb `exec:` stream, its requests on stdin as the bridge writes them.
 *
 * - The jar must hash (SHA-256) to the repository's `resources/device/xagent-ui-reader.jar`,
 *   read when the program starts; other bytes are no dex ART can load, so app_process fails
 *   as for any class it cannot find (process-utils.ts). A tampered jar never runs.
 * - It behaves as its smali source (device/ui-reader/smali/…/UiReader.smali) says: `error usage`
 *   (exit 2) for other arguments; anything thrown while connecting is `error connect <exception>`
 *   (exit 1): without `/system/framework/uiautomator.jar` on the class path or on the phone
 *   (quirk `no-uiautomator-jar`) a NoClassDefFoundError, with another UiAutomation client
 *   connected an IllegalStateException; requests are split on single spaces, a failure is one
 *   `error …` line and it goes on; each answer goes through the dump file, deleted at once.
 * - It is a process (`ps`, `pidof app_process`, `kill`) that holds the phone's single
 *   UiAutomation connection from its connect to its exit: stock `uiautomator dump`, the snapshot
 *   helper and appium-uiautomator2-server fail meanwhile (QUIRKS.md "The UI reader").
 * - `tree R W H` gives stock `uiautomator dump`'s XML of the same screen (the same generator,
 *   with the bridge's rotation and size); `focus R W H` the subtree of the focused node, or `none`.
 * - It opens no socket; `quit`, stdin's EOF (the stream closed) or a signal end it.
 * Timings: TIMING-SOURCES.md "The UI reader".
 */
import type { CommandIo, PhoneContext } from '../commands/command-types';
import { stockDumpXml, UIAUTOMATOR_JAR, type DumpFrame } from '../commands/uiautomator';
import { normalizePhonePath } from '../phone-fs';
import { SIGNALS } from '../phone-processes';
import { dumpSubtreeXml } from '../screen/ui-dump';
import { walk } from '../screen/ui-node';
import { uiReaderTimingMs } from '../timing-profiles';
import { StdinLines } from './stdin-lines';

export { UI_READER_JAR_IN_REPO } from './ui-reader-state';
export const UI_READER_CLASS = 'com.xagent.bridge.UiReader';
export const UI_READER_PROTOCOL = '1';

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
  return runReader(io, phone, args, entries);
}

async function runReader(
  io: CommandIo,
  phone: PhoneContext,
  args: readonly string[],
  classPath: readonly string[],
): Promise<number> {
  const say = (data: string | Buffer): void => (io.outNow ?? io.out)(data);
  const process = phone.processes.spawn('app_process');
  // For a raw stream, adbd's socket is stdin and stdout: its closing is EOF and the next write's
  // EPIPE. Either way the reader ends; the sim ends it at once.
  const hangUp = (): void => process.signal(SIGNALS.HUP);
  io.signal.addEventListener('abort', hangUp, { once: true });
  const killed = (): number => 128 + (process.endedBy ?? SIGNALS.HUP);
  try {
    if (!(await phone.sleep(uiReaderTimingMs(phone.profile, 'jvmStart'), process.ended))) return killed();
    if (args.length !== 2 || args[0] !== UI_READER_PROTOCOL) {
      say('error usage\n');
      return 2;
    }
    // new UiAutomationShellWrapper(); connect(); getUiAutomation(): anything thrown is "error connect …", exit 1.
    if (!classPath.includes(UIAUTOMATOR_JAR) || !phone.fs.stat(UIAUTOMATOR_JAR)) {
      // The reader's own class loaded from its jar; the library's class does not resolve.
      say(
        'error connect java.lang.NoClassDefFoundError: Failed resolution of: Lcom/android/uiautomator/core/UiAutomationShellWrapper;\n',
      );
      return 1;
    }
    if (!(await phone.sleep(uiReaderTimingMs(phone.profile, 'connect'), process.ended))) return killed();
    if (
      phone.helper.holdsUiAutomation() ||
      phone.snapshotHelper.holdsUiAutomation() ||
      phone.uiReader.holdsUiAutomation()
    ) {
      // UiAutomationManager.registerUiTestAutomationServiceLocked refuses a second client; the
      // IllegalStateException reaches UiAutomation.connect unwrapped. Its text as Android prints
      // it: the proxy's identity hash, then "already" with no space.
      const hash = ((process.pid * 40_503) % 0xfffffff).toString(16);
      say(
        `error connect java.lang.IllegalStateException: UiAutomationService android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@${hash}already registered!\n`,
      );
      return 1;
    }
    phone.uiReader.connected(process);
    say(`xagent-ui-reader ${UI_READER_PROTOCOL} ready ${process.pid}\n`);
    const dumpFile = args[1] ?? '';
    const lines = new StdinLines(io);
    for (;;) {
      const line = await lines.next(process.ended);
      if (process.ended.aborted) return killed();
      if (line === undefined || line === 'quit') return 0;
      const answer = await serve(phone, line, { path: dumpFile, cwd: io.cwd }, process.ended);
      if (answer === undefined) return killed();
      say(answer);
    }
  } finally {
    io.signal.removeEventListener('abort', hangUp);
    process.exit();
  }
}

/** Integer.parseInt: an optional sign and decimal digits within an int, else NumberFormatException. */
function parseJavaInt(word: string): number | string {
  const n = /^[+-]?\d+$/.test(word) ? Number(word) : NaN;
  return Number.isInteger(n) && n >= -2_147_483_648 && n <= 2_147_483_647
    ? n
    : `java.lang.NumberFormatException: For input string: "${word}"`;
}

/**
 * One request, as UiReader.serve answers it: `line.split(" ")` (trailing empty words dropped)
 * must give 4 words whose last three parse as ints (any range: the dumper writes what it is
 * told), then `tree` or `focus`; else `error bad-request` or the exception's line. The answer
 * (header and body), or undefined when the process ended meanwhile.
 */
async function serve(
  phone: PhoneContext,
  line: string,
  dump: { path: string; cwd: string },
  ended: AbortSignal,
): Promise<Buffer | undefined> {
  const words = line.split(' ');
  while (words.length > 0 && words[words.length - 1] === '') words.pop();
  if (words.length !== 4) return Buffer.from('error bad-request\n');
  const numbers: number[] = [];
  for (const word of words.slice(1)) {
    const n = parseJavaInt(word);
    if (typeof n === 'string') return Buffer.from(`error ${n}\n`);
    numbers.push(n);
  }
  const [rotation = 0, width = 0, height = 0] = numbers;
  const frame: DumpFrame = { rotation, width, height };
  const kind = words[0];
  let xml: string | undefined;
  if (kind === 'tree') {
    // waitForIdle(100, 500): a screen that never settles uses the whole 500 ms; the timeout is ignored.
    const idle = uiReaderTimingMs(phone.profile, phone.quirks.has('ui-dump-idle-timeout') ? 'idleTimeout' : 'idle');
    if (!(await phone.sleep(idle + uiReaderTimingMs(phone.profile, 'walk'), ended))) return undefined;
    xml = phone.quirks.has('ui-dump-null-root') ? undefined : stockDumpXml(phone, frame);
  } else if (kind === 'focus') {
    // No idle wait: getRootInActiveWindow().findFocus(FOCUS_INPUT).
    if (!(await phone.sleep(uiReaderTimingMs(phone.profile, 'focus'), ended))) return undefined;
    xml = focusedSubtreeXml(phone, frame);
  } else return Buffer.from('error bad-request\n');
  if (xml === undefined) return Buffer.from('none\n');
  const bytes = dumpThroughFile(phone, Buffer.from(xml, 'utf8'), dump);
  return typeof bytes === 'string'
    ? Buffer.from(`error ${bytes}\n`)
    : Buffer.concat([Buffer.from(`${kind} ${bytes.length}\n`), bytes]);
}

/**
 * dumpWindowToFile then readAndDelete: the XML goes through the dump file, which is deleted at
 * once. The dumper only logs a failed write (ui-dump-unreadable, a missing folder); reading the
 * file back then throws FileNotFoundException, whose line is returned.
 */
function dumpThroughFile(phone: PhoneContext, xml: Buffer, dump: { path: string; cwd: string }): Buffer | string {
  const full = normalizePhonePath(dump.path, dump.cwd);
  const removeFile = (): void => {
    try {
      if (phone.fs.stat(full) && !phone.fs.isDirectory(full)) phone.fs.remove(full, false);
    } catch {
      // File.delete() answers false; nothing is thrown.
    }
  };
  removeFile();
  if (!phone.quirks.has('ui-dump-unreadable')) {
    try {
      phone.fs.create(full, xml);
    } catch {
      // AccessibilityNodeInfoDumper catches the IOException and logs it.
    }
  }
  const written = phone.fs.isDirectory(full) ? undefined : phone.fs.read(full);
  removeFile();
  if (written) return written;
  const errno = phone.fs.isDirectory(full) ? 'EISDIR (Is a directory)' : 'ENOENT (No such file or directory)';
  return `java.io.FileNotFoundException: ${dump.path}: open failed: ${errno}`;
}

/** findFocus(FOCUS_INPUT) on the active window's root, dumped as its own hierarchy; undefined: no window or no focus. */
function focusedSubtreeXml(phone: PhoneContext, frame: DumpFrame): string | undefined {
  // No active window root, or one with no nodes (nothing focused): none.
  if (phone.quirks.has('ui-dump-null-root') || phone.quirks.has('ui-dump-empty')) return undefined;
  const window = phone.screen.window();
  for (const node of walk(window.root))
    if (node.focused) return dumpSubtreeXml(node, window.pkg, frame.width, frame.height, frame.rotation);
  return undefined;
}

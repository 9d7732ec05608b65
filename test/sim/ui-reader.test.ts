/**
 * The bridge's UI reader (device/ui-reader/README.md) on simulated phones, through the real adb
 * server: the real jar pushed with sync and checked with sha256sum, started over an `exec:`
 * stream with the bridge's own command line, its requests written to the stream as it runs.
 * `tree` is stock `uiautomator dump`'s XML of the same screen, `focus` the focused field's
 * subtree or `none`, `quit` and the stream's close end it, `kill` ends it and its stream; it
 * shows in `ps`, listens on nothing, holds UiAutomation against the other readers (both ways),
 * and a jar with other bytes never says `ready`.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Adb from '@devicefarmer/adbkit';
import { projectRoot } from '../../main/core/build-info';
import { AdbDeviceShell } from '../../main/core/devices/adb-device-shell';
import { buildCommandLine } from '../../main/core/devices/shell-quote';
import {
  findSnapshotHelperApk,
  ensureSnapshotHelper,
  readSnapshotTree,
} from '../../main/core/snapshot/snapshot-helper';
import { BridgeError } from '../../main/core/errors';
import { AdbdServer } from '../../main/sim/adbd-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import type { PhoneStdinSource } from '../../main/sim/phone-device';
import { USB_PHONE_TIMINGS } from '../../main/sim/timing-profiles';
import { UI_READER_JAR_IN_REPO } from '../../main/sim/ui-reader/ui-reader';
import { runAdb, startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { startHelperRig, type HelperRig } from './helper-kit';

/** The real jar; XAGENT_UI_READER_TEST_JAR names another file (a stand-in while the jar is being built). */
const JAR = process.env.XAGENT_UI_READER_TEST_JAR ?? join(projectRoot(), UI_READER_JAR_IN_REPO);
const SKIP = existsSync(JAR)
  ? false
  : `${UI_READER_JAR_IN_REPO} is not in this checkout yet (node scripts/build-ui-reader.mjs builds it)`;
const DIR = '/data/local/tmp/xagent-ui-reader';
const REMOTE_JAR = `${DIR}/ui-reader-v1.jar`;
const DUMP = `${DIR}/dump.xml`;
const UIAUTOMATOR_JAR = '/system/framework/uiautomator.jar';
/** Exactly what the bridge sends (main/core/ui-reader): the assignment, then every word quoted. */
const START = `CLASSPATH=${UIAUTOMATOR_JAR}:${REMOTE_JAR} ${buildCommandLine(['app_process', '/', 'com.xagent.bridge.UiReader', '1', DUMP])}`;
const CALL = { timeoutMs: 15_000 };
const WAIT_MS = 15_000;

/** Lines and exact byte counts from the reader's stream, each read with a deadline. */
class ReaderStream {
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

interface Phone {
  phone: SimulatedPhone;
  serial: string;
  shell: AdbDeviceShell;
}

/** The XML stock `uiautomator dump /dev/tty` printed, without its "UI hierchary dumped to" line. */
async function stockDump(shell: AdbDeviceShell): Promise<string> {
  const out = (await shell.run(['uiautomator', 'dump', '/dev/tty'], CALL)).stdout.toString('utf8');
  const end = out.lastIndexOf('</hierarchy>');
  assert.ok(end > 0, `a stock dump, got ${out.slice(0, 200)}`);
  return out.slice(0, end + '</hierarchy>'.length);
}

const text = async (shell: AdbDeviceShell, argv: string[]): Promise<string> =>
  (await shell.run(argv, CALL)).stdout.toString('utf8');

void describe('the UI reader on simulated phones (real adb server, exec: stream)', { skip: SKIP }, () => {
  let rig: AdbServerRig;
  let client: ReturnType<typeof Adb.createClient>;
  const servers: AdbdServer[] = [];
  const phones: SimulatedPhone[] = [];
  const streams: ReaderStream[] = [];
  let main: Phone;

  async function addPhone(options: Partial<SimulatedPhoneOptions> = {}): Promise<Phone> {
    const phone = createSimulatedPhone({ serial: `uir-${phones.length}`, uiReaderJar: JAR, ...options });
    phones.push(phone);
    const server = await AdbdServer.start({ phone });
    servers.push(server);
    const serial = await attachToAdb(rig, server.port);
    const shell = new AdbDeviceShell(client, serial);
    return { phone, serial, shell };
  }

  /** Pushes `bytes` (default: the real jar) where the bridge puts it, as the bridge does. */
  async function pushJar(p: Phone, bytes: Buffer = readFileSync(JAR)): Promise<void> {
    await p.shell.run(['mkdir', '-p', DIR], CALL);
    await p.shell.run(['chmod', '700', DIR], CALL);
    await p.shell.push(bytes, REMOTE_JAR, { ...CALL, mode: 0o644 });
  }

  async function start(p: Phone, line = START): Promise<ReaderStream> {
    const reader = new ReaderStream(await p.shell.openStream(`exec:${line}`, CALL));
    streams.push(reader);
    return reader;
  }

  /** Starts the reader and reads its `ready` line: its pid. */
  async function startReady(p: Phone): Promise<{ reader: ReaderStream; pid: number }> {
    const reader = await start(p);
    const ready = await reader.line();
    const m = /^xagent-ui-reader 1 ready (\d+)$/.exec(ready ?? '');
    assert.ok(m, `the ready line, got ${JSON.stringify(ready)}`);
    return { reader, pid: Number(m[1]) };
  }

  const readerRunning = (p: Phone): boolean => p.phone.processes.list().some((proc) => proc.name === 'app_process');

  before(async () => {
    rig = await startAdbServer();
    client = Adb.createClient({ host: '127.0.0.1', port: rig.port });
    main = await addPhone();
    await pushJar(main);
  });

  after(async () => {
    for (const s of streams) s.close();
    for (const phone of phones) phone.close();
    await Promise.all(servers.map((s) => s.close()));
    await rig?.stop();
  });

  test('the pushed jar is the repository’s, byte for byte (sha256sum on the phone)', async () => {
    const local = createHash('sha256').update(readFileSync(JAR)).digest('hex');
    assert.equal(await text(main.shell, ['sha256sum', REMOTE_JAR]), `${local}  ${REMOTE_JAR}\n`);
  });

  test('ready with its pid; ps shows it; tree is the stock dump; nothing listens; quit ends it and its stream', async () => {
    await main.shell.run(['monkey', '-p', 'com.example.notes', '-c', 'android.intent.category.LAUNCHER', '1'], CALL);
    const stock = await stockDump(main.shell);
    const tcpBefore = await text(main.shell, ['cat', '/proc/net/tcp', '/proc/net/tcp6']);

    const { reader, pid } = await startReady(main);
    assert.equal(main.phone.uiReader.pid(), pid);
    const ps = await text(main.shell, ['ps', '-A']);
    const row = ps.split('\n').find((l) => l.trim().split(/\s+/)[1] === String(pid));
    assert.ok(row, `ps -A lists pid ${pid}:\n${ps}`);
    assert.match(row, /^shell\s.*\sapp_process$/);
    assert.equal(await text(main.shell, ['pidof', 'app_process']), `${pid}\n`);
    assert.equal(await text(main.shell, ['cat', '/proc/net/tcp', '/proc/net/tcp6']), tcpBefore, 'no socket opened');

    assert.equal(await reader.ask('tree 0 1080 2400'), stock);
    // Requests come one at a time, each answered in order, for as long as it runs.
    assert.equal(await reader.ask('tree 0 1080 2400'), stock);
    // Failures are one line each and it goes on (UiReader.serve).
    for (const [request, answer] of [
      ['bogus 1 2 3', 'error bad-request'],
      ['tree 0 1080', 'error bad-request'],
      ['tree  0 1080 2400', 'error bad-request'],
      ['tree x 1080 2400', 'error java.lang.NumberFormatException: For input string: "x"'],
      ['quit ', 'error bad-request'],
    ] as const) {
      reader.write(`${request}\n`);
      assert.equal(await reader.line(), answer, request);
    }
    assert.equal(await reader.ask('tree 0 1080 2400 '), stock, 'trailing spaces are dropped, as split(" ") does');
    assert.equal(main.phone.fs.stat(DUMP), undefined, 'the dump file is deleted at once');

    reader.write('quit\n');
    assert.equal(await reader.rest(), '');
    assert.equal(readerRunning(main), false);
    assert.equal(main.phone.uiReader.holdsUiAutomation(), false);
    assert.equal(await stockDump(main.shell), stock, 'stock dump works again once it is gone');
  });

  test('rotation, width and height of the request are what the XML says, as stock dump on that screen', async () => {
    const turned = await addPhone({ quirks: ['landscape'] });
    await pushJar(turned);
    const stock = await stockDump(turned.shell);
    assert.match(stock, /<hierarchy rotation="1">/);
    const { reader } = await startReady(turned);
    assert.equal(await reader.ask('tree 1 2400 1080'), stock);
    reader.write('quit\n');
    await reader.rest();
  });

  test('focus: the focused field’s subtree under its own <hierarchy>, and none without focus', async () => {
    await main.shell.run(['monkey', '-p', 'com.example.notes', '-c', 'android.intent.category.LAUNCHER', '1'], CALL);
    const stock = await stockDump(main.shell);
    const field =
      /<node index="(\d+)"( text="[^"]*" resource-id="com\.example\.notes:id\/note_text"[^>]*bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]")>/.exec(
        stock,
      );
    assert.ok(field, 'the notes app shows its field');
    const { reader } = await startReady(main);
    assert.equal(await reader.ask('focus 0 1080 2400'), null, 'nothing focused yet');

    const x = (Number(field[3]) + Number(field[5])) / 2;
    const y = (Number(field[4]) + Number(field[6])) / 2;
    await main.shell.run(['input', 'tap', String(x), String(y)], CALL);
    assert.equal(main.phone.screenState().focusedField, 'note_text');
    const focus = await reader.ask('focus 0 1080 2400');
    assert.ok(focus);
    assert.ok(
      focus.startsWith(
        `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0"`,
      ),
      focus,
    );
    assert.ok(focus.endsWith('</node></hierarchy>'));
    assert.match(focus, /resource-id="com\.example\.notes:id\/note_text"[^>]*focused="true"/);
    // The node as the whole tree has it (attributes after its index are the same).
    const tree = await reader.ask('tree 0 1080 2400');
    const inTree = /<node index="\d+"( text="[^"]*" resource-id="com\.example\.notes:id\/note_text"[^>]*)>/.exec(
      tree ?? '',
    );
    assert.ok(inTree && focus.includes(`<node index="0"${inTree[1]}>`));

    await main.shell.run(['input', 'keyevent', '3'], CALL); // HOME: the launcher has no focused field
    assert.equal(await reader.ask('focus 0 1080 2400'), null);
    reader.write('quit\n');
    await reader.rest();
  });

  test('the same over shell: (raw: the stream is stdin) and `adb shell` with stdin piped (v2: STDIN packets, CLOSE_STDIN is EOF)', async () => {
    await main.shell.run(['input', 'keyevent', '3'], CALL);
    const stock = await stockDump(main.shell);
    const raw = new ReaderStream(await main.shell.openStream(`shell:${START}`, CALL));
    streams.push(raw);
    assert.match((await raw.line()) ?? '', /^xagent-ui-reader 1 ready \d+$/);
    assert.equal(await raw.ask('tree 0 1080 2400'), stock);
    raw.write('quit\n');
    assert.equal(await raw.rest(), '');

    // The adb CLI: stdin not a terminal, so `shell,v2,raw:`; its EOF ends the reader, exit 0.
    const piped = await runAdb(rig, ['-s', main.serial, 'shell', START], {
      input: 'tree 0 1080 2400\nfocus 0 1080 2400\n',
      timeoutMs: WAIT_MS,
    });
    const out = piped.stdout.toString('utf8').replace(/ready \d+/, 'ready PID');
    assert.equal(out, `xagent-ui-reader 1 ready PID\ntree ${Buffer.byteLength(stock)}\n${stock}none\n`);
    assert.equal(piped.code, 0);
    assert.equal(readerRunning(main), false);
  });

  test('closing the stream ends the process (EOF); kill <pid> ends it and closes the stream', async () => {
    const first = await startReady(main);
    const exited = once(main.phone.processes.events, 'exit', { signal: AbortSignal.timeout(WAIT_MS) });
    first.reader.close();
    assert.deepEqual(await exited, [first.pid, 'app_process']);
    assert.equal(main.phone.uiReader.holdsUiAutomation(), false);

    const second = await startReady(main);
    assert.equal(await text(main.shell, ['kill', String(second.pid)]), '');
    assert.equal(await second.reader.rest(), '');
    assert.equal(second.reader.isEnded, true);
    assert.equal(readerRunning(main), false);
  });

  test('a tampered jar never says ready: ClassNotFoundException, no process; other arguments: error usage', async () => {
    const tampered = await addPhone();
    const bytes = Buffer.from(readFileSync(JAR));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await pushJar(tampered, bytes);
    const reader = await start(tampered);
    const out = await reader.rest();
    assert.doesNotMatch(out, /ready/);
    assert.match(out, /java\.lang\.ClassNotFoundException: Didn't find class "com\.xagent\.bridge\.UiReader"/);
    assert.equal(readerRunning(tampered), false);
    assert.equal(tampered.phone.uiReader.holdsUiAutomation(), false);

    await pushJar(tampered);
    const wrong = await tampered.phone.exec(START.replace("'1'", "'2'"), { signal: AbortSignal.timeout(WAIT_MS) });
    assert.deepEqual([wrong.stdout.toString(), wrong.exitCode], ['error usage\n', 2]);
  });

  test('no uiautomator.jar (stripped ROM): NoClassDefFoundError, exit 1, and stock dump fails too', async () => {
    const stripped = await addPhone({ quirks: ['no-uiautomator-jar'] });
    await pushJar(stripped);
    const out = await stripped.phone.exec(START, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.deepEqual(
      [out.stdout.toString(), out.stderr.toString(), out.exitCode],
      [
        'error connect java.lang.NoClassDefFoundError: Failed resolution of: Lcom/android/uiautomator/core/UiAutomationShellWrapper;\n',
        '',
        1,
      ],
    );
    const dump = await stripped.phone.exec('uiautomator dump /dev/tty', { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(dump.exitCode, 1);
    assert.match(
      dump.stderr.toString(),
      /ClassNotFoundException: Didn't find class "com\.android\.commands\.uiautomator\.Launcher"/,
    );
    assert.equal(stripped.phone.fs.stat(UIAUTOMATOR_JAR), undefined);
    assert.ok(main.phone.fs.stat(UIAUTOMATOR_JAR), 'other phones have it');
  });

  test('UiAutomation, one client: while it runs stock dump (137) and the snapshot helper fail; held first, it exits 1', async () => {
    const apk = findSnapshotHelperApk();
    assert.ok(apk, 'agent-device ships the snapshot helper');
    const helper = await ensureSnapshotHelper(main.shell, apk, { timeoutMs: 60_000 });

    const { reader } = await startReady(main);
    const dump = await main.phone.exec('uiautomator dump /dev/tty', { signal: AbortSignal.timeout(WAIT_MS) });
    assert.deepEqual([dump.exitCode, dump.stdout.toString()], [137, '']);
    await assert.rejects(
      readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 }),
      (e: unknown) =>
        e instanceof BridgeError && e.code === 'helper_unavailable' && e.details?.reason === 'helper_error',
    );
    reader.write('quit\n');
    await reader.rest();

    // The snapshot helper holds it first: the reader's connect is refused.
    const release = main.phone.snapshotHelper.holdNextRead();
    const reading = readSnapshotTree(main.shell, { helper, timeoutMs: 20_000 });
    await main.phone.snapshotHelper.whenRunning(AbortSignal.timeout(WAIT_MS));
    try {
      const refused = await start(main);
      const out = await refused.rest();
      assert.match(
        out,
        /^error connect java\.lang\.IllegalStateException: UiAutomationService android\.accessibilityservice\.IAccessibilityServiceClient\$Stub\$Proxy@[0-9a-f]+already registered!\n$/,
      );
      assert.equal(readerRunning(main), false);
      const direct = await main.phone.exec(START, { signal: AbortSignal.timeout(WAIT_MS) });
      assert.equal(direct.exitCode, 1);
    } finally {
      release();
    }
    assert.ok((await reading).nodes.length > 0);
  });
});

void describe('the UI reader and appium-uiautomator2-server: one UiAutomation client', { skip: SKIP }, () => {
  let h: HelperRig;
  before(async () => {
    h = await startHelperRig({ uiReaderJar: JAR });
    await h.installHelper();
    h.phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o644, Math.floor(Date.now() / 1000));
  });
  after(async () => {
    await h?.close();
  });

  /** The reader run live on the phone with a stdin that stays open until `end()`. */
  function runReader(): { output: () => string; ready: Promise<void>; end: () => void; done: Promise<number> } {
    let output = '';
    let onOutput: (() => void) | undefined;
    let eof: ((data: undefined) => void) | undefined;
    const closed = new Promise<undefined>((resolve) => (eof = resolve));
    const done = h.phone.execLive!(START, {
      signal: AbortSignal.timeout(60_000),
      stdinSource: { read: () => closed },
      onStdout: (chunk) => {
        output += chunk.toString();
        onOutput?.();
      },
    });
    const ready = (async () => {
      while (!/ready \d+\n/.test(output)) {
        const more = new Promise<void>((resolve) => (onOutput = resolve));
        if ((await Promise.race([more.then(() => 'more'), done.then(() => 'done')])) === 'done')
          throw new Error(`no ready line: ${output}`);
      }
    })();
    return { output: () => output, ready, end: () => eof?.(undefined), done: done.then((r) => r.exitCode) };
  }

  test('the reader holds it: the server’s instrumentation dies at start (Process crashed.)', async () => {
    const reader = runReader();
    await reader.ready;
    const instrumentation = await h.startInstrumentation();
    const { output } = await instrumentation.exited;
    assert.match(output, /INSTRUMENTATION_RESULT: shortMsg=Process crashed\./);
    assert.equal(h.phone.helper.state(), 'stopped');
    reader.end();
    assert.equal(await reader.done, 0);
  });

  test('the server holds it: the reader prints error … already registered! and exits 1', async () => {
    const instrumentation = await h.startInstrumentation();
    await h.phone.helper.waitForState('running', AbortSignal.timeout(WAIT_MS));
    const refused = await h.phone.exec(START, { signal: AbortSignal.timeout(WAIT_MS) });
    assert.equal(refused.exitCode, 1);
    assert.match(
      refused.stdout.toString(),
      /^error connect java\.lang\.IllegalStateException: .*already registered!\n$/,
    );
    instrumentation.child.kill();
    await h.adb('shell', 'am', 'force-stop', 'io.appium.uiautomator2.server');
    await h.phone.helper.waitForState('stopped', AbortSignal.timeout(WAIT_MS));
  });
});

void describe('the UI reader on phones with ui-dump quirks', { skip: SKIP }, () => {
  /** The reader run with these requests as its whole stdin (then EOF), as `echo … | app_process …` would. */
  async function answers(
    quirks: string[],
    requests: string,
    line = START,
  ): Promise<{ stdout: string; exitCode: number }> {
    const phone = createSimulatedPhone({ serial: 'uir-quirk', quirks, uiReaderJar: JAR });
    after(() => phone.close());
    phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o644, Math.floor(Date.now() / 1000));
    let live = '';
    const result = await phone.execLive!(line, {
      signal: AbortSignal.timeout(WAIT_MS),
      stdin: Buffer.from(requests),
      onStdout: (chunk) => (live += chunk.toString()),
    });
    return { stdout: (live + result.stdout.toString()).replace(/ready \d+/, 'ready PID'), exitCode: result.exitCode };
  }

  test('null root: none; unreadable or no folder for the dump file: an error line and it goes on; never settling: the tree anyway', async () => {
    assert.deepEqual(await answers(['ui-dump-null-root'], 'tree 0 1080 2400\nfocus 0 1080 2400\n'), {
      stdout: 'xagent-ui-reader 1 ready PID\nnone\nnone\n',
      exitCode: 0,
    });
    const unreadable = await answers(['ui-dump-unreadable'], 'tree 0 1080 2400\nfocus 0 1080 2400\nquit\n');
    assert.equal(
      unreadable.stdout,
      `xagent-ui-reader 1 ready PID\nerror java.io.FileNotFoundException: ${DUMP}: open failed: ENOENT (No such file or directory)\nnone\n`,
    );
    const nowhere = await answers(
      [],
      'tree 0 1080 2400\nquit\n',
      START.replace(`'${DUMP}'`, "'/data/local/tmp/nope/d.xml'"),
    );
    assert.deepEqual(nowhere, {
      stdout:
        'xagent-ui-reader 1 ready PID\nerror java.io.FileNotFoundException: /data/local/tmp/nope/d.xml: open failed: ENOENT (No such file or directory)\n',
      exitCode: 0,
    });
    const busy = await answers(['ui-dump-idle-timeout'], 'tree 0 1080 2400');
    assert.match(busy.stdout, /^xagent-ui-reader 1 ready PID\ntree \d+\n<\?xml .*<\/hierarchy>$/s);
    const empty = await answers(['ui-dump-empty'], 'tree 3 1080 2400\nfocus 0 1080 2400\n');
    const xml = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="3" />`;
    assert.equal(empty.stdout, `xagent-ui-reader 1 ready PID\ntree ${xml.length}\n${xml}none\n`);
  });
});

void describe('the UI reader’s timings (usb-phone, virtual time)', { skip: SKIP }, () => {
  test('start = JVM + UiAutomation connect, tree = idle wait + walk, focus ≈ 20 ms', async () => {
    // A wall clock that stands still: the phone's clock moves only by its own (virtual) waits.
    const wall = Date.now();
    const phone = createSimulatedPhone({
      serial: 'uir-time',
      profile: 'usb-phone',
      virtualTime: true,
      clock: () => wall,
      uiReaderJar: JAR,
    });
    after(() => phone.close());
    phone.fs.write(REMOTE_JAR, readFileSync(JAR), 0o100644, Math.floor(Date.now() / 1000));
    const uptime = async (): Promise<number> => {
      const out = await phone.exec('cat /proc/uptime', { signal: AbortSignal.timeout(WAIT_MS) });
      return Math.round(Number(out.stdout.toString().split(' ')[0]) * 1000);
    };
    const lines: string[] = [];
    let output = '';
    let wake: (() => void) | undefined;
    const nextOutput = async (pattern: RegExp): Promise<void> => {
      while (!pattern.test(output)) await new Promise<void>((resolve) => (wake = resolve));
    };
    const requests: string[] = [];
    let give: ((data: Buffer | undefined) => void) | undefined;
    const stdinSource: PhoneStdinSource = {
      read: () =>
        new Promise((resolve) => {
          const next = requests.shift();
          if (next !== undefined) resolve(next === '' ? undefined : Buffer.from(next));
          else give = resolve;
        }),
    };
    const send = (line: string | undefined): void => {
      const data = line === undefined ? undefined : Buffer.from(line);
      if (give) {
        const g = give;
        give = undefined;
        g(data);
      } else requests.push(line ?? '');
    };
    const t0 = await uptime();
    const running = phone.execLive!(START, {
      signal: AbortSignal.timeout(60_000),
      stdinSource,
      onStdout: (chunk) => {
        output += chunk.toString();
        lines.push(chunk.toString());
        wake?.();
      },
    });
    await nextOutput(/ready \d+\n$/);
    const t1 = await uptime();
    // /proc/uptime has 10 ms steps, and each `cat` (toybox) and app_process's own shell step
    // cost 5 ms more: the phone's time lies between the figure and 20 ms above it.
    const within = (took: number, ms: number, what: string): void =>
      assert.ok(took >= ms && took <= ms + 20, `${what} took ${took} ms, expected ${ms}`);
    within(t1 - t0, USB_PHONE_TIMINGS.uiReaderJvmStart + USB_PHONE_TIMINGS.uiReaderConnect, 'start');
    send('tree 0 1080 2400\n');
    await nextOutput(/<\/hierarchy>$/);
    const t2 = await uptime();
    const tree = USB_PHONE_TIMINGS.uiReaderIdleQuiet + USB_PHONE_TIMINGS.helperSource;
    within(t2 - t1, tree, 'tree');
    send('focus 0 1080 2400\n');
    await nextOutput(/none\n$/);
    const t3 = await uptime();
    within(t3 - t2, USB_PHONE_TIMINGS.uiReaderFocus, 'focus');
    send(undefined); // EOF
    const result = await running;
    assert.equal(result.exitCode, 0);
    assert.ok(lines.length >= 3);
  });
});

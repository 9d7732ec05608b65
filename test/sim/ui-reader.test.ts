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
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import Adb from '@devicefarmer/adbkit';
import { AdbDeviceShell } from '../../main/core/devices/adb-device-shell';
import {
  findSnapshotHelperApk,
  ensureSnapshotHelper,
  readSnapshotTree,
} from '../../main/core/snapshot/snapshot-helper';
import { BridgeError } from '../../main/core/errors';
import { AdbdServer } from '../../main/sim/adbd-server';
import { attachToAdb } from '../../main/sim/sim-farm';
import { createSimulatedPhone, type SimulatedPhone, type SimulatedPhoneOptions } from '../../main/sim/phone';
import { runAdb, startAdbServer, type AdbServerRig } from '../helpers/adb-server';
import { CALL, DIR, DUMP, JAR, ReaderStream, REMOTE_JAR, SKIP, START, UIAUTOMATOR_JAR, WAIT_MS } from './ui-reader-kit';

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
    const phone = createSimulatedPhone({ serial: `uir-${phones.length}`, ...options });
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

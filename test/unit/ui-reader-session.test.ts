/**
 * The resident UI reader's session (main/core/ui-reader/ui-reader-session.ts) against a fake
 * stream that plays the reader: its start line, ready within a deadline, serial requests,
 * a deadline that ends a stuck reader, death before a request (`helper_unavailable`, nothing
 * written) and during one, a canceled read whose late answer is dropped, and stop by `quit`
 * (or a kill when it does not go). The jar check (ui-reader-jar.ts) pushes only a copy that
 * differs and never runs one that still does.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { BridgeError } from '../../main/core/errors';
import { UiReaderSession, uiReaderCommandLine } from '../../main/core/ui-reader/ui-reader-session';
import { installUiReaderJar, UI_READER_DIR, UI_READER_JAR_REMOTE } from '../../main/core/ui-reader/ui-reader-jar';
import { FakeDeviceShell } from '../helpers/fake-device-shell';
import { FakeReader, ReaderShell } from '../helpers/fake-ui-reader';

const DISPLAY = { rotation: 0, width: 1080, height: 2400 };
const XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node text="你好" class="android.widget.EditText" focused="true" bounds="[0,0][10,10]" /></hierarchy>`;

async function started(
  reader = new FakeReader(),
): Promise<{ session: UiReaderSession; shell: ReaderShell; reader: FakeReader }> {
  const shell = new ReaderShell(reader);
  const starting = UiReaderSession.start(shell, { timeoutMs: 5_000 });
  reader.say('WARNING: linker: something\nxagent-ui-reader 1 ready 4321\n');
  const session = await starting;
  return { session, shell, reader };
}

function code(expected: string, reason?: string): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof BridgeError, String(error));
    assert.equal(error.code, expected, error.message);
    if (reason !== undefined) assert.equal(error.details?.reason, reason);
    return true;
  };
}

describe('UiReaderSession', () => {
  test('starts through exec: with the CLASSPATH fixed and every word quoted, and is ready with its pid', async () => {
    const { session, shell, reader } = await started();
    assert.deepEqual(shell.services, [`exec:${uiReaderCommandLine()}`]);
    assert.equal(
      uiReaderCommandLine(),
      "CLASSPATH=/system/framework/uiautomator.jar:/data/local/tmp/xagent-ui-reader/ui-reader-v1.jar 'app_process' '/' 'com.xagent.bridge.UiReader' '1' '/data/local/tmp/xagent-ui-reader/dump.xml'",
    );
    assert.equal(session.running, true);
    assert.equal(session.pid, 4321);
    assert.match(session.lastOutput(), /linker/);
    const stopping = session.stop();
    reader.exit();
    await stopping;
  });

  test('requests go one at a time and get their own answers in order', async () => {
    const { session, reader } = await started();
    const first = session.tree(DISPLAY, { timeoutMs: 5_000 });
    const second = session.focus({ rotation: 1, width: 2400, height: 1080 }, { timeoutMs: 5_000 });
    await reader.written(1);
    // The second is not written before the first is answered.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(reader.lines, ['tree 0 1080 2400']);
    reader.answer('tree', XML);
    assert.equal(await first, XML);
    await reader.written(2);
    assert.deepEqual(reader.lines, ['tree 0 1080 2400', 'focus 1 2400 1080']);
    reader.say('art: noise between answers\nnone\n');
    assert.equal(await second, null);
    const third = session.tree(DISPLAY, { timeoutMs: 5_000 });
    await reader.written(3);
    reader.say('error could not get idle state\n');
    await assert.rejects(third, code('command_failed', 'reader_read_failed'));
    assert.equal(session.running, true, 'an error answer leaves the reader running');
    const stopping = session.stop();
    await reader.written(4);
    assert.equal(reader.lines[3], 'quit');
    reader.exit();
    await stopping;
  });

  test('a read past its deadline ends the stuck reader (killed by pid); the next is helper_unavailable with nothing written', async () => {
    const { session, reader, shell } = await started();
    shell.on(['kill'], '');
    await assert.rejects(session.tree(DISPLAY, { timeoutMs: 30 }), code('command_timeout', 'reader_timeout'));
    assert.equal(session.running, false);
    await session.ended;
    await assert.rejects(session.tree(DISPLAY, { timeoutMs: 1_000 }), code('helper_unavailable'));
    assert.deepEqual(reader.lines, ['tree 0 1080 2400']);
    assert.deepEqual(shell.argvs('run'), [['kill', '4321']]);
  });

  test('a reader that died before a request: helper_unavailable, nothing written; one that dies during it: ended', async () => {
    const dead = await started();
    dead.reader.exit();
    assert.match(await dead.session.ended, /linker/);
    await assert.rejects(dead.session.focus(DISPLAY, { timeoutMs: 1_000 }), code('helper_unavailable'));
    assert.deepEqual(dead.reader.lines, []);

    const dying = await started();
    const read = dying.session.tree(DISPLAY, { timeoutMs: 5_000 });
    await dying.reader.written(1);
    dying.reader.say('tree 100\n<hierarchy');
    dying.reader.exit();
    await assert.rejects(read, code('command_failed', 'reader_ended'));
  });

  test('a canceled read returns at once; its late answer is dropped and the next read gets its own', async () => {
    const { session, reader } = await started();
    const abort = new AbortController();
    const first = session.tree(DISPLAY, { timeoutMs: 5_000, signal: abort.signal });
    await reader.written(1);
    abort.abort();
    await assert.rejects(first, code('canceled'));
    const second = session.focus(DISPLAY, { timeoutMs: 5_000 });
    await reader.written(2);
    reader.answer('tree', '<hierarchy rotation="0"></hierarchy>');
    reader.answer('focus', XML);
    assert.equal(await second, XML);
    const stopping = session.stop();
    reader.exit();
    await stopping;
  });

  test('stop sends quit; a reader that does not go is killed by its pid after a short wait', async () => {
    const { session, reader, shell } = await started();
    shell.on(['kill'], '');
    await session.stop();
    assert.deepEqual(reader.lines, ['quit']);
    assert.equal(reader.destroyed, true);
    assert.deepEqual(shell.argvs('run'), [['kill', '4321']]);
    await session.stop(); // idempotent
  });

  test('a start refused by the phone says why; one that never says ready times out; another protocol is unavailable', async () => {
    const busy = new FakeReader();
    const busyStart = UiReaderSession.start(new ReaderShell(busy), { timeoutMs: 5_000 });
    busy.say(
      'error UiAutomationService android.accessibilityservice.IAccessibilityServiceClient already registered!\n',
    );
    busy.exit();
    await assert.rejects(busyStart, code('command_failed', 'reader_connect_failed'));

    const old = new FakeReader();
    const oldStart = UiReaderSession.start(new ReaderShell(old), { timeoutMs: 5_000 });
    old.say('java.lang.ClassNotFoundException: com.android.uiautomator.core.UiAutomationShellWrapper\n');
    old.exit();
    await assert.rejects(oldStart, code('tool_unavailable', 'reader_unsupported'));

    const silent = new FakeReader();
    await assert.rejects(
      UiReaderSession.start(new ReaderShell(silent), { timeoutMs: 30 }),
      code('command_timeout', 'reader_timeout'),
    );
    assert.equal(silent.destroyed, true, 'a start that failed lets go of its stream');

    const other = new FakeReader();
    const otherStart = UiReaderSession.start(new ReaderShell(other), { timeoutMs: 5_000 });
    other.say('xagent-ui-reader 2 ready 5\n');
    await assert.rejects(otherStart, code('tool_unavailable', 'reader_version_mismatch'));
  });
});

describe('installUiReaderJar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ui-reader-jar-'));
  const jar = join(dir, 'xagent-ui-reader.jar');
  writeFileSync(jar, 'a jar');
  const sha = createHash('sha256').update('a jar').digest('hex');
  const line = (hash: string): string => `${hash}  ${UI_READER_JAR_REMOTE}\n`;
  test.after(() => rmSync(dir, { recursive: true, force: true }));

  test('a copy with the same bytes is used as is, after one check', async () => {
    const shell = new FakeDeviceShell().on(['sha256sum'], line(sha));
    await installUiReaderJar(shell, jar);
    assert.deepEqual(shell.argvs(), [['sha256sum', UI_READER_JAR_REMOTE]]);
  });

  test('a missing or tampered copy is pushed again into a folder only the shell user reads, mode 0644', async () => {
    const shell = new FakeDeviceShell()
      .on(['sha256sum'], line('0'.repeat(64)), line(sha))
      .on(['mkdir'], '')
      .on(['chmod'], '');
    await installUiReaderJar(shell, jar);
    assert.deepEqual(
      shell.calls.map((c) => [c.kind, ...c.argv]),
      [
        ['run', 'sha256sum', UI_READER_JAR_REMOTE],
        ['run', 'mkdir', '-p', UI_READER_DIR],
        ['run', 'chmod', '700', UI_READER_DIR],
        ['push', UI_READER_JAR_REMOTE],
        ['run', 'sha256sum', UI_READER_JAR_REMOTE],
      ],
    );
    assert.equal((shell.calls[3]?.options as { mode?: number }).mode, 0o644);
  });

  test('a copy that still differs after the push is never run', async () => {
    const shell = new FakeDeviceShell()
      .on(['sha256sum'], { stdout: '', exitCode: 1 }, line('1'.repeat(64)))
      .on(['mkdir'], '')
      .on(['chmod'], '');
    await assert.rejects(installUiReaderJar(shell, jar), code('command_failed', 'reader_jar_mismatch'));
  });
});

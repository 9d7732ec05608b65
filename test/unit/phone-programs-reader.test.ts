/**
 * The xagent UI reader as the third port-less program (main/core/phone-programs/phone-programs.ts)
 * with a scripted phone: started in the background at a lease's call (never where UIA2 may run),
 * its jar hashed before the start; one read's refusal leaves it running, a dead reader fails it;
 * it lets go of UiAutomation (quit) before another reader, a start under way is let finish
 * first; the lease's end stops it; Remove deletes its folder; the admin lists it third.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BridgeError } from '../../main/core/errors';
import { silentLogger } from '../../main/core/logging/logger';
import { PhonePrograms } from '../../main/core/phone-programs/phone-programs';
import type { ProgramConsent } from '../../main/core/program-lifecycle/program-lifecycle';
import { UI_READER_DIR, UI_READER_JAR_REMOTE } from '../../main/core/ui-reader/ui-reader-jar';
import type { FakeReader } from '../helpers/fake-ui-reader';
import { ReaderShell } from '../helpers/fake-ui-reader';

const PHONE = 'phone-1';
const dir = mkdtempSync(join(tmpdir(), 'programs-reader-'));
const jar = join(dir, 'xagent-ui-reader.jar');
writeFileSync(jar, 'reader jar');
const sha = createHash('sha256').update('reader jar').digest('hex');

interface Rig {
  programs: PhonePrograms;
  shell: ReaderShell;
  leased: { now: boolean };
}

/** A phone whose reader says ready as soon as it is started (unless `silent`). */
function rig(options: { silent?: boolean } = {}): Rig {
  let consent: ProgramConsent = { default: 'on', devices: {} };
  const leased = { now: true };
  const shell = new ReaderShell(undefined, (reader) => {
    if (!options.silent) setImmediate(() => reader.say('xagent-ui-reader 1 ready 777\n'));
  });
  shell.on(['sha256sum'], `${sha}  ${UI_READER_JAR_REMOTE}\n`).on(['rm'], '').on(['kill'], '');
  const programs = new PhonePrograms({
    enabled: true,
    consent: { get: () => consent, set: (next) => (consent = next) },
    leaseActive: () => leased.now,
    screenSize: () => Promise.resolve({ width: 1080, height: 2400, rotation: 0 }),
    logger: silentLogger,
    scrcpyJar: null,
    snapshotApk: null,
    uiReaderJar: jar,
  });
  return { programs, shell, leased };
}

/** The reader answers `quit` by exiting, as the real one does. */
function exitsAtQuit(reader: FakeReader): void {
  const check = (): void => {
    if (reader.lines.includes('quit')) reader.exit();
    else void reader.written(reader.lines.length + 1).then(check);
  };
  check();
}

async function readerUp(r: Rig): Promise<FakeReader> {
  r.programs.warm(PHONE, r.shell);
  const session = await r.programs.reader(PHONE);
  assert.ok(session, JSON.stringify(r.programs.view(PHONE)));
  const reader = r.shell.readers.at(-1);
  assert.ok(reader);
  exitsAtQuit(reader);
  return reader;
}

describe('the UI reader among the programs on a phone', () => {
  test.after(() => rmSync(dir, { recursive: true, force: true }));

  test('started at a lease’s call after its jar is hashed; listed third with its name and version', async () => {
    const r = rig();
    assert.equal(r.programs.view(PHONE)[2]?.state, 'idle');
    await readerUp(r);
    assert.deepEqual(r.shell.argvs('run')[0], ['sha256sum', UI_READER_JAR_REMOTE]);
    assert.equal(r.shell.services.length, 1);
    const view = r.programs.view(PHONE)[2];
    assert.deepEqual(
      [view?.program, view?.name, view?.version, view?.state],
      ['ui_reader', 'xagent UI reader', '1', 'ready'],
    );
    assert.equal(r.programs.readerReady(PHONE), true);
    assert.deepEqual(await r.programs.readerDisplay(PHONE, r.shell), { rotation: 0, width: 1080, height: 2400 });
    await r.programs.stop();
  });

  test('never started where UIA2 may run (the one UiAutomation connection)', async () => {
    const r = rig();
    r.programs.warm(PHONE, r.shell, { uiAutomationFree: false });
    assert.equal(await r.programs.reader(PHONE), null);
    assert.deepEqual(r.shell.services, []);
    await r.programs.stop();
  });

  test('one read’s refusal leaves it running; a reader that is gone fails it', async () => {
    const r = rig();
    const reader = await readerUp(r);
    const running = await r.programs.reader(PHONE);
    assert.ok(running);
    r.programs.readerFailed(PHONE, running, new BridgeError('command_failed', 'x', { reason: 'reader_read_failed' }));
    assert.equal(r.programs.view(PHONE)[2]?.state, 'ready');
    reader.exit();
    const session = await r.programs.reader(PHONE);
    await session?.ended;
    for (let i = 0; i < 50 && r.programs.view(PHONE)[2]?.state !== 'failed'; i++)
      await new Promise((resolve) => setImmediate(resolve));
    const failed = r.programs.view(PHONE)[2];
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.last_error_reason, 'reader_ended');
    assert.equal(await r.programs.reader(PHONE), null);
    await r.programs.stop();
  });

  test('a read that finds its reader let go for the stock dump’s turn is no failure: started again at the next call', async () => {
    const r = rig();
    await readerUp(r);
    const session = await r.programs.reader(PHONE);
    assert.ok(session);
    // The connect check's stock dump takes the phone's UiAutomation between the call's lookup and its read.
    await r.programs.yieldUiAutomation(PHONE);
    const refused = await session.tree({ rotation: 0, width: 1080, height: 2400 }, { timeoutMs: 1_000 }).then(
      () => null,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof BridgeError && refused.code === 'helper_unavailable', String(refused));
    r.programs.readerFailed(PHONE, session, refused);
    const view = r.programs.view(PHONE)[2];
    assert.equal(view?.state, 'idle', JSON.stringify(view));
    assert.equal(view?.last_error, null);
    await readerUp(r);
    assert.equal(r.shell.services.length, 2, 'started again at the next call, not held back until a retry time');
    await r.programs.stop();
  });

  test('before another reader it lets go by quit; a start under way is let finish first', async () => {
    const r = rig();
    const reader = await readerUp(r);
    await r.programs.yieldUiAutomation(PHONE);
    assert.deepEqual(reader.lines, ['quit']);
    assert.equal(r.programs.view(PHONE)[2]?.state, 'idle');

    const slow = rig({ silent: true });
    slow.programs.warm(PHONE, slow.shell);
    for (let i = 0; i < 50 && slow.shell.readers.length === 0; i++)
      await new Promise((resolve) => setImmediate(resolve));
    const starting = slow.shell.readers[0];
    assert.ok(starting);
    exitsAtQuit(starting);
    const yielded = slow.programs.yieldUiAutomation(PHONE);
    starting.say('xagent-ui-reader 1 ready 778\n');
    await yielded;
    assert.deepEqual(starting.lines, ['quit'], 'started, then told to quit: it is seen to exit');
    await r.programs.stop();
    await slow.programs.stop();
  });

  test('the lease’s end stops it; Remove deletes its folder', async () => {
    const r = rig();
    const reader = await readerUp(r);
    await r.programs.leaseEnded(PHONE);
    assert.ok(reader.lines.includes('quit'));
    assert.equal(r.programs.view(PHONE)[2]?.state, 'idle');
    const views = await r.programs.remove(PHONE, r.shell);
    assert.ok(r.shell.argvs('run').some((a) => a.join(' ') === `rm -rf ${UI_READER_DIR}`));
    assert.deepEqual([views[2]?.state, views[2]?.enabled], ['off', false]);
    await r.programs.stop();
  });
});

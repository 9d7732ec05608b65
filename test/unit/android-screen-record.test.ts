import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { chunkPlan, looksLikeMp4, recordScreenChunks } from '../../main/core/android/screen-record';
import { holdLastFrame, mp4Timing } from '../../main/core/android/mp4-hold';
import { minimalMp4 } from '../../main/sim/commands/screenrecord';
import { BridgeError } from '../../main/core/errors';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

/** The first bytes of an MP4 as screenrecord writes it: an `ftyp` box. */
const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42', 'latin1'), Buffer.alloc(64)]);

const recordScreen = async (...a: Parameters<typeof recordScreenChunks>): Promise<Buffer> =>
  (await recordScreenChunks(...a))[0]!.data;

void describe('recordScreen', () => {
  void test('records to a unique file, pulls it, and removes it from the phone', async () => {
    const shell = new FakeDeviceShell()
      .on(['sh', '-c'], '3600.00 100.00\n')
      .on(['rm', '-f'], '')
      .onPull('/sdcard/xagent-rec-*', mp4);
    const data = await recordScreen(shell, { seconds: 5, size: { width: 720, height: 1280 }, bitRate: 4_000_000 });
    assert.equal(data, mp4);
    const [record, pull, rm] = shell.calls;
    const path = /\/sdcard\/xagent-rec-[0-9a-f]{12}-1\.mp4/.exec(record?.argv[2] ?? '')?.[0] ?? '';
    assert.ok(path);
    assert.equal(
      record?.argv[2],
      `cat /proc/uptime; 'screenrecord' '--time-limit' '5' '--size' '720x1280' '--bit-rate' '4000000' '${path}' & wait`,
    );
    assert.deepEqual([pull?.kind, pull?.argv], ['pull', [path]]);
    assert.deepEqual(rm?.argv, ['rm', '-f', path]);
    // The recording call's deadline covers the recording plus a margin.
    assert.ok((record?.options.timeoutMs ?? 0) > 5_000);
  });

  void test('each recording gets its own file name', async () => {
    const shell = new FakeDeviceShell().on(['sh', '-c'], '').on(['rm'], '').onPull('/sdcard/xagent-rec-*', mp4);
    await recordScreen(shell, { seconds: 1 });
    await recordScreen(shell, { seconds: 1 });
    const paths = shell
      .argvs('run')
      .filter((a) => a[0] === 'sh')
      .map((a) => /xagent-rec-[0-9a-f]+-1\.mp4/.exec(a[2] ?? '')?.[0]);
    assert.equal(new Set(paths).size, 2);
  });

  void test('an encoder error is command_failed and the file is still removed', async () => {
    const shell = new FakeDeviceShell()
      .on(['sh', '-c'], {
        stdout: 'ERROR: unable to configure video/avc codec at 1080x2400 (err=-38)\n',
        exitCode: 1,
      })
      .on(['rm'], '');
    await assert.rejects(recordScreen(shell, { seconds: 3 }), isCode('command_failed', /unable to configure/));
    assert.equal(shell.argvs().at(-1)?.[0], 'rm');
  });

  void test('a pulled file that is not an MP4 is command_failed; cleanup runs even after cancel', async () => {
    const notMp4 = new FakeDeviceShell()
      .on(['sh', '-c'], '')
      .on(['rm'], '')
      .onPull('/sdcard/xagent-rec-*', Buffer.alloc(0));
    await assert.rejects(recordScreen(notMp4, { seconds: 2 }), isCode('command_failed', /no usable MP4/));
    assert.equal(notMp4.argvs().at(-1)?.[0], 'rm');

    const hung = new FakeDeviceShell().on(['sh', '-c'], { hang: true }).on(['rm'], '');
    const controller = new AbortController();
    const pending = recordScreen(hung, { seconds: 30, signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, isCode('canceled'));
    const rm = hung.calls.at(-1);
    assert.equal(rm?.argv[0], 'rm');
    assert.equal(rm?.options.signal, undefined, 'cleanup does not inherit the aborted signal');
  });

  void test('arguments are validated before anything runs', async () => {
    const shell = new FakeDeviceShell();
    await assert.rejects(recordScreen(shell, { seconds: 0 }), isCode('invalid_arguments', /1 to 600/));
    await assert.rejects(recordScreen(shell, { seconds: 601 }), isCode('invalid_arguments'));
    await assert.rejects(recordScreen(shell, { seconds: 2.5 }), isCode('invalid_arguments'));
    await assert.rejects(
      recordScreen(shell, { seconds: 5, size: { width: 0, height: 10 } }),
      isCode('invalid_arguments'),
    );
    await assert.rejects(recordScreen(shell, { seconds: 5, bitRate: 5 }), isCode('invalid_arguments'));
    assert.equal(shell.calls.length, 0);
  });

  void test('past 180 s the chunks overlap by 2 s and cover the whole length', () => {
    assert.deepEqual(chunkPlan(30), [30]);
    assert.deepEqual(chunkPlan(180), [180]);
    assert.deepEqual(chunkPlan(400), [180, 180, 44]);
    // Starts 0, 178, 356; the last ends at 356 + 44 = 400.
    assert.deepEqual(chunkPlan(181), [180, 3]);
  });

  void test('holdLastFrame makes a still screen’s short clip last its whole recording', () => {
    const still = minimalMp4(720, 1280, [0], 1_700_000_000);
    assert.ok(mp4Timing(still)!.durationMs < 100);
    const held = holdLastFrame(still, 180_000);
    assert.deepEqual(mp4Timing(held), { durationMs: 180_000, samples: 1 });
    // Frames 0, 1 and 2 s: the last lasts until 60 s; the sample data stays where stco says.
    const moving = holdLastFrame(minimalMp4(720, 1280, [0, 1000, 2000], 1_700_000_000), 60_000);
    assert.deepEqual(mp4Timing(moving), { durationMs: 60_000, samples: 3 });
    const stco = moving.indexOf(Buffer.from('stco', 'latin1'));
    assert.equal(moving.readUInt32BE(stco + 12), moving.indexOf(Buffer.from('mdat', 'latin1')) + 4);
    // Already long enough, or not an MP4 it can read: unchanged.
    assert.equal(holdLastFrame(moving, 30_000), moving);
    assert.equal(holdLastFrame(mp4, 30_000), mp4);
  });

  void test('looksLikeMp4 checks the ftyp box', () => {
    assert.equal(looksLikeMp4(mp4), true);
    assert.equal(looksLikeMp4(Buffer.from('not a video at all')), false);
  });
});

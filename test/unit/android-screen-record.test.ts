import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { looksLikeMp4, recordScreen } from '../../main/core/android/screen-record';
import { BridgeError } from '../../main/core/errors';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

/** The first bytes of an MP4 as screenrecord writes it: an `ftyp` box. */
const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42', 'latin1'), Buffer.alloc(64)]);

void describe('recordScreen', () => {
  void test('records to a unique file, pulls it, and removes it from the phone', async () => {
    const shell = new FakeDeviceShell()
      .on(['screenrecord'], '')
      .on(['rm', '-f'], '')
      .onPull('/sdcard/xagent-rec-*', mp4);
    const data = await recordScreen(shell, { seconds: 5, size: { width: 720, height: 1280 }, bitRate: 4_000_000 });
    assert.equal(data, mp4);
    const [record, pull, rm] = shell.calls;
    const path = record?.argv.at(-1) ?? '';
    assert.match(path, /^\/sdcard\/xagent-rec-[0-9a-f]{12}\.mp4$/);
    assert.deepEqual(record?.argv, [
      'screenrecord',
      '--time-limit',
      '5',
      '--size',
      '720x1280',
      '--bit-rate',
      '4000000',
      path,
    ]);
    assert.deepEqual([pull?.kind, pull?.argv], ['pull', [path]]);
    assert.deepEqual(rm?.argv, ['rm', '-f', path]);
    // The recording call's deadline covers the recording plus a margin.
    assert.ok((record?.options.timeoutMs ?? 0) > 5_000);
  });

  void test('each recording gets its own file name', async () => {
    const shell = new FakeDeviceShell().on(['screenrecord'], '').on(['rm'], '').onPull('/sdcard/xagent-rec-*', mp4);
    await recordScreen(shell, { seconds: 1 });
    await recordScreen(shell, { seconds: 1 });
    const paths = shell
      .argvs('run')
      .filter((a) => a[0] === 'screenrecord')
      .map((a) => a.at(-1));
    assert.equal(new Set(paths).size, 2);
    assert.deepEqual(shell.argvs('run')[0], ['screenrecord', '--time-limit', '1', paths[0]]);
  });

  void test('an encoder error is command_failed and the file is still removed', async () => {
    const shell = new FakeDeviceShell()
      .on(['screenrecord'], {
        stdout: 'ERROR: unable to configure video/avc codec at 1080x2400 (err=-38)\n',
        exitCode: 1,
      })
      .on(['rm'], '');
    await assert.rejects(recordScreen(shell, { seconds: 3 }), isCode('command_failed', /unable to configure/));
    assert.equal(shell.argvs().at(-1)?.[0], 'rm');
  });

  void test('a pulled file that is not an MP4 is command_failed; cleanup runs even after cancel', async () => {
    const notMp4 = new FakeDeviceShell()
      .on(['screenrecord'], '')
      .on(['rm'], '')
      .onPull('/sdcard/xagent-rec-*', Buffer.alloc(0));
    await assert.rejects(recordScreen(notMp4, { seconds: 2 }), isCode('command_failed', /no usable MP4/));
    assert.equal(notMp4.argvs().at(-1)?.[0], 'rm');

    const hung = new FakeDeviceShell().on(['screenrecord'], { hang: true }).on(['rm'], '');
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
    await assert.rejects(recordScreen(shell, { seconds: 0 }), isCode('invalid_arguments', /1 to 30/));
    await assert.rejects(recordScreen(shell, { seconds: 31 }), isCode('invalid_arguments'));
    await assert.rejects(recordScreen(shell, { seconds: 2.5 }), isCode('invalid_arguments'));
    await assert.rejects(
      recordScreen(shell, { seconds: 5, size: { width: 0, height: 10 } }),
      isCode('invalid_arguments'),
    );
    await assert.rejects(recordScreen(shell, { seconds: 5, bitRate: 5 }), isCode('invalid_arguments'));
    assert.equal(shell.calls.length, 0);
  });

  void test('looksLikeMp4 checks the ftyp box', () => {
    assert.equal(looksLikeMp4(mp4), true);
    assert.equal(looksLikeMp4(Buffer.from('not a video at all')), false);
  });
});

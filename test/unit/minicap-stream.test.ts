/**
 * minicap's wire protocol as the bridge reads it (main/core/stream/minicap-wire.ts), and how its
 * files reach a phone (minicap-process.ts): bad input of every kind ends the stream with a
 * stable code and a sentence, never a crash; a file on the phone that is not the package's is
 * never run; the start line quotes every word.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { MAX_FRAME_BYTES, MinicapReader, parseBanner } from '../../main/core/stream/minicap-wire';
import {
  MINICAP_DIR,
  installMinicapFiles,
  minicapCommandLine,
  planMinicapFiles,
  projectionFor,
} from '../../main/core/stream/minicap-process';
import { parseSha256sum } from '../../main/core/program-lifecycle/checked-files';
import { isBridgeError } from '../../main/core/errors';
import { frameCostMs, streamLatencyMs } from '../../main/core/stream/screen-streams';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

function banner(o: Partial<Record<'pid' | 'rw' | 'rh' | 'vw' | 'vh' | 'orientation', number>> = {}): Buffer {
  const b = Buffer.alloc(24);
  b.writeUInt8(1, 0);
  b.writeUInt8(24, 1);
  b.writeUInt32LE(o.pid ?? 4242, 2);
  b.writeUInt32LE(o.rw ?? 1080, 6);
  b.writeUInt32LE(o.rh ?? 2400, 10);
  b.writeUInt32LE(o.vw ?? 576, 14);
  b.writeUInt32LE(o.vh ?? 1280, 18);
  b.writeUInt8(o.orientation ?? 0, 22);
  b.writeUInt8(2, 23);
  return b;
}

function frame(body: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32LE(body.length, 0);
  return Buffer.concat([length, body]);
}

const jpeg = (n: number): Buffer => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(n, n % 251)]);

async function failureOf(reader: MinicapReader): Promise<unknown> {
  return reader.next(0, 5_000).then(
    () => assert.fail('the stream should have failed'),
    (error: unknown) => error,
  );
}

describe('minicap wire protocol', () => {
  test('banner and frames in chunks of any size: each frame whole, in order, the newest kept', async () => {
    const wire = Buffer.concat([banner(), frame(jpeg(10)), frame(jpeg(70_000)), frame(jpeg(3))]);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 40_000 }), { minLength: 1, maxLength: 20 }), async (cuts) => {
        const socket = new PassThrough();
        const reader = new MinicapReader(socket);
        const seen: number[] = [];
        reader.onFrame((f) => seen.push(f.jpeg.length));
        let at = 0;
        for (const cut of cuts) {
          if (at >= wire.length) break;
          socket.write(wire.subarray(at, at + cut));
          at += cut;
        }
        if (at < wire.length) socket.write(wire.subarray(at));
        const got = await reader.banner;
        assert.deepEqual([got.pid, got.realWidth, got.virtualHeight, got.orientation], [4242, 1080, 1280, 0]);
        const last = await reader.next(2, 5_000);
        assert.deepEqual(seen, [14, 70_004, 7]);
        assert.equal(last.index, 3);
        assert.equal(reader.latest?.jpeg.length, 7);
        reader.close();
      }),
      { numRuns: 40 },
    );
  });

  test('next(after) waits for a newer frame, times out with command_timeout, and a close answers every waiter', async () => {
    const socket = new PassThrough();
    const reader = new MinicapReader(socket);
    socket.write(Buffer.concat([banner(), frame(jpeg(5))]));
    assert.equal((await reader.next(0, 5_000)).index, 1);
    const timedOut = await reader.next(1, 20).catch((e: unknown) => e);
    assert.ok(isBridgeError(timedOut) && timedOut.code === 'command_timeout');
    const waiting = reader.next(1, 5_000);
    socket.write(frame(jpeg(6)));
    assert.equal((await waiting).index, 2);
    const left = reader.next(2, 5_000).catch((e: unknown) => e);
    socket.end();
    const ended = await left;
    assert.ok(isBridgeError(ended) && ended.code === 'command_failed', String(ended));
    assert.equal(reader.closed, true);
  });

  for (const [what, bytes, words] of [
    ['another program on the socket', Buffer.from('HTTP/1.1 200 OK\r\n\r\n'), /not minicap's 1/],
    ['a banner with an impossible size', banner({ rw: 0 }), /impossible screen size/],
    ['a banner with orientation 7', banner({ orientation: 7 }), /orientation 7/],
    ['a frame that is not a JPEG', Buffer.concat([banner(), frame(Buffer.from('not a picture'))]), /not a JPEG/],
    ['a frame of 0 bytes', Buffer.concat([banner(), Buffer.alloc(4)]), /0 bytes/],
    [
      'a frame larger than the bound',
      Buffer.concat([banner(), Buffer.from([0xff, 0xff, 0xff, 0x7f])]),
      new RegExp(`larger than ${MAX_FRAME_BYTES}`),
    ],
  ] as const) {
    test(`${what}: the stream ends with command_failed and says why; the socket is destroyed`, async () => {
      const socket = new PassThrough();
      const reader = new MinicapReader(socket);
      socket.write(bytes);
      const error = await failureOf(reader);
      assert.ok(isBridgeError(error) && error.code === 'command_failed', String(error));
      assert.match(error.message, words);
      assert.equal(socket.destroyed, true);
    });
  }

  test('parseBanner waits for the whole banner', () => {
    const b = banner();
    for (let n = 0; n < 24; n++) assert.equal(parseBanner(b.subarray(0, n)), 'more');
    assert.ok(typeof parseBanner(b) === 'object');
  });
});

describe('minicap on the phone', () => {
  test('the native files when the package has a library for the SDK, else the APK; nothing for an unknown ABI below 21', () => {
    assert.equal(planMinicapFiles(['arm64-v8a', 'armeabi-v7a'], 32)?.way, 'native');
    assert.equal(planMinicapFiles(['arm64-v8a'], 32)?.abi, 'arm64-v8a');
    assert.equal(planMinicapFiles(['arm64-v8a'], 34)?.way, 'apk', 'no minicap.so for Android 14');
    assert.equal(planMinicapFiles(['arm64-v8a'], 31)?.way, 'apk', 'no minicap.so for Android 12');
    assert.equal(planMinicapFiles(['mips'], 28)?.way, 'apk');
    assert.equal(planMinicapFiles(['arm64-v8a'], 19), null);
    assert.equal(planMinicapFiles(['../../etc'], 30)?.way, 'apk', 'an ABI that is not a name is never a path');
  });

  test('the projection keeps the aspect, at most 1280 on its long side, never larger than the screen', () => {
    assert.deepEqual(projectionFor({ width: 1080, height: 2400 }, 0), {
      arg: '1080x2400@576x1280/0',
      virtualWidth: 576,
      virtualHeight: 1280,
    });
    assert.equal(projectionFor({ width: 1080, height: 2400 }, 1).arg, '1080x2400@576x1280/90');
    assert.equal(projectionFor({ width: 720, height: 1280 }, 3).arg, '720x1280@720x1280/270');
  });

  test('the start line: a fixed assignment, then every word quoted; the socket name cannot break out', () => {
    const native = planMinicapFiles(['arm64-v8a'], 30)!;
    assert.equal(
      minicapCommandLine(native, '1080x2400@576x1280/0', "x'; reboot; '"),
      `LD_LIBRARY_PATH=${MINICAP_DIR} '${MINICAP_DIR}/minicap' '-P' '1080x2400@576x1280/0' '-n' 'x'\\''; reboot; '\\''' '-Q' '80' '-S'`,
    );
    const apk = planMinicapFiles(['arm64-v8a'], 34)!;
    assert.match(
      minicapCommandLine(apk, '1080x2400@576x1280/0', 'xagent_1'),
      /^CLASSPATH=\/data\/local\/tmp\/xagent-minicap\/minicap\.apk 'app_process' '\/system\/bin' 'io\.devicefarmer\.minicap\.Main' /,
    );
  });

  test('a file on the phone that is not the package’s is replaced; one that stays wrong is never run', async () => {
    const plan = planMinicapFiles(['arm64-v8a'], 30)!;
    const [binary, library] = plan.files;
    const real = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
    assert.equal(binary!.sha256, real(binary!.local));
    const planted = `${'0'.repeat(64)}  ${binary!.remote}\n${library!.sha256}  ${library!.remote}\n`;

    // Planted, then replaced by the push: the second check passes.
    const shell = new FakeDeviceShell()
      .on(['sha256sum'], planted, `${binary!.sha256}  ${binary!.remote}\n${library!.sha256}  ${library!.remote}\n`)
      .on(['chmod'], '');
    await installMinicapFiles(shell, plan);
    assert.deepEqual(
      shell.argvs('push').map((a) => a[0]),
      [binary!.remote],
      'only the wrong file is pushed',
    );

    // The phone keeps the wrong bytes (someone rewrites it): refused, and nothing is made executable.
    const stubborn = new FakeDeviceShell().on(['sha256sum'], planted).on(['chmod'], '');
    const error = await installMinicapFiles(stubborn, plan).catch((e: unknown) => e);
    assert.ok(isBridgeError(error) && error.code === 'command_failed');
    assert.match(error.message, /not the bridge’s minicap; it was not run/);
    assert.deepEqual(
      stubborn.argvs('run').filter((a) => a[0] === 'chmod'),
      [],
    );
  });

  test('sha256sum output is read per file, with or without the binary-mode star', () => {
    const hash = 'a'.repeat(64);
    assert.deepEqual(
      [...parseSha256sum(`${hash}  /data/local/tmp/x\n${hash} */data/local/tmp/y\nsha256sum: /z: No such file\n`)],
      [
        ['/data/local/tmp/x', hash],
        ['/data/local/tmp/y', hash],
      ],
    );
  });
});

describe('the freshness rule’s frame time', () => {
  test('the shortest gap between frames is the phone’s time per frame; 33 ms until measured; 250 ms at most', () => {
    assert.equal(frameCostMs([]), 33);
    assert.equal(frameCostMs([40, 50]), 33);
    // A phone at ~30 frames a second with pauses while the screen is still.
    assert.equal(frameCostMs([34, 33, 900, 35, 32, 600, 36]), 32);
    // A slow phone: 130 ms a frame at best.
    assert.equal(frameCostMs([140, 130, 135, 128, 400, 132]), 128);
    // A screen that changed only every 600 ms or more: minicap's worst is assumed.
    assert.equal(frameCostMs([600, 700, 900]), 250);
  });

  test('after an action: 1.5 times the usual time to its first frame, no sooner than the slower ones and the link, 50 ms to 1 s', () => {
    // Before three answers are measured: three frames of the phone's time per frame (33 ms until measured).
    assert.equal(streamLatencyMs(0, [], []), 99);
    assert.equal(streamLatencyMs(0, [50], [130, 128, 140]), 384);
    // A phone that answers in 40–60 ms: 1.5 × its usual 50.
    assert.equal(streamLatencyMs(0, [40, 60, 50, 45], [33, 34, 35]), 75);
    // Usually 30 ms, one in ten 80: the slower one and the link, 90 ms.
    assert.equal(streamLatencyMs(0, [30, 30, 30, 30, 30, 30, 30, 30, 30, 80], []), 90);
    // Answers that are all alike: 1.5 × the median.
    assert.equal(streamLatencyMs(0, [100, 100, 100], []), 150);
    // One slow answer in twenty (an app launch) does not set the bound; the 90th percentile does.
    const twenty = [...Array.from({ length: 19 }, (_v, i) => 25 + i), 900];
    assert.equal(streamLatencyMs(0, twenty, []), 53);
    // Very fast answers: never below 50 ms; a configured floor wins.
    assert.equal(streamLatencyMs(0, [10, 12, 11], []), 50);
    assert.equal(streamLatencyMs(600, [40, 60, 50, 45], [33, 34, 35]), 600);
    // A slow simulator or phone: 200 ms typical → 300.
    assert.equal(streamLatencyMs(0, [180, 200, 220], []), 300);
    assert.equal(streamLatencyMs(0, [900, 950, 990], []), 1000);
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  captureRaw,
  capturePng,
  decodeRawScreencap,
  isSecureBlackFrame,
  PIXEL_FORMAT,
} from '../../main/core/android/screencap';
import { BridgeError } from '../../main/core/errors';
import { FakeDeviceShell } from '../helpers/fake-device-shell';

function isCode(code: string, pattern?: RegExp) {
  return (e: unknown): boolean =>
    e instanceof BridgeError && e.code === code && (pattern === undefined || pattern.test(e.message));
}

/** Raw screencap output as a phone sends it: header (12 or 16 bytes) then pixels. */
function rawScreencap(
  width: number,
  height: number,
  format: number,
  headerBytes: 12 | 16,
  pixel: (i: number) => [number, number, number, number],
): Buffer {
  const out = Buffer.alloc(headerBytes + width * height * 4);
  out.writeUInt32LE(width, 0);
  out.writeUInt32LE(height, 4);
  out.writeUInt32LE(format, 8);
  if (headerBytes === 16) out.writeUInt32LE(1 /* sRGB */, 12);
  for (let i = 0; i < width * height; i++) {
    const [a, b, c, d] = pixel(i);
    out.writeUInt8(a, headerBytes + i * 4);
    out.writeUInt8(b, headerBytes + i * 4 + 1);
    out.writeUInt8(c, headerBytes + i * 4 + 2);
    out.writeUInt8(d, headerBytes + i * 4 + 3);
  }
  return out;
}

void describe('decodeRawScreencap', () => {
  void test('16-byte header (Android 9+, with colour space), RGBA passes through without a copy', () => {
    const raw = rawScreencap(3, 2, PIXEL_FORMAT.RGBA_8888, 16, (i) => [i, 10 + i, 20 + i, 255]);
    const frame = decodeRawScreencap(raw);
    assert.equal(frame.width, 3);
    assert.equal(frame.height, 2);
    assert.deepEqual([...frame.rgba.subarray(0, 8)], [0, 10, 20, 255, 1, 11, 21, 255]);
    assert.equal(frame.rgba.buffer, raw.buffer, 'shares memory');
    assert.equal(frame.rgba.length, 24);
  });

  void test('12-byte header (older Android)', () => {
    const raw = rawScreencap(2, 2, PIXEL_FORMAT.RGBA_8888, 12, (i) => [i, i, i, 255]);
    const frame = decodeRawScreencap(raw);
    assert.deepEqual([...frame.rgba], [0, 0, 0, 255, 1, 1, 1, 255, 2, 2, 2, 255, 3, 3, 3, 255]);
  });

  void test('BGRA is converted to RGBA; RGBX gets opaque alpha', () => {
    const bgra = decodeRawScreencap(rawScreencap(2, 1, PIXEL_FORMAT.BGRA_8888, 16, () => [0x11, 0x22, 0x33, 0x80]));
    assert.deepEqual([...bgra.rgba], [0x33, 0x22, 0x11, 0x80, 0x33, 0x22, 0x11, 0x80]);
    const rgbx = decodeRawScreencap(rawScreencap(1, 1, PIXEL_FORMAT.RGBX_8888, 12, () => [1, 2, 3, 0]));
    assert.deepEqual([...rgbx.rgba], [1, 2, 3, 255]);
  });

  void test('bad headers and lengths are command_failed', () => {
    assert.throws(() => decodeRawScreencap(Buffer.alloc(8)), isCode('command_failed'));
    const good = rawScreencap(4, 4, PIXEL_FORMAT.RGBA_8888, 16, () => [0, 0, 0, 255]);
    assert.throws(
      () => decodeRawScreencap(good.subarray(0, good.length - 1)),
      isCode('command_failed', /do not fit 4x4/),
    );
    assert.throws(() => decodeRawScreencap(Buffer.concat([good, Buffer.alloc(5)])), isCode('command_failed'));
    assert.throws(
      () => decodeRawScreencap(rawScreencap(1, 1, 4 /* RGB_565 */, 16, () => [0, 0, 0, 0])),
      isCode('command_failed', /format 4/),
    );
    const zero = Buffer.alloc(16);
    assert.throws(() => decodeRawScreencap(zero), isCode('command_failed', /0x0/));
  });

  void test('captureRaw runs screencap through execOut with the deadline', async () => {
    const shell = new FakeDeviceShell().on(
      ['screencap'],
      rawScreencap(2, 2, PIXEL_FORMAT.RGBA_8888, 16, () => [9, 9, 9, 255]),
    );
    const frame = await captureRaw(shell, { timeoutMs: 4_000 });
    assert.equal(frame.width, 2);
    assert.deepEqual(
      shell.calls.map((c) => [c.kind, c.argv]),
      [['execOut', ['screencap']]],
    );
    assert.ok((shell.calls[0]?.options.timeoutMs ?? 0) <= 4_000);
  });
});

void describe('capturePng', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(40)]);

  void test('returns the PNG from screencap -p', async () => {
    const shell = new FakeDeviceShell().on(['screencap', '-p'], png);
    assert.equal(await capturePng(shell), png);
    assert.deepEqual(shell.argvs('execOut'), [['screencap', '-p']]);
  });

  void test('anything else (pty-mangled line endings, an error text) is command_failed', async () => {
    const mangled = Buffer.from(png.toString('latin1').replace('\r\n', '\n'), 'latin1');
    await assert.rejects(capturePng(new FakeDeviceShell().on(['screencap'], mangled)), isCode('command_failed', /PNG/));
    await assert.rejects(
      capturePng(new FakeDeviceShell().on(['screencap'], 'Error: could not take screenshot\n')),
      isCode('command_failed'),
    );
  });
});

void describe('isSecureBlackFrame', () => {
  const width = 1080;
  const height = 2400;

  void test('an all-black frame is detected', () => {
    const rgba = Buffer.alloc(width * height * 4);
    for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
    assert.equal(isSecureBlackFrame(rgba), true);
  });

  void test('a black frame with a few lit status-bar pixels still counts; a dark app with content does not', () => {
    const rgba = Buffer.alloc(width * height * 4);
    for (let p = 0; p < 2000; p++) rgba[(p * 7 + 30) * 4] = 255;
    assert.equal(isSecureBlackFrame(rgba), true);
    for (let p = 0; p < 20_000; p++) rgba[(p * 97 + 5) * 4 + 1] = 200;
    assert.equal(isSecureBlackFrame(rgba), false);
  });

  void test('one lit pixel the sample misses is still seen when the tolerance is zero', () => {
    const rgba = Buffer.alloc(width * height * 4);
    rgba[(width * 1234 + 1) * 4 + 2] = 1;
    assert.equal(isSecureBlackFrame(rgba, { maxNonBlackFraction: 0 }), false);
    rgba[(width * 1234 + 1) * 4 + 2] = 0;
    assert.equal(isSecureBlackFrame(rgba, { maxNonBlackFraction: 0 }), true);
  });

  void test('ordinary and empty frames are not secure frames', () => {
    assert.equal(isSecureBlackFrame(Buffer.alloc(width * height * 4, 0x80)), false);
    assert.equal(isSecureBlackFrame(Buffer.alloc(0)), false);
    assert.throws(() => isSecureBlackFrame(Buffer.alloc(4), { maxNonBlackFraction: 1 }), isCode('invalid_arguments'));
  });
});

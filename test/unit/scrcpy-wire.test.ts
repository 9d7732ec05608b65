import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ACTION,
  decodeControlMessages,
  decodeDeviceMessages,
  encodeControlMessage,
  encodeDeviceMessage,
  type ControlMessage,
} from '../../main/core/scrcpy/scrcpy-wire';
import { classifyScrcpyOutput } from '../../main/core/scrcpy/scrcpy-output';

test('a touch is 32 bytes in ControlMessageReader’s order (big-endian, u16 fixed-point pressure)', () => {
  const buf = encodeControlMessage({
    type: 'touch',
    action: ACTION.down,
    pointerId: 1n,
    x: 100,
    y: 200,
    screenWidth: 1080,
    screenHeight: 2400,
    pressure: 1,
    actionButton: 0,
    buttons: 0,
  });
  assert.equal(
    buf.toString('hex'),
    '0200' + '0000000000000001' + '00000064' + '000000c8' + '0438' + '0960' + 'ffff' + '00000000' + '00000000',
  );
});

test('set clipboard carries sequence, paste flag and UTF-8 length; round trip of every kind', () => {
  const set = encodeControlMessage({ type: 'setClipboard', sequence: 7n, paste: true, text: '你好👍' });
  assert.equal(set.subarray(0, 14).toString('hex'), '09' + '0000000000000007' + '01' + '0000000a');
  const all: ControlMessage[] = [
    { type: 'key', action: ACTION.up, keycode: 66, repeat: 0, metaState: 0 },
    { type: 'getClipboard', copyKey: 0 },
    { type: 'setClipboard', sequence: 7n, paste: true, text: '你好，世界' },
    { type: 'startApp', name: 'com.example.notes' },
  ];
  const joined = Buffer.concat(all.map(encodeControlMessage));
  // Cut short, nothing is decoded past the last whole message.
  assert.equal(decodeControlMessages(joined.subarray(0, joined.length - 1)).messages.length, 3);
  assert.deepEqual(decodeControlMessages(joined).messages, all);
});

test('device messages: clipboard text and ack', () => {
  const data = Buffer.concat([
    encodeDeviceMessage({ type: 'clipboard', text: '剪贴板' }),
    encodeDeviceMessage({ type: 'ackClipboard', sequence: 3n }),
  ]);
  assert.deepEqual(decodeDeviceMessages(data).messages, [
    { type: 'clipboard', text: '剪贴板' },
    { type: 'ackClipboard', sequence: 3n },
  ]);
});

test('server output maps to stable codes with a fix', () => {
  const xiaomi = classifyScrcpyOutput(
    '[server] ERROR: Injecting input events requires the caller (or the source of the instrumentation, if any) to have the INJECT_EVENTS permission.\n',
  );
  assert.equal(xiaomi?.code, 'input_blocked');
  assert.match(xiaomi?.fix ?? '', /USB debugging \(Security settings\)/);
  assert.equal(
    classifyScrcpyOutput('java.lang.SecurityException: Calling uid 0 does not own package com.android.shell')?.code,
    'clipboard_unreadable',
  );
  assert.equal(
    classifyScrcpyOutput('[server] ERROR: The server version (3.3) does not match the client (3.3.1)')?.kind,
    'version_mismatch',
  );
  assert.equal(classifyScrcpyOutput('[server] INFO: Device clipboard set\n'), undefined);
});

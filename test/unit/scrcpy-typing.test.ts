/**
 * How the scrcpy lane cuts text before typing it (helper/fast-lane.ts): printable ASCII as key
 * events (the clipboard untouched), everything else pasted, line breaks and tabs as keys; and
 * INJECT_TEXT on the wire as scrcpy-server reads it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scrcpyTypingPieces } from '../../main/core/helper/fast-lane';
import { decodeControlMessages, encodeControlMessage, INJECT_TEXT_MAX_BYTES } from '../../main/core/scrcpy/scrcpy-wire';

test('ASCII goes as key events, other scripts and emoji are pasted, line breaks and tabs are keys', () => {
  const text = 'Hi 你好😀\nA\tb';
  const pieces = scrcpyTypingPieces(text);
  assert.deepEqual(
    pieces.map((p) => (p.kind === 'key' ? ['key', p.keycode] : [p.kind, p.text])),
    [
      ['keys', 'Hi '],
      ['paste', '你好😀'],
      ['key', 66],
      ['keys', 'A'],
      ['key', 61],
      ['keys', 'b'],
    ],
  );
  // The lengths add up to the text's, so a fallback types exactly the rest.
  assert.equal(
    pieces.reduce((sum, p) => sum + p.length, 0),
    text.length,
  );
});

test('a password-only ASCII text never needs the clipboard', () => {
  assert.ok(scrcpyTypingPieces('S3cret!pass word~').every((p) => p.kind === 'keys'));
  assert.deepEqual(scrcpyTypingPieces(''), []);
});

test('INJECT_TEXT round-trips and refuses more than scrcpy sends at once', () => {
  const message = { type: 'text' as const, text: 'hello world' };
  const bytes = encodeControlMessage(message);
  assert.equal(bytes[0], 1, 'TYPE_INJECT_TEXT');
  assert.equal(bytes.readUInt32BE(1), 11);
  assert.deepEqual(decodeControlMessages(bytes), { messages: [message], used: bytes.length });
  // Half a message is left for the next read.
  assert.deepEqual(decodeControlMessages(bytes.subarray(0, 7)), { messages: [], used: 0 });
  assert.throws(() => encodeControlMessage({ type: 'text', text: 'x'.repeat(INJECT_TEXT_MAX_BYTES + 1) }), RangeError);
});

/**
 * The xagent UI reader's protocol 1 as bytes arrive (main/core/ui-reader/ui-reader-wire.ts):
 * counted answers taken by their count whatever the chunks, unknown lines between answers
 * handed up and never an error, an oversize answer skipped in step, a runaway line refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BridgeError } from '../../main/core/errors';
import {
  MAX_ANSWER_BYTES,
  MAX_LINE_BYTES,
  requestLine,
  UiReaderWireParser,
  type ReaderMessage,
} from '../../main/core/ui-reader/ui-reader-wire';

const XML = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0"><node index="0" text="你好，世界 😀" class="android.widget.EditText" focused="true" bounds="[0,0][100,50]" />\n</hierarchy>`;

function counted(kind: 'tree' | 'focus', xml: string): Buffer {
  const body = Buffer.from(xml, 'utf8');
  return Buffer.concat([Buffer.from(`${kind} ${body.length}\n`), body]);
}

function feed(parser: UiReaderWireParser, data: Buffer, size: number): ReaderMessage[] {
  const out: ReaderMessage[] = [];
  for (let at = 0; at < data.length; at += size) out.push(...parser.push(data.subarray(at, at + size)));
  return out;
}

test('ready, answers and unknown lines in one chunk', () => {
  const parser = new UiReaderWireParser();
  const data = Buffer.concat([
    Buffer.from('WARNING: linker: unused DT entry\nxagent-ui-reader 1 ready 4242\n'),
    counted('tree', XML),
    Buffer.from('art: a line from ART\nnone\nerror could not dump: null root\n'),
    counted('focus', XML),
    Buffer.from('focus 0\n'),
  ]);
  assert.deepEqual(parser.push(data), [
    { kind: 'other', line: 'WARNING: linker: unused DT entry' },
    { kind: 'ready', protocol: 1, pid: 4242 },
    { kind: 'tree', xml: XML },
    { kind: 'other', line: 'art: a line from ART' },
    { kind: 'none' },
    { kind: 'error', message: 'could not dump: null root' },
    { kind: 'focus', xml: XML },
    { kind: 'focus', xml: '' },
  ]);
  assert.equal(parser.midAnswer, false);
});

test('the same stream cut at every size, UTF-8 split mid-character, gives the same messages', () => {
  const data = Buffer.concat([
    Buffer.from('xagent-ui-reader 1 ready 7\n'),
    counted('tree', XML),
    Buffer.from('stray\n'),
    counted('focus', XML),
  ]);
  const whole = new UiReaderWireParser().push(data);
  for (const size of [1, 2, 3, 7, 64])
    assert.deepEqual(feed(new UiReaderWireParser(), data, size), whole, `size ${size}`);
  // An answer's body may hold the protocol's own words and line ends: taken by count only.
  const tricky = 'none\nerror x\ntree 5\n';
  assert.deepEqual(new UiReaderWireParser().push(Buffer.concat([counted('tree', tricky), Buffer.from('none\n')])), [
    { kind: 'tree', xml: tricky },
    { kind: 'none' },
  ]);
});

test('an answer past MAX_ANSWER_BYTES is skipped by its count and the stream stays in step', () => {
  const parser = new UiReaderWireParser();
  const bytes = MAX_ANSWER_BYTES + 1;
  assert.deepEqual(parser.push(Buffer.from(`tree ${bytes}\n`)), []);
  assert.equal(parser.midAnswer, true);
  const block = Buffer.alloc(1024 * 1024, 0x61);
  let out: ReaderMessage[] = [];
  let left = bytes;
  while (left > 0) {
    const piece = block.subarray(0, Math.min(block.length, left));
    left -= piece.length;
    out = out.concat(parser.push(piece));
  }
  out = out.concat(parser.push(Buffer.from('none\n')));
  assert.deepEqual(out, [{ kind: 'too_large', answer: 'tree', bytes }, { kind: 'none' }]);
});

test('a line with no end past MAX_LINE_BYTES, or an absurd count, breaks the stream with a stable reason', () => {
  const broken = (run: () => unknown): void =>
    assert.throws(run, (error: unknown) => {
      assert.ok(error instanceof BridgeError);
      assert.equal(error.code, 'helper_unavailable');
      assert.equal(error.details?.reason, 'reader_wire_broken');
      return true;
    });
  const parser = new UiReaderWireParser();
  parser.push(Buffer.alloc(MAX_LINE_BYTES, 0x61));
  broken(() => parser.push(Buffer.from('a')));
  broken(() => new UiReaderWireParser().push(Buffer.from(`tree ${'9'.repeat(20)}\n`)));
});

test('a ready line of another protocol is reported with its number; request lines are checked', () => {
  assert.deepEqual(new UiReaderWireParser().push(Buffer.from('xagent-ui-reader 2 ready 9\r\n')), [
    { kind: 'ready', protocol: 2, pid: 9 },
  ]);
  assert.equal(requestLine('tree', { rotation: 1, width: 2400, height: 1080 }), 'tree 1 2400 1080\n');
  assert.equal(requestLine('focus', { rotation: 0, width: 1080, height: 2400 }), 'focus 0 1080 2400\n');
  assert.throws(() => requestLine('tree', { rotation: 4, width: 1, height: 1 }), /rotation/);
  assert.throws(() => requestLine('tree', { rotation: 0, width: 0, height: 1 }), /display side/);
  assert.throws(() => requestLine('tree', { rotation: 0, width: 1.5, height: 1 }), /display side/);
});

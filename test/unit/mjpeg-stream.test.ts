/**
 * The helper's MJPEG screen stream as the phone view reads it (main/core/helper/mjpeg-stream.ts):
 * the request it sends, parts split anywhere across chunks, only the newest part kept, and a
 * stream that is not MJPEG, a part too large, an end or a silence each ending in a stable code.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Duplex } from 'node:stream';
import { MAX_PART_BYTES, MjpegStream, parseMjpegHead, parseMjpegPart } from '../../main/core/helper/mjpeg-stream';
import { isBridgeError } from '../../main/core/errors';

const HEAD =
  'HTTP/1.0 200 OK\r\nServer: Android Screenshot Socket Server\r\nConnection: close\r\nMax-Age: 0\r\nExpires: 0\r\n' +
  'Cache-Control: no-cache, private\r\nPragma: no-cache\r\nContent-Type: multipart/x-mixed-replace; boundary=--BoundaryString\r\n\r\n';

function jpegOf(n: number): Buffer {
  return Buffer.concat([Buffer.from([0xff, 0xd8]), Buffer.alloc(40 + n, n), Buffer.from([0xff, 0xd9])]);
}

function part(jpeg: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`--BoundaryString\r\nContent-type: image/jpg\r\nContent-Length: ${jpeg.length}\r\n\r\n`),
    jpeg,
    Buffer.from('\r\n\r\n'),
  ]);
}

/** A fake phone end: what the reader writes is kept; `push` feeds it bytes. */
function fakeSocket(): {
  socket: Duplex;
  written: () => string;
  push: (data: Buffer | string) => void;
  end: () => void;
} {
  const chunks: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return {
    socket,
    written: () => Buffer.concat(chunks).toString('latin1'),
    push: (data) => socket.push(typeof data === 'string' ? Buffer.from(data, 'latin1') : data),
    end: () => socket.push(null),
  };
}

async function code(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isBridgeError(error) ? error.code : `not a bridge error: ${String(error)}`;
  }
  return 'resolved';
}

describe('helper MJPEG screen stream', () => {
  test('asks once, reads parts split across chunks byte by byte, gives each new picture', async () => {
    const fake = fakeSocket();
    const stream = new MjpegStream(fake.socket);
    assert.match(fake.written(), /^GET \/ HTTP\/1\.1\r\n/);
    const bytes = Buffer.concat([Buffer.from(HEAD, 'latin1'), part(jpegOf(1))]);
    const first = stream.next(1_000);
    for (let i = 0; i < bytes.length; i++) fake.push(bytes.subarray(i, i + 1));
    assert.deepEqual(await first, jpegOf(1));
    const second = stream.next(1_000);
    fake.push(part(jpegOf(2)));
    assert.deepEqual(await second, jpegOf(2));
    stream.close();
    assert.equal(stream.closed, true);
  });

  test('keeps only the newest picture when several came before anyone asked', async () => {
    const fake = fakeSocket();
    const stream = new MjpegStream(fake.socket);
    fake.push(Buffer.concat([Buffer.from(HEAD, 'latin1'), part(jpegOf(1)), part(jpegOf(2)), part(jpegOf(3))]));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(await stream.next(1_000), jpegOf(3));
    // Nothing newer yet: the next one waits, and times out with a stable code.
    assert.equal(await code(stream.next(20)), 'command_timeout');
    stream.close();
  });

  test('not an MJPEG answer, a part too large, a part without a JPEG, and the end: helper_unavailable', async () => {
    const cases: Array<[string, Buffer]> = [
      ['404', Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')],
      ['json', Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{}')],
      [
        'too large',
        Buffer.concat([
          Buffer.from(HEAD, 'latin1'),
          Buffer.from(`--BoundaryString\r\nContent-Length: ${MAX_PART_BYTES + 1}\r\n\r\n`),
        ]),
      ],
      [
        'not jpeg',
        Buffer.concat([
          Buffer.from(HEAD, 'latin1'),
          Buffer.from('--BoundaryString\r\nContent-Length: 4\r\n\r\nabcd\r\n\r\n'),
        ]),
      ],
    ];
    for (const [name, bytes] of cases) {
      const fake = fakeSocket();
      const stream = new MjpegStream(fake.socket);
      const next = stream.next(1_000);
      fake.push(bytes);
      assert.equal(await code(next), 'helper_unavailable', name);
      assert.equal(stream.closed, true, name);
      assert.equal(await code(stream.next(1_000)), 'helper_unavailable', `${name}: later reads fail at once`);
    }
    const fake = fakeSocket();
    const stream = new MjpegStream(fake.socket);
    const next = stream.next(1_000);
    fake.push(HEAD);
    fake.end();
    assert.equal(await code(next), 'helper_unavailable', 'the stream ended');
  });

  test('a reader that stops waiting is canceled', async () => {
    const fake = fakeSocket();
    const stream = new MjpegStream(fake.socket);
    const abort = new AbortController();
    const next = stream.next(5_000, abort.signal);
    abort.abort();
    assert.equal(await code(next), 'canceled');
    stream.close();
  });

  test('the parsers on their own: head length, a part, more needed', () => {
    assert.equal(parseMjpegHead(Buffer.from(HEAD, 'latin1')), HEAD.length);
    assert.equal(parseMjpegHead(Buffer.from('HTTP/1.0 200 OK\r\n')), 'more');
    const one = part(jpegOf(5));
    const parsed = parseMjpegPart(one);
    assert.equal(parsed.kind, 'part');
    if (parsed.kind === 'part') assert.deepEqual(parsed.jpeg, jpegOf(5));
    assert.equal(parseMjpegPart(one.subarray(0, one.length - 10)).kind, 'more');
  });
});

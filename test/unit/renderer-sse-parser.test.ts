import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SseParser, toAdminEvent } from '../../renderer/src/api/sse-parser';

const STREAM =
  'data: {"type":"state","at":1}\n\n' +
  ': keep-alive\n\n' +
  'event: custom\r\ndata: {"type":"approval",\r\ndata: "approval_id":"ap_1"}\r\n\r\n' +
  'data: {"type":"pairing","auth_session_id":"as_9"}\r\r' +
  'data:no-space\n\n';

function parseAll(chunks: string[]): Array<{ event: string; data: string }> {
  const parser = new SseParser();
  return chunks.flatMap((chunk) => parser.push(chunk));
}

void describe('SSE parser for the admin event stream', () => {
  void test('dispatches on blank lines, joins multi-line data, skips keep-alive comments', () => {
    assert.deepEqual(parseAll([STREAM]), [
      { event: 'message', data: '{"type":"state","at":1}' },
      { event: 'custom', data: '{"type":"approval",\n"approval_id":"ap_1"}' },
      { event: 'message', data: '{"type":"pairing","auth_session_id":"as_9"}' },
      { event: 'message', data: 'no-space' },
    ]);
  });

  void test('an event is not dispatched before its blank line arrives', () => {
    const parser = new SseParser();
    assert.deepEqual(parser.push('data: {"type":"state"}\n'), []);
    assert.deepEqual(parser.push('\n'), [{ event: 'message', data: '{"type":"state"}' }]);
  });

  void test('any split of the byte stream into chunks yields the same events', () => {
    const expected = parseAll([STREAM]);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 12 }), (cuts) => {
        const points = [...new Set(cuts)].sort((a, b) => a - b);
        const chunks: string[] = [];
        let from = 0;
        for (const p of points) {
          chunks.push(STREAM.slice(from, p));
          from = p;
        }
        chunks.push(STREAM.slice(from));
        assert.deepEqual(parseAll(chunks), expected);
      }),
      { numRuns: 300 },
    );
  });

  void test('payloads become admin events; anything unexpected still means "state changed"', () => {
    assert.deepEqual(toAdminEvent({ event: 'message', data: '{"type":"approval","approval_id":"a"}' }), {
      type: 'approval',
      approval_id: 'a',
    });
    assert.deepEqual(toAdminEvent({ event: 'message', data: '{"type":"weird","x":1}' }), { type: 'state', x: 1 });
    assert.deepEqual(toAdminEvent({ event: 'message', data: 'not json' }), { type: 'state' });
    assert.deepEqual(toAdminEvent({ event: 'message', data: '[1,2]' }), { type: 'state' });
  });
});
